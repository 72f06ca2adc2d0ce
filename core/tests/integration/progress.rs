//! Proves progress: a request with `_meta.progressToken` gets `notifications/progress` with
//! increasing values before its response; non-increasing reports are dropped; nothing is sent
//! after completion; the client's `on_progress` callback sees them; progress resets the request
//! timeout when asked to, bounded by `max_total_timeout`.

use crate::support;

use ferromcp::client::ClientHandlers;
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::RawPeer;

fn server() -> Server {
    Server::builder("progress", "1.0")
        .tool_raw(
            Tool::new("steps"),
            tool_fn(|_args, ctx| async move {
                // 1, 2, then a repeat and a decrease (dropped), then 3.
                for p in [1.0, 2.0, 2.0, 1.5, 3.0] {
                    ctx.progress(p, Some(3.0), Some("working")).await?;
                }
                Ok(CallToolResult::text("done"))
            }),
        )
        .tool_raw(
            Tool::new("leaky"),
            tool_fn(|_args, ctx| async move {
                ctx.progress(1.0, None, None).await?;
                let c = ctx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let _ = c.progress(2.0, None, Some("after completion")).await;
                    let _ = c
                        .notify(
                            "notifications/message",
                            Some(json!({"level": "info", "data": "late"})),
                        )
                        .await;
                });
                Ok(CallToolResult::text("returned"))
            }),
        )
        .tool_raw(
            Tool::new("ticker"),
            tool_fn(|_args, ctx| async move {
                // Progress every 100 ms for 1 s.
                for i in 1..=10 {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    ctx.progress(i as f64, Some(10.0), None).await?;
                }
                Ok(CallToolResult::text("ticked"))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn progress_is_increasing_and_precedes_response() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    p.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "steps", "_meta": {"progressToken": "tok"}}}))
        .await;
    let mut seen = Vec::new();
    loop {
        let m = p.recv().await;
        if m.get("id") == Some(&json!(1)) {
            assert_eq!(m["result"]["content"][0]["text"], "done");
            break;
        }
        assert_eq!(m["method"], "notifications/progress", "{m}");
        assert_eq!(m["params"]["progressToken"], "tok");
        assert_eq!(m["params"]["total"], 3.0);
        seen.push(m["params"]["progress"].as_f64().unwrap());
    }
    assert_eq!(
        seen,
        vec![1.0, 2.0, 3.0],
        "non-increasing reports must be dropped"
    );
    // Integer tokens work too and come back as integers.
    p.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "steps", "_meta": {"progressToken": 77}}}))
        .await;
    let m = p.recv().await;
    assert_eq!(m["params"]["progressToken"], json!(77));
    p.response(json!(2)).await;
}

#[tokio::test]
async fn no_progress_without_token() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    p.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "steps"}}))
        .await;
    let m = p.recv().await;
    assert_eq!(m["id"], 1, "the response must be the only message: {m}");
}

#[tokio::test]
async fn nothing_after_completion() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    p.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "leaky", "_meta": {"progressToken": "t"}}}))
        .await;
    let m = p.recv().await;
    assert_eq!(m["params"]["progress"], 1.0);
    let m = p.recv().await;
    assert_eq!(m["id"], 1);
    p.assert_silent(Duration::from_millis(300)).await;
}

#[tokio::test]
async fn client_on_progress_callback_receives_reports() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let s = seen.clone();
    let opts = RequestOptions::default()
        .with_on_progress(Some(Arc::new(move |p| s.lock().unwrap().push(p))));
    let r = support::within(client.call_tool_with("steps", json!({}), opts))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("done"));
    let seen = seen.lock().unwrap().clone();
    let values: Vec<f64> = seen
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(values, vec![1.0, 2.0, 3.0]);
    assert_eq!(seen[0]["message"], "working");
    client.close().await;
}

#[tokio::test]
async fn progress_resets_timeout_only_when_asked() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let with_reset = RequestOptions::default()
        .with_timeout(Some(Duration::from_millis(300)))
        .with_reset_timeout_on_progress(true)
        .with_on_progress(Some(Arc::new(|_| {})));
    let r = support::within(client.call_tool_with("ticker", json!({}), with_reset)).await;
    assert_eq!(
        r.expect("reset keeps the request alive").content[0].as_text(),
        Some("ticked")
    );

    let without = RequestOptions::default()
        .with_timeout(Some(Duration::from_millis(300)))
        .with_reset_timeout_on_progress(false)
        .with_on_progress(Some(Arc::new(|_| {})));
    let err = support::within(client.call_tool_with("ticker", json!({}), without))
        .await
        .expect_err("must time out");
    assert_eq!(err.code, codes::REQUEST_TIMEOUT);

    let capped = RequestOptions::default()
        .with_timeout(Some(Duration::from_millis(300)))
        .with_reset_timeout_on_progress(true)
        .with_max_total_timeout(Some(Duration::from_millis(500)))
        .with_on_progress(Some(Arc::new(|_| {})));
    let start = std::time::Instant::now();
    let err = support::within(client.call_tool_with("ticker", json!({}), capped))
        .await
        .expect_err("max_total_timeout must cap the resets");
    assert_eq!(err.code, codes::REQUEST_TIMEOUT);
    let took = start.elapsed();
    assert!(
        took < Duration::from_millis(900),
        "capped at ~500 ms, took {took:?}"
    );
    client.close().await;
}

#[tokio::test]
async fn reset_on_progress_works_without_a_progress_callback() {
    // Asking for the timeout to be reset by progress must make the request carry a progress
    // token even when the caller does not want the reports themselves.
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let opts = RequestOptions::default()
        .with_timeout(Some(Duration::from_millis(300)))
        .with_reset_timeout_on_progress(true);
    let r = support::within(client.call_tool_with("ticker", json!({}), opts)).await;
    assert_eq!(
        r.expect("progress must keep the request alive").content[0].as_text(),
        Some("ticked")
    );
    client.close().await;
}
