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
