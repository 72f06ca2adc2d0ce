//! Proves the lifecycle rules: version negotiation for every revision (unknown -> latest), only
//! ping before initialize, a second initialize is rejected, malformed initialize params give
//! -32602, a client disconnects from a server answering a version it cannot speak, and batches are
//! accepted only under 2025-03-26.

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, ReadStatus};
use ferromcp::{codes, ProtocolVersion};
use serde_json::{json, Value};
use support::{error_code, RawPeer};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}

fn server() -> Server {
    Server::builder("lifecycle", "1.0")
        .tool("echo", "echo", |a: Echo, _ctx| async move { a.text })
        .build()
        .unwrap()
}

#[tokio::test]
async fn negotiates_each_supported_revision() {
    for v in ProtocolVersion::ALL {
        let mut p = RawPeer::start(&server());
        let r = p.initialize(v.as_str()).await;
        assert_eq!(r["protocolVersion"], v.as_str());
        assert_eq!(r["serverInfo"]["name"], "lifecycle");
        assert!(r["capabilities"]["tools"].is_object());
        p.assert_alive().await;
        let tools = p.call(json!(1), "tools/list", json!({})).await;
        assert_eq!(tools["tools"][0]["name"], "echo");
    }
}

#[tokio::test]
async fn unknown_version_gets_latest() {
    let mut p = RawPeer::start(&server());
    let r = p.initialize("2023-01-01").await;
    assert_eq!(r["protocolVersion"], ProtocolVersion::LATEST.as_str());
}

#[tokio::test]
async fn only_ping_before_initialize() {
    let mut p = RawPeer::start(&server());
    let m = p.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
    let m = p.request(json!(2), "ping", json!({})).await;
    assert_eq!(m["result"], json!({}));
    // and the session can still be initialized afterwards
    p.initialize("2025-11-25").await;
    p.call(json!(3), "tools/list", json!({})).await;
}

#[tokio::test]
async fn second_initialize_is_rejected() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-06-18").await;
    let m = p
        .request(
            json!(9),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
        )
        .await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
    // the first negotiation stands
    assert_eq!(
        p.call(json!(10), "tools/list", json!({})).await["tools"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn malformed_initialize_params_are_invalid_params() {
    let full = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}});
    for missing in ["protocolVersion", "capabilities", "clientInfo"] {
        let mut p = RawPeer::start(&server());
        let mut params = full.clone();
        params.as_object_mut().unwrap().remove(missing);
        let m = p.request(json!(1), "initialize", params).await;
        assert_eq!(
            error_code(&m),
            codes::INVALID_PARAMS as i64,
            "missing {missing}: {m}"
        );
        // the session is not burnt: a correct initialize still works
        let r = p.initialize("2025-11-25").await;
        assert_eq!(r["protocolVersion"], "2025-11-25");
    }
    let mut p = RawPeer::start(&server());
    let m = p
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": 20251125, "capabilities": {}, "clientInfo": {}}),
        )
        .await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
}

#[tokio::test]
async fn client_disconnects_from_server_with_unknown_version() {
    let ((r_c, w_c), (mut r_s, mut w_s)) = memory_pair(16);
    let fake = tokio::spawn(async move {
        let mut buf = Vec::new();
        assert_eq!(r_s.read_frame(&mut buf).await.unwrap(), ReadStatus::Frame);
        let req: Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(req["method"], "initialize");
        let resp = json!({"jsonrpc": "2.0", "id": req["id"], "result": {
            "protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "old", "version": "0"}}});
        w_s.write_frame(resp.to_string().as_bytes()).await.unwrap();
        w_s.flush().await.unwrap();
        // The client must hang up without sending `initialized`.
        let mut rest = Vec::new();
        while let ReadStatus::Frame = r_s.read_frame(&mut buf).await.unwrap() {
            rest.push(serde_json::from_slice::<Value>(&buf).unwrap());
        }
        rest
    });
    let r = support::within(Client::connect(
        ClientOptions::new("c", "0"),
        ClientHandlers::default(),
        r_c,
        w_c,
    ))
    .await;
    let err = r.expect_err("connect must fail");
    assert_eq!(err.code, codes::UNSUPPORTED_VERSION);
    assert!(err.message.contains("1999-01-01"), "{}", err.message);
    let rest = support::within(fake).await.unwrap();
    assert!(
        rest.iter()
            .all(|m| m["method"] != "notifications/initialized"),
        "client must not complete the handshake: {rest:?}"
    );
}

fn call(id: i64, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}})
}

#[tokio::test]
async fn batches_accepted_only_in_2025_03_26() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-03-26").await;
    p.send(json!([call(1, "a"), call(2, "b")])).await;
    let m = p.recv().await;
    let arr = m
        .as_array()
        .unwrap_or_else(|| panic!("expected an array answer, got {m}"));
    assert_eq!(arr.len(), 2);
    let mut ids: Vec<i64> = arr.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 2]);
    for r in arr {
        let want = if r["id"] == 1 { "a" } else { "b" };
        assert_eq!(r["result"]["content"][0]["text"], want);
    }

    let mut p = RawPeer::start(&server());
    p.initialize("2025-06-18").await;
    p.send(json!([call(1, "a"), call(2, "b")])).await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
    p.assert_silent(std::time::Duration::from_millis(200)).await;
    p.assert_alive().await;

    let mut p = RawPeer::start(&server());
    p.send(json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64);
}

#[tokio::test]
async fn batch_with_bad_element_and_notification_only_batch() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-03-26").await;
    p.send(json!([call(1, "a"), {"jsonrpc": "2.0", "id": 2, "method": 7}, {"jsonrpc": "2.0", "method": "notifications/whatever"}]))
        .await;
    let m = p.recv().await;
    let arr = m
        .as_array()
        .unwrap_or_else(|| panic!("expected an array answer, got {m}"));
    assert_eq!(
        arr.len(),
        2,
        "one answer per request, none for the notification: {m}"
    );
    let ok = arr.iter().find(|r| r["id"] == 1).expect("answer for 1");
    assert_eq!(ok["result"]["content"][0]["text"], "a");
    let bad = arr.iter().find(|r| r["id"] == 2).expect("answer for 2");
    assert_eq!(error_code(bad), codes::INVALID_REQUEST as i64);
    // A batch of notifications only gets no answer at all.
    p.send(json!([{"jsonrpc": "2.0", "method": "notifications/a"}, {"jsonrpc": "2.0", "method": "notifications/b"}]))
        .await;
    p.assert_silent(std::time::Duration::from_millis(200)).await;
    p.assert_alive().await;
}
