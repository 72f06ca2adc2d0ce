//! Per-client-session backends (`"sessions": "per-client"`): each client session of the proxy
//! gets its own backend session, so a backend that keeps what it learnt of its client (here:
//! the roots, asked once per session) sees each client's own; without it one backend session
//! is shared by every client. A client's backend session closes with the client's session.

use crate::common;

use common::{first_text, proxy};
use ferromcp::client::{Client, ClientHandlers};
use ferromcp::protocol::Root;
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp_proxy::{Proxy, ProxyConfig};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A backend whose `roots` tool asks its client for the roots once per backend session and
/// then answers from what it remembered.
async fn remembering_backend() -> (HttpServerHandle, String) {
    let remembered: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let tool =
        serde_json::from_value(json!({ "name": "roots", "inputSchema": { "type": "object" } }))
            .unwrap();
    let server = Server::builder_with(ServerOptions::new("remembering", "1"))
        .tool_raw(
            tool,
            tool_fn(move |_, ctx| {
                let remembered = remembered.clone();
                async move {
                    let session = ctx.session().session_id().unwrap_or("").to_string();
                    let known = remembered.lock().unwrap().get(&session).cloned();
                    let text = match known {
                        Some(t) => t,
                        None => {
                            let r = ctx.request("roots/list", None).await?;
                            let uris: Vec<&str> = r["roots"]
                                .as_array()
                                .map(|a| a.iter().filter_map(|x| x["uri"].as_str()).collect())
                                .unwrap_or_default();
                            let t = uris.join(",");
                            remembered.lock().unwrap().insert(session, t.clone());
                            t
                        }
                    };
                    Ok(serde_json::from_value(
                        json!({ "content": [{ "type": "text", "text": text }] }),
                    )
                    .unwrap())
                }
            }),
        )
        .build()
        .unwrap();
    let handle = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = format!("http://{}/mcp", handle.local_addr());
    (handle, url)
}

fn with_root(uri: &'static str) -> ClientHandlers {
    ClientHandlers::default().with_roots(Some(Arc::new(move |_ctx| {
        Box::pin(async move {
            Ok(vec![
                serde_json::from_value::<Root>(json!({ "uri": uri })).unwrap()
            ])
        })
    })))
}

async fn roots(c: &Client) -> String {
    let r: Value = c
        .request(
            "tools/call",
            Some(json!({ "name": "roots", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    first_text(&r)
}

async fn proxy_with(url: &str, sessions: &str) -> Proxy {
    let config = ProxyConfig::from_value(
        &json!({ "mcpServers": { "b": { "url": url, "sessions": sessions } } }),
    )
    .unwrap();
    proxy(&config).await
}

#[tokio::test]
async fn two_clients_with_different_roots_each_see_their_own_through_per_client_sessions() {
    let (backend, url) = remembering_backend().await;
    let proxy = proxy_with(&url, "per-client").await;
    let a = common::client(&proxy, with_root("file:///a")).await;
    let b = common::client(&proxy, with_root("file:///b")).await;
    assert_eq!(roots(&a).await, "file:///a");
    assert_eq!(roots(&b).await, "file:///b");
    assert_eq!(roots(&a).await, "file:///a");
    assert_eq!(proxy.backends()[0].client_sessions().await, 2);
    // A client's backend session closes with its session at the proxy.
    a.close().await;
    let mut left = 2;
    for _ in 0..100 {
        left = proxy.backends()[0].client_sessions().await;
        if left == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        left, 1,
        "the closed client's backend session is still there"
    );
    assert_eq!(roots(&b).await, "file:///b");
    proxy.shutdown().await;
    backend.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_shared_backend_session_serves_every_client() {
    let (backend, url) = remembering_backend().await;
    let proxy = proxy_with(&url, "shared").await;
    let a = common::client(&proxy, with_root("file:///a")).await;
    let b = common::client(&proxy, with_root("file:///b")).await;
    assert_eq!(roots(&a).await, "file:///a");
    // One backend session: it remembers the first client's roots for the second too.
    assert_eq!(roots(&b).await, "file:///a");
    assert_eq!(proxy.backends()[0].client_sessions().await, 0);
    proxy.shutdown().await;
    backend.shutdown().await.unwrap();
}
