//! A body over the size limit (413) is answered with the id of the request it carries, wherever
//! the id sits: the TypeScript SDK writes `{"method":…,"params":{…},"jsonrpc":"2.0","id":7}`, so
//! the id of a message just over the limit comes after megabytes of params. The server reads
//! the body on (to a hard cap, not keeping it) and scans it for the id; without the id the
//! client would wait out its request timeout. The same holds for the endpoint mounted with
//! `router()` in an axum app.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::{router, HttpServerOptions};

/// A `tools/call` written as the TypeScript SDK writes it: the id last, after `pad` bytes of
/// arguments.
fn late_id_call(pad: usize) -> String {
    format!(
        r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}","n":[{{"a":"]}}"}}]}}}},"jsonrpc":"2.0","id":7}}"#,
        "x".repeat(pad)
    )
}

async fn server(max_body_size: usize) -> (ferromcp::transport::http::HttpServerHandle, String) {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true)
            .with_max_body_size(max_body_size),
    )
    .await;
    let addr = h.local_addr().to_string();
    (h, addr)
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_with_the_id_written_after_params() {
    // The default limit (4 MiB), a message of 4.5 MiB.
    let (_h, addr) = server(4 * 1024 * 1024).await;
    let body = late_id_call(4_500_000);
    assert!(body.len() > 4 * 1024 * 1024);
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, &body, "").as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 413, "{:?}", a.head);
    let v = a.json();
    assert_eq!(v["id"], 7, "{v}");
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(w.closed_by_server().await);
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_refused_with_the_id_written_after_params() {
    let (_h, addr) = server(64 * 1024).await;
    let body = late_id_call(200_000);
    let mut raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    for piece in body.as_bytes().chunks(10_000) {
        raw.push_str(&format!("{:x}\r\n", piece.len()));
        raw.push_str(std::str::from_utf8(piece).unwrap());
        raw.push_str("\r\n");
    }
    raw.push_str("0\r\n\r\n");
    let mut w = Wire::connect(&addr).await;
    w.send(raw.as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 413, "{:?}", a.head);
    assert_eq!(a.json()["id"], 7, "{:?}", a.json());
}

#[tokio::test]
async fn a_response_over_the_limit_gets_no_id() {
    // An error must not answer a response: no id, whatever the body names.
    let (_h, addr) = server(64 * 1024).await;
    let body = format!(
        r#"{{"result":{{"t":"{}"}},"jsonrpc":"2.0","id":7}}"#,
        "x".repeat(100_000)
    );
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, &body, "").as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 413);
    assert!(a.json().get("id").is_none(), "{:?}", a.json());
}

#[tokio::test]
async fn the_router_refuses_with_the_id_too() {
    // The same endpoint mounted in an axum app: axum reads the HTTP, the router the body.
    let app = router(
        demo_server(),
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true)
            .with_max_body_size(64 * 1024),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let body = late_id_call(300_000);
    // Announced by Content-Length, and chunked (the size known only as it arrives).
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, &body, "").as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 413, "{:?}", a.head);
    assert_eq!(a.json()["id"], 7, "{:?}", a.json());
    let mut raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    for piece in body.as_bytes().chunks(10_000) {
        raw.push_str(&format!("{:x}\r\n", piece.len()));
        raw.push_str(std::str::from_utf8(piece).unwrap());
        raw.push_str("\r\n");
    }
    raw.push_str("0\r\n\r\n");
    let mut w = Wire::connect(&addr).await;
    w.send(raw.as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 413, "{:?}", a.head);
    assert_eq!(a.json()["id"], 7, "{:?}", a.json());
}
