//! A 503 answering a JSON-RPC request carries that request's id when it is known: the session
//! store failing (a request naming a session this replica must look up, an initialize whose
//! session cannot be stored) is answered with the request's id, so the client fails that call
//! at once instead of waiting out its timeout. (The full session table's 503 is checked in
//! http_session_admission.rs.)

mod common_http;
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
            let f: StoreFuture<T> = Box::pin(async { Err(StoreError("down for the test".into())) });
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
    let (_s, _h, url) = start(HttpServerOptions {
        session_store: Some(store.clone()),
        json_response: true,
        ..Default::default()
    })
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

mod common_wire;

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
