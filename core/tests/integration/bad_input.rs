//! Proves robustness against bad input: garbage, invalid UTF-8, wrong types, unknown methods,
//! responses to unknown ids, duplicate in-flight ids, notifications carrying ids, oversized
//! messages, requests before initialize, and a peer that dies mid-request. After each bad input
//! the same session still answers a normal request.

use crate::support;

use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use serde_json::{json, Value};
use std::time::Duration;
use support::{error_code, RawPeer};

fn server() -> Server {
    Server::builder("bad", "1")
        .tool_raw(
            Tool::new("slow"),
            tool_fn(|_a, _c| async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(CallToolResult::text("slow"))
            }),
        )
        .tool_raw(
            Tool::new("echo"),
            tool_fn(|a, _c| async move { Ok(CallToolResult::text(Value::Object(a).to_string())) }),
        )
        .options(|o| {
            o.session.max_message_size = 1024;
            o.session.drain_timeout = Duration::from_millis(300);
        })
        .build()
        .unwrap()
}

async fn ready() -> RawPeer {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    p
}

async fn works(p: &mut RawPeer) {
    p.assert_alive().await;
    let m = p
        .request(
            json!("ok"),
            "tools/call",
            json!({"name": "echo", "arguments": {"k": 1}}),
        )
        .await;
    assert_eq!(m["result"]["content"][0]["text"], r#"{"k":1}"#, "{m}");
}

#[tokio::test]
async fn garbage_lines() {
    let mut p = ready().await;
    for g in [&b"hello"[..], b"{", b"}{", b"nul\x00l"] {
        p.send_raw(g).await;
        let m = p.recv().await;
        assert_eq!(error_code(&m), codes::PARSE_ERROR as i64);
        assert!(m.get("id").is_none(), "{m}");
        works(&mut p).await;
    }
    // A request cut short after its id: the id was read, so the error carries it.
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"")
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::PARSE_ERROR as i64);
    assert_eq!(m["id"], 1, "{m}");
    works(&mut p).await;
}

#[tokio::test]
async fn invalid_utf8() {
    let mut p = ready().await;
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\x28\"}")
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::PARSE_ERROR as i64);
    assert_eq!(m["id"], 1, "the id before the bad string is kept: {m}");
    works(&mut p).await;
}

#[tokio::test]
async fn wrong_types() {
    let mut p = ready().await;
    for bad in [
        json!({"jsonrpc": "2.0", "id": 1, "method": 5}),
        json!({"jsonrpc": 2, "id": 1, "method": "ping"}),
        json!({"id": 1, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": "x"}),
        json!({"jsonrpc": "2.0", "id": 1}),
        json!({"jsonrpc": "2.0", "id": [1], "method": "ping"}),
        json!(17),
    ] {
        p.send(bad.clone()).await;
        let m = p.recv().await;
        assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64, "{bad}: {m}");
        works(&mut p).await;
    }
    // wrong param types inside a valid envelope -> -32602
    let m = p.request(json!(2), "tools/call", json!({"name": 5})).await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    works(&mut p).await;
}

#[tokio::test]
async fn unknown_methods() {
    let mut p = ready().await;
    let m = p.request(json!(1), "no/such/method", json!({})).await;
    assert_eq!(error_code(&m), codes::METHOD_NOT_FOUND as i64);
    let m = p.request(json!(2), "example.com/nothing", json!({})).await;
    assert_eq!(error_code(&m), codes::METHOD_NOT_FOUND as i64);
    // unknown notifications are silently ignored
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}))
        .await;
    p.assert_silent(Duration::from_millis(100)).await;
    works(&mut p).await;
}

#[tokio::test]
async fn responses_to_unknown_ids_are_ignored() {
    let mut p = ready().await;
    p.send(json!({"jsonrpc": "2.0", "id": 999, "result": {}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -1, "message": "m"}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "m"}}))
        .await;
    p.assert_silent(Duration::from_millis(200)).await;
    works(&mut p).await;
}

#[tokio::test]
async fn malformed_responses_are_never_answered() {
    // Regression: answering `{"result":{}}` (no id) with an error made a peer that answers every
    // message (as the conformance mock server does over HTTP) ping-pong with us forever.
    let mut p = ready().await;
    p.send(json!({"jsonrpc": "2.0", "result": {}})).await;
    p.send(json!({"jsonrpc": "2.0", "id": 1.5, "result": {}}))
        .await;
    p.send(json!({"jsonrpc": "1.0", "id": 5, "result": {}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "id": 6, "error": "not an object"}))
        .await;
    p.send_raw(br#"{"jsonrpc":"2.0","result":{},"error":{"code":1,"message":"m"}}"#)
        .await;
    p.assert_silent(Duration::from_millis(300)).await;
    works(&mut p).await;
}

#[tokio::test]
async fn duplicate_in_flight_id() {
    let mut p = ready().await;
    p.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow"}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo"}}))
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64, "{m}");
    assert_eq!(m["id"], 7);
    works(&mut p).await;
}

#[tokio::test]
async fn notifications_with_ids() {
    let mut p = ready().await;
    let m = p
        .request(json!(3), "notifications/initialized", json!({}))
        .await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
    let m = p
        .request(json!(4), "notifications/cancelled", json!({"requestId": 1}))
        .await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
    works(&mut p).await;
}

#[tokio::test]
async fn oversized_message_then_normal() {
    let mut p = ready().await;
    let big = "x".repeat(4000);
    p.send(json!({"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": {"name": "echo", "arguments": {"s": big}}}))
        .await;
    let m = p.recv().await;
    assert!(
        m.get("error").is_some(),
        "oversized message must be refused: {}",
        &m.to_string()[..200.min(m.to_string().len())]
    );
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
    works(&mut p).await;
}

#[tokio::test]
async fn requests_before_initialize() {
    let mut p = RawPeer::start(&server());
    for (i, m) in [
        "tools/list",
        "tools/call",
        "resources/list",
        "logging/setLevel",
    ]
    .iter()
    .enumerate()
    {
        let r = p.request(json!(i), m, json!({})).await;
        assert_eq!(error_code(&r), codes::INVALID_REQUEST as i64, "{m}");
    }
    p.send_raw(b"junk").await;
    assert_eq!(error_code(&p.recv().await), codes::PARSE_ERROR as i64);
    p.initialize("2025-11-25").await;
    works(&mut p).await;
}

#[tokio::test]
async fn peer_dies_mid_request() {
    let mut p = ready().await;
    p.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}))
        .await;
    p.assert_alive().await;
    let RawPeer {
        reader,
        writer,
        task,
        ..
    } = p;
    drop(writer);
    drop(reader);
    let r = tokio::time::timeout(Duration::from_secs(3), task)
        .await
        .expect("serve() must finish after the peer hung up");
    assert!(r.is_ok(), "serve() must not panic: {r:?}");
}
