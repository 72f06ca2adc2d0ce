//! Proves the middleware chain over Streamable HTTP: rate-limit buckets per session (two
//! sessions, one over its limit, the other not), per principal across sessions on a protected
//! server, and per client address from the proxy's header on per-request-era (2026-07-28)
//! requests, which take their own POST path; a layer reads the request's HTTP headers.

use crate::common_http;
use crate::common_modern;

use common_http::*;
use common_modern::{answer, headers_for, post_with, request};
use ferromcp::auth::{AuthInfo, ResourceAuth};
use ferromcp::server::middleware::{
    Middleware, MiddlewareRequest, Next, RateKey, RateLimit, RateLimitConfig,
};
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

fn limited_server(by: Vec<RateKey>, limit: u32) -> Server {
    let mut config = RateLimitConfig::new(limit, Duration::from_secs(60));
    config.by = by;
    config.methods = Some(vec!["tools/call".into()]);
    // The client's address from the proxy's header (trusted; the default is the peer's),
    // through this host's proxy and an inner one in 192.168.0.0/16.
    config.address_header = Some("x-forwarded-for".into());
    config.trusted_proxies = Some(vec![
        "127.0.0.1".parse().unwrap(),
        "192.168.0.0/16".parse().unwrap(),
    ]);
    Server::builder("mw-http", "1")
        .tool("ping_tool", "Answers pong", |_: NoArgs, _ctx| async move {
            "pong"
        })
        .middleware(RateLimit::new(config).unwrap())
        .build()
        .unwrap()
}

async fn serve(server: Server, options: HttpServerOptions) -> (HttpServerHandle, String) {
    let h = serve_http(server, "127.0.0.1:0", options).await.unwrap();
    let url = h.url("/mcp");
    (h, url)
}

/// The JSON-RPC answer to request `id` in a response (JSON body or SSE).
fn answer_of(r: &Resp, id: u64) -> Value {
    let j = r.json();
    if j.get("id") == Some(&json!(id)) {
        return j;
    }
    r.sse_messages()
        .into_iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id} in {}", r.body))
}

fn is_pong(m: &Value) -> bool {
    m["result"]["content"][0]["text"] == "pong"
}

fn is_rate_limited(m: &Value, limit: u32) -> bool {
    m["error"]["code"] == -32004
        && m["error"]["message"] == "Rate limited"
        && m["error"]["data"]["limit"] == limit
        && m["error"]["data"]["window"] == 60
        && m["error"]["data"]["retryAfter"]
            .as_f64()
            .is_some_and(|s| s > 0.0 && s <= 60.0 / f64::from(limit))
}

#[tokio::test]
async fn rate_limit_keeps_a_bucket_per_http_session() {
    let (_h, url) = serve(
        limited_server(vec![RateKey::Session], 2),
        HttpServerOptions::default(),
    )
    .await;
    let a = init_session(&url).await;
    let b = init_session(&url).await;
    for id in 1..=2 {
        let r = post(&url, Some(&a), call(id, "ping_tool", json!({}))).await;
        assert!(is_pong(&answer_of(&r, id)), "{}", r.body);
    }
    let r = post(&url, Some(&a), call(3, "ping_tool", json!({}))).await;
    let m = answer_of(&r, 3);
    assert!(is_rate_limited(&m, 2), "{m}");
    // The other session has its own bucket.
    for id in 4..=5 {
        let r = post(&url, Some(&b), call(id, "ping_tool", json!({}))).await;
        assert!(is_pong(&answer_of(&r, id)), "{}", r.body);
    }
    let r = post(&url, Some(&b), call(6, "ping_tool", json!({}))).await;
    assert!(is_rate_limited(&answer_of(&r, 6), 2), "{}", r.body);
    // Other methods are not counted.
    let r = post(
        &url,
        Some(&a),
        json!({"jsonrpc":"2.0","id":7,"method":"tools/list"}),
    )
    .await;
    assert!(answer_of(&r, 7)["result"]["tools"].is_array(), "{}", r.body);
}

