//! Compression of the HTTP transport (issue 38, docs/compression.md): answers encoded as the
//! request's `Accept-Encoding` weighs the codings (a 10 MB result in each of gzip, br and zstd,
//! an SSE stream whose events arrive decodable one by one, small answers sent as is), request
//! bodies decoded (in each coding; 415 for one the server does not take, 413 past the size limit
//! once decoded), the off switch, and the engine's client asking for and decoding compressed
//! answers, with the bytes on the wire counted by a proxy. The 1 GB decompression bomb is in
//! `http_compression_bomb.rs` (it measures the process's memory, so it runs alone).

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::transport::http::{
    serve_http, CompressionOptions, ContentCoding, HttpServerHandle, HttpServerOptions,
};
use serde::Deserialize;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const TEN_MB: usize = 10 * 1024 * 1024;

#[derive(Deserialize, schemars::JsonSchema)]
struct BigArgs {
    /// Bytes of text in the result.
    bytes: usize,
}

/// A JSON-looking text of `n` bytes (repetitive, as real JSON results are).
fn json_text(n: usize) -> String {
    let mut s = String::with_capacity(n + 64);
    let mut i = 0u64;
    while s.len() < n {
        s.push_str(&format!(
            "{{\"id\":{i},\"name\":\"item-{i}\",\"tags\":[\"a\",\"b\"],\"ok\":true}},"
        ));
        i += 1;
    }
    s.truncate(n);
    s
}

fn big_server() -> Server {
    Server::builder("compression-test", "1.0")
        .tool(
            "big",
            "Answers a text of `bytes` bytes",
            |a: BigArgs, _ctx| async move { json_text(a.bytes) },
        )
        .build()
        .unwrap()
}

async fn serve(server: Server, opts: HttpServerOptions) -> (HttpServerHandle, String) {
    let h = serve_http(server, "127.0.0.1:0", opts).await.unwrap();
    let addr = h.local_addr().to_string();
    (h, addr)
}

/// A stateless JSON-answer server: every POST stands alone.
async fn json_server(compression: Option<CompressionOptions>) -> (HttpServerHandle, String) {
    serve(
        big_server(),
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true)
            .with_compression(compression),
    )
    .await
}

fn call_big(bytes: usize) -> String {
    json!({"jsonrpc":"2.0","id":7,"method":"tools/call",
           "params":{"name":"big","arguments":{"bytes": bytes}}})
    .to_string()
}

async fn exchange(addr: &str, raw: &[u8]) -> Answer {
    let mut w = Wire::connect(addr).await;
    w.send(raw).await;
    tokio::time::timeout(Duration::from_secs(60), w.answer())
        .await
        .expect("answer in time")
}

fn decode(coding: &str, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match coding {
        "gzip" => {
            let mut d = flate2::write::MultiGzDecoder::new(&mut out);
            d.write_all(data).unwrap();
            d.finish().unwrap();
        }
        "br" => {
            let mut d = brotli::DecompressorWriter::new(&mut out, 4096);
            d.write_all(data).unwrap();
            d.into_inner().map_err(|_| "truncated").unwrap();
        }
        "zstd" => out = zstd::stream::decode_all(data).unwrap(),
        other => panic!("unexpected coding {other}"),
    }
    out
}

fn encode(coding: &str, data: &[u8]) -> Vec<u8> {
    match coding {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "br" => {
            let mut e = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
            e.write_all(data).unwrap();
            e.into_inner()
        }
        "zstd" => zstd::stream::encode_all(data, 3).unwrap(),
        other => panic!("unexpected coding {other}"),
    }
}

/// A POST of `body` (bytes) with extra header lines.
fn post_bytes(addr: &str, body: &[u8], extra: &str) -> Vec<u8> {
    let mut raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    raw.extend_from_slice(body);
    raw
}

