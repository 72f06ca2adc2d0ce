//! The client's address over HTTP: the connection's peer reaches every request context
//! (`RequestContext::client_address`) on each kind of POST, through `serve_http`'s listener
//! and through axum's router with `ConnectInfo`, carried with the request's header fields; and
//! the rate limit's `addressHeader` is believed only on connections from its
//! `trustedProxies`, whose rightmost untrusted entry is the client: a spoofed
//! `X-Forwarded-For` from an untrusted peer is ignored, a chain through two trusted proxies
//! names the client (also when a proxy adds its own header line), over IPv4 and IPv6. The
//! same with RFC 7239 `Forwarded` (`addressHeader: "forwarded"`): elements, quoted IPv6 with
//! ports, several lines, a spoof from an untrusted peer ignored, and an `X-Forwarded-For` sent
//! beside it never read.

use crate::common_http;

use common_http::init_body;
use ferromcp::server::middleware::{IpRange, RateKey, RateLimit, RateLimitConfig};
use ferromcp::server::Server;
use ferromcp::transport::http::{router, serve_http, HttpServerOptions};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server limited to 2 requests a minute per client address, `X-Forwarded-For` believed from
/// `trusted` (`None`: the default, loopback).
fn limited(trusted: Option<&[&str]>) -> Server {
    limited_by("X-Forwarded-For", trusted)
}

/// The same, reading the address header `header`.
fn limited_by(header: &str, trusted: Option<&[&str]>) -> Server {
    let mut config = RateLimitConfig::new(2, Duration::from_secs(60));
    config.by = vec![RateKey::ClientAddress];
    config.address_header = Some(header.into());
    config.trusted_proxies = trusted.map(|t| t.iter().map(|r| r.parse().unwrap()).collect());
    Server::builder("proxied", "1")
        .middleware(RateLimit::new(config).unwrap())
        .build()
        .unwrap()
}

/// A raw HTTP/1.1 POST of `body` to `addr` from local address `local` with the extra header
/// lines `headers` (each `Name: value`); the answer's status and body (whole: the connection
/// is closed after it).
async fn post_from(local: &str, addr: SocketAddr, headers: &[&str], body: &str) -> (u16, String) {
    let local: std::net::IpAddr = local.parse().unwrap();
    let socket = match local {
        std::net::IpAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
        std::net::IpAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
    }
    .unwrap();
    socket.bind(SocketAddr::new(local, 0)).unwrap();
    let mut tcp = socket.connect(addr).await.unwrap();
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Connection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer))
        .await
        .expect("an answer within 5 s")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer["HTTP/1.1 ".len().."HTTP/1.1 200".len()]
        .parse()
        .unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// The status of an `initialize` POST from `local` with `X-Forwarded-For` lines `forwarded`.
async fn status(local: &str, addr: SocketAddr, forwarded: &[&str]) -> u16 {
    let lines: Vec<String> = forwarded
        .iter()
        .map(|f| format!("X-Forwarded-For: {f}"))
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let body = init_body("2025-11-25").to_string();
    post_from(local, addr, &lines, &body).await.0
}

/// The status of an `initialize` POST from `local` with the header lines `lines` (each
/// `Name: value`).
async fn status_with(local: &str, addr: SocketAddr, lines: &[&str]) -> u16 {
    let body = init_body("2025-11-25").to_string();
    post_from(local, addr, lines, &body).await.0
}

