//! Hardening of the HTTP server against hostile peers (issue 16), each case spoken over raw TCP:
//! strict chunked bodies with capped extensions and trailers, heads sent a byte at a time,
//! declared lengths not allocated up front, the memory budget, Host/Origin edge cases, the
//! connection cap and timeouts, the session table under an initialize flood, and 413 answers
//! that the client can read.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::{HttpServerHandle, HttpServerOptions};
use serde_json::json;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// A stateless JSON-response server with `opts` on top: every POST stands alone.
async fn server(opts: HttpServerOptions) -> (HttpServerHandle, String) {
    let (_s, h, _url) = start(opts.with_stateless(true).with_json_response(true)).await;
    let addr = h.local_addr().to_string();
    (h, addr)
}

/// The head of a chunked POST to /mcp.
fn chunked_head(addr: &str) -> String {
    format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
}

/// Sends `raw` on a fresh connection and reads one answer.
async fn exchange(addr: &str, raw: &[u8]) -> Answer {
    let mut w = Wire::connect(addr).await;
    w.send(raw).await;
    w.answer().await
}

/// Polls `f` until it holds or `wait` passes.
async fn eventually(wait: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    while tokio::time::Instant::now() < deadline {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}

#[tokio::test]
async fn chunk_sizes_with_a_sign_or_spaces_are_refused() {
    let (_h, addr) = server(HttpServerOptions::default()).await;
    let n = PING.len();
    // Accepted: plain hex, and spaces after the size (as hyper).
    let ok = format!("{}{n:x} \r\n{PING}\r\n0\r\n\r\n", chunked_head(&addr));
    assert_eq!(exchange(&addr, ok.as_bytes()).await.status, 200);
    for size in [
        format!("+{n:x}"),
        format!(" {n:x}"),
        format!("-{n:x}"),
        format!("0x{n:x}"),
    ] {
        let raw = format!("{}{size}\r\n{PING}\r\n0\r\n\r\n", chunked_head(&addr));
        let a = exchange(&addr, raw.as_bytes()).await;
        assert_eq!(a.status, 400, "chunk size {size:?} → {a:?}");
    }
}

#[tokio::test]
async fn bare_lf_and_control_bytes_in_chunk_lines_are_refused() {
    let (_h, addr) = server(HttpServerOptions::default()).await;
    let n = PING.len();
    let cases = [
        format!("{n:x}\n{PING}\r\n0\r\n\r\n"),
        format!("{n:x};a=b\n{PING}\r\n0\r\n\r\n"),
        format!("{n:x};a\u{1}b\r\n{PING}\r\n0\r\n\r\n"),
        format!("{n:x};a\rb\r\n{PING}\r\n0\r\n\r\n"),
        format!("{n:x}\r\n{PING}\r\n0\r\nX-T: a\u{1}b\r\n\r\n"),
        format!("{n:x}\r\n{PING}\r\n0\r\nX-T: a\nX-U: b\r\n\r\n"),
        format!("{n:x}\r\n{PING}\r\n0\r\n folded: x\r\n\r\n"),
        format!("{n:x}\r\n{PING}\r\n0\n\r\n"),
    ];
    for case in cases {
        let raw = format!("{}{case}", chunked_head(&addr));
        let a = exchange(&addr, raw.as_bytes()).await;
        assert_eq!(a.status, 400, "{case:?} → {a:?}");
    }
}

/// Transfer-Encoding is a list of codings, each a token with optional parameters (RFC 9112 §7):
/// parameters are read (hyper reads them too); a malformed list is refused, where hyper only
/// looks at the last element (found by the h1_differential fuzz target: `~ gzip, chunked`). A
/// well-formed list naming a coding other than chunked is 501 (only chunked is understood; see
/// http_transfer_encoding.rs).
#[tokio::test]
async fn transfer_coding_lists_are_read_by_their_grammar() {
    let (_h, addr) = server(HttpServerOptions::default()).await;
    let n = PING.len();
    let with_te = |te: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: {te}\r\n\r\n{n:x}\r\n{PING}\r\n0\r\n\r\n"
        )
    };
    for te in ["chunked", ", chunked", "chunked;a=\"b, c\""] {
        let a = exchange(&addr, with_te(te).as_bytes()).await;
        assert_eq!(a.status, 200, "{te:?} → {a:?}");
    }
    for te in ["x-id;q=1, chunked", "x-id ; a=\"b, c\" ,chunked"] {
        let a = exchange(&addr, with_te(te).as_bytes()).await;
        assert_eq!(a.status, 501, "{te:?} → {a:?}");
    }
    for te in [
        "~ gzip, chunked",
        "x-id chunked",
        "x-id;q, chunked",
        "x-id;q=\"1, chunked",
        "x-id/1, chunked",
    ] {
        let a = exchange(&addr, with_te(te).as_bytes()).await;
        assert_eq!(a.status, 400, "{te:?} → {a:?}");
        assert!(
            String::from_utf8_lossy(&a.body).contains("malformed Transfer-Encoding"),
            "{te:?} → {a:?}"
        );
    }
    // Well formed but not ending in chunked: refused as before.
    let a = exchange(&addr, with_te("chunked, x-id").as_bytes()).await;
    assert_eq!(a.status, 400, "{a:?}");
}

