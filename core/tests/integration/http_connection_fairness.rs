//! One client address cannot take the whole connection budget
//! (`HttpServerOptions::max_connections_per_client`): a flood of idle connections from one
//! address gets its share and then 429, while a client on another address is served at once.
//! And a flood from many addresses, together over `max_connections`, cannot keep a client with
//! a session out (`HttpServerOptions::connections_kept_for_sessions`): idle connections without
//! a session are closed to make room, while connections in use are left alone.

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;

/// Raises this process's open-file limit to its hard limit (the flood needs ~2,300 files).
fn raise_file_limit() {
    // SAFETY: reads and sets this process's own limit.
    unsafe {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < l.rlim_max {
            l.rlim_cur = l.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_address_leaves_other_clients_served() {
    raise_file_limit();
    tokio::time::timeout(Duration::from_secs(120), async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let port = h.local_addr().port();
        // 2,000 idle connections from 127.0.0.2 (another loopback address of this machine).
        let mut flood = Vec::new();
        for _ in 0..2000 {
            let sock = tokio::net::TcpSocket::new_v4().unwrap();
            sock.bind("127.0.0.2:0".parse().unwrap()).unwrap();
            flood.push(sock.connect(([127, 0, 0, 1], port).into()).await.unwrap());
        }
        // The server keeps 256 of them and refuses the rest with 429.
        let mut refused = 0;
        for c in flood.iter_mut().rev().take(200) {
            let mut buf = [0u8; 64];
            let n = tokio::time::timeout(Duration::from_secs(5), c.read(&mut buf))
                .await
                .unwrap_or(Ok(0))
                .unwrap_or(0);
            if buf[..n].starts_with(b"HTTP/1.1 429") {
                refused += 1;
            }
        }
        assert_eq!(
            refused, 200,
            "the connections past the client's share get 429"
        );
        // Another client (127.0.0.1) meanwhile: a new session and 50 calls, each fast.
        let sid = init_session(&url).await;
        let mut took = Vec::new();
        for i in 0..50u64 {
            let started = Instant::now();
            let r = post(
                &url,
                Some(&sid),
                json!({"jsonrpc":"2.0","id":i,"method":"ping"}),
            )
            .await;
            took.push(started.elapsed());
            assert_eq!(r.status, 200, "{}", r.body);
        }
        took.sort();
        let p50 = took[took.len() / 2];
        assert!(
            p50 < Duration::from_millis(10),
            "p50 {p50:?} during the flood"
        );
        drop(flood);
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

/// Pings `url` `n` times, one every 20 ms, each on a new connection (as a client without
/// keep-alive does), and returns the median time an answer took; a ping that takes 3 s or
/// fails counts as 3 s.
async fn ping_p50(url: &str, sid: &str, n: u64) -> Duration {
    let pings = (0..n).map(|i| {
        let (url, sid) = (url.to_string(), sid.to_string());
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20 * i)).await;
            let started = Instant::now();
            let ok = tokio::time::timeout(
                Duration::from_secs(3),
                post(
                    &url,
                    Some(&sid),
                    json!({"jsonrpc":"2.0","id":i,"method":"ping"}),
                ),
            )
            .await
            .is_ok_and(|r| r.status == 200);
            if ok {
                started.elapsed()
            } else {
                Duration::from_secs(3)
            }
        })
    });
    let mut took: Vec<Duration> = futures_util::future::join_all(pings)
        .await
        .into_iter()
        .map(|t| t.unwrap())
        .collect();
    took.sort();
    took[took.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_many_addresses_leaves_clients_with_a_session_served() {
    raise_file_limit();
    tokio::time::timeout(Duration::from_secs(120), async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let port = h.local_addr().port();
        // A client with a session, and a GET stream of its own open (a connection in use).
        let sid = init_session(&url).await;
        let get = hold_get_stream(&url, &sid);
        tokio::time::sleep(Duration::from_millis(100)).await;
        // 2,000 idle connections from eight other addresses (250 each, under the per-address
        // share of 256), twice the server's 1,024.
        let flooding = Instant::now();
        let connects = (0..2000u32).map(|i| {
            let sock = tokio::net::TcpSocket::new_v4().unwrap();
            let from = std::net::Ipv4Addr::new(127, 0, 0, 2 + (i % 8) as u8);
            sock.bind((from, 0).into()).unwrap();
            tokio::time::timeout(
                Duration::from_secs(2),
                sock.connect(([127, 0, 0, 1], port).into()),
            )
        });
        let mut flood: Vec<_> = futures_util::future::join_all(connects)
            .await
            .into_iter()
            .filter_map(|c| c.ok().and_then(Result::ok))
            .collect();
        // Each begins a request head and stops (a slowloris), which also completes the
        // handshakes the kernel left half-done while its accept queue was full.
        for c in &mut flood {
            let _ = c.try_write(b"POST /mcp HTTP/1.1\r\n");
        }
        // The server is at its connection cap.
        let full_by = Instant::now() + Duration::from_secs(5);
        while h.stats().open_connections < 1024 && Instant::now() < full_by {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        eprintln!(
            "{} flood connections in {:?}",
            flood.len(),
            flooding.elapsed()
        );
        // Meanwhile the client with the session is served at once on new connections.
        let p50 = ping_p50(&url, &sid, 50).await;
        eprintln!(
            "p50 {p50:?}, {:?} after the flood began; {:?}",
            flooding.elapsed(),
            h.stats()
        );
        assert!(
            p50 < Duration::from_millis(10),
            "p50 {p50:?} during a flood from many addresses"
        );
        // Its GET stream was not closed to make room.
        assert!(!get.is_finished(), "the client's GET stream was closed");
        // The flood's connections were accepted and the oldest closed for newer ones.
        let stats = h.stats();
        assert!(stats.open_connections <= 1024 + 8, "{stats:?}");
        drop(flood);
        get.abort();
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}