#[tokio::test]
async fn forwarded_from_trusted_proxies_names_the_client() {
    // The peer (127.0.0.1, the second proxy) and 10.1.1.1 (the first) are trusted.
    let h = serve_http(
        limited_by("Forwarded", Some(&["127.0.0.1", "10.0.0.0/8"])),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let a = h.local_addr();
    let one = "Forwarded: for=198.51.100.1;proto=https, for=10.1.1.1";
    assert_eq!(status_with("127.0.0.1", a, &[one]).await, 200);
    // The same client, with a port and through a proxy adding a line of its own.
    let two = [
        r#"Forwarded: for="198.51.100.1:4711";proto=http"#,
        "Forwarded: for=10.1.1.1;by=_edge",
    ];
    assert_eq!(status_with("127.0.0.1", a, &two).await, 200);
    // Over its limit, whatever it writes left of its own element.
    let spoofed = "Forwarded: for=6.6.6.6, for=198.51.100.1, for=10.1.1.1";
    assert_eq!(status_with("127.0.0.1", a, &[spoofed]).await, 429);
    // An X-Forwarded-For beside it is never read (only the header named is).
    let both = [
        "X-Forwarded-For: 198.51.100.77",
        "Forwarded: for=198.51.100.1, for=10.1.1.1",
    ];
    assert_eq!(status_with("127.0.0.1", a, &both).await, 429);
    let xff_only = ["X-Forwarded-For: 198.51.100.1"];
    assert_eq!(
        status_with("127.0.0.1", a, &xff_only).await,
        200,
        "the peer's"
    );
    // An IPv6 client (quoted, bracketed, with a port) has its own bucket.
    let v6 = r#"Forwarded: for="[2001:db8::7]:443", For=10.1.1.1"#;
    assert_eq!(status_with("127.0.0.1", a, &[v6]).await, 200);
    let v6_again = r#"Forwarded: for="[2001:db8:0::7]""#;
    assert_eq!(status_with("127.0.0.1", a, &[v6_again]).await, 200);
    assert_eq!(status_with("127.0.0.1", a, &[v6]).await, 429);
    // unknown and obfuscated nodes are no address: the nearest hop read, here the peer (one
    // request left in its bucket after the X-Forwarded-For one above).
    let hidden = "Forwarded: for=198.51.100.5, for=_hidden";
    assert_eq!(status_with("127.0.0.1", a, &[hidden]).await, 200);
    assert_eq!(
        status_with("127.0.0.1", a, &["Forwarded: for=unknown"]).await,
        429
    );
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_spoofed_forwarded_from_an_untrusted_peer_is_ignored() {
    // 127.0.0.1 is not among the trusted proxies: the header is never read.
    let h = serve_http(
        limited_by("forwarded", Some(&["10.0.0.0/8"])),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let a = h.local_addr();
    for (client, want) in [
        ("198.51.100.1", 200),
        ("198.51.100.2", 200),
        ("198.51.100.3", 429),
    ] {
        let line = format!("Forwarded: for={client}");
        assert_eq!(
            status_with("127.0.0.1", a, &[&line]).await,
            want,
            "{client}"
        );
    }
    let line = r#"Forwarded: for="[2001:db8::9]:80""#;
    assert_eq!(status_with("127.0.0.1", a, &[line]).await, 429);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_spoofed_forwarded_for_from_an_untrusted_peer_is_ignored() {
    // 127.0.0.1 is not among the trusted proxies: the header is never read.
    let h = serve_http(
        limited(Some(&["10.0.0.0/8"])),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let a = h.local_addr();
    assert_eq!(status("127.0.0.1", a, &["198.51.100.1"]).await, 200);
    assert_eq!(status("127.0.0.1", a, &["198.51.100.2"]).await, 200);
    assert_eq!(status("127.0.0.1", a, &["198.51.100.3"]).await, 429);
    // Another peer has its own bucket, header or not.
    assert_eq!(status("127.0.0.2", a, &["198.51.100.3"]).await, 200);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_chain_through_two_trusted_proxies_names_the_client() {
    // The peer (127.0.0.1, the second proxy) and 10.1.1.1 (the first) are trusted.
    let h = serve_http(
        limited(Some(&["127.0.0.1", "10.0.0.0/8"])),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let a = h.local_addr();
    assert_eq!(
        status("127.0.0.1", a, &["198.51.100.1, 10.1.1.1"]).await,
        200
    );
    // The same client through a proxy that adds a header line of its own (HAProxy does).
    assert_eq!(
        status("127.0.0.1", a, &["198.51.100.1", "10.1.1.1"]).await,
        200
    );
    // An entry the client wrote left of its address does not give it another bucket, on the
    // same line or on a line of its own.
    let spoofed = ["6.6.6.6, 198.51.100.1, 10.1.1.1"];
    assert_eq!(status("127.0.0.1", a, &spoofed).await, 429);
    assert_eq!(
        status("127.0.0.1", a, &["6.6.6.6", "198.51.100.1, 10.1.1.1"]).await,
        429
    );
    // Another client behind the same proxies has its own bucket.
    assert_eq!(
        status("127.0.0.1", a, &["198.51.100.2, 10.1.1.1"]).await,
        200
    );
    // A request from the proxy itself (no header) is the proxy's.
    assert_eq!(status("127.0.0.1", a, &[]).await, 200);
    assert_eq!(status("127.0.0.1", a, &[]).await, 200);
    assert_eq!(status("127.0.0.1", a, &[]).await, 429);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn loopback_is_trusted_by_default_and_other_peers_are_not() {
    let h = serve_http(limited(None), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let a = h.local_addr();
    for client in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
        assert_eq!(status("127.0.0.1", a, &[client]).await, 200, "{client}");
    }
    h.shutdown().await.unwrap();
    let r = RateLimit::new(RateLimitConfig::new(1, Duration::from_secs(1))).unwrap();
    assert_eq!(r.trusted_proxies(), IpRange::loopback());
}

#[tokio::test]
async fn ipv6_peers_and_forwarded_addresses_are_matched_by_range() {
    // An untrusted IPv6 peer: the header is ignored.
    let h = serve_http(
        limited(Some(&["fd00::/8"])),
        "[::1]:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let a = h.local_addr();
    assert_eq!(status("::1", a, &["2001:db8::1"]).await, 200);
    assert_eq!(status("::1", a, &["2001:db8::2"]).await, 200);
    assert_eq!(status("::1", a, &["2001:db8::3"]).await, 429);
    h.shutdown().await.unwrap();
    // A trusted IPv6 peer behind a trusted IPv6 proxy: the IPv6 client, written with or
    // without brackets and port, is one bucket.
    let h = serve_http(
        limited(Some(&["::1", "fd00::/8"])),
        "[::1]:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let a = h.local_addr();
    assert_eq!(status("::1", a, &["2001:db8::7, fd00::5"]).await, 200);
    assert_eq!(
        status("::1", a, &["[2001:db8::7]:443, [fd00::5]:80"]).await,
        200
    );
    assert_eq!(status("::1", a, &["2001:db8:0:0::7"]).await, 429);
    assert_eq!(status("::1", a, &["192.0.2.1, fd00::5"]).await, 200);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn axum_with_connect_info_trusts_by_the_peer_too() {
    let app = router(limited(Some(&["10.0.0.0/8"])), HttpServerOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
    assert_eq!(status("127.0.0.1", a, &["198.51.100.1"]).await, 200);
    assert_eq!(status("127.0.0.1", a, &["198.51.100.2"]).await, 200);
    assert_eq!(status("127.0.0.1", a, &["198.51.100.3"]).await, 429);
    assert_eq!(status("127.0.0.2", a, &[]).await, 200);
}

/// A server whose tool answers the client address its context shows.
fn address_server() -> Server {
    Server::builder("where", "1")
        .tool(
            "where",
            "The caller's address",
            |_: Value, ctx| async move {
                ctx.client_address()
                    .map_or("none".to_string(), |ip| ip.to_string())
            },
        )
        .build()
        .unwrap()
}

/// The text of a `tools/call where` answered on `addr` from `local`, as the per-request era
/// (2026-07-28, no session) or, when `json` is set, a stateless server's JSON answer.
async fn where_from(local: &str, addr: SocketAddr, per_request: bool) -> String {
    let (headers, body): (Vec<&str>, Value) = if per_request {
        (
            vec![
                "MCP-Protocol-Version: 2026-07-28",
                "Mcp-Method: tools/call",
                "Mcp-Name: where",
            ],
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "name": "where", "arguments": {},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                          "io.modelcontextprotocol/clientCapabilities": {}}}}),
        )
    } else {
        (
            vec!["MCP-Protocol-Version: 2025-11-25"],
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "where", "arguments": {}}}),
        )
    };
    let (status, body) = post_from(local, addr, &headers, &body.to_string()).await;
    assert_eq!(status, 200, "{body}");
    let start = body.find('{').expect("a JSON answer");
    let end = body.rfind('}').expect("a JSON answer");
    let answer: Value = serde_json::from_str(&body[start..=end]).unwrap();
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string()
}

#[tokio::test]
async fn the_peer_address_reaches_handlers_on_every_post_path() {
    // Stateless JSON (handshake era) and the per-request era, through serve_http.
    let mut options = HttpServerOptions::default();
    options.stateless = true;
    options.json_response = true;
    let h = serve_http(address_server(), "127.0.0.1:0", options.clone())
        .await
        .unwrap();
    assert_eq!(
        where_from("127.0.0.2", h.local_addr(), false).await,
        "127.0.0.2"
    );
    assert_eq!(
        where_from("127.0.0.3", h.local_addr(), true).await,
        "127.0.0.3"
    );
    h.shutdown().await.unwrap();
    // axum with connect info, then without it (no address known).
    for connect_info in [true, false] {
        let app = router(address_server(), options.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let a = listener.local_addr().unwrap();
        tokio::spawn(async move {
            if connect_info {
                let app = app.into_make_service_with_connect_info::<SocketAddr>();
                axum::serve(listener, app).await
            } else {
                axum::serve(listener, app).await
            }
        });
        let want = if connect_info { "127.0.0.4" } else { "none" };
        assert_eq!(where_from("127.0.0.4", a, false).await, want);
        assert_eq!(where_from("127.0.0.4", a, true).await, want);
    }
}
