//! The connection budget of `serve_http` for an axum app mounting `router()`: served through a
//! `FairListener` (with `ConnectionSeat` as connect info), the app keeps at most
//! `max_connections` open, refuses a client address past its share with 429, and when a flood
//! of idle connections fills the budget it closes those without a session, leaving a client
//! with a session served and its open GET stream alone.

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::{router, ConnectionSeat, FairListener, HttpServerOptions};
use serde_json::json;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// The demo server's `router()` served by `axum::serve` through a `FairListener` with
/// `options`; its URL and a reader of its open connections.
async fn serve_fair(options: HttpServerOptions) -> (String, impl Fn() -> usize) {
    let app = router(demo_server(), options.clone());
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", tcp.local_addr().unwrap());
    let listener = FairListener::new(tcp, &options);
    let open = listener.open_connections_reader();
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<ConnectionSeat>(),
        )
        .await
    });
    (url, open)
}

/// A connection from loopback address `from` to `url`'s port (not yet sending anything).
async fn connect_from(from: std::net::Ipv4Addr, url: &str) -> tokio::net::TcpStream {
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind((from, 0).into()).unwrap();
    sock.connect(([127, 0, 0, 1], port).into()).await.unwrap()
}

/// What the server sent on `c` before closing it or going quiet for a second (`None`: it is
/// still open and said nothing).
async fn read_or_quiet(c: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 256];
    loop {
        match tokio::time::timeout(Duration::from_secs(1), c.read(&mut chunk)).await {
            Err(_) if buf.is_empty() => return None,
            Err(_) | Ok(Ok(0)) | Ok(Err(_)) => return Some(buf),
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_address_past_its_share_gets_429() {
    let (url, open) =
        serve_fair(HttpServerOptions::default().with_max_connections_per_client(4)).await;
    let from = std::net::Ipv4Addr::new(127, 0, 0, 2);
    let mut conns = Vec::new();
    for _ in 0..6 {
        conns.push(connect_from(from, &url).await);
    }
    let mut refused = 0;
    let mut kept = 0;
    for c in &mut conns {
        match read_or_quiet(c).await {
            Some(b) if b.starts_with(b"HTTP/1.1 429") => refused += 1,
            None => kept += 1,
            Some(other) => panic!("unexpected answer {:?}", String::from_utf8_lossy(&other)),
        }
    }
    assert_eq!(
        (kept, refused),
        (4, 2),
        "4 kept, the 2 past the share refused"
    );
    assert_eq!(open(), 4);
    // Another address is served meanwhile.
    let sid = init_session(&url).await;
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_idle_connections_leaves_clients_with_a_session_served() {
    let options = HttpServerOptions::default()
        .with_max_connections(32)
        .with_connections_kept_for_sessions(8);
    let (url, open) = serve_fair(options).await;
    // A client with a session and its GET stream open (a connection in use).
    let sid = init_session(&url).await;
    let get = hold_get_stream(&url, &sid);
    let mut waited = 0;
    while open() < 2 && waited < 100 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += 1;
    }
    // 100 connections from four other addresses, each beginning a head and stopping (a
    // slowloris): three times the budget.
    let mut flood = Vec::new();
    let mut most_open = 0;
    for i in 0..100u8 {
        let c = connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2 + i % 4), &url).await;
        let _ = c.try_write(b"POST /mcp HTTP/1.1\r\n");
        flood.push(c);
        most_open = most_open.max(open());
    }
    // The client with the session is served on new connections, each answered.
    for i in 0..20u64 {
        let r = tokio::time::timeout(
            Duration::from_secs(10),
            post(
                &url,
                Some(&sid),
                json!({"jsonrpc":"2.0","id":i,"method":"ping"}),
            ),
        )
        .await
        .expect("a ping with a session answered during the flood");
        assert_eq!(r.status, 200, "{}", r.body);
        most_open = most_open.max(open());
    }
    assert!(
        most_open <= 32,
        "{most_open} connections open, over the cap of 32"
    );
    // The flood's oldest connections were closed to make room, without an answer.
    let mut closed = 0;
    for c in flood.iter_mut().take(50) {
        if let Some(b) = read_or_quiet(c).await {
            assert!(b.is_empty(), "{:?}", String::from_utf8_lossy(&b));
            closed += 1;
        }
    }
    assert!(
        closed >= 40,
        "only {closed} of the 50 oldest flood connections closed"
    );
    assert!(!get.is_finished(), "the client's GET stream was closed");
    get.abort();
}
