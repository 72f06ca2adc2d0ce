//! Proves cancellation: `notifications/cancelled` fires the handler's `ctx.cancellation()` and
//! suppresses the response; initialize cannot be cancelled; late and unknown-id cancellations are
//! ignored; a client whose call is cancelled (token) or dropped sends `notifications/cancelled`.

use crate::support;

use ferromcp::client::ClientHandlers;
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use serde_json::json;
use std::time::Duration;
use support::RawPeer;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A server with a `slow` tool that reports on `tx` when its cancellation token fires, and a
/// `fast` tool.
fn server(tx: mpsc::UnboundedSender<String>) -> Server {
    Server::builder("cancel", "1.0")
        .tool_raw(
            Tool::new("slow"),
            tool_fn(move |_args, ctx| {
                let tx = tx.clone();
                async move {
                    let _ = tx.send(format!("started {}", ctx.request_id()));
                    tokio::select! {
                        _ = ctx.cancellation().cancelled() => {
                            let _ = tx.send(format!("cancelled {}", ctx.request_id()));
                            // Keep running a little: the response must still be suppressed.
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            Ok(CallToolResult::text("finished after cancel"))
                        }
                        _ = tokio::time::sleep(Duration::from_secs(10)) => Ok(CallToolResult::text("slept")),
                    }
                }
            }),
        )
        .tool_raw(
            Tool::new("fast"),
            tool_fn(|_args, _ctx| async move { Ok(CallToolResult::text("fast")) }),
        )
        .build()
        .unwrap()
}

async fn next(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    support::within(rx.recv()).await.expect("channel closed")
}

#[tokio::test]
async fn cancelled_request_fires_token_and_gets_no_response() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut p = RawPeer::start(&server(tx));
    p.initialize("2025-11-25").await;
    p.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "slow"}}))
        .await;
    assert_eq!(next(&mut rx).await, "started 5");
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "user"}}))
        .await;
    assert_eq!(next(&mut rx).await, "cancelled 5");
    // A following ping is answered, and nothing for id 5 ever arrives.
    let m = p.request(json!("after"), "ping", json!({})).await;
    assert_eq!(m["result"], json!({}));
    p.assert_silent(Duration::from_millis(300)).await;
    // The id is free again: a new request with id 5 is not a duplicate.
    let m = p
        .request(json!(5), "tools/call", json!({"name": "fast"}))
        .await;
    assert_eq!(m["result"]["content"][0]["text"], "fast");
}

#[tokio::test]
async fn initialize_cannot_be_cancelled() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut p = RawPeer::start(&server(tx));
    p.send(json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "init"}}))
        .await;
    let m = p.response(json!("init")).await;
    assert_eq!(m["result"]["protocolVersion"], "2025-11-25", "{m}");
}

#[tokio::test]
async fn late_and_unknown_cancellations_are_ignored() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut p = RawPeer::start(&server(tx));
    p.initialize("2025-11-25").await;
    let m = p
        .request(json!(1), "tools/call", json!({"name": "fast"}))
        .await;
    assert_eq!(m["result"]["content"][0]["text"], "fast");
    // late
    p.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    )
    .await;
    // unknown id, and malformed params
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "nope"}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}))
        .await;
    p.assert_silent(Duration::from_millis(200)).await;
    p.assert_alive().await;
    let m = p
        .request(json!(2), "tools/call", json!({"name": "fast"}))
        .await;
    assert_eq!(m["result"]["content"][0]["text"], "fast");
}

#[tokio::test]
async fn client_cancel_token_sends_cancelled() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let client = support::connect(&server(tx), ClientHandlers::default()).await;
    let token = CancellationToken::new();
    // Drive the call directly: cancel once the tool has started.
    let (res, ()) = tokio::join!(
        client.call_tool_with(
            "slow",
            json!({}),
            RequestOptions::default().with_cancel(Some(token.clone()))
        ),
        async {
            let started = next(&mut rx).await;
            assert!(started.starts_with("started"), "{started}");
            token.cancel();
        }
    );
    let err = res.expect_err("cancelled call must fail");
    assert_eq!(err.code, codes::REQUEST_CANCELLED);
    let got = next(&mut rx).await;
    assert!(
        got.starts_with("cancelled"),
        "server handler must see the cancellation: {got}"
    );
    // The client is still usable.
    assert_eq!(
        client.call_tool("fast", json!({})).await.unwrap().content[0].as_text(),
        Some("fast")
    );
    client.close().await;
}

#[tokio::test]
async fn dropping_a_client_call_sends_cancelled() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let client = support::connect(&server(tx), ClientHandlers::default()).await;
    {
        let call = client.call_tool("slow", json!({}));
        tokio::pin!(call);
        tokio::select! {
            _ = &mut call => panic!("slow tool finished"),
            s = next(&mut rx) => assert!(s.starts_with("started"), "{s}"),
        }
        // `call` is dropped here while in flight.
    }
    let got = next(&mut rx).await;
    assert!(got.starts_with("cancelled"), "{got}");
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn cancellation_of_duplicate_free_id_does_not_touch_other_requests() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut p = RawPeer::start(&server(tx));
    p.initialize("2025-11-25").await;
    p.send(
        json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "slow"}}),
    )
    .await;
    assert_eq!(next(&mut rx).await, "started \"a\"");
    // Cancelling integer 1 must not cancel string "a".
    p.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    )
    .await;
    p.assert_alive().await;
    assert!(rx.try_recv().is_err(), "nothing else may be cancelled");
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}}))
        .await;
    assert_eq!(next(&mut rx).await, "cancelled \"a\"");
    let m = p.request(json!(3), "ping", json!({})).await;
    assert_eq!(m["result"], json!({}));
}

#[tokio::test]
async fn closing_the_client_fails_in_flight_calls_promptly() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let client = support::connect(&server(tx), ClientHandlers::default()).await;
    let (res, ()) = tokio::join!(client.call_tool("slow", json!({})), async {
        let s = next(&mut rx).await;
        assert!(s.starts_with("started"), "{s}");
        client.close().await;
    });
    let err = res.expect_err("a closed client cannot complete the call");
    assert_eq!(err.code, codes::CONNECTION_CLOSED);
    let err = support::within(client.ping()).await.expect_err("closed");
    assert_eq!(err.code, codes::CONNECTION_CLOSED);
}
