//! Round trips to Redis as OpenTelemetry metrics (features `otel` and `redis`), against a real
//! `redis-server` started by the test: an HTTP server whose sessions are kept in Redis and a
//! rate limit whose buckets are there too, measured by `Telemetry::observe_redis`. The
//! Prometheus text counts the round trips by operation (`ferromcp.redis.operation`) with their
//! durations, and a frozen Redis gives round trips that end with `error.type` `timeout`.

#![cfg(all(feature = "otel", feature = "redis"))]

mod common_http;
mod common_replicas;

use common_http::{init_body, init_session, post, send};
use ferromcp::server::middleware::{RateLimit, RateLimitConfig};
use ferromcp::server::Server;
use ferromcp::telemetry::{Telemetry, TelemetryConfig};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use serde_json::json;
use std::time::{Duration, Instant};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// The value of the Prometheus sample named `name` whose labels contain every one of `with`
/// (summed over the series that match).
fn samples(text: &str, name: &str, with: &[&str]) -> f64 {
    text.lines()
        .filter(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{'))
                && with.iter().all(|w| l.contains(w))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

const TRIPS: &str = "ferromcp_redis_round_trips_total";
const DURATIONS: &str = "ferromcp_redis_round_trip_duration_seconds_count";

fn op(name: &str) -> String {
    format!("ferromcp_redis_operation=\"{name}\"")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trips_to_redis_are_counted_by_operation_and_outcome() {
    let Some(redis) = common_replicas::redis_server().await else {
        return;
    };
    let mut c = TelemetryConfig::default();
    c.service_name = Some("mcp-redis".into());
    c.prometheus = true;
    let t = Telemetry::new(c).unwrap();
    // Nothing is recorded before the telemetry asks.
    let mut limit = RateLimitConfig::new(100, Duration::from_secs(60));
    limit.methods = Some(vec!["tools/call".into()]);
    limit.redis_url = Some(redis.url.clone());
    let server = Server::builder("otel-redis", "1")
        .middleware(RateLimit::new(limit).unwrap())
        .tool("ping", "Answers", |_: NoArgs, _ctx| async { "pong" })
        .build()
        .unwrap();
    let opts = HttpServerOptions::default()
        .with_redis_url(Some(redis.url.clone()))
        .with_metrics(Some(t.metrics_endpoint("/metrics")));
    let handle = serve_http(server, "127.0.0.1:0", opts).await.unwrap();
    let url = handle.url("/mcp");
    let metrics = handle.url("/metrics");
    assert_eq!(post(&url, None, init_body("2025-11-25")).await.status, 200);
    let m = send("GET", &metrics, &[], "").await.body;
    assert_eq!(samples(&m, TRIPS, &[]), 0.0, "not observed yet:\n{m}");

    t.observe_redis();
    let sid = init_session(&url).await;
    for id in 2..5 {
        let r = post(
            &url,
            Some(&sid),
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
                "params":{"name":"ping","arguments":{}}}),
        )
        .await;
        assert!(r.body.contains("pong"), "{}", r.body);
    }
    let m = send("GET", &metrics, &[], "").await.body;
    // The session written when made, the buckets taken once per call, each round trip timed.
    assert!(samples(&m, TRIPS, &[&op("session.put")]) >= 1.0, "{m}");
    assert_eq!(samples(&m, TRIPS, &[&op("bucket.take")]), 3.0, "{m}");
    assert!(!m.contains("error_type"), "no failure yet:\n{m}");
    let total = samples(&m, TRIPS, &[]);
    assert_eq!(samples(&m, DURATIONS, &[]), total, "{m}");
    assert!(
        m.contains("ferromcp_redis_round_trip_duration_seconds_bucket{")
            && m.contains("le=\"0.005\""),
        "{m}"
    );

    // A frozen Redis: the next round trips give up at the timeout and say so.
    redis.freeze();
    let start = Instant::now();
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":9,"method":"tools/call",
            "params":{"name":"ping","arguments":{}}}),
    )
    .await;
    redis.thaw();
    assert!(start.elapsed() >= Duration::from_secs(1), "{}", r.body);
    let m = send("GET", &metrics, &[], "").await.body;
    assert!(
        samples(&m, TRIPS, &["error_type=\"timeout\""]) >= 1.0,
        "a round trip to a frozen Redis ends in a timeout:\n{m}"
    );

    // Once the telemetry shuts down, round trips are no longer recorded (by it or anyone).
    t.shutdown();
    handle.shutdown().await.unwrap();
}
