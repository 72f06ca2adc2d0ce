//! Proves logging: `logging/setLevel` filters `notifications/message` by severity (warning passes
//! a warning threshold, debug does not), and an invalid level -> -32602.

use crate::support;

use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use serde_json::json;
use std::time::Duration;
use support::{error_code, RawPeer};

fn server() -> Server {
    Server::builder("log", "1")
        .tool_raw(
            Tool::new("emit"),
            tool_fn(|_a, ctx| async move {
                for level in ["debug", "info", "warning", "error"] {
                    ctx.log(level, Some("test"), json!(format!("{level} message")))
                        .await?;
                }
                Ok(CallToolResult::text("emitted"))
            }),
        )
        .build()
        .unwrap()
}

async fn levels_seen(p: &mut RawPeer, id: i64) -> Vec<String> {
    p.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "emit"}}))
        .await;
    let mut seen = Vec::new();
    loop {
        let m = p.recv().await;
        if m.get("id") == Some(&json!(id)) {
            assert_eq!(m["result"]["content"][0]["text"], "emitted");
            return seen;
        }
        assert_eq!(m["method"], "notifications/message", "{m}");
        assert_eq!(m["params"]["logger"], "test");
        let level = m["params"]["level"].as_str().unwrap().to_string();
        assert_eq!(m["params"]["data"], format!("{level} message"));
        seen.push(level);
    }
}

#[tokio::test]
async fn set_level_filters_messages() {
    let mut p = RawPeer::start(&server());
    let init = p.initialize("2025-11-25").await;
    assert!(init["capabilities"]["logging"].is_object());
    p.call(json!(1), "logging/setLevel", json!({"level": "warning"}))
        .await;
    assert_eq!(levels_seen(&mut p, 2).await, ["warning", "error"]);
    p.call(json!(3), "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(
        levels_seen(&mut p, 4).await,
        ["debug", "info", "warning", "error"]
    );
    p.call(json!(5), "logging/setLevel", json!({"level": "emergency"}))
        .await;
    assert!(levels_seen(&mut p, 6).await.is_empty());
}

#[tokio::test]
async fn invalid_level_is_invalid_params() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    for bad in [json!("verbose"), json!("WARNING"), json!(3)] {
        let m = p
            .request(json!(1), "logging/setLevel", json!({"level": bad}))
            .await;
        assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64, "{bad}");
    }
    let m = p.request(json!(2), "logging/setLevel", json!({})).await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    // The threshold was not changed by the failures: a previously valid setting still applies.
    p.call(json!(3), "logging/setLevel", json!({"level": "error"}))
        .await;
    assert_eq!(levels_seen(&mut p, 4).await, ["error"]);
    p.assert_silent(Duration::from_millis(50)).await;
}