#[tokio::test]
async fn rate_limit_by_principal_spans_sessions_on_a_protected_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let aud = resource.clone();
    let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
        let (token, aud) = (token.to_string(), aud.clone());
        Box::pin(async move {
            Ok({
                let mut lit = AuthInfo::default();
                lit.subject = Some(format!("user-{token}"));
                lit.audience = vec![aud];
                lit
            })
        })
    };
    let auth = ResourceAuth::new(
        &resource,
        vec!["http://as.example".into()],
        Arc::new(verifier),
    );
    let options = HttpServerOptions::default().with_auth(Some(Arc::new(auth)));
    let server = limited_server(vec![RateKey::Principal], 1);
    let h = serve_http(server, ("127.0.0.1", port), options)
        .await
        .unwrap();
    let url = h.url("/mcp");
    let session = |token: &'static str| {
        let url = url.clone();
        async move {
            let mut headers = JSON_SSE.to_vec();
            headers.push(("authorization", token));
            let r = send("POST", &url, &headers, &init_body("2025-11-25").to_string()).await;
            assert_eq!(r.status, 200, "{}", r.body);
            let sid = r.sid().unwrap();
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let mut with_sid = headers.clone();
            with_sid.push(("mcp-session-id", Box::leak(sid.into_boxed_str())));
            assert_eq!(
                send("POST", &url, &with_sid, &note.to_string())
                    .await
                    .status,
                202
            );
            with_sid
        }
    };
    let alice1 = session("Bearer alice").await;
    let alice2 = session("Bearer alice").await;
    let bob = session("Bearer bob").await;
    let body = |id| call(id, "ping_tool", json!({})).to_string();
    let r = send("POST", &url, &alice1, &body(1)).await;
    assert!(is_pong(&answer_of(&r, 1)), "{}", r.body);
    // Alice's second session shares her bucket.
    let r = send("POST", &url, &alice2, &body(2)).await;
    assert!(is_rate_limited(&answer_of(&r, 2), 1), "{}", r.body);
    let r = send("POST", &url, &bob, &body(3)).await;
    assert!(is_pong(&answer_of(&r, 3)), "{}", r.body);
}

#[tokio::test]
async fn rate_limit_by_client_address_reads_the_proxy_header_per_request_era() {
    let (_h, url) = serve(
        limited_server(vec![RateKey::ClientAddress], 1),
        HttpServerOptions::default(),
    )
    .await;
    let post_from = |id: u64, addr: &'static str| {
        let url = url.clone();
        async move {
            let body = request(id, "tools/call", json!({ "name": "ping_tool" }));
            let mut h = headers_for(&body);
            h.push(("x-forwarded-for".into(), addr.into()));
            answer(&post_with(&url, &h, &body).await)
        }
    };
    let m = post_from(1, "10.0.0.1, 192.168.0.9").await;
    assert!(is_pong(&m), "{m}");
    assert_eq!(m["result"]["resultType"], "complete");
    let m = post_from(2, "10.0.0.1").await;
    assert!(is_rate_limited(&m, 1), "{m}");
    let m = post_from(3, "10.0.0.2").await;
    assert!(is_pong(&m), "{m}");
}

/// Keeps the `x-trace` header of every request it sees.
struct Headers(Arc<Mutex<Vec<Option<String>>>>);

impl Middleware for Headers {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ferromcp::server::middleware::MiddlewareResponse, McpError>> {
        self.0.lock().unwrap().push(request.http_header("X-Trace"));
        next.run(request)
    }
}

#[tokio::test]
async fn a_layer_reads_the_http_headers_of_each_request() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = Server::builder("mw-http", "1")
        .tool("ping_tool", "Answers pong", |_: NoArgs, _ctx| async move {
            "pong"
        })
        .middleware(Headers(seen.clone()))
        .build()
        .unwrap();
    let (_h, url) = serve(server, HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    let mut h = JSON_SSE.to_vec();
    h.push(("mcp-session-id", sid.as_str()));
    h.push(("x-trace", "abc"));
    let r = send(
        "POST",
        &url,
        &h,
        &call(1, "ping_tool", json!({})).to_string(),
    )
    .await;
    assert!(is_pong(&answer_of(&r, 1)), "{}", r.body);
    assert_eq!(*seen.lock().unwrap(), [None, Some("abc".to_string())]);
}
