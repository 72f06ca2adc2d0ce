//! Streamable HTTP server: status codes for bad input.

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use serde_json::json;

#[tokio::test]
async fn statuses_for_bad_requests() {
    let (_s, h, url) = start(HttpServerOptions::default().with_max_body_size(1024)).await;
    // Malformed JSON: 400 with a JSON-RPC parse error.
    let r = send("POST", &url, &JSON_SSE, "{not json").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    // Wrong Content-Type: 415.
    let r = send(
        "POST",
        &url,
        &[
            ("content-type", "text/plain"),
            ("accept", "application/json, text/event-stream"),
        ],
        "{}",
    )
    .await;
    assert_eq!(r.status, 415);
    // Accept without text/event-stream: 406.
    let r = send(
        "POST",
        &url,
        &[
            ("content-type", "application/json"),
            ("accept", "application/json"),
        ],
        &init_body("2025-11-25").to_string(),
    )
    .await;
    assert_eq!(r.status, 406);
    // Oversized body: 413.
    let big = "x".repeat(4096);
    let r = send(
        "POST",
        &url,
        &JSON_SSE,
        &json!({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":big}}).to_string(),
    )
    .await;
    assert_eq!(r.status, 413);
    // Missing session id: 400; unknown: 404.
    let r = post(
        &url,
        None,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    )
    .await;
    assert_eq!(r.status, 400);
    let r = post(
        &url,
        Some("deadbeef"),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    )
    .await;
    assert_eq!(r.status, 404);
    // Unsupported protocol version header: 400.
    let sid = init_session(&url).await;
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("mcp-session-id", &sid));
    hd.push(("mcp-protocol-version", "1999-01-01"));
    let r = send(
        "POST",
        &url,
        &hd,
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string(),
    )
    .await;
    assert_eq!(r.status, 400);
    // Responses and notifications get 202.
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":99,"result":{}}),
    )
    .await;
    assert_eq!(r.status, 202);
    // GET without session: 400; PUT: 405.
    let r = send("GET", &url, &[("accept", "text/event-stream")], "").await;
    assert_eq!(r.status, 400);
    let r = send("PUT", &url, &[], "").await;
    assert_eq!(r.status, 405);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn dns_rebinding_protection() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let body = init_body("2025-11-25").to_string();
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("origin", "http://evil.example"));
    let r = send("POST", &url, &hd, &body).await;
    assert_eq!(r.status, 403);
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("host", "evil.example:80"));
    let r = send("POST", &url, &hd, &body).await;
    assert_eq!(r.status, 403);
    // The allow-list includes the bound port.
    let port = h.local_addr().port();
    let other = format!("127.0.0.1:{}", port.wrapping_add(1));
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("host", &other));
    let r = send("POST", &url, &hd, &body).await;
    assert_eq!(r.status, 403);
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("origin", "http://localhost:5173"));
    let r = send("POST", &url, &hd, &body).await;
    assert_eq!(r.status, 403);
    let own = format!("http://localhost:{port}");
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("origin", &own));
    let r = send("POST", &url, &hd, &body).await;
    assert_eq!(r.status, 200);
    let host = format!("localhost:{port}");
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("host", &host));
    let r = send("POST", &url, &hd, &body).await;
    assert_eq!(r.status, 200);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn dns_rebinding_protection_configured_and_disabled() {
    // A configured origin and host list replaces the loopback defaults.
    let (_s, h, url) = start(
        HttpServerOptions::default()
            .with_allowed_hosts(vec!["127.0.0.1".into()])
            .with_allowed_origins(vec!["http://localhost:5173".into()]),
    )
    .await;
    let body = init_body("2025-11-25").to_string();
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("origin", "http://localhost:5173"));
    assert_eq!(send("POST", &url, &hd, &body).await.status, 200);
    let port = h.local_addr().port();
    let host = format!("localhost:{port}");
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("host", &host));
    assert_eq!(send("POST", &url, &hd, &body).await.status, 403);
    h.shutdown().await.unwrap();
    // Explicitly off: anything goes, even on a loopback bind.
    let (_s, h, url) =
        start(HttpServerOptions::default().with_dns_rebinding_protection(Some(false))).await;
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("host", "evil.example"));
    hd.push(("origin", "http://evil.example"));
    assert_eq!(send("POST", &url, &hd, &body).await.status, 200);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn dns_rebinding_protection_on_an_ipv6_loopback_bind() {
    let server = demo_server();
    let Ok(h) = ferromcp::transport::http::serve_http(server, "[::1]:0", Default::default()).await
    else {
        eprintln!("no IPv6 loopback here; skipped");
        return;
    };
    let url = h.url("/mcp");
    let body = init_body("2025-11-25").to_string();
    // hyper sends `Host: [::1]:PORT`.
    assert_eq!(send("POST", &url, &JSON_SSE, &body).await.status, 200);
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("host", "evil.example"));
    assert_eq!(send("POST", &url, &hd, &body).await.status, 403);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn client_disconnect_mid_stream_keeps_session_working() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"count","arguments":{"steps":3,"delay_ms":100}}});
    let mut hd: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hd.push(("mcp-session-id", &sid));
    let call = call.to_string();
    let fut = send("POST", &url, &hd, &call);
    let _ = tokio::time::timeout(std::time::Duration::from_millis(50), fut).await;
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.sse_messages().last().unwrap()["id"], 3);
    h.shutdown().await.unwrap();
}
