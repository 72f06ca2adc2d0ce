//! One client address cannot take the whole connection budget
//! (`HttpServerOptions::max_connections_per_client`): a flood of idle connections from one
//! address gets its share and then 429, while a client on another address is served at once.

mod common_http;
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
