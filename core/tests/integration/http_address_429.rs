//! Proves the per-address rate limit over HTTP answers before any JSON is read: once an
//! address's bucket is empty, a POST from it gets `429 Too Many Requests` with `Retry-After`
//! on its head alone (a raw client announces a megabyte of body and sends none: the answer
//! still comes, so the body was never waited for), with the `-32004` error as its body; another
//! address goes on; the JSON-RPC `-32004` stays for a request that empties the bucket inside an
//! admitted POST and for limits keyed otherwise (here by session, which needs the body); the
//! same through axum's router. Without a trusted header the key is the connection's peer
//! address: clients bound to 127.0.0.1 and 127.0.0.2 (both loopback on Linux) get buckets of
//! their own, a spoofed `X-Forwarded-For` changes nothing, and axum's router reads the peer
//! from `ConnectInfo` (one shared bucket without it).

use crate::common_http;

use common_http::*;
use ferromcp::server::middleware::{RateKey, RateLimit, RateLimitConfig};
use ferromcp::server::Server;
use ferromcp::transport::http::{router, serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server limited to `limit` requests a minute per `by`, the client's address read from
/// `X-Forwarded-For` (configured as trusted).
fn server(by: Vec<RateKey>, limit: u32) -> Server {
    server_with(by, limit, Some("x-forwarded-for"))
}

/// The same with `header` trusted for the client's address (`None`: the peer's address).
fn server_with(by: Vec<RateKey>, limit: u32, header: Option<&str>) -> Server {
    let mut config = RateLimitConfig::new(limit, Duration::from_secs(60));
    config.by = by;
    config.address_header = header.map(str::to_string);
    Server::builder("addr-limit", "1")
        .middleware(RateLimit::new(config).unwrap())
        .tool("echo", "Echoes", |_: Value, _ctx| async move { "echoed" })
        .build()
        .unwrap()
}

/// A POST head announcing `length` bytes of body from `address`, none sent; the raw answer
/// (read until the server closes, within 5 s).
async fn head_only(addr: std::net::SocketAddr, address: &str, length: usize) -> String {
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nX-Forwarded-For: {address}\r\n\
         Content-Length: {length}\r\n\r\n"
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    answer.extend_from_slice(&buf[..n]);
                    if answer.windows(4).any(|w| w == b"\r\n\r\n") && answer.ends_with(b"}") {
                        break;
                    }
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .expect("the 429 came before any body was sent");
    String::from_utf8_lossy(&answer).into_owned()
}

fn from(address: &'static str) -> Vec<(&'static str, &'static str)> {
    let mut h = JSON_SSE.to_vec();
    h.push(("x-forwarded-for", address));
    h
}

/// An `initialize` POST (revision `version`) to `url`, sent as from `address`.
async fn initialize_from(url: &str, address: &'static str, version: &str) -> Resp {
    send("POST", url, &from(address), &init_body(version).to_string()).await
}

/// The header fields of the next requests of the session `opened` opened from `address`.
fn session_from(address: &'static str, opened: &Resp) -> Vec<(&'static str, &'static str)> {
    let mut headers = from(address);
    headers.push((
        "mcp-session-id",
        Box::leak(opened.sid().unwrap().into_boxed_str()),
    ));
    headers
}

/// ferromcp's HTTP server on a free port, rate limiting `by` at `limit` a minute.
async fn serve_limited(by: Vec<RateKey>, limit: u32) -> HttpServerHandle {
    serve_http(
        server(by, limit),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap()
}

fn check_429(raw: &str) {
    assert!(raw.starts_with("HTTP/1.1 429 "), "{raw}");
    let lower = raw.to_ascii_lowercase();
    let retry: u64 = lower
        .lines()
        .find_map(|l| l.strip_prefix("retry-after: "))
        .expect("Retry-After")
        .trim()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry), "{retry}");
    let body = &raw[raw.find("\r\n\r\n").unwrap() + 4..];
    let error: Value = serde_json::from_str(body).unwrap();
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32004);
    assert_eq!(error["error"]["data"]["limit"], 2);
    assert_eq!(error["error"]["data"]["window"], 60);
}

