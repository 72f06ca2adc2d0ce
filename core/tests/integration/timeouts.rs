//! Proves request timeouts: a client request that outlives its timeout fails locally with
//! `codes::REQUEST_TIMEOUT`, and the server is told with `notifications/cancelled` for that id
//! (its handler observes the cancellation).

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, ReadStatus};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::mpsc;

#[tokio::test]
async fn timeout_fails_locally_and_cancels_on_the_server() {
    let (tx, mut rx) = mpsc::unbounded_channel::<&'static str>();
    let server = Server::builder("t", "1")
        .tool_raw(
            Tool::new("sleepy"),
            tool_fn(move |_a, ctx| {
                let tx = tx.clone();
                async move {
                    tokio::select! {
                        _ = ctx.cancellation().cancelled() => { let _ = tx.send("cancelled"); }
                        _ = tokio::time::sleep(Duration::from_secs(10)) => { let _ = tx.send("finished"); }
                    }
                    Ok(CallToolResult::text("late"))
                }
            }),
        )
        .build()
        .unwrap();
    let client = support::connect(&server, ClientHandlers::default()).await;
    let start = std::time::Instant::now();
    let err = support::within(client.call_tool_with(
        "sleepy",
        json!({}),
        RequestOptions::default().with_timeout(Some(Duration::from_millis(200))),
    ))
    .await
    .expect_err("must time out");
    assert_eq!(err.code, codes::REQUEST_TIMEOUT);
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(support::within(rx.recv()).await, Some("cancelled"));
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn session_default_timeout_applies_and_server_sees_cancelled_id() {
    // A raw fake server that never answers tools/call and records what the client sends.
    let ((r_c, w_c), (mut r_s, mut w_s)) = memory_pair(16);
    let fake = tokio::spawn(async move {
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        let mut call_id = Value::Null;
        while let Ok(ReadStatus::Frame) = r_s.read_frame(&mut buf).await {
            let m: Value = serde_json::from_slice(&buf).unwrap();
            match m["method"].as_str() {
                Some("initialize") => {
                    let r = json!({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "0"}}});
                    w_s.write_frame(r.to_string().as_bytes()).await.unwrap();
                    w_s.flush().await.unwrap();
                }
                Some("tools/call") => call_id = m["id"].clone(),
                Some("notifications/cancelled") => {
                    seen.push(m["params"]["requestId"].clone());
                    return (call_id, seen);
                }
                _ => {}
            }
        }
        (call_id, seen)
    });
    let mut opts = ClientOptions::new("c", "0");
    opts.session.request_timeout = Some(Duration::from_millis(150));
    let client = support::within(Client::connect(opts, ClientHandlers::default(), r_c, w_c))
        .await
        .unwrap();
    let err = support::within(client.call_tool("x", json!({})))
        .await
        .expect_err("timeout");
    assert_eq!(err.code, codes::REQUEST_TIMEOUT);
    let (call_id, seen) = support::within(fake).await.unwrap();
    assert!(!call_id.is_null());
    assert_eq!(
        seen,
        vec![call_id],
        "cancelled must name the timed-out request"
    );
}