#[tokio::test]
async fn a_10_mb_result_crosses_compressed_in_every_coding() {
    let (_h, addr) = json_server(Some(CompressionOptions::default())).await;
    let plain = exchange(&addr, post_raw(&addr, &call_big(TEN_MB), "").as_bytes()).await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-encoding"), None);
    assert!(plain.body.len() > TEN_MB, "{}", plain.body.len());
    let text = plain.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .len();
    assert_eq!(text, TEN_MB);
    for coding in ["gzip", "br", "zstd"] {
        let raw = post_raw(
            &addr,
            &call_big(TEN_MB),
            &format!("Accept-Encoding: {coding}\r\n"),
        );
        let a = exchange(&addr, raw.as_bytes()).await;
        assert_eq!(a.status, 200);
        assert_eq!(a.header("content-encoding").as_deref(), Some(coding));
        assert_eq!(a.header("vary").as_deref(), Some("accept-encoding"));
        assert!(
            a.body.len() * 5 < plain.body.len(),
            "{coding}: {} bytes on the wire for {}",
            a.body.len(),
            plain.body.len()
        );
        assert_eq!(decode(coding, &a.body), plain.body, "{coding}");
    }
}

#[tokio::test]
async fn a_10_mb_result_on_an_sse_stream_crosses_compressed() {
    // A 10 MB event needs a stream budget above it (else the stream is closed after its priming
    // event, to be resumed: the engine client's test below takes that way).
    let (h, addr) = serve(
        big_server(),
        HttpServerOptions::default()
            .with_max_stream_buffered_bytes(64 << 20)
            .with_max_session_buffered_bytes(64 << 20),
    )
    .await;
    let url = format!("http://{addr}/mcp");
    let sid = init_session(&url).await;
    let raw = post_raw(
        &addr,
        &call_big(TEN_MB),
        &format!("Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nAccept-Encoding: gzip\r\n"),
    );
    let a = exchange(&addr, raw.as_bytes()).await;
    assert_eq!(a.status, 200);
    assert!(a
        .header("content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    assert_eq!(a.header("content-encoding").as_deref(), Some("gzip"));
    assert!(
        a.body.len() * 5 < TEN_MB,
        "{} bytes on the wire",
        a.body.len()
    );
    let decoded = String::from_utf8(decode("gzip", &a.body)).unwrap();
    let data = decoded
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|d| !d.is_empty())
        .expect("an event");
    let v: Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["id"], 7);
    assert_eq!(v["result"]["content"][0]["text"], json_text(TEN_MB));
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_highest_weighted_coding_is_chosen() {
    let (_h, addr) = json_server(Some(CompressionOptions::default())).await;
    let cases = [
        ("gzip, deflate, br, zstd", Some("zstd")),
        ("gzip, deflate, br", Some("br")),
        ("gzip;q=0.5, br;q=0.9, zstd;q=0", Some("br")),
        ("zstd;q=0.1, gzip", Some("gzip")),
        ("*", Some("zstd")),
        ("identity", None),
        ("deflate", None),
        ("*;q=0", None),
    ];
    for (accept, want) in cases {
        let raw = post_raw(
            &addr,
            &call_big(64 * 1024),
            &format!("Accept-Encoding: {accept}\r\n"),
        );
        let a = exchange(&addr, raw.as_bytes()).await;
        assert_eq!(a.status, 200);
        assert_eq!(a.header("content-encoding").as_deref(), want, "{accept}");
    }
}

#[tokio::test]
async fn answers_under_the_threshold_are_sent_as_is() {
    let (_h, addr) = json_server(Some(CompressionOptions::default().with_min_size(4096))).await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let a = exchange(
        &addr,
        post_raw(&addr, ping, "Accept-Encoding: gzip\r\n").as_bytes(),
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(a.header("content-encoding"), None);
    assert_eq!(a.header("vary").as_deref(), Some("accept-encoding"));
    assert_eq!(a.json()["id"], 1);
    // Just under and just over the threshold (the answer's JSON wraps the text).
    let under = exchange(
        &addr,
        post_raw(&addr, &call_big(3000), "Accept-Encoding: gzip\r\n").as_bytes(),
    )
    .await;
    assert!(under.body.len() < 4096);
    assert_eq!(under.header("content-encoding"), None);
    let over = exchange(
        &addr,
        post_raw(&addr, &call_big(5000), "Accept-Encoding: gzip\r\n").as_bytes(),
    )
    .await;
    assert_eq!(over.header("content-encoding").as_deref(), Some("gzip"));
}

#[tokio::test]
async fn an_sse_stream_is_encoded_and_each_event_decodes_on_arrival() {
    // `count` sends a progress notification, waits 400 ms, and so on: each event must be
    // readable when it arrives, not when the stream ends.
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let addr = h.local_addr().to_string();
    let sid = init_session(&url).await;
    let body = json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{
        "name":"count","arguments":{"steps":3,"delay_ms":400},"_meta":{"progressToken":"p"}}})
    .to_string();
    let raw = post_raw(
        &addr,
        &body,
        &format!("Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nAccept-Encoding: gzip\r\n"),
    );
    let mut w = Wire::connect(&addr).await;
    w.send(raw.as_bytes()).await;
    let (status, head) = w.head().await;
    assert_eq!(status, 200);
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("content-type: text/event-stream"), "{head}");
    assert!(lower.contains("content-encoding: gzip"), "{head}");
    let mut decoder = flate2::write::GzDecoder::new(Vec::new());
    let started = std::time::Instant::now();
    let mut progress_seen_at = None;
    loop {
        let size = w.chunk_size().await;
        while w.buf.len() < size + 2 {
            assert!(w.more().await, "chunk cut short");
        }
        let chunk: Vec<u8> = w.buf.drain(..size).collect();
        w.buf.drain(..2);
        if size == 0 {
            break;
        }
        decoder.write_all(&chunk).unwrap();
        decoder.flush().unwrap();
        let text = String::from_utf8_lossy(decoder.get_ref()).into_owned();
        if progress_seen_at.is_none() && text.contains("notifications/progress") {
            assert!(
                !text.contains("counted to 3"),
                "the first progress event was readable only with the answer"
            );
            progress_seen_at = Some(started.elapsed());
        }
    }
    let text = String::from_utf8(decoder.finish().unwrap()).unwrap();
    assert!(text.contains("counted to 3"), "{text}");
    let first = progress_seen_at.expect("a progress event");
    assert!(
        first < Duration::from_millis(600),
        "the first progress event decoded only after {first:?}"
    );
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn request_bodies_in_every_coding_are_decoded() {
    let (_h, addr) = json_server(Some(CompressionOptions::default())).await;
    let body = call_big(100);
    for coding in ["gzip", "x-gzip", "br", "zstd", "identity"] {
        let enc = match coding {
            "x-gzip" => encode("gzip", body.as_bytes()),
            "identity" => body.clone().into_bytes(),
            c => encode(c, body.as_bytes()),
        };
        let raw = post_bytes(&addr, &enc, &format!("Content-Encoding: {coding}\r\n"));
        let a = exchange(&addr, &raw).await;
        assert_eq!(
            a.status,
            200,
            "{coding}: {:?}",
            String::from_utf8_lossy(&a.body)
        );
        assert_eq!(a.json()["id"], 7, "{coding}");
        assert_eq!(
            a.json()["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .len(),
            100
        );
    }
}

#[tokio::test]
async fn an_unknown_content_coding_gets_415_naming_those_accepted() {
    let (_h, addr) = json_server(Some(CompressionOptions::default())).await;
    let body = call_big(10);
    let a = exchange(
        &addr,
        &post_bytes(&addr, body.as_bytes(), "Content-Encoding: deflate\r\n"),
    )
    .await;
    assert_eq!(a.status, 415);
    assert_eq!(
        a.header("accept-encoding").as_deref(),
        Some("zstd, br, gzip")
    );
    let msg = a.json()["error"]["data"].as_str().unwrap().to_string();
    assert!(
        msg.contains("\"deflate\"") && msg.contains("zstd, br, gzip"),
        "{msg}"
    );
    // Two codings stacked: refused too.
    let twice = encode("gzip", &encode("br", body.as_bytes()));
    let a = exchange(
        &addr,
        &post_bytes(&addr, &twice, "Content-Encoding: br, gzip\r\n"),
    )
    .await;
    assert_eq!(a.status, 415);
    // Transfer codings are another matter: anything but chunked is still 501.
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
    );
    assert_eq!(exchange(&addr, raw.as_bytes()).await.status, 501);
}

