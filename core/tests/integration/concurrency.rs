//! Proves concurrent request handling: a slow tool does not delay a fast one sent after it, and
//! 100 concurrent calls are all answered with matching ids.

use crate::support;

use ferromcp::client::ClientHandlers;
use serde_json::json;
use std::time::{Duration, Instant};
use support::RawPeer;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct N {
    n: i64,
}

fn server() -> ferromcp::server::Server {
    ferromcp::server::Server::builder("conc", "1")
        .tool("slow", "sleeps 1 s", |_: N, _ctx| async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            "slow".to_string()
        })
        .tool("fast", "echoes n", |a: N, _ctx| async move {
            format!("fast {}", a.n)
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn slow_tool_does_not_block_fast_one() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let start = Instant::now();
    p.send(json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "slow", "arguments": {"n": 0}}}))
        .await;
    p.send(json!({"jsonrpc": "2.0", "id": "fast", "method": "tools/call", "params": {"name": "fast", "arguments": {"n": 1}}}))
        .await;
    let first = p.recv().await;
    let fast_at = start.elapsed();
    assert_eq!(first["id"], "fast", "fast answer must come first: {first}");
    assert!(
        fast_at < Duration::from_millis(500),
        "fast took {fast_at:?}"
    );
    let second = p.recv().await;
    assert_eq!(second["id"], "slow");
    assert!(start.elapsed() >= Duration::from_secs(1));
}

#[tokio::test]
async fn hundred_concurrent_raw_calls_all_answered() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    for i in 0..100 {
        p.send(json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "fast", "arguments": {"n": i}}}))
            .await;
    }
    let mut seen = std::collections::HashSet::new();
    for _ in 0..100 {
        let m = p.recv().await;
        let id = m["id"].as_i64().unwrap();
        assert_eq!(m["result"]["content"][0]["text"], format!("fast {id}"));
        assert!(seen.insert(id), "duplicate answer for {id}");
    }
    assert_eq!(seen.len(), 100);
}

#[tokio::test]
async fn hundred_concurrent_client_calls() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let calls = (0..100).map(|i| {
        let c = &client;
        async move { (i, c.call_tool("fast", json!({"n": i})).await) }
    });
    let results = support::within(futures_util::future::join_all(calls)).await;
    for (i, r) in results {
        assert_eq!(
            r.unwrap().content[0].as_text(),
            Some(format!("fast {i}").as_str())
        );
    }
    client.close().await;
}
