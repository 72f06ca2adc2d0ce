//! What a peer can make a session keep is bounded (`PeerLimits`): an oversized `clientInfo` or
//! `capabilities` at `initialize`, and subscriptions past the count or byte limit, are refused
//! with -32602 naming the limit, and the session goes on.

use crate::support;

use ferromcp::protocol::{Resource, ResourceContents, TextResourceContents};
use ferromcp::server::{resource_fn, Server};
use serde_json::{json, Value};
use support::{error_code, RawPeer};

fn server() -> Server {
    Server::builder("limits", "1")
        .resource(
            Resource::new("mem://text", "text"),
            resource_fn(|r, _c| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    r.uri, "hello",
                ))])
            }),
        )
        .build()
        .unwrap()
}

fn initialize(client_info: Value, capabilities: Value) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": client_info})
}

#[tokio::test]
async fn an_oversized_client_info_is_refused_and_the_session_can_initialize_again() {
    let mut p = RawPeer::start(&server());
    let big = json!({"name": "x".repeat(4 * 1024 * 1024 - 200), "version": "1"});
    let m = p
        .request(json!(1), "initialize", initialize(big, json!({})))
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
    let message = m["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("clientInfo") && message.contains("16384"),
        "{message}"
    );
    assert_eq!(m["error"]["data"]["limitBytes"], 16384);
    // Nothing was kept: a well-formed initialize on the same connection succeeds.
    let r = p.initialize("2025-11-25").await;
    assert_eq!(r["serverInfo"]["name"], "limits");
}

#[tokio::test]
async fn oversized_capabilities_are_refused() {
    let mut p = RawPeer::start(&server());
    let caps = json!({"experimental": {"pad": "y".repeat(20_000)}});
    let m = p
        .request(
            json!(1),
            "initialize",
            initialize(json!({"name": "c", "version": "1"}), caps),
        )
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("capabilities"),
        "{m}"
    );
}

#[tokio::test]
async fn a_client_info_at_the_limit_is_accepted() {
    let mut p = RawPeer::start(&server());
    // {"name":"…","version":"1"} is 25 bytes around the name.
    let info = json!({"name": "n".repeat(16384 - 25), "version": "1"});
    assert_eq!(info.to_string().len(), 16384);
    let m = p
        .request(json!(1), "initialize", initialize(info, json!({})))
        .await;
    assert!(m.get("result").is_some(), "{}", &m.to_string()[..200]);
}

#[tokio::test]
async fn subscriptions_past_the_count_limit_are_refused_until_one_is_dropped() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    for i in 0..256 {
        p.call(
            json!(i),
            "resources/subscribe",
            json!({"uri": format!("mem://r/{i}")}),
        )
        .await;
    }
    // Subscribing again to a URI already held costs nothing.
    p.call(
        json!("again"),
        "resources/subscribe",
        json!({"uri": "mem://r/0"}),
    )
    .await;
    let m = p
        .request(
            json!("over"),
            "resources/subscribe",
            json!({"uri": "mem://r/256"}),
        )
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
    assert_eq!(m["error"]["data"]["limit"], 256, "{m}");
    p.call(
        json!("un"),
        "resources/unsubscribe",
        json!({"uri": "mem://r/0"}),
    )
    .await;
    p.call(
        json!("now"),
        "resources/subscribe",
        json!({"uri": "mem://r/256"}),
    )
    .await;
}

#[tokio::test]
async fn subscribed_uris_past_the_byte_limit_are_refused() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let long = |i: usize| format!("mem://{i}/{}", "u".repeat(30_000));
    p.call(json!(1), "resources/subscribe", json!({"uri": long(1)}))
        .await;
    p.call(json!(2), "resources/subscribe", json!({"uri": long(2)}))
        .await;
    let m = p
        .request(json!(3), "resources/subscribe", json!({"uri": long(3)}))
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
    assert_eq!(m["error"]["data"]["limitBytes"], 65536, "{}", m["error"]);
    p.assert_alive().await;
}