#[tokio::test]
async fn a_corrupt_or_oversized_encoded_body_is_refused() {
    let (_h, addr) = serve(
        big_server(),
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true)
            .with_max_body_size(64 * 1024),
    )
    .await;
    let a = exchange(
        &addr,
        &post_bytes(&addr, b"\x1f\x8b\x08not gzip", "Content-Encoding: gzip\r\n"),
    )
    .await;
    assert_eq!(a.status, 400);
    assert!(a.json()["error"]["data"]
        .as_str()
        .unwrap()
        .contains("not valid gzip"));
    // 1 MiB once decoded, 1 KiB on the wire: over the 64 KiB limit, refused with its id.
    let mut big =
        br#"{"jsonrpc":"2.0","id":"over","method":"tools/call","params":{"pad":""#.to_vec();
    big.extend(std::iter::repeat_n(b'a', 1 << 20));
    big.extend_from_slice(b"\"}}");
    for coding in ["gzip", "br", "zstd"] {
        let enc = encode(coding, &big);
        assert!(enc.len() < 64 * 1024);
        let a = exchange(
            &addr,
            &post_bytes(&addr, &enc, &format!("Content-Encoding: {coding}\r\n")),
        )
        .await;
        assert_eq!(a.status, 413, "{coding}");
        assert_eq!(a.json()["id"], "over", "{coding}");
    }
}

