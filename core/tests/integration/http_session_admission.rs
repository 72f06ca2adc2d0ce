//! Admission to a full session table: an initialize makes room by closing the least recently
//! active idle session, from many threads at once, and is refused (503, with the request's id)
//! only when every session is busy.

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use serde_json::json;
use std::time::Duration;

async fn bounded<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_full_table_of_idle_sessions_admits_every_concurrent_initialize() {
    bounded(async {
        const MAX: usize = 8;
        let (_s, h, url) = start(HttpServerOptions::default().with_max_sessions(MAX)).await;
        for _ in 0..MAX {
            init_session(&url).await;
        }
        // 16 senders of 20 initializes each, all at once: every one finds the table full of
        // idle sessions and must get one of them.
        let senders = (0..16).map(|_| {
            let url = url.clone();
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                for _ in 0..20 {
                    statuses.push(post(&url, None, init_body("2025-11-25")).await.status);
                }
                statuses
            })
        });
        let mut refused = 0;
        let mut total = 0;
        for s in senders {
            for status in s.await.unwrap() {
                total += 1;
                match status {
                    200 => {}
                    503 => refused += 1,
                    other => panic!("unexpected status {other}"),
                }
            }
        }
        assert_eq!(total, 320);
        assert_eq!(refused, 0, "{refused} of {total} initializes got 503");
        // The table kept its limit: the closed sessions are gone once their last answer is.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while h.stats().live_sessions > MAX && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            h.stats().live_sessions <= MAX,
            "{} sessions live, limit {MAX}",
            h.stats().live_sessions
        );
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_table_of_busy_sessions_refuses_an_initialize_with_its_id() {
    bounded(async {
        let (_s, h, url) = start(HttpServerOptions::default().with_max_sessions(2)).await;
        // Both sessions busy: each has a long call in flight.
        let mut calls = Vec::new();
        for id in 0..2 {
            let sid = init_session(&url).await;
            let url = url.clone();
            calls.push(tokio::spawn(async move {
                post(
                    &url,
                    Some(&sid),
                    call(10 + id, "count", json!({"steps": 10, "delay_ms": 100})),
                )
                .await
            }));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut init = init_body("2025-11-25");
        init["id"] = json!("admission-1");
        let r = post(&url, None, init).await;
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(r.json()["id"], "admission-1", "{}", r.body);
        assert!(
            r.json()["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("too many busy sessions")),
            "{}",
            r.body
        );
        // Once the calls end, the sessions are idle again and a new client gets in.
        for c in calls {
            assert_eq!(c.await.unwrap().status, 200);
        }
        init_session(&url).await;
        h.shutdown().await.unwrap();
    })
    .await;
}
