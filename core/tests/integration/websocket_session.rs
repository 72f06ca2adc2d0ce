//! Proves whole MCP sessions over WebSocket: a `Server` serving every connection accepted from a
//! `WebSocketListener`, real `Client`s connected with `websocket::connect` listing tools and
//! calling them with progress, concurrent sessions, and an oversized message (the offending
//! session ends promptly with a connection-closed error; the others and new ones are unharmed).
#![cfg(feature = "websocket")]

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use ferromcp::transport::websocket::{self, WebSocketListener, WebSocketOptions};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::within;

fn server() -> Server {
    Server::builder("ws-server", "1")
        .tool_raw(
            Tool::new("echo"),
            tool_fn(|args, _ctx| async move {
                Ok(CallToolResult::text(
                    args.get("text").and_then(Value::as_str).unwrap_or_default(),
                ))
            }),
        )
        .tool_raw(
            Tool::new("count"),
            tool_fn(|args, ctx| async move {
                let n = args.get("n").and_then(Value::as_u64).unwrap_or(3);
                for i in 1..=n {
                    ctx.progress(i as f64, Some(n as f64), Some(&format!("step {i}")))
                        .await?;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Ok(CallToolResult::text(format!("counted to {n}")))
            }),
        )
        .build()
        .unwrap()
}

/// Serves `server` on a loopback WebSocket listener; returns the `ws://` URL.
async fn serve(server: Server, options: WebSocketOptions) -> String {
    let mut listener = WebSocketListener::bind_with("127.0.0.1:0", options)
        .await
        .unwrap();
    let url = format!("ws://{}/mcp", listener.local_addr());
    tokio::spawn(async move {
        while let Ok((reader, writer, _addr)) = listener.accept().await {
            let server = server.clone();
            tokio::spawn(async move { server.serve(reader, writer).await });
        }
    });
    url
}

async fn connect(url: &str) -> Client {
    let (reader, writer) = within(websocket::connect(url, &[])).await.unwrap();
    within(Client::connect(
        ClientOptions::new("ws-client", "1"),
        ClientHandlers::default(),
        reader,
        writer,
    ))
    .await
    .unwrap()
}

#[tokio::test]
async fn sessions_over_websocket() {
    let url = serve(server(), WebSocketOptions::default()).await;
    let a = connect(&url).await;
    let b = connect(&url).await;
    assert_eq!(a.server_info().unwrap()["name"], "ws-server");
    let names: Vec<String> = within(a.list_all_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["echo", "count"]);

    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    let opts = RequestOptions::default()
        .with_on_progress(Some(Arc::new(move |p| sink.lock().unwrap().push(p))));
    // Both sessions at once.
    let (r1, r2) = within(async {
        tokio::join!(
            a.call_tool_with("count", json!({"n": 4}), opts),
            b.call_tool("echo", json!({"text": "über ws"}))
        )
    })
    .await;
    assert_eq!(r1.unwrap().content[0].as_text(), Some("counted to 4"));
    assert_eq!(r2.unwrap().content[0].as_text(), Some("über ws"));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen[3]["progress"], json!(4.0));
    assert_eq!(seen[3]["total"], json!(4.0));
    assert_eq!(seen[0]["message"], "step 1");

    within(a.ping()).await.unwrap();
    a.close().await;
    // b is unaffected by a closing.
    within(b.ping()).await.unwrap();
    b.close().await;
}

#[tokio::test]
async fn oversized_message_ends_only_that_session() {
    let url = serve(
        server(),
        WebSocketOptions::default().max_message_size(16 * 1024),
    )
    .await;
    let victim = connect(&url).await;
    let bystander = connect(&url).await;
    // Fits: fine.
    let ok = within(victim.call_tool("echo", json!({"text": "x".repeat(8 * 1024)})))
        .await
        .unwrap();
    assert_eq!(ok.content[0].as_text().unwrap().len(), 8 * 1024);

    let started = Instant::now();
    let err = within(victim.call_tool("echo", json!({"text": "x".repeat(64 * 1024)})))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "failed only after {:?}",
        started.elapsed()
    );
    assert_eq!(err.code, codes::CONNECTION_CLOSED, "{err:?}");
    // The session is over ...
    assert!(within(victim.ping()).await.is_err());
    victim.close().await;
    // ... the other one is not, and new sessions are welcome.
    within(bystander.ping()).await.unwrap();
    let fresh = connect(&url).await;
    let r = within(fresh.call_tool("echo", json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("hi"));
    fresh.close().await;
    bystander.close().await;
}