#[tokio::test]
async fn chunk_extensions_and_trailers_are_capped() {
    let (_h, addr) = server(HttpServerOptions::default()).await;
    // Extensions: 4,000 bytes on each of 8 one-byte chunks (32 KB in all, each line under the
    // per-line cap) go past the 16 KiB cap for a body.
    let ext = format!(";e={}", "x".repeat(4000));
    let mut raw = chunked_head(&addr);
    for b in PING.bytes().take(8) {
        raw.push_str(&format!("1{ext}\r\n{}\r\n", b as char));
    }
    raw.push_str(&format!(
        "{:x}\r\n{}\r\n0\r\n\r\n",
        PING.len() - 8,
        &PING[8..]
    ));
    let a = exchange(&addr, raw.as_bytes()).await;
    assert_eq!(a.status, 400, "{a:?}");
    // Trailers: 8 fields of 4,000 bytes (32 KB) go past the 16 KiB cap.
    let mut raw = format!("{}{:x}\r\n{PING}\r\n0\r\n", chunked_head(&addr), PING.len());
    for i in 0..8 {
        raw.push_str(&format!("X-T{i}: {}\r\n", "t".repeat(4000)));
    }
    raw.push_str("\r\n");
    let a = exchange(&addr, raw.as_bytes()).await;
    assert_eq!(a.status, 431, "{a:?}");
    // Trailers: more than the 64 fields a trailer section may carry.
    let mut raw = format!("{}{:x}\r\n{PING}\r\n0\r\n", chunked_head(&addr), PING.len());
    for i in 0..100 {
        raw.push_str(&format!("X-T{i}: t\r\n"));
    }
    raw.push_str("\r\n");
    let a = exchange(&addr, raw.as_bytes()).await;
    assert_eq!(a.status, 431, "{a:?}");
}

