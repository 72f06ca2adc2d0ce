//! The response cache across replicas on a real `redis-server`: two replicas share one session
//! through Redis and each caches `resources/read`; an explicit invalidation made on replica A
//! (by URI, then all) makes replica B's next read fresh while the URIs it did not name stay
//! cached there, and a `resources/updated` raised on A empties B's reads of that URI too. Each
//! cache counts what it published and received. An invalidation made while Redis is down
//! reaches the other replica once Redis is back (the bus holds it back), not never.

#![cfg(feature = "redis")]

use crate::common_http;
use crate::common_replicas;

use common_http::{init_session, post, Resp};
use common_replicas::redis_server;
use ferromcp::protocol::{Resource, ResourceContents, TextResourceContents};
use ferromcp::server::middleware::{CacheScope, ResponseCache, ResponseCacheConfig};
use ferromcp::server::{resource_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A replica: a server whose resources `mem://a` and `mem://b` answer `read N` (N counted over
/// both replicas, so a fresh read always differs from a cached one), behind a response cache
/// with a TTL far longer than the test (its entries partitioned by session).
async fn replica(
    redis_url: &str,
    reads: &Arc<AtomicUsize>,
) -> (Server, ResponseCache, HttpServerHandle, String) {
    replica_scoped(redis_url, reads, CacheScope::Principal).await
}

/// The same with the cache's partition `scope`.
async fn replica_scoped(
    redis_url: &str,
    reads: &Arc<AtomicUsize>,
    scope: CacheScope,
) -> (Server, ResponseCache, HttpServerHandle, String) {
    let mut config = ResponseCacheConfig::new(Duration::from_secs(600));
    config.scope = scope;
    let cache = ResponseCache::new(config).unwrap();
    let mut builder = Server::builder("cache-replicas", "1").middleware(cache.clone());
    for uri in ["mem://a", "mem://b"] {
        let reads = reads.clone();
        builder = builder.resource(
            Resource::new(uri, uri).with_mime_type("text/plain"),
            resource_fn(move |req, _ctx| {
                let n = reads.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    Ok(vec![ResourceContents::Text(TextResourceContents::new(
                        req.uri,
                        format!("read {n}"),
                    ))])
                }
            }),
        );
    }
    let server = builder.build().unwrap();
    let h = serve_http(
        server.clone(),
        "127.0.0.1:0",
        HttpServerOptions::default().with_redis_url(Some(redis_url.to_string())),
    )
    .await
    .unwrap();
    let url = h.url("/mcp");
    (server, cache, h, url)
}

fn message(r: &Resp) -> Value {
    match r.json() {
        Value::Null => r.sse_messages().pop().unwrap_or(Value::Null),
        v => v,
    }
}

/// The text of `uri` read on `url` in session `sid`.
async fn read(url: &str, sid: &str, uri: &str) -> String {
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": uri}});
    let r = post(url, Some(sid), body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let m = message(&r);
    m["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {m}"))
        .to_string()
}

/// Reads `uri` on `url` until it differs from `before` (the invalidation travels on the bus);
/// the fresh text.
async fn fresh_read(url: &str, sid: &str, uri: &str, before: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = read(url, sid, uri).await;
        if now != before {
            return now;
        }
        assert!(
            Instant::now() < deadline,
            "{uri} still cached on the other replica 10 s after the invalidation"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_invalidation_on_one_replica_reaches_the_others_cache() {
    let Some(redis) = redis_server().await else {
        return;
    };
    let reads = Arc::new(AtomicUsize::new(0));
    let (_sa, cache_a, _ha, url_a) = replica(&redis.url, &reads).await;
    let (_sb, cache_b, _hb, url_b) = replica(&redis.url, &reads).await;
    let sid = init_session(&url_a).await;

    // Both replicas cache both URIs (the session is served by either, through Redis).
    let a_on_a = read(&url_a, &sid, "mem://a").await;
    assert_eq!(read(&url_a, &sid, "mem://a").await, a_on_a, "cached on A");
    let a_on_b = read(&url_b, &sid, "mem://a").await;
    assert_ne!(a_on_b, a_on_a, "B's cache is its own");
    assert_eq!(read(&url_b, &sid, "mem://a").await, a_on_b, "cached on B");
    let b_on_b = read(&url_b, &sid, "mem://b").await;
    assert_eq!(read(&url_b, &sid, "mem://b").await, b_on_b, "cached on B");
    let real_reads = reads.load(Ordering::SeqCst);
    assert_eq!(real_reads, 3);

    // By URI on A: A's and B's reads of mem://a are fresh, B's mem://b stays cached.
    cache_a.invalidate_resource("mem://a");
    assert_ne!(
        read(&url_a, &sid, "mem://a").await,
        a_on_a,
        "fresh on A at once"
    );
    let fresh_on_b = fresh_read(&url_b, &sid, "mem://a", &a_on_b).await;
    assert_eq!(
        read(&url_b, &sid, "mem://a").await,
        fresh_on_b,
        "cached again"
    );
    assert_eq!(
        read(&url_b, &sid, "mem://b").await,
        b_on_b,
        "another URI stays"
    );
    assert_eq!(reads.load(Ordering::SeqCst), real_reads + 2);

    // All, on A: B's mem://b is fresh too.
    cache_a.invalidate_all();
    fresh_read(&url_b, &sid, "mem://b", &b_on_b).await;

    assert_eq!(cache_a.replica_invalidations(), (2, 0));
    assert_eq!(cache_b.replica_invalidations(), (0, 2));
}

#[tokio::test]
async fn a_resource_update_on_one_replica_empties_the_others_reads_of_it() {
    let Some(redis) = redis_server().await else {
        return;
    };
    let reads = Arc::new(AtomicUsize::new(0));
    let (server_a, _ca, _ha, _url_a) = replica(&redis.url, &reads).await;
    let (_sb, _cb, _hb, url_b) = replica(&redis.url, &reads).await;
    let sid = init_session(&url_b).await;
    let a_on_b = read(&url_b, &sid, "mem://a").await;
    let b_on_b = read(&url_b, &sid, "mem://b").await;
    assert_eq!(read(&url_b, &sid, "mem://a").await, a_on_b, "cached on B");
    // Raised on A, which has served nothing: B's cache hears it through the bus.
    server_a.notify_resource_updated("mem://a");
    fresh_read(&url_b, &sid, "mem://a", &a_on_b).await;
    assert_eq!(
        read(&url_b, &sid, "mem://b").await,
        b_on_b,
        "another URI stays"
    );
}

#[tokio::test]
async fn an_invalidation_during_a_redis_outage_arrives_once_redis_is_back() {
    let Some(mut redis) = redis_server().await else {
        return;
    };
    let reads = Arc::new(AtomicUsize::new(0));
    // One entry for everyone, so a session opened after the outage reads the same entry.
    let (_sa, cache_a, _ha, _url_a) = replica_scoped(&redis.url, &reads, CacheScope::Shared).await;
    let (_sb, _cb, _hb, url_b) = replica_scoped(&redis.url, &reads, CacheScope::Shared).await;
    let sid = init_session(&url_b).await;
    let before = read(&url_b, &sid, "mem://a").await;
    assert_eq!(read(&url_b, &sid, "mem://a").await, before, "cached on B");

    // Redis away: the publication fails and is held back.
    redis.kill().await;
    cache_a.invalidate_resource("mem://a");
    tokio::time::sleep(Duration::from_millis(300)).await;
    redis.restart_empty().await;

    // Back (empty: a new session); B's shared entry is forgotten once the backlog is out.
    let deadline = Instant::now() + Duration::from_secs(15);
    let sid = loop {
        let r = post(&url_b, None, common_http::init_body("2025-11-25")).await;
        if r.status == 200 {
            let sid = r.sid().expect("session id");
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            assert_eq!(post(&url_b, Some(&sid), note).await.status, 202);
            break sid;
        }
        assert!(
            Instant::now() < deadline,
            "B never served again: {}",
            r.status
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    fresh_read(&url_b, &sid, "mem://a", &before).await;
}
