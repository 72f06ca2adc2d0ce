//! Idle SSE streams get keep-alive comments (`HttpServerOptions::sse_keep_alive`): an idle GET
//! stream receives `: keep-alive` frames on schedule, a stream that carries events gets none
//! while it is busy, the engine's own client reads through them, and `None` turns them off.

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use http_body_util::BodyExt;
use std::time::{Duration, Instant};

/// Opens the session's GET stream and returns everything it carries for `wait`.
async fn read_get_stream(url: &str, sid: &str, wait: Duration) -> String {
    let resp = client()
        .request(get_stream_request(url, sid))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut body = resp.into_body();
    let mut text = String::new();
    let end = Instant::now() + wait;
    while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(end.into(), body.frame()).await {
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
    }
    text
}

#[tokio::test]
async fn an_idle_get_stream_gets_keep_alive_comments_on_schedule() {
    let (_s, h, url) =
        start(HttpServerOptions::default().with_sse_keep_alive(Some(Duration::from_millis(100))))
            .await;
    let sid = init_session(&url).await;
    let text = read_get_stream(&url, &sid, Duration::from_millis(550)).await;
    let comments = text.matches(": keep-alive\n\n").count();
    assert!(
        (3..=6).contains(&comments),
        "{comments} comments in {text:?}"
    );
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn keep_alive_comments_can_be_turned_off() {
    let (_s, h, url) = start(HttpServerOptions::default().with_sse_keep_alive(None)).await;
    let sid = init_session(&url).await;
    let text = read_get_stream(&url, &sid, Duration::from_millis(400)).await;
    assert!(!text.contains("keep-alive"), "{text:?}");
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_client_reads_a_slow_call_through_keep_alive_comments() {
    let (_s, h, url) =
        start(HttpServerOptions::default().with_sse_keep_alive(Some(Duration::from_millis(50))))
            .await;
    let client = ferromcp::client::http::connect(
        &url,
        ferromcp::client::ClientOptions::new("ka", "1"),
        ferromcp::client::ClientHandlers::default(),
        Default::default(),
    )
    .await
    .unwrap();
    let r = client
        .call_tool("count", serde_json::json!({"steps": 3, "delay_ms": 150}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "counted to 3"
    );
    client.close().await;
    h.shutdown().await.unwrap();
}