#[tokio::test]
async fn compression_off_answers_as_is_and_refuses_encoded_bodies() {
    let (_h, addr) = json_server(None).await;
    let a = exchange(
        &addr,
        post_raw(
            &addr,
            &call_big(64 * 1024),
            "Accept-Encoding: gzip, br, zstd\r\n",
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(a.header("content-encoding"), None);
    assert_eq!(a.header("vary"), None);
    let enc = encode("gzip", call_big(10).as_bytes());
    let a = exchange(
        &addr,
        &post_bytes(&addr, &enc, "Content-Encoding: gzip\r\n"),
    )
    .await;
    assert_eq!(a.status, 415);
    assert_eq!(a.header("accept-encoding").as_deref(), Some("identity"));
    // A server taking gzip only answers in gzip whatever else the client prefers.
    let (_h2, addr) = json_server(Some(
        CompressionOptions::default().with_codings(vec![ContentCoding::Gzip]),
    ))
    .await;
    let a = exchange(
        &addr,
        post_raw(
            &addr,
            &call_big(64 * 1024),
            "Accept-Encoding: zstd, br;q=0.9, gzip;q=0.1\r\n",
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(a.header("content-encoding").as_deref(), Some("gzip"));
}

/// A TCP proxy in front of `upstream` that counts the bytes the server sends.
async fn counting_proxy(upstream: String) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let down = Arc::new(AtomicUsize::new(0));
    let counted = down.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let counted = counted.clone();
            tokio::spawn(async move {
                let server = tokio::net::TcpStream::connect(upstream).await.unwrap();
                let (mut cr, mut cw) = client.into_split();
                let (mut sr, mut sw) = server.into_split();
                let up = tokio::spawn(async move { tokio::io::copy(&mut cr, &mut sw).await });
                let mut buf = vec![0u8; 64 * 1024];
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                while let Ok(n) = sr.read(&mut buf).await {
                    if n == 0 || cw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    counted.fetch_add(n, Ordering::Relaxed);
                }
                up.abort();
            });
        }
    });
    (addr, down)
}

#[tokio::test]
async fn the_engine_client_asks_for_compression_and_decodes_a_10_mb_result() {
    for (compression, expect_small) in [(true, true), (false, false)] {
        let (h, addr) = serve(
            big_server(),
            HttpServerOptions::default().with_dns_rebinding_protection(Some(false)),
        )
        .await;
        let (proxy, down) = counting_proxy(addr).await;
        let mut options = ClientOptions::new("c", "1");
        options.session.max_message_size = 32 * 1024 * 1024;
        let http = ferromcp::transport::http::HttpClientOptions::default()
            .with_compression(compression)
            .with_open_get_stream(false);
        let client = connect(
            &format!("http://{proxy}/mcp"),
            options,
            ClientHandlers::default(),
            http,
        )
        .await
        .unwrap();
        let before = down.load(Ordering::Relaxed);
        let r = client
            .call_tool("big", json!({"bytes": TEN_MB}))
            .await
            .unwrap();
        let wire = down.load(Ordering::Relaxed) - before;
        let text = serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(text, json_text(TEN_MB), "compression {compression}");
        if expect_small {
            assert!(wire * 5 < TEN_MB, "{wire} bytes on the wire, compressed");
        } else {
            assert!(wire > TEN_MB, "{wire} bytes on the wire, not compressed");
        }
        client.close().await;
        h.shutdown().await.unwrap();
    }
}
