//! The DNS-rebinding guard reads `Host` and `Origin` exactly as RFC 9110 writes them.
//!
//! - `Host` is `uri-host [ ":" port ]` (RFC 9110 §7.2): the whitespace around a field value is
//!   not part of it (RFC 9110 §5.5; the HTTP parser drops it), so `Host: localhost:PORT ` names
//!   `localhost:PORT` and is accepted, deliberately. Whitespace inside the value, a sign before
//!   the port, userinfo or a path is no host at all: 403.
//! - `Origin` is a serialized origin, `scheme://host[:port]` with nothing after it (RFC 6454
//!   §6.2, RFC 9110 §7.2): `http://localhost:PORT/` is not one, and is refused with 403 as a
//!   foreign origin is.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::HttpServerOptions;

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// A POST of PING with `host` as its Host field (as written, OWS included) and `extra` fields.
fn post(host: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost:{host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{PING}",
        PING.len()
    )
}

async fn status(addr: &str, raw: &str) -> u16 {
    let mut w = Wire::connect(addr).await;
    w.send(raw.as_bytes()).await;
    w.answer().await.status
}

async fn loopback_server() -> (ferromcp::transport::http::HttpServerHandle, String, u16) {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let port = h.local_addr().port();
    (h, format!("127.0.0.1:{port}"), port)
}

#[tokio::test]
async fn host_is_compared_exactly() {
    let (_h, addr, port) = loopback_server().await;
    // Accepted: the allowed names with the bound port; OWS around the value is not part of it.
    for host in [
        format!(" localhost:{port}"),
        format!(" LOCALHOST:{port}"),
        format!(" 127.0.0.1:{port}"),
        format!(" [::1]:{port}"),
        format!(" localhost:{port} "),
        format!("\tlocalhost:{port}\t"),
    ] {
        assert_eq!(status(&addr, &post(&host, "")).await, 200, "Host:{host:?}");
    }
    // Refused: whatever is not `uri-host [":" port]` for an allowed host and port.
    for host in [
        format!(" localhost :{port}"),
        format!(" localhost: {port}"),
        format!(" localhost:+{port}"),
        format!(" localhost:{port}/"),
        format!(" localhost:{port}/mcp"),
        format!(" u@localhost:{port}"),
        format!(" localhost:{port}:{port}"),
        format!(" localhost\t:{port}"),
        format!(" [::1] :{port}"),
        format!(" localhost:{port}0"),
        format!(" localhost.:{port}"),
        " :80".to_string(),
        " ".to_string(),
    ] {
        assert_eq!(status(&addr, &post(&host, "")).await, 403, "Host:{host:?}");
    }
}

#[tokio::test]
async fn origin_must_be_a_serialized_origin() {
    let (_h, addr, port) = loopback_server().await;
    let host = format!(" localhost:{port}");
    for origin in [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("HTTP://LOCALHOST:{port}"),
    ] {
        let extra = format!("Origin: {origin}\r\n");
        assert_eq!(status(&addr, &post(&host, &extra)).await, 200, "{origin}");
    }
    for origin in [
        format!("http://localhost:{port}/"),
        format!("http://localhost:{port}/mcp"),
        format!("http://localhost:{port}?x"),
        format!("http://localhost:{port}#x"),
        format!("http://u@localhost:{port}"),
        format!("http://localhost:+{port}"),
        format!("http://localhost :{port}"),
        format!("localhost:{port}"),
        format!("://localhost:{port}"),
        "http://evil.example".to_string(),
        "null".to_string(),
    ] {
        let extra = format!("Origin: {origin}\r\n");
        assert_eq!(status(&addr, &post(&host, &extra)).await, 403, "{origin}");
    }
}