#[tokio::test]
async fn an_address_over_its_limit_gets_429_before_its_body_is_read() {
    let h = serve_limited(vec![RateKey::ClientAddress], 2).await;
    let url = h.url("/mcp");
    // Two requests from 10.0.0.1 take its two tokens.
    let r = initialize_from(&url, "10.0.0.1", "2025-11-25").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let with_sid = session_from("10.0.0.1", &r);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let r = send("POST", &url, &with_sid, &list).await;
    assert_eq!(r.status, 200, "{}", r.body);
    // The third: refused on its head, a megabyte announced and never sent.
    check_429(&head_only(h.local_addr(), "10.0.0.1", 1 << 20).await);
    let r = send("POST", &url, &with_sid, &list).await;
    assert_eq!(r.status, 429, "{}", r.body);
    // Another address goes on.
    let r = initialize_from(&url, "10.0.0.2", "2025-11-25").await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test]
async fn the_json_rpc_error_stays_inside_an_admitted_post_and_for_other_keys() {
    // By address: a batch (2025-03-26) of two admitted with one token left: the second -32004.
    let h = serve_limited(vec![RateKey::ClientAddress], 2).await;
    let url = h.url("/mcp");
    let r = initialize_from(&url, "10.0.0.9", "2025-03-26").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut with_sid = session_from("10.0.0.9", &r);
    with_sid.push(("mcp-protocol-version", "2025-03-26"));
    let batch = json!([
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
    ])
    .to_string();
    let r = send("POST", &url, &with_sid, &batch).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut answers: Vec<Value> = r.sse_messages();
    if let Value::Array(items) = r.json() {
        answers.extend(items);
    }
    let flat: Vec<Value> = answers
        .into_iter()
        .flat_map(|m| match m {
            Value::Array(items) => items,
            m => vec![m],
        })
        .collect();
    let limited = flat.iter().filter(|m| m["error"]["code"] == -32004).count();
    let listed = flat
        .iter()
        .filter(|m| m["result"]["tools"].is_array())
        .count();
    assert_eq!((listed, limited), (1, 1), "{}", r.body);
    // By session: the limit needs the body, so it answers with the JSON-RPC error only.
    let h = serve_limited(vec![RateKey::Session], 2).await;
    let url = h.url("/mcp");
    let sid = {
        let r = initialize_from(&url, "10.0.0.7", "2025-11-25").await;
        r.sid().unwrap()
    };
    for id in 2..=4 {
        let r = post(
            &url,
            Some(&sid),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let m = r
            .sse_messages()
            .into_iter()
            .chain([r.json()])
            .find(|m| m["id"] == id)
            .unwrap();
        if id < 3 {
            assert!(m["result"]["tools"].is_array(), "{m}");
        } else {
            assert_eq!(m["error"]["code"], -32004, "{m}");
        }
    }
}

#[tokio::test]
async fn axum_router_answers_429_before_reading_the_body() {
    let app = router(
        server(vec![RateKey::ClientAddress], 2),
        HttpServerOptions::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/mcp");
    for _ in 0..2 {
        let r = initialize_from(&url, "10.0.0.5", "2025-11-25").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    check_429(&head_only(addr, "10.0.0.5", 1 << 20).await);
}

/// On Redis the 429 is shared: an address that spent its tokens on one replica is refused on
/// another's head alone (the bucket looked at on Redis, `BucketStore::peek`).
#[cfg(feature = "redis")]
#[tokio::test]
async fn replicas_on_redis_answer_429_for_an_address_spent_elsewhere() {
    let Some(redis) = crate::common_replicas::redis_server().await else {
        return;
    };
    let replica = || async {
        let mut config = RateLimitConfig::new(2, Duration::from_secs(60));
        config.by = vec![RateKey::ClientAddress];
        config.address_header = Some("x-forwarded-for".into());
        config.redis_url = Some(redis.url.clone());
        let server = Server::builder("addr-limit", "1")
            .middleware(RateLimit::new(config).unwrap())
            .build()
            .unwrap();
        serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
            .await
            .unwrap()
    };
    let (a, b) = (replica().await, replica().await);
    let address = "10.9.8.7";
    for _ in 0..2 {
        let r = initialize_from(&a.url("/mcp"), address, "2025-11-25").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    check_429(&head_only(b.local_addr(), address, 1 << 20).await);
    let r = initialize_from(&b.url("/mcp"), "10.9.8.8", "2025-11-25").await;
    assert_eq!(r.status, 200, "{}", r.body);
}

/// The status of an `initialize` POST to `addr` sent from local address `local` (a loopback
/// address of the client's choosing), with `X-Forwarded-For: forwarded` when given.
async fn status_from(local: &str, addr: std::net::SocketAddr, forwarded: Option<&str>) -> u16 {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{local}:0").parse().unwrap()).unwrap();
    let mut tcp = socket.connect(addr).await.unwrap();
    let body = init_body("2025-11-25").to_string();
    let xff = forwarded.map_or(String::new(), |f| format!("X-Forwarded-For: {f}\r\n"));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{xff}Connection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut answer = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(5), tcp.read_exact(&mut answer))
        .await
        .expect("an answer within 5 s")
        .unwrap();
    let line = String::from_utf8_lossy(&answer);
    line["HTTP/1.1 ".len()..].trim().parse().unwrap()
}

#[tokio::test]
async fn each_peer_address_has_its_own_bucket_without_any_header() {
    let h = serve_http(
        server_with(vec![RateKey::ClientAddress], 2, None),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let addr = h.local_addr();
    assert_eq!(status_from("127.0.0.1", addr, None).await, 200);
    assert_eq!(status_from("127.0.0.1", addr, None).await, 200);
    // The layer took both tokens from 127.0.0.1's bucket: the third is refused on its head.
    assert_eq!(status_from("127.0.0.1", addr, None).await, 429);
    // Another client (another peer address, no header either) has a bucket of its own.
    assert_eq!(status_from("127.0.0.2", addr, None).await, 200);
    assert_eq!(status_from("127.0.0.2", addr, None).await, 200);
    assert_eq!(status_from("127.0.0.2", addr, None).await, 429);
}

#[tokio::test]
async fn a_spoofed_forwarded_for_does_not_change_the_bucket_unless_trusted() {
    // Not trusted (the default): whatever the header says, the peer's bucket counts.
    let h = serve_http(
        server_with(vec![RateKey::ClientAddress], 2, None),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let addr = h.local_addr();
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.1")).await, 200);
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.2")).await, 200);
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.3")).await, 429);
    assert_eq!(status_from("127.0.0.1", addr, None).await, 429);
    // Trusted: the header decides, whatever the peer.
    let h = serve_http(
        server_with(vec![RateKey::ClientAddress], 2, Some("x-forwarded-for")),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let addr = h.local_addr();
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.1")).await, 200);
    assert_eq!(status_from("127.0.0.2", addr, Some("10.0.0.1")).await, 200);
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.1")).await, 429);
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.2")).await, 200);
    // A request without the header (not through the proxy) falls back to its peer's bucket.
    assert_eq!(status_from("127.0.0.2", addr, None).await, 200);
}

#[tokio::test]
async fn axum_router_keys_by_connect_info_and_shares_one_bucket_without_it() {
    // Served with connect info: each peer its own bucket.
    let app = router(
        server_with(vec![RateKey::ClientAddress], 2, None),
        HttpServerOptions::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    for _ in 0..2 {
        assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.1")).await, 200);
    }
    assert_eq!(status_from("127.0.0.1", addr, Some("10.0.0.2")).await, 429);
    assert_eq!(status_from("127.0.0.2", addr, None).await, 200);
    // Without connect info or a trusted header: one bucket for every client.
    let app = router(
        server_with(vec![RateKey::ClientAddress], 2, None),
        HttpServerOptions::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    assert_eq!(status_from("127.0.0.1", addr, None).await, 200);
    assert_eq!(status_from("127.0.0.2", addr, None).await, 200);
    assert_eq!(status_from("127.0.0.2", addr, None).await, 429);
}

/// Keeps the peer address each request it sees came from.
struct Peers(std::sync::Arc<std::sync::Mutex<Vec<Option<std::net::IpAddr>>>>);

impl ferromcp::server::middleware::Middleware for Peers {
    fn handle<'a>(
        &'a self,
        request: ferromcp::server::middleware::MiddlewareRequest,
        next: ferromcp::server::middleware::Next<'a>,
    ) -> futures_util::future::BoxFuture<
        'a,
        Result<ferromcp::server::middleware::MiddlewareResponse, ferromcp::McpError>,
    > {
        self.0.lock().unwrap().push(request.client_address());
        next.run(request)
    }
}

#[tokio::test]
async fn a_layer_sees_the_peer_address_of_each_request() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let server = Server::builder("peers", "1")
        .middleware(Peers(seen.clone()))
        .build()
        .unwrap();
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    assert_eq!(
        status_from("127.0.0.2", h.local_addr(), Some("10.0.0.1")).await,
        200
    );
    assert_eq!(status_from("127.0.0.1", h.local_addr(), None).await, 200);
    let ip = |s: &str| Some(s.parse::<std::net::IpAddr>().unwrap());
    assert_eq!(
        *seen.lock().unwrap(),
        vec![ip("127.0.0.2"), ip("127.0.0.1")]
    );
}
