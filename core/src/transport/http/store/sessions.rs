//! [`SessionStore`]: the serializable state of each Streamable HTTP session, and its in-memory
//! default.

use super::{ready, StoreFuture};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a replica needs to serve a session it never saw: what `initialize` settled and what the
/// client asked for since. The live session (its streams, its running handlers) stays on the
/// replica that holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionState {
    /// The negotiated protocol revision (`"2025-11-25"`).
    pub protocol_version: String,
    /// The client's `clientInfo` (the live session's own copy, not another).
    #[serde(with = "shared_json")]
    pub client_info: Arc<Value>,
    /// The client's capabilities (the live session's own copy, not another).
    #[serde(with = "shared_json")]
    pub client_capabilities: Arc<Value>,
    /// Whether `notifications/initialized` has arrived.
    pub initialized: bool,
    /// The minimum log level the client set (`logging/setLevel`), as its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    /// The resource URIs the client subscribed to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
    /// Counts the changes: a replica applies a state only when it is newer than its copy's.
    #[serde(default)]
    pub revision: u64,
}

/// Keeps every Streamable HTTP session's [`SessionState`] by `Mcp-Session-Id`, so that any
/// replica can serve any session.
///
/// The server writes a session's state when it is created and whenever the client changes it
/// (initialized, log level, subscriptions), reads it when a request names a session this
/// replica does not hold, and removes it when the session is deleted or expires.
pub trait SessionStore: Send + Sync + 'static {
    /// Records (or replaces) the state of session `id`.
    fn put(&self, id: String, state: SessionState) -> StoreFuture<()>;
    /// The state of session `id`; `None` when there is no such session.
    fn get(&self, id: String) -> StoreFuture<Option<SessionState>>;
    /// Whether session `id` is still there, renewing its time to live. With several replicas
    /// the server asks on every request, so a session deleted or expired on one replica is
    /// gone on all of them at once.
    fn touch(&self, id: String) -> StoreFuture<bool>;
    /// Removes session `id`; whether it was there.
    fn remove(&self, id: String) -> StoreFuture<bool>;
    /// Every session id held (for administration and tests; may be slow on a large store).
    fn ids(&self) -> StoreFuture<Vec<String>>;
    /// Whether the store answers now (the readiness endpoint,
    /// [`crate::transport::http::HttpServerOptions::health_path`], asks). An in-process store
    /// always does.
    fn check(&self) -> StoreFuture<()> {
        ready(())
    }
}

/// The default [`SessionStore`]: a map behind a mutex, completing every call at once.
#[derive(Default, Clone)]
pub struct InMemorySessionStore {
    map: Arc<Mutex<HashMap<String, SessionState>>>,
}

impl std::fmt::Debug for InMemorySessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemorySessionStore")
            .field("len", &self.map.lock().unwrap().len())
            .finish()
    }
}

impl SessionStore for InMemorySessionStore {
    fn put(&self, id: String, state: SessionState) -> StoreFuture<()> {
        self.map.lock().unwrap().insert(id, state);
        ready(())
    }
    fn get(&self, id: String) -> StoreFuture<Option<SessionState>> {
        ready(self.map.lock().unwrap().get(&id).cloned())
    }
    fn touch(&self, id: String) -> StoreFuture<bool> {
        ready(self.map.lock().unwrap().contains_key(&id))
    }
    fn remove(&self, id: String) -> StoreFuture<bool> {
        ready(self.map.lock().unwrap().remove(&id).is_some())
    }
    fn ids(&self) -> StoreFuture<Vec<String>> {
        ready(self.map.lock().unwrap().keys().cloned().collect())
    }
}

/// (De)serializes an `Arc<Value>` as the value it holds (serde's own support for `Arc` is a
/// feature this workspace does not turn on for one field).
mod shared_json {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;
    use std::sync::Arc;

    pub fn serialize<S: Serializer>(value: &Arc<Value>, s: S) -> Result<S::Ok, S::Error> {
        value.as_ref().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Value>, D::Error> {
        Value::deserialize(d).map(Arc::new)
    }
}
