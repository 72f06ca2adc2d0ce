//! Transfer-Encoding on a request, read as RFC 9112 §6 says: `chunked` is the only coding the
//! server understands (any other: 501 Not Implemented, §6.1), it must be the final coding and
//! named once (400 otherwise: the body's length is unknown, §6.3), and Transfer-Encoding
//! beside Content-Length is refused (400, the smuggling case of §6.1). Each refusal closes the
//! connection.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::{HttpServerHandle, HttpServerOptions};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

async fn server() -> (HttpServerHandle, String) {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let addr = h.local_addr().to_string();
    (h, addr)
}

/// A POST of PING, chunked, with `te` as its Transfer-Encoding field(s) and `extra` fields.
fn post(addr: &str, te: &[&str], extra: &str) -> String {
    let fields: String = te
        .iter()
        .map(|v| format!("Transfer-Encoding: {v}\r\n"))
        .collect();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{fields}{extra}\r\n{:x}\r\n{PING}\r\n0\r\n\r\n",
        PING.len()
    )
}

async fn exchange(addr: &str, raw: &str) -> (Answer, bool) {
    let mut w = Wire::connect(addr).await;
    w.send(raw.as_bytes()).await;
    let a = w.answer().await;
    let closed = a.status == 200 || w.closed_by_server().await;
    (a, closed)
}

#[tokio::test]
async fn only_chunked_is_understood() {
    let (_h, addr) = server().await;
    for te in [&["chunked"][..], &["CHUNKED"], &[" chunked "]] {
        let (a, _) = exchange(&addr, &post(&addr, te, "")).await;
        assert_eq!(a.status, 200, "{te:?} → {a:?}");
    }
    // A coding the server does not understand: 501, whatever comes after it. A gzip body must
    // never be read as if it were not compressed.
    for te in [
        &["identity, chunked"][..],
        &["gzip, chunked"],
        &["x-id;q=1, chunked"],
        &["gzip", "chunked"],
        &["deflate,chunked"],
    ] {
        let (a, closed) = exchange(&addr, &post(&addr, te, "")).await;
        assert_eq!(a.status, 501, "{te:?} → {a:?}");
        assert!(closed, "{te:?} left the connection open");
    }
}

#[tokio::test]
async fn chunked_must_be_final_and_named_once() {
    let (_h, addr) = server().await;
    for te in [
        &["chunked, chunked"][..],
        &["chunked", "chunked"],
        &["chunked, gzip"],
        &["gzip"],
        &["chunked", "gzip"],
        &["chunked, identity"],
    ] {
        let (a, closed) = exchange(&addr, &post(&addr, te, "")).await;
        assert_eq!(a.status, 400, "{te:?} → {a:?}");
        assert!(closed, "{te:?} left the connection open");
    }
}

#[tokio::test]
async fn transfer_encoding_with_content_length_is_refused() {
    let (_h, addr) = server().await;
    for cl in ["0", "5", &PING.len().to_string(), "x"] {
        let raw = post(&addr, &["chunked"], &format!("Content-Length: {cl}\r\n"));
        let (a, closed) = exchange(&addr, &raw).await;
        assert_eq!(a.status, 400, "Content-Length {cl} → {a:?}");
        assert!(closed, "Content-Length {cl} left the connection open");
    }
    // Before Transfer-Encoding too.
    let raw = post(&addr, &[], "").replacen(
        "\r\n\r\n",
        &format!(
            "\r\nContent-Length: {}\r\nTransfer-Encoding: chunked\r\n\r\n",
            PING.len()
        ),
        1,
    );
    let (a, _) = exchange(&addr, &raw).await;
    assert_eq!(a.status, 400, "{a:?}");
}
