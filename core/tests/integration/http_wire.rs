//! Streamable HTTP server: the HTTP/1.1 wire itself (keep-alive, pipelining, chunked bodies,
//! `Expect: 100-continue`, limits, malformed requests, clients that leave), spoken over raw TCP;
//! and the same endpoint mounted through `router()` in an axum app.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::{router, HttpServerOptions};
use serde_json::json;
use std::time::Duration;
use tokio::io::AsyncReadExt;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// A stateless JSON-response server: every POST stands alone, which keeps the raw requests short.
async fn json_server(max_body: usize) -> (ferromcp::transport::http::HttpServerHandle, String) {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true)
            .with_max_body_size(max_body),
    )
    .await;
    let addr = h.local_addr().to_string();
    (h, addr)
}

#[tokio::test]
async fn keep_alive_and_pipelining() {
    let (_h, addr) = json_server(1 << 20).await;
    let mut w = Wire::connect(&addr).await;
    // Two requests one after the other on one connection.
    for id in [1, 2] {
        let body = json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string();
        w.send(post_raw(&addr, &body, "").as_bytes()).await;
        let a = w.answer().await;
        assert_eq!(a.status, 200, "{a:?}");
        assert_eq!(a.json()["id"], id);
    }
    // Three pipelined in one write: answered in order.
    let mut burst = String::new();
    for id in [3, 4, 5] {
        burst += &post_raw(
            &addr,
            &json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string(),
            "",
        );
    }
    w.send(burst.as_bytes()).await;
    for id in [3, 4, 5] {
        let a = w.answer().await;
        assert_eq!(a.status, 200);
        assert_eq!(a.json()["id"], id);
    }
    // A request split across writes, in the middle of its head and of its body.
    let req = post_raw(
        &addr,
        &json!({"jsonrpc":"2.0","id":6,"method":"ping"}).to_string(),
        "",
    );
    let (a, rest) = req.split_at(20);
    let (b, c) = rest.split_at(rest.len() - 5);
    for part in [a, b, c] {
        w.send(part.as_bytes()).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(w.answer().await.json()["id"], 6);
}

#[tokio::test]
async fn chunked_bodies_and_expect_continue() {
    let (_h, addr) = json_server(1 << 20).await;
    let mut w = Wire::connect(&addr).await;
    let (first, second) = INIT.split_at(30);
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x};ext=1\r\n{first}\r\n{:X}\r\n{second}\r\n0\r\nX-Trailer: t\r\n\r\n",
        first.len(),
        second.len()
    );
    w.send(req.as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(a.json()["result"]["protocolVersion"], "2025-11-25");

    // Expect: 100-continue: the interim answer comes before the body is sent.
    let body = json!({"jsonrpc":"2.0","id":2,"method":"ping"}).to_string();
    let head = post_raw(&addr, &body, "Expect: 100-continue\r\n");
    let head = &head[..head.len() - body.len()];
    w.send(head.as_bytes()).await;
    let (status, _) = w.head().await;
    assert_eq!(status, 100);
    w.send(body.as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 200);
    assert_eq!(a.json()["id"], 2);
}

