//! A backend reached over the legacy HTTP+SSE transport (2024-11-05): the Rust
//! everything-server's `/sse` and `/messages` endpoints, named in the config with
//! `"type": "sse"` (the legacy transport only), and with a bare URL ending in `/sse` (Streamable
//! HTTP is tried first: the server refuses a POST there with 405, and the proxy falls back).
//! Calls, progress, log notifications and a sampling request go through both ways.

use crate::common;

use common::{client, first_text, http_backend, proxy};
use ferromcp::client::ClientHandlers;
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::CreateMessageResult;
use ferromcp::session::RequestOptions;
use ferromcp_proxy::ProxyConfig;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

#[tokio::test]
async fn a_legacy_sse_backend_serves_calls_progress_logs_and_sampling_through_the_proxy() {
    let (mut backend, url) = http_backend().await;
    let sse = url.replace("/mcp", "/sse");
    let config = ProxyConfig::from_value(&json!({ "mcpServers": {
        "old": { "type": "sse", "url": sse },
        "fallback": { "url": sse },
    } }))
    .unwrap();
    let proxy = proxy(&config).await;
    for b in proxy.backends() {
        assert!(b.is_up(), "{}: {:?}", b.name(), b.last_error());
    }
    let logs = Arc::new(Mutex::new(Vec::<Value>::new()));
    let seen = logs.clone();
    let handlers = ClientHandlers::default()
        .with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/message" {
                seen.lock().unwrap().push(n.params.unwrap_or(Value::Null));
            }
        })))
        .with_sampling(Some(Arc::new(|_p, _ctx| {
            Box::pin(async {
                Ok(serde_json::from_value::<CreateMessageResult>(json!({
                    "role": "assistant", "model": "m", "content": { "type": "text", "text": "over sse" }
                }))
                .unwrap())
            })
        })));
    let c = client(&proxy, handlers).await;
    for name in ["old", "fallback"] {
        let call = |tool: &str| json!({ "name": format!("{name}_{tool}"), "arguments": {} });
        let r = c
            .request(
                "tools/call",
                Some(call("test_simple_text")),
                RequestOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(
            first_text(&r),
            "This is a simple text response for testing.",
            "{name}"
        );
        let progress = Arc::new(Mutex::new(Vec::<f64>::new()));
        let p = progress.clone();
        let opts = RequestOptions::default().with_on_progress(Some(Arc::new(move |v: Value| {
            p.lock().unwrap().push(v["progress"].as_f64().unwrap())
        })));
        c.request("tools/call", Some(call("test_tool_with_progress")), opts)
            .await
            .unwrap();
        assert_eq!(*progress.lock().unwrap(), vec![0.0, 50.0, 100.0], "{name}");
        logs.lock().unwrap().clear();
        c.request(
            "tools/call",
            Some(call("test_tool_with_logging")),
            RequestOptions::default(),
        )
        .await
        .unwrap();
        let data: Vec<Value> = logs
            .lock()
            .unwrap()
            .iter()
            .map(|l| l["data"].clone())
            .collect();
        assert_eq!(
            data,
            vec![
                json!("Tool execution started"),
                json!("Tool processing data"),
                json!("Tool execution completed")
            ],
            "{name}"
        );
        let mut sampling = call("test_sampling");
        sampling["arguments"] = json!({ "prompt": "?" });
        let r = c
            .request("tools/call", Some(sampling), RequestOptions::default())
            .await
            .unwrap();
        assert_eq!(first_text(&r), "LLM response: over sse", "{name}");
    }
    let read = c.read_resource("old+test://static-text").await.unwrap();
    assert_eq!(read.contents[0].uri(), "old+test://static-text");
    proxy.shutdown().await;
    backend.kill().ok();
    backend.wait().ok();
}