#[tokio::test]
async fn a_head_sent_a_byte_at_a_time_is_scanned_once() {
    let (h, addr) = server(HttpServerOptions::default()).await;
    let pad = "p".repeat(60 * 1024);
    let raw = post_raw(&addr, PING, &format!("X-Pad: {pad}\r\n"));
    let head_len = raw.len() - PING.len();
    let tcp = TcpStream::connect(&addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let mut w = Wire::over(tcp);
    for b in raw.as_bytes() {
        w.tcp.write_all(std::slice::from_ref(b)).await.unwrap();
    }
    let a = w.answer().await;
    assert_eq!(a.status, 200, "{a:?}");
    let scanned = h.stats().head_bytes_scanned;
    assert!(scanned >= head_len as u64, "counted {scanned}");
    // Each byte about once while waiting for the end, once more for the final parse.
    assert!(
        scanned <= 3 * head_len as u64,
        "{scanned} bytes examined for a {head_len}-byte head"
    );
}

#[tokio::test]
async fn declared_lengths_are_not_allocated_up_front() {
    let (h, addr) = server(HttpServerOptions::default()).await;
    let declared = 4_000_000;
    let mut conns = Vec::new();
    for _ in 0..20 {
        let mut w = Wire::connect(&addr).await;
        let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {declared}\r\n\r\n{{\"jsonrpc\"");
        w.send(head.as_bytes()).await;
        conns.push(w);
    }
    assert!(eventually(Duration::from_secs(5), || h.stats().open_connections == 20).await);
    // Every connection has read its head and the body's first bytes.
    assert!(
        eventually(Duration::from_secs(5), || h.stats().buffered_bytes
            > 20 * 10)
        .await
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let held = h.stats().buffered_bytes;
    assert!(
        held < 20 * declared / 8,
        "{held} bytes held for 20 bodies that sent 10 bytes each"
    );
    drop(conns);
    assert!(eventually(Duration::from_secs(5), || h.stats().buffered_bytes == 0).await);
}

#[tokio::test]
async fn bodies_beyond_the_memory_budget_are_refused() {
    let (h, addr) = server(HttpServerOptions::default().with_max_buffered_bytes(1 << 20)).await;
    // Six connections each send 300 KB of a 400 KB body: 1.8 MB would be held, over 1 MiB.
    let part = vec![b' '; 300_000];
    let mut conns = Vec::new();
    for _ in 0..6 {
        let mut w = Wire::connect(&addr).await;
        let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 400000\r\n\r\n");
        w.send(head.as_bytes()).await;
        let _ = w.tcp.write_all(&part).await;
        conns.push(w);
    }
    let mut refused = 0;
    for w in &mut conns {
        if w.answers_within(Duration::from_millis(500)).await {
            let a = w.answer().await;
            assert_eq!(a.status, 503, "{a:?}");
            refused += 1;
        }
    }
    assert!(refused >= 1, "nothing refused");
    assert!(h.stats().buffered_bytes <= 1 << 20);
    drop(conns);
    // The server serves again once the memory is given back.
    assert!(eventually(Duration::from_secs(5), || h.stats().buffered_bytes == 0).await);
    assert_eq!(
        exchange(&addr, post_raw(&addr, PING, "").as_bytes())
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn host_and_origin_edge_cases() {
    let (_h, addr) = server(HttpServerOptions::default()).await;
    let post = |extra: &str| post_raw(&addr, PING, extra);
    // A non-ASCII Origin does not switch the check off.
    let mut raw = post("").into_bytes();
    let at = raw.windows(2).position(|w| w == b"\r\n").unwrap() + 2;
    raw.splice(
        at..at,
        b"Origin: http://\xc3\xa9vil.example\r\n".iter().copied(),
    );
    assert_eq!(exchange(&addr, &raw).await.status, 403);
    // Duplicate Host or Origin: 400.
    let a = exchange(&addr, post("Host: evil.example\r\n").as_bytes()).await;
    assert_eq!(a.status, 400, "{a:?}");
    let two_origins = format!("Origin: http://{addr}\r\nOrigin: http://evil.example\r\n");
    assert_eq!(
        exchange(&addr, post(&two_origins).as_bytes()).await.status,
        400
    );
    // Absolute-form target: its authority is the one checked (RFC 9112 §3.2.2).
    let evil = post("").replacen("POST /mcp", "POST http://evil.example/mcp", 1);
    assert_eq!(exchange(&addr, evil.as_bytes()).await.status, 403);
    let good = post("")
        .replacen("POST /mcp", &format!("POST http://{addr}/mcp"), 1)
        .replacen(&format!("Host: {addr}"), "Host: evil.example", 1);
    assert_eq!(exchange(&addr, good.as_bytes()).await.status, 200);
    // Still fine: one Host, one allowed Origin.
    let ok = post(&format!("Origin: http://{addr}\r\n"));
    assert_eq!(exchange(&addr, ok.as_bytes()).await.status, 200);
}

#[tokio::test]
async fn silent_and_slow_connections_are_closed_after_the_header_read_timeout() {
    let (h, addr) =
        server(HttpServerOptions::default().with_header_read_timeout(Duration::from_millis(300)))
            .await;
    // Silent: closed without an answer.
    let mut w = Wire::connect(&addr).await;
    assert!(
        w.closed_by_server().await,
        "a silent connection stayed open"
    );
    // A head begun but not finished: 408.
    let mut w = Wire::connect(&addr).await;
    w.send(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .await;
    assert_eq!(w.answer().await.status, 408);
    drop(w);
    assert!(eventually(Duration::from_secs(2), || h.stats().open_connections == 0).await);
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_while_every_one_is_busy_then_an_idle_one_makes_room() {
    let (h, addr) = server(
        HttpServerOptions::default()
            .with_max_connections(2)
            .with_connections_kept_for_sessions(0),
    )
    .await;
    let slow = |id: u64| {
        post_raw(
            &addr,
            &call(id, "later", json!({"ms": 700})).to_string(),
            "",
        )
    };
    let mut first = Wire::connect(&addr).await;
    first.send(slow(1).as_bytes()).await;
    let mut second = Wire::connect(&addr).await;
    second.send(slow(2).as_bytes()).await;
    // Both connections busy: a third waits.
    let mut third = Wire::connect(&addr).await;
    third.send(post_raw(&addr, PING, "").as_bytes()).await;
    assert!(
        !third.answers_within(Duration::from_millis(300)).await,
        "a third connection was served past the cap of 2"
    );
    // The first answer is written: that connection is idle (kept alive), so it is closed to
    // make room for the third, which is then served.
    assert_eq!(first.answer().await.status, 200);
    assert_eq!(third.answer().await.status, 200);
    assert!(
        first.closed_by_server().await,
        "the idle connection stayed open"
    );
    assert_eq!(second.answer().await.status, 200);
    assert!(h.stats().open_connections <= 2, "{:?}", h.stats());
}

#[tokio::test]
async fn a_client_that_never_reads_is_dropped_after_the_write_timeout() {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_write_timeout(Duration::from_millis(500)),
    )
    .await;
    let addr = h.local_addr().to_string();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let tcp = socket.connect(h.local_addr()).await.unwrap();
    let mut w = Wire::over(tcp);
    // About 24 MB of notifications on the call's stream, none of it read.
    let body = call(1, "shout", json!({"count": 400, "size": 60_000})).to_string();
    w.send(post_raw(&addr, &body, "").as_bytes()).await;
    assert!(eventually(Duration::from_secs(2), || h.stats().open_connections == 1).await);
    assert!(
        eventually(Duration::from_secs(10), || h.stats().open_connections == 0).await,
        "the connection of a client that never reads is still open"
    );
    drop(w);
}

#[tokio::test]
async fn an_initialize_flood_evicts_the_least_recently_active_idle_session() {
    let (_s, _h, url) = start(HttpServerOptions::default().with_max_sessions(3)).await;
    let s1 = init_session(&url).await;
    let s2 = init_session(&url).await;
    let s3 = init_session(&url).await;
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});
    // s1 is used again: s2 is now the least recently active.
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(post(&url, Some(&s1), ping.clone()).await.status, 200);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let s4 = init_session(&url).await;
    assert_eq!(post(&url, Some(&s2), ping.clone()).await.status, 404);
    for s in [&s1, &s3, &s4] {
        assert_eq!(post(&url, Some(s), ping.clone()).await.status, 200);
    }
}

#[tokio::test]
async fn a_413_is_read_by_the_client_rather_than_reset() {
    let (_h, addr) = server(HttpServerOptions::default().with_max_body_size(1024)).await;
    let body = vec![b' '; 3_000_000];
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len());
    let tcp = TcpStream::connect(&addr).await.unwrap();
    let (mut rd, mut wr) = tcp.into_split();
    let writer = tokio::spawn(async move {
        let _ = wr.write_all(head.as_bytes()).await;
        let _ = wr.write_all(&body).await;
        wr
    });
    let mut answer = Vec::new();
    let read = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::io::AsyncReadExt::read_to_end(&mut rd, &mut answer),
    )
    .await
    .expect("no answer within 10 s");
    let _ = writer.await;
    let text = String::from_utf8_lossy(&answer);
    assert!(read.is_ok(), "read failed ({read:?}) after {text:?}");
    assert!(text.starts_with("HTTP/1.1 413"), "{text:?}");
}

#[tokio::test]
async fn a_request_over_the_size_limit_is_answered_with_its_id() {
    let (_h, addr) = server(HttpServerOptions::default().with_max_body_size(1024)).await;
    let body = json!({"jsonrpc":"2.0","id":77,"method":"tools/call",
        "params":{"name":"count","arguments":{"pad":"p".repeat(3000)}}})
    .to_string();
    let a = exchange(&addr, post_raw(&addr, &body, "").as_bytes()).await;
    assert_eq!(a.status, 413, "{a:?}");
    assert_eq!(a.json()["id"], 77, "{a:?}");
    assert_eq!(a.json()["error"]["code"], -32600, "{a:?}");
    // Chunked: the same, whether the body goes over in its first chunk or a later one.
    let (head, tail) = body.split_at(40);
    for raw in [
        format!(
            "{}{:x}\r\n{body}\r\n0\r\n\r\n",
            chunked_head(&addr),
            body.len()
        ),
        format!(
            "{}{:x}\r\n{head}\r\n{:x}\r\n{tail}\r\n0\r\n\r\n",
            chunked_head(&addr),
            head.len(),
            tail.len()
        ),
    ] {
        let a = exchange(&addr, raw.as_bytes()).await;
        assert_eq!(a.status, 413, "{a:?}");
        assert_eq!(a.json()["id"], 77, "{a:?}");
    }
}
