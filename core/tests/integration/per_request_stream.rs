//! The per-request era (2026-07-28) on a message stream (the transport stdio uses): a
//! connection that never sends `initialize` is served request by request from each request's
//! `_meta` (discover, results, errors, multi round-trip, cancellation, subscriptions), and a
//! connection that does initialize keeps the handshake era.

use crate::support;

use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use serde_json::{json, Value};
use std::time::Duration;
use support::{error_code, RawPeer};

fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

fn server() -> Server {
    Server::builder("stream-test", "1.0")
        .options(|o| o.enable_prompts = true)
        .tool_raw(
            Tool::new("echo"),
            tool_fn(
                |args, _| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
            ),
        )
        .tool_raw(
            Tool::new("ask"),
            tool_fn(|_, ctx| async move {
                let p = json!({ "message": "?", "requestedSchema": { "type": "object" } });
                let r = ctx.request("elicitation/create", Some(p)).await?;
                Ok(CallToolResult::text(r["action"].as_str().unwrap_or("?")))
            }),
        )
        .tool_raw(
            Tool::new("wait"),
            tool_fn(|_, _| async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(CallToolResult::text("slept"))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn requests_without_a_handshake_are_served_per_request() {
    let mut p = RawPeer::start(&server());
    let r = p
        .call(
            json!(1),
            "server/discover",
            json!({ "_meta": meta(json!({})) }),
        )
        .await;
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["supportedVersions"][0], "2026-07-28");
    assert!(r["capabilities"]["tools"].is_object());

    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "echo", "arguments": { "x": 1 }, "_meta": meta(json!({})) }),
        )
        .await;
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["content"][0]["text"], "{\"x\":1}");

    let r = p
        .call(json!(3), "tools/list", json!({ "_meta": meta(json!({})) }))
        .await;
    assert_eq!(r["ttlMs"], 0);

    // Removed methods, bad _meta, unsupported versions.
    let m = p
        .request(json!(4), "ping", json!({ "_meta": meta(json!({})) }))
        .await;
    assert_eq!(error_code(&m), -32601);
    let m = p.request(json!(5), "server/discover", json!({})).await;
    assert_eq!(error_code(&m), -32602);
    let mut old = meta(json!({}));
    old["io.modelcontextprotocol/protocolVersion"] = json!("1999-01-01");
    let m = p
        .request(json!(6), "server/discover", json!({ "_meta": old }))
        .await;
    assert_eq!(error_code(&m), -32022, "{m}");
}

#[tokio::test]
async fn input_required_and_cancellation_on_a_stream() {
    let mut p = RawPeer::start(&server());
    let caps = json!({ "elicitation": {} });
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "ask", "arguments": {}, "_meta": meta(caps.clone()) }),
        )
        .await;
    assert_eq!(r["resultType"], "input_required", "{r}");
    let key = r["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "ask", "arguments": {}, "_meta": meta(caps),
                    "inputResponses": { key: { "action": "decline" } },
                    "requestState": r["requestState"] }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "decline", "{r}");

    // notifications/cancelled reaches the request's own session: no answer is sent.
    p.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": { "name": "wait", "arguments": {}, "_meta": meta(json!({})) } }))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": { "requestId": 3 } }),
    )
    .await;
    // Uncancelled, the answer would come after 300 ms.
    p.assert_silent(Duration::from_millis(600)).await;
    let r = p
        .call(
            json!(4),
            "server/discover",
            json!({ "_meta": meta(json!({})) }),
        )
        .await;
    assert_eq!(r["resultType"], "complete");
}

#[tokio::test]
async fn subscriptions_listen_on_a_stream() {
    let server = server();
    let mut p = RawPeer::start(&server);
    p.send(
        json!({ "jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
                   "params": { "_meta": meta(json!({})),
                               "notifications": { "toolsListChanged": true } } }),
    )
    .await;
    let ack = p.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    server.add_prompt(
        ferromcp::protocol::Prompt::new("p"),
        ferromcp::server::prompt_fn(|_, _| async {
            Ok(serde_json::from_value(json!({ "messages": [] })).unwrap())
        }),
    );
    server
        .add_tool(
            Tool::new("new"),
            tool_fn(|_, _| async { Ok(CallToolResult::text("new")) }),
        )
        .unwrap();
    let n = p.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed", "{n}");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    // Cancelling the listen request ends the subscription.
    p.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": { "requestId": "sub" } }),
    )
    .await;
    let mut gone = false;
    for _ in 0..50 {
        if server.live_sessions().is_empty() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the subscription outlived its cancellation");
}

#[tokio::test]
async fn an_initialized_connection_keeps_the_handshake_era() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "echo", "arguments": {}, "_meta": meta(json!({})) }),
        )
        .await;
    assert!(r.get("resultType").is_none(), "{r}");
    let m = p.request(json!(3), "ping", json!({})).await;
    assert_eq!(m["result"], json!({}));
    let m = p
        .request(
            json!(4),
            "server/discover",
            json!({ "_meta": meta(json!({})) }),
        )
        .await;
    assert_eq!(error_code(&m), -32601, "{m}");
}

#[tokio::test]
async fn requests_in_flight_stay_bounded_without_a_handshake() {
    // A server whose connections take at most 2 requests at once.
    let server = Server::builder("bounded", "1.0")
        .options(|o| o.session.max_in_flight = 2)
        .tool_raw(
            Tool::new("wait"),
            tool_fn(|_, _| async move {
                tokio::time::sleep(Duration::from_millis(500)).await;
                Ok(CallToolResult::text("slept"))
            }),
        )
        .build()
        .unwrap();
    let mut p = RawPeer::start(&server);
    for id in [1, 2] {
        p.send(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": { "name": "wait", "arguments": {}, "_meta": meta(json!({})) } }))
            .await;
    }
    let m = p
        .request(
            json!(1),
            "tools/call",
            json!({ "name": "wait", "arguments": {}, "_meta": meta(json!({})) }),
        )
        .await;
    assert_eq!(error_code(&m), -32600, "duplicate id: {m}");
    let m = p
        .request(
            json!(3),
            "tools/call",
            json!({ "name": "wait", "arguments": {}, "_meta": meta(json!({})) }),
        )
        .await;
    assert_eq!(error_code(&m), -32603, "over the limit: {m}");
    assert_eq!(
        p.response(json!(2)).await["result"]["content"][0]["text"],
        "slept"
    );
}
