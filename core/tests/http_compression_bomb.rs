//! A decompression bomb (issue 38): request bodies that inflate to 1 GiB, in gzip, zstd and br,
//! each a few hundred KiB to a few MiB on the wire (within the 4 MiB body limit), are refused
//! with 413 and the request's id, while the process's peak resident memory grows by far less
//! than the gigabyte (the decoder stops once the decoded body passes `max_body_size` and the id
//! is found). Alone in its test binary: it reads the whole process's peak memory.

mod common_wire;
use common_wire::*;
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use std::io::Write;
use std::time::{Duration, Instant};

const GIB: usize = 1 << 30;
/// Each piece of the bomb inflates to this much (pieces are concatenated members or frames).
const PIECE: usize = 16 << 20;

/// Peak and current resident memory of this process (kB), from /proc/self/status.
fn rss_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap()
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// Resets the peak resident memory to the current one (Linux `clear_refs` 5).
fn reset_peak() {
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
}

const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"bomb","method":"tools/call","params":{"name":"x","arguments":{"pad":""#;

/// 1 GiB of JSON (a tools/call whose argument is 1 GiB of `a`), gzip: concatenated members of
/// 16 MiB each (a valid gzip body, RFC 1952 §2.2), so that only one piece is compressed per
/// shape.
fn gzip_bomb() -> Vec<u8> {
    let gz = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let pad = vec![b'a'; PIECE];
    let mut first = HEAD.to_vec();
    first.extend_from_slice(&pad[HEAD.len()..]);
    let mut last = pad[3..].to_vec();
    last.extend_from_slice(b"\"}}}");
    let (first, middle, last) = (gz(&first), gz(&pad), gz(&last));
    let mut body = first;
    for _ in 1..GIB / PIECE - 1 {
        body.extend_from_slice(&middle);
    }
    body.extend_from_slice(&last);
    body
}

/// The same in zstd: concatenated frames (RFC 8878 §3.1).
fn zstd_bomb() -> Vec<u8> {
    let z = |data: &[u8]| zstd::stream::encode_all(data, 19).unwrap();
    let pad = vec![b'a'; PIECE];
    let mut first = HEAD.to_vec();
    first.extend_from_slice(&pad[HEAD.len()..]);
    let mut last = pad[3..].to_vec();
    last.extend_from_slice(b"\"}}}");
    let (first, middle, last) = (z(&first), z(&pad), z(&last));
    let mut body = first;
    for _ in 1..GIB / PIECE - 1 {
        body.extend_from_slice(&middle);
    }
    body.extend_from_slice(&last);
    body
}

/// The same in br (one stream: brotli has no concatenation), made at quality 0 in pieces.
fn brotli_bomb() -> Vec<u8> {
    let mut e = brotli::CompressorWriter::new(Vec::new(), 1 << 16, 0, 24);
    e.write_all(HEAD).unwrap();
    let pad = vec![b'a'; PIECE];
    let mut left = GIB - HEAD.len() - 4;
    while left > 0 {
        let n = left.min(PIECE);
        e.write_all(&pad[..n]).unwrap();
        left -= n;
    }
    e.write_all(b"\"}}}").unwrap();
    e.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_inflating_to_1_gib_is_refused_without_allocating_it() {
    let server = Server::builder("bomb", "1.0").build().unwrap();
    let h = serve_http(
        server,
        "127.0.0.1:0",
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await
    .unwrap();
    let addr = h.local_addr().to_string();
    for (coding, make) in [
        ("gzip", gzip_bomb as fn() -> Vec<u8>),
        ("zstd", zstd_bomb),
        ("br", brotli_bomb),
    ] {
        let made = Instant::now();
        let bomb = make();
        let made = made.elapsed();
        assert!(
            bomb.len() < 4 << 20,
            "{coding}: {} bytes on the wire",
            bomb.len()
        );
        let mut raw = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Encoding: {coding}\r\nContent-Length: {}\r\n\r\n",
            bomb.len()
        )
        .into_bytes();
        raw.extend_from_slice(&bomb);
        drop(bomb);
        reset_peak();
        let (_, before) = rss_kb();
        let sent = Instant::now();
        let mut w = Wire::connect(&addr).await;
        w.send(&raw).await;
        let a = tokio::time::timeout(Duration::from_secs(30), w.answer())
            .await
            .expect("answered in time");
        let took = sent.elapsed();
        let (peak, _) = rss_kb();
        let grew_mib = peak.saturating_sub(before) / 1024;
        eprintln!(
            "{coding}: {} bytes on the wire (made in {made:?}), answered {} in {took:?}, peak memory +{grew_mib} MiB",
            raw.len(),
            a.status
        );
        assert_eq!(a.status, 413, "{coding}");
        assert_eq!(a.json()["id"], "bomb", "{coding}");
        // The limit (4 MiB) decoded, the body read (at most 4 MiB), decoder windows: tens of
        // MiB at most, nowhere near the gigabyte.
        assert!(
            grew_mib < 64,
            "{coding}: peak memory grew by {grew_mib} MiB"
        );
    }
    h.shutdown().await.unwrap();
}
