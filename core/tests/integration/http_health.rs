//! The readiness endpoint (`HttpServerOptions::health_path`, `/healthz` by default): 200 while
//! the server takes requests, only `GET`, no session or token needed, Host checks applied,
//! and off when the option is `None`. (With Redis stopped it answers 503: `redis_outage.rs`.)

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;

#[tokio::test]
async fn healthz_answers_ok_with_the_live_session_count() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    init_session(&url).await;
    let health = url.replace("/mcp", "/healthz");
    let r = send("GET", &health, &[], "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["status"], "ok");
    assert_eq!(r.json()["liveSessions"], 1);
    let r = send("POST", &health, &[], "{}").await;
    assert_eq!(r.status, 405);
    let r = send("GET", &health, &[("host", "evil.example")], "").await;
    assert_eq!(r.status, 403, "{}", r.body);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn healthz_can_be_turned_off() {
    let (_s, h, url) = start(HttpServerOptions::default().with_health_path(None)).await;
    let r = send("GET", &url.replace("/mcp", "/healthz"), &[], "").await;
    assert_eq!(r.status, 404);
    h.shutdown().await.unwrap();
}
