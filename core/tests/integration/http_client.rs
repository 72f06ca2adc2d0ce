//! The Rust client against the Rust server over Streamable HTTP and legacy HTTP+SSE.

use crate::common_http;
use common_http::*;
use ferromcp::client::http::{connect, connect_legacy};
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{HttpClientOptions, HttpServerOptions};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

async fn round_trip(client: &ferromcp::client::Client) {
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "count");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let opts = RequestOptions::default()
        .with_on_progress(Some(Arc::new(move |p| s2.lock().unwrap().push(p))));
    let r = client
        .call_tool_with("count", json!({"steps": 3}), opts)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "counted to 3"
    );
    assert_eq!(seen.lock().unwrap().len(), 3);
    let res = client.read_resource("mem://greeting").await.unwrap();
    assert_eq!(
        serde_json::to_value(&res).unwrap()["contents"][0]["text"],
        "hello"
    );
}

#[tokio::test]
async fn client_over_streamable_http() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let http = HttpClientOptions::default().header("authorization", "Bearer t0k3n");
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            http,
        )
        .await
        .unwrap();
        assert!(client.session().negotiated().is_some());
        round_trip(&client).await;
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

/// When `connect` returns, the server has handled the client's `initialized` and lists the
/// session: a server asked for its live sessions right then (a request outside any handler,
/// `server.listRoots()` in the bindings) finds it. On this single-threaded runtime nothing else
/// runs between `connect` returning and the count, so a handshake that returned once the
/// notification was queued (not yet POSTed) always counted 0.
#[tokio::test]
async fn the_session_is_live_on_the_server_when_connect_returns() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (server, h, url) = start(HttpServerOptions::default()).await;
        for n in 1..=3 {
            let client = connect(
                &url,
                ClientOptions::new("c", "1"),
                ClientHandlers::default(),
                HttpClientOptions::default(),
            )
            .await
            .unwrap();
            assert_eq!(server.live_sessions().len(), 1, "connection {n}");
            client.close().await;
        }
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_over_json_response_mode() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(HttpServerOptions::default().with_json_response(true)).await;
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            Default::default(),
        )
        .await
        .unwrap();
        let r = client
            .call_tool("count", json!({"steps": 2}))
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap()["content"][0]["text"],
            "counted to 2"
        );
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_over_legacy_sse_and_fallback() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, _url) = start(HttpServerOptions::default()).await;
        let sse = h.url("/sse");
        let client = connect_legacy(
            &sse,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            Default::default(),
        )
        .await
        .unwrap();
        round_trip(&client).await;
        client.close().await;
        // POST to /sse is refused (405), so connect() falls back to the legacy flow.
        let client = connect(
            &sse,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            Default::default(),
        )
        .await
        .unwrap();
        round_trip(&client).await;
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

/// A server that answers 401 to everything is not a reason to try the legacy transport: the
/// client reports the 401 of its POST and sends no legacy GET.
#[tokio::test]
async fn a_401_is_reported_as_it_is_without_the_legacy_fallback() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let methods = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = methods.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                seen.lock()
                    .unwrap()
                    .push(head.split(' ').next().unwrap_or("").to_string());
                let _ = sock
                    .write_all(b"HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer realm=\"mcp\"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    let err = tokio::time::timeout(
        Duration::from_secs(10),
        connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        ),
    )
    .await
    .expect("no hang");
    let Err(err) = err else {
        panic!("a 401 is an error")
    };
    let data = err.data.clone().unwrap_or_default();
    assert_eq!(data["httpStatus"], 401, "{err:?}");
    assert!(!err.message.contains("legacy"), "{err:?}");
    let methods = methods.lock().unwrap().clone();
    assert!(
        !methods.is_empty() && methods.iter().all(|m| m == "POST"),
        "only POSTs, no legacy GET: {methods:?}"
    );
}

#[tokio::test]
async fn expired_session_is_a_clear_error() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(
            HttpServerOptions::default().with_session_idle_timeout(Duration::from_millis(200)),
        )
        .await;
        let http = HttpClientOptions::default()
            .with_open_get_stream(false)
            .with_reinitialize_on_expiry(false);
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            http,
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let e = client.list_tools(None).await.unwrap_err();
        assert!(e.message.contains("expired"), "{e}");
        assert_eq!(e.data.as_ref().unwrap()["httpStatus"], 404);
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_starts_a_new_session_when_the_old_one_expired() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(
            HttpServerOptions::default().with_session_idle_timeout(Duration::from_millis(200)),
        )
        .await;
        // Without the GET stream the idle session is reaped (an open stream keeps it alive).
        let http = HttpClientOptions::default().with_open_get_stream(false);
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            http,
        )
        .await
        .unwrap();
        round_trip(&client).await;
        for _ in 0..2 {
            tokio::time::sleep(Duration::from_millis(800)).await;
            // Several requests race into the expired session: one renews it, all are retried.
            let (a, b, c) = tokio::join!(
                client.list_tools(None),
                client.call_tool("count", json!({"steps": 2})),
                client.ping(),
            );
            assert_eq!(a.unwrap().tools[0].name, "count");
            assert_eq!(
                serde_json::to_value(b.unwrap()).unwrap()["content"][0]["text"],
                "counted to 2"
            );
            c.unwrap();
            round_trip(&client).await;
        }
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_renews_an_expired_session_with_the_get_stream_on() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let store = Arc::new(ferromcp::transport::http::InMemorySessionStore::default());
        let (server, h, url) =
            start(HttpServerOptions::default().with_session_store(Some(store.clone()))).await;
        let (note_tx, mut notes) = tokio::sync::mpsc::unbounded_channel();
        let handlers = ClientHandlers::default().with_on_notification(Some(Arc::new(move |n| {
            let _ = note_tx.send(n.method);
        })));
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            handlers,
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        round_trip(&client).await;
        // The server forgets the session (as after a restart or an administrative DELETE).
        use ferromcp::transport::http::SessionStore;
        let ids = store.ids().await.unwrap();
        assert_eq!(ids.len(), 1);
        let old = ids[0].to_string();
        let state = store.get(old.clone()).await.unwrap().unwrap();
        assert!(state.initialized);
        assert_eq!(state.client_info["name"], "c");
        let d = send("DELETE", &url, &[("mcp-session-id", &old)], "").await;
        assert_eq!(d.status, 200);
        round_trip(&client).await;
        let ids = store.ids().await.unwrap();
        assert_eq!(ids.len(), 1);
        assert_ne!(ids[0].as_str(), old);
        // The reopened GET stream carries server-initiated messages of the new session.
        let session = server
            .live_sessions()
            .into_iter()
            .find(|s| s.session_id() == Some(ids[0].as_str()))
            .expect("the new session is live");
        let mut received = false;
        for _ in 0..100 {
            session
                .peer()
                .notify("notifications/ping-test", None)
                .await
                .unwrap();
            let got = tokio::time::timeout(Duration::from_millis(100), notes.recv()).await;
            if let Ok(Some(m)) = got {
                assert_eq!(m, "notifications/ping-test");
                received = true;
                break;
            }
        }
        assert!(
            received,
            "a notification reached the client on its GET stream"
        );
        drop(server);
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}
