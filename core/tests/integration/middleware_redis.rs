//! Rate limiting shared by three replicas on a real `redis-server`: one client (keyed by its
//! address, from the proxy's `x-forwarded-for`) sends 2026-07-28 calls to the replicas in
//! turn; once over its limit it is refused by every replica with the same `retryAfter` (the
//! bucket lives on Redis's clock), and allowed again after it. Another address is not affected.
//! A Redis away lets requests through; one back empty limits again.

#![cfg(feature = "redis")]

use crate::common_modern;
use crate::common_replicas;

use common_modern::{answer, headers_for, post_with, request};
use common_replicas::redis_server;
use ferromcp::server::middleware::{RateKey, RateLimit, RateLimitConfig};
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Value};
use std::time::Duration;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

async fn replica(redis_url: &str) -> (HttpServerHandle, String) {
    let mut config = RateLimitConfig::new(3, Duration::from_millis(1500));
    config.by = vec![RateKey::ClientAddress];
    config.address_header = Some("x-forwarded-for".into()); // the proxy's, trusted
    config.redis_url = Some(redis_url.to_string());
    let server = Server::builder("mw-redis", "1")
        .tool("ping_tool", "Answers pong", |_: NoArgs, _ctx| async move {
            "pong"
        })
        .middleware(RateLimit::new(config).unwrap())
        .build()
        .unwrap();
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url)
}

async fn call_from(url: &str, id: u64, addr: &str) -> Value {
    let body = request(id, "tools/call", json!({ "name": "ping_tool" }));
    let mut h = headers_for(&body);
    h.push(("x-forwarded-for".into(), addr.into()));
    answer(&post_with(url, &h, &body).await)
}

fn pong(m: &Value) -> bool {
    m["result"]["content"][0]["text"] == "pong"
}

#[tokio::test]
async fn three_replicas_share_the_buckets_on_redis() {
    let Some(redis) = redis_server().await else {
        return;
    };
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(replica(&redis.url).await);
    }
    let urls: Vec<&str> = replicas.iter().map(|(_, u)| u.as_str()).collect();
    // Three calls, one per replica: the limit.
    for (i, url) in urls.iter().enumerate() {
        let m = call_from(url, i as u64, "10.1.1.1").await;
        assert!(pong(&m), "call {i}: {m}");
    }
    // Over the limit on every replica, with the same retryAfter (within the few ms between
    // the calls).
    let mut retries = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let m = call_from(url, 10 + i as u64, "10.1.1.1").await;
        assert_eq!(m["error"]["code"], -32004, "replica {i}: {m}");
        assert_eq!(m["error"]["data"]["limit"], 3);
        assert_eq!(m["error"]["data"]["window"], 1.5);
        retries.push(m["error"]["data"]["retryAfter"].as_f64().unwrap());
    }
    let (lo, hi) = retries
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    assert!(lo > 0.0 && hi <= 0.5, "one token in 0.5 s: {retries:?}");
    assert!(hi - lo < 0.2, "replicas agree: {retries:?}");
    // Another client is not affected.
    assert!(pong(&call_from(urls[1], 20, "10.2.2.2").await));
    // Allowed again after retryAfter, on any replica.
    tokio::time::sleep(Duration::from_secs_f64(hi + 0.05)).await;
    let m = call_from(urls[2], 30, "10.1.1.1").await;
    assert!(pong(&m), "{m}");
    let m = call_from(urls[0], 31, "10.1.1.1").await;
    assert_eq!(m["error"]["code"], -32004, "{m}");
}

#[tokio::test]
async fn a_redis_away_lets_requests_through() {
    let Some(mut redis) = redis_server().await else {
        return;
    };
    let (_h, url) = replica(&redis.url).await;
    assert!(pong(&call_from(&url, 1, "10.3.3.3").await));
    redis.kill().await;
    // Four calls, one over the limit: all served while the store is away.
    for id in 2..6 {
        let m = call_from(&url, id, "10.3.3.3").await;
        assert!(pong(&m), "{m}");
    }
    // A Redis back empty (the script forgotten: NOSCRIPT, loaded again) limits again once
    // the replica has reconnected.
    redis.restart_empty().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut id = 10;
    loop {
        let m = call_from(&url, id, "10.3.3.3").await;
        if m["error"]["code"] == -32004 {
            break;
        }
        assert!(pong(&m), "{m}");
        assert!(std::time::Instant::now() < deadline, "never limited again");
        id += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
