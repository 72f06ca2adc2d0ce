//! A request whose replica dies gets an answer: two replicas on a real `redis-server`, the
//! client's call running on replica A and followed (resumed with `Last-Event-ID`) from
//! replica B; A is killed (its runtime dropped at once: no handler finishes, nothing is said
//! on the bus, its sockets close, as with SIGKILL). B learns within seconds that A is gone and
//! answers the call with a JSON-RPC error carrying its id, then ends the stream.

#![cfg(feature = "redis")]

use crate::common_http;
use crate::common_replicas;
use common_http::*;
use common_replicas::*;
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn options(redis: &str) -> HttpServerOptions {
    HttpServerOptions::default().with_redis_url(Some(redis.to_string()))
}

#[test]
fn a_call_on_a_killed_replica_is_answered_with_an_error_by_the_replica_the_client_follows() {
    let main = tokio::runtime::Runtime::new().unwrap();
    let Some(redis) = main.block_on(redis_server()) else {
        return;
    };
    // Replica A on a runtime of its own, so it can be killed on its own.
    let a_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let url_a = {
        let url = redis.url.clone();
        a_rt.block_on(async move {
            let h = serve_http(demo_server(), "127.0.0.1:0", options(&url))
                .await
                .unwrap();
            let u = h.url("/mcp");
            std::mem::forget(h);
            u
        })
    };
    let mut a_rt = Some(a_rt);
    main.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), async {
            let hb = serve_http(demo_server(), "127.0.0.1:0", options(&redis.url))
                .await
                .unwrap();
            let url_b = hb.url("/mcp");
            let sid = init_session(&url_a).await;
            // A 20 s call on A; the client reads the priming event, then loses the connection.
            let headers: Vec<(String, String)> = [
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-session-id", sid.as_str()),
            ]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
            let body = call(42, "count", json!({"steps": 100, "delay_ms": 200})).to_string();
            let (status, mut first) = SseReader::post(&url_a, &headers, &body).await;
            assert_eq!(status, 200);
            let priming = first.next_event().await.expect("a priming event");
            let last = priming.id.expect("the priming event has an id");
            assert!(priming.data.is_empty(), "{:?}", priming.data);
            drop(first);
            // The client follows the call from B.
            let (status, mut resumed) = SseReader::get(&url_b, &sid, Some(&last)).await;
            assert_eq!(status, 200);
            tokio::time::sleep(Duration::from_millis(300)).await;
            // A dies.
            let killed = Instant::now();
            a_rt.take().unwrap().shutdown_background();
            let answer = loop {
                let e = tokio::time::timeout(Duration::from_secs(10), resumed.next())
                    .await
                    .expect("an answer within 10 s of the kill")
                    .expect("the stream carries the answer before it ends");
                let v: Value = serde_json::from_str(&e.data).unwrap();
                if v.get("id").is_some() {
                    break v;
                }
            };
            let took = killed.elapsed();
            assert_eq!(answer["id"], 42, "{answer}");
            assert_eq!(answer["error"]["code"], -32603, "{answer}");
            assert_eq!(answer["error"]["data"]["reason"], "replicaGone", "{answer}");
            assert!(
                took < Duration::from_secs(6),
                "answered {took:?} after the kill"
            );
            // Then the stream ends.
            let end = tokio::time::timeout(Duration::from_secs(5), resumed.next()).await;
            assert!(matches!(end, Ok(None)), "{end:?}");
            // B goes on serving the session.
            let r = post(
                &url_b,
                Some(&sid),
                json!({"jsonrpc":"2.0","id":7,"method":"ping"}),
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.body);
            hb.shutdown().await.unwrap();
        })
        .await
        .unwrap();
    });
}
