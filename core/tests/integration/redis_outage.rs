//! Redis as a dependency that fails fast and loudly: replicas on a real `redis-server` that
//! the test kills, freezes (SIGSTOP) and restarts empty. A request that needs the session
//! store while Redis is away gets a 503 with its JSON-RPC id within seconds; the replica
//! reconnects by itself once Redis is back; server-wide notifications raised during the outage
//! reach the sessions held by another replica after it, in order, instead of being lost.

#![cfg(feature = "redis")]

use crate::common_http;
use crate::common_replicas;
use common_http::*;
use common_replicas::*;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::json;
use std::time::{Duration, Instant};

async fn replica(redis: &RedisServer) -> (ferromcp::server::Server, HttpServerHandle, String) {
    let server = demo_server();
    let h = serve_http(
        server.clone(),
        "127.0.0.1:0",
        HttpServerOptions::default().with_redis_url(Some(redis.url.clone())),
    )
    .await
    .unwrap();
    let url = h.url("/mcp");
    (server, h, url)
}

/// Posts an initialize with id `id`; returns the answer and how long it took.
async fn initialize(url: &str, id: &str) -> (Resp, Duration) {
    let mut body = init_body("2025-11-25");
    body["id"] = json!(id);
    let started = Instant::now();
    let r = post(url, None, body).await;
    (r, started.elapsed())
}

fn assert_store_unavailable(r: &Resp, id: &str, took: Duration) {
    assert_eq!(r.status, 503, "{}", r.body);
    let v = r.json();
    assert_eq!(v["id"], id, "the 503 carries the request's id: {}", r.body);
    assert_eq!(v["error"]["code"], -32603, "{}", r.body);
    assert_eq!(
        v["error"]["data"]["unavailable"], "session store",
        "{}",
        r.body
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("session store is unavailable")),
        "{}",
        r.body
    );
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
}

#[tokio::test]
async fn with_redis_killed_an_initialize_gets_a_503_with_its_id_and_the_replica_recovers() {
    let Some(mut redis) = redis_server().await else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(60), async {
        let (_s, h, url) = replica(&redis).await;
        init_session(&url).await;
        let health = url.replace("/mcp", "/healthz");
        assert_eq!(send("GET", &health, &[], "").await.status, 200);
        redis.kill().await;
        let (r, took) = initialize(&url, "while-down").await;
        assert_store_unavailable(&r, "while-down", took);
        // The readiness endpoint says what is down.
        let r = send("GET", &health, &[], "").await;
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(r.json()["status"], "unavailable");
        assert!(
            r.json()["sessionStore"]
                .as_str()
                .is_some_and(|s| s.contains("redis")),
            "{}",
            r.body
        );
        // Back, empty: the same replica serves new sessions without a restart.
        redis.restart_empty().await;
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let (r, _) = initialize(&url, "after").await;
            if r.status == 200 {
                break;
            }
            assert!(Instant::now() < deadline, "never recovered: {}", r.body);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(send("GET", &health, &[], "").await.status, 200);
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn with_redis_frozen_an_initialize_gets_a_503_with_its_id_within_seconds() {
    let Some(redis) = redis_server().await else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(60), async {
        let (_s, h, url) = replica(&redis).await;
        init_session(&url).await;
        redis.freeze();
        let (r, took) = initialize(&url, "while-frozen").await;
        redis.thaw();
        assert_store_unavailable(&r, "while-frozen", took);
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let (r, _) = initialize(&url, "after").await;
            if r.status == 200 {
                break;
            }
            assert!(Instant::now() < deadline, "never recovered: {}", r.body);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn notifications_raised_while_redis_is_down_reach_other_replicas_after_it() {
    let Some(mut redis) = redis_server().await else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(60), async {
        let (a, ha, _url_a) = replica(&redis).await;
        let (_b, hb, url_b) = replica(&redis).await;
        // The session, its subscription and its GET stream live on replica B.
        let sid = init_session(&url_b).await;
        let sub = post(
            &url_b,
            Some(&sid),
            json!({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"mem://greeting"}}),
        )
        .await;
        assert_eq!(sub.status, 200, "{}", sub.body);
        let (status, mut get) = SseReader::get(&url_b, &sid, None).await;
        assert_eq!(status, 200);
        tokio::time::sleep(Duration::from_millis(100)).await;
        // Replica A raises changes while Redis is down.
        redis.kill().await;
        for _ in 0..3 {
            a.notify_resource_updated("mem://greeting");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        redis.restart_empty().await;
        for i in 0..3 {
            let e = tokio::time::timeout(Duration::from_secs(15), get.next())
                .await
                .unwrap_or_else(|_| panic!("notification {i} never arrived"))
                .expect("the stream stays open");
            assert!(e.data.contains("notifications/resources/updated"), "{}", e.data);
        }
        ha.shutdown().await.unwrap();
        hb.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}