#[tokio::test]
async fn limits_and_malformed_requests_are_refused() {
    let (_h, addr) = json_server(1024).await;

    // A Content-Length over the limit: 413 with a JSON-RPC error, then the connection closes.
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, &"x".repeat(2000), "").as_bytes())
        .await;
    let a = w.answer().await;
    assert_eq!(a.status, 413);
    assert_eq!(a.json()["error"]["code"], -32600);
    assert!(w.closed_by_server().await);

    // A chunked body that grows past the limit: 413.
    let mut w = Wire::connect(&addr).await;
    let chunk = "y".repeat(600);
    w.send(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n{chunk}\r\n258\r\n{chunk}\r\n"
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(w.answer().await.status, 413);
    assert!(w.closed_by_server().await);

    // A head over 64 KiB: 431.
    let mut w = Wire::connect(&addr).await;
    let big = "a".repeat(70 * 1024);
    w.send(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Big: {big}\r\n\r\n").as_bytes())
        .await;
    assert_eq!(w.answer().await.status, 431);

    // Garbage, conflicting lengths, an unsupported transfer coding, a bad chunk size: 400, close.
    for bad in [
        "HELLO\r\n\r\n".to_string(),
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}"),
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: -1\r\n\r\n"),
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: gzip\r\n\r\n"),
        // Found by the h1_differential fuzz target: a coding that is not a token (obs-text).
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: g\u{e9}ip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nBad Name: x\r\n\r\n"),
    ] {
        let mut w = Wire::connect(&addr).await;
        w.send(bad.as_bytes()).await;
        let a = w.answer().await;
        assert_eq!(a.status, 400, "{bad:?} → {a:?}");
        assert!(w.closed_by_server().await, "{bad:?} left the connection open");
    }

    // The server still answers on a fresh connection.
    let mut w = Wire::connect(&addr).await;
    w.send(
        post_raw(
            &addr,
            &json!({"jsonrpc":"2.0","id":9,"method":"ping"}).to_string(),
            "",
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(w.answer().await.json()["id"], 9);
}

#[tokio::test]
async fn connection_close_http10_paths_and_methods() {
    let (_h, addr) = json_server(1 << 20).await;
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string();

    // `Connection: close` is honoured.
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, &ping, "Connection: close\r\n").as_bytes())
        .await;
    let a = w.answer().await;
    assert_eq!(a.status, 200);
    assert_eq!(a.header("connection").as_deref(), Some("close"));
    assert!(w.closed_by_server().await);

    // HTTP/1.0 closes by default and keeps alive when asked.
    let req10 = post_raw(&addr, &ping, "").replacen("HTTP/1.1", "HTTP/1.0", 1);
    let mut w = Wire::connect(&addr).await;
    w.send(req10.as_bytes()).await;
    let a = w.answer().await;
    assert!(a.head.starts_with("HTTP/1.0 200"), "{a:?}");
    assert!(w.closed_by_server().await);
    let req10 =
        post_raw(&addr, &ping, "Connection: keep-alive\r\n").replacen("HTTP/1.1", "HTTP/1.0", 1);
    let mut w = Wire::connect(&addr).await;
    w.send(req10.as_bytes()).await;
    w.send(req10.as_bytes()).await;
    assert_eq!(w.answer().await.status, 200);
    assert_eq!(w.answer().await.status, 200);

    // Unknown paths: 404; the legacy endpoints take one method each: 405 with Allow.
    let mut w = Wire::connect(&addr).await;
    w.send(format!("GET /nope HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await;
    assert_eq!(w.answer().await.status, 404);
    w.send(format!("DELETE /sse HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await;
    let a = w.answer().await;
    assert_eq!(a.status, 405);
    assert_eq!(a.header("allow").as_deref(), Some("GET"));
    // A query string does not change the route.
    w.send(
        format!("POST /mcp?x=1 HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\r\n{ping}", ping.len())
            .as_bytes(),
    )
    .await;
    assert_eq!(w.answer().await.status, 200);
}

#[tokio::test]
async fn streams_are_chunked_and_a_departed_client_frees_its_stream() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let addr = h.local_addr().to_string();
    let sid = init_session(&url).await;
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
    );
    let mut w = Wire::connect(&addr).await;
    w.send(get.as_bytes()).await;
    let (status, head) = w.head().await;
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    assert!(head.contains("text/event-stream"), "{head}");

    // While it is open, a second GET stream for the session is refused.
    let mut w2 = Wire::connect(&addr).await;
    w2.send(get.as_bytes()).await;
    assert_eq!(w2.answer().await.status, 409);

    // The client goes away: its stream is dropped, and a new one can open.
    drop(w);
    let mut opened = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut w3 = Wire::connect(&addr).await;
        w3.send(get.as_bytes()).await;
        let (status, _) = w3.head().await;
        if status == 200 {
            opened = true;
            break;
        }
        assert_eq!(status, 409);
    }
    assert!(
        opened,
        "the departed client's GET stream was never released"
    );
}

#[tokio::test]
async fn a_client_leaving_mid_request_does_not_disturb_others() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let addr = h.local_addr().to_string();
    let sid = init_session(&url).await;
    // A slow call whose client disconnects before the answer.
    let body = call(7, "count", json!({"steps": 3, "delay_ms": 200})).to_string();
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, &body, &format!("Mcp-Session-Id: {sid}\r\n")).as_bytes())
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    drop(w);
    // The session goes on serving.
    let r = post(&url, Some(&sid), call(8, "count", json!({"steps": 1}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let msgs = r.sse_messages();
    let last = msgs.last().expect("an answer");
    assert_eq!(last["id"], 8);
    assert_eq!(last["result"]["content"][0]["text"], "counted to 1");
}

#[tokio::test]
async fn router_mounts_in_an_axum_app() {
    let app = axum::Router::new().nest(
        "/api",
        router(
            demo_server(),
            HttpServerOptions::default().with_json_response(true),
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/api/mcp");
    let r = post(&url, None, init_body("2025-11-25")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.sid().expect("session id");
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":2,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["id"], 2);
    // The body limit holds on this path too.
    let big = "x".repeat(5 * 1024 * 1024);
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad": big}}),
    )
    .await;
    assert_eq!(r.status, 413);
}

/// A kept-alive connection is closed after 5 minutes without a request, counted from its last
/// answer: requests 3 minutes apart keep it open (the idle timer is re-armed, not reset per
/// request), and silence after them closes it at 5 minutes. Runs on tokio's paused clock.
#[tokio::test(start_paused = true)]
async fn idle_keep_alive_connections_close_after_five_silent_minutes() {
    let (_h, addr) = json_server(1 << 20).await;
    let mut w = Wire::connect(&addr).await;
    for id in 1..=3 {
        let body = json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string();
        w.send(post_raw(&addr, &body, "").as_bytes()).await;
        let a = w.answer().await;
        assert_eq!(
            a.json()["id"],
            id,
            "request {id} 3 minutes after the last: {a:?}"
        );
        tokio::time::sleep(Duration::from_secs(180)).await;
    }
    // Three minutes of silence already; the server closes two minutes later, not before.
    let silent_since = tokio::time::Instant::now() - Duration::from_secs(180);
    let mut byte = [0u8; 1];
    let n = w.tcp.read(&mut byte).await.unwrap_or(0);
    assert_eq!(
        n, 0,
        "the server closes an idle connection without sending anything"
    );
    let idle = tokio::time::Instant::now() - silent_since;
    assert!(
        idle >= Duration::from_secs(300) && idle < Duration::from_secs(301),
        "closed after {idle:?} of silence"
    );
}

/// A POST whose handler answers a little later (a handler in another language, a short await)
/// gets head, priming event and answer in one response with a length; a slow, silent one gets
/// its head and priming event first and the answer as a chunk of the stream.
#[tokio::test]
async fn a_prompt_answer_leaves_with_its_head_and_a_slow_one_streams() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let addr = h.local_addr().to_string();
    let sid = init_session(&url).await;
    let mut w = Wire::connect(&addr).await;
    let soon = call(2, "later", json!({"ms": 0})).to_string();
    w.send(post_raw(&addr, &soon, &format!("Mcp-Session-Id: {sid}\r\n")).as_bytes())
        .await;
    let a = w.answer().await;
    assert_eq!(a.status, 200, "{a:?}");
    assert!(
        a.header("content-length").is_some(),
        "{}{}",
        a.head,
        String::from_utf8_lossy(&a.body)
    );
    assert!(String::from_utf8_lossy(&a.body).contains("later 0"));

    let slow = call(3, "later", json!({"ms": 1500})).to_string();
    w.send(post_raw(&addr, &slow, &format!("Mcp-Session-Id: {sid}\r\n")).as_bytes())
        .await;
    let (status, head) = w.head().await;
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    assert!(
        !String::from_utf8_lossy(&w.buf).contains("later 1500"),
        "the head came with the answer"
    );
    let mut body = Vec::new();
    loop {
        let size = w.chunk_size().await;
        while w.buf.len() < size + 2 {
            assert!(w.more().await, "chunk cut short");
        }
        body.extend(w.buf.drain(..size));
        w.buf.drain(..2);
        if size == 0 {
            break;
        }
    }
    let body = String::from_utf8_lossy(&body);
    assert!(
        body.starts_with("id: "),
        "the priming event comes first: {body}"
    );
    assert!(body.contains("later 1500"), "{body}");
}
