//! A 503 answering a JSON-RPC request carries that request's id when it is known: the session
//! store failing (a request naming a session this replica must look up, an initialize whose
//! session cannot be stored) is answered with the request's id, so the client fails that call
//! at once instead of waiting out its timeout. (The full session table's 503 is checked in
//! http_session_admission.rs.)

use crate::common_http;
use common_http::*;
use ferromcp::transport::http::{
    HttpServerOptions, InMemorySessionStore, SessionState, SessionStore, StoreError, StoreFuture,
};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// An in-memory store that fails every call while `down` is set.
#[derive(Default)]
struct Flaky {
    inner: InMemorySessionStore,
    down: AtomicBool,
}

impl Flaky {
    fn fail<T: Send + 'static>(&self) -> Option<StoreFuture<T>> {
        self.down.load(Ordering::SeqCst).then(|| {
            let f: StoreFuture<T> = Box::pin(async { Err(StoreError::new("down for the test")) });
            f
        })
    }
}

impl SessionStore for Flaky {
    fn put(&self, id: String, state: SessionState) -> StoreFuture<()> {
        self.fail().unwrap_or_else(|| self.inner.put(id, state))
    }
    fn get(&self, id: String) -> StoreFuture<Option<SessionState>> {
        self.fail().unwrap_or_else(|| self.inner.get(id))
    }
    fn touch(&self, id: String) -> StoreFuture<bool> {
        self.fail().unwrap_or_else(|| self.inner.touch(id))
    }
    fn remove(&self, id: String) -> StoreFuture<bool> {
        self.fail().unwrap_or_else(|| self.inner.remove(id))
    }
    fn ids(&self) -> StoreFuture<Vec<String>> {
        self.fail().unwrap_or_else(|| self.inner.ids())
    }
}

#[tokio::test]
async fn a_failing_session_store_answers_503_with_the_request_id() {
    let store = Arc::new(Flaky::default());
    let (_s, _h, url) = start(
        HttpServerOptions::default()
            .with_session_store(Some(store.clone()))
            .with_json_response(true),
    )
    .await;
    store.down.store(true, Ordering::SeqCst);
    // A session this replica does not hold: it must be looked up, and the store is down.
    let r = post(
        &url,
        Some("not-live-here"),
        json!({"jsonrpc": "2.0", "id": "lookup-1", "method": "ping"}),
    )
    .await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.json()["id"], "lookup-1", "{}", r.body);
    assert_eq!(r.json()["error"]["code"], -32603, "{}", r.body);
    assert_eq!(r.headers["retry-after"], "1");
    // A new session cannot be stored.
    let mut init = init_body("2025-11-25");
    init["id"] = json!(77);
    let r = post(&url, None, init).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.json()["id"], 77, "{}", r.body);
    // Back up: served again.
    store.down.store(false, Ordering::SeqCst);
    init_session(&url).await;
}

use crate::common_wire;

#[tokio::test]
async fn a_request_during_shutdown_is_refused_with_its_id() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    let addr = h.local_addr().to_string();
    // A call in flight keeps the server draining; a kept-alive connection stays open.
    let slow = {
        let (url, sid) = (url.clone(), sid.clone());
        tokio::spawn(async move {
            post(
                &url,
                Some(&sid),
                call(2, "count", json!({"steps": 4, "delay_ms": 250})),
            )
            .await
        })
    };
    // A request whose body is still arriving when shutdown begins.
    let mut w = common_wire::Wire::connect(&addr).await;
    let late = json!({"jsonrpc":"2.0","id":"late-1","method":"ping"}).to_string();
    let raw = common_wire::post_raw(&addr, &late, &format!("Mcp-Session-Id: {sid}\r\n"));
    let (first, rest) = raw.split_at(raw.len() - 10);
    w.send(first.as_bytes()).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let shutdown = tokio::spawn(h.shutdown());
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    w.send(rest.as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(a.status, 503, "{a:?}");
    assert_eq!(a.json()["id"], "late-1", "{a:?}");
    assert_eq!(slow.await.unwrap().status, 200);
    shutdown.await.unwrap().unwrap();
}

/// A GET head sent in two parts around the start of a shutdown: what it is answered.
async fn get_during_shutdown(legacy: bool) -> common_wire::Answer {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    let addr = h.local_addr().to_string();
    // A call in flight keeps the server draining.
    let slow = {
        let (url, sid) = (url.clone(), sid.clone());
        tokio::spawn(async move {
            post(
                &url,
                Some(&sid),
                call(2, "count", json!({"steps": 4, "delay_ms": 250})),
            )
            .await
        })
    };
    let head = match legacy {
        true => format!("GET /sse HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"),
        false => format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
             Mcp-Session-Id: {sid}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n"
        ),
    };
    let mut w = common_wire::Wire::connect(&addr).await;
    let (first, rest) = head.split_at(20);
    w.send(first.as_bytes()).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let shutdown = tokio::spawn(h.shutdown());
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    w.send(rest.as_bytes()).await;
    let a = w.answer().await;
    assert_eq!(slow.await.unwrap().status, 200);
    shutdown.await.unwrap().unwrap();
    a
}

#[tokio::test]
async fn the_legacy_sse_get_during_shutdown_is_refused_as_the_streamable_get_is() {
    let legacy = get_during_shutdown(true).await;
    let streamable = get_during_shutdown(false).await;
    for a in [&legacy, &streamable] {
        assert_eq!(a.status, 503, "{a:?}");
        assert_eq!(
            a.header("content-type").as_deref(),
            Some("application/json")
        );
        assert_eq!(a.header("connection").as_deref(), Some("close"), "{a:?}");
        assert_eq!(a.header("retry-after").as_deref(), Some("1"), "{a:?}");
        // A GET carries no request: the error has a null id, and says why.
        let j = a.json();
        assert_eq!(j["id"], serde_json::Value::Null, "{a:?}");
        assert_eq!(j["error"]["code"], -32603, "{a:?}");
        assert!(
            j["error"]["message"]
                .as_str()
                .unwrap()
                .contains("shutting down"),
            "{a:?}"
        );
    }
    assert_eq!(legacy.body, streamable.body);
}

#[tokio::test]
async fn the_legacy_sse_get_on_a_table_of_busy_sessions_is_refused_with_a_clear_503() {
    let (_s, h, url) = start(HttpServerOptions::default().with_max_sessions(1)).await;
    let addr = h.local_addr().to_string();
    let sse = format!("GET /sse HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    // The one session: a legacy stream, open (busy).
    let mut first = common_wire::Wire::connect(&addr).await;
    first.send(sse.as_bytes()).await;
    assert_eq!(first.head().await.0, 200);
    let mut second = common_wire::Wire::connect(&addr).await;
    second.send(sse.as_bytes()).await;
    let a = second.answer().await;
    assert_eq!(a.status, 503, "{a:?}");
    assert_eq!(a.header("retry-after").as_deref(), Some("1"), "{a:?}");
    let j = a.json();
    assert_eq!(j["id"], serde_json::Value::Null, "{a:?}");
    assert_eq!(j["error"]["code"], -32603, "{a:?}");
    assert!(
        j["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many busy sessions"),
        "{a:?}"
    );
    // The same refusal as a Streamable HTTP initialize gets (there with its id).
    let r = post(&url, None, init_body("2025-11-25")).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.json()["error"], j["error"]);
    assert_eq!(r.json()["id"], 1);
    drop(first);
    h.shutdown().await.unwrap();
}
