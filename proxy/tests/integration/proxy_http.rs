//! The proxy in front of the Rust everything-server over Streamable HTTP: calls, progress and
//! a sampling request from the backend go through, as with a stdio backend.

use crate::common;

use common::{client, first_text, http_backend, proxy};
use ferromcp::client::ClientHandlers;
use ferromcp::protocol::CreateMessageResult;
use ferromcp::session::RequestOptions;
use ferromcp_proxy::ProxyConfig;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

#[tokio::test]
async fn an_http_backend_serves_calls_progress_and_sampling_through_the_proxy() {
    let (mut backend, url) = http_backend().await;
    let config =
        ProxyConfig::from_value(&json!({ "mcpServers": { "web": { "url": url } } })).unwrap();
    let proxy = proxy(&config).await;
    let handlers = ClientHandlers::default()
        .with_sampling(Some(Arc::new(|_p, _ctx| {
            Box::pin(async {
                Ok(serde_json::from_value::<CreateMessageResult>(json!({
                    "role": "assistant", "model": "m", "content": { "type": "text", "text": "over http" }
                }))
                .unwrap())
            })
        })));
    let c = client(&proxy, handlers).await;
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_simple_text", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    let seen = Arc::new(Mutex::new(Vec::<f64>::new()));
    let s = seen.clone();
    let opts = RequestOptions::default().with_on_progress(Some(Arc::new(move |v: Value| {
        s.lock().unwrap().push(v["progress"].as_f64().unwrap())
    })));
    c.request(
        "tools/call",
        Some(json!({ "name": "test_tool_with_progress", "arguments": {} })),
        opts,
    )
    .await
    .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![0.0, 50.0, 100.0]);
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_sampling", "arguments": { "prompt": "?" } })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "LLM response: over http");
    proxy.shutdown().await;
    backend.kill().ok();
    backend.wait().ok();
}
