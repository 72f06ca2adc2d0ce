//! Where the proxy keeps its state: registered clients, authorization transactions, the codes
//! it issued and the token mappings (its token to the upstream's). Every record is a JSON value
//! under a namespaced key with a lifetime, so one small trait can sit on memory or on the store
//! the HTTP sessions use (Redis, so any replica serves any leg of the flow). Tokens and codes are
//! keyed by their SHA-256, never by their text.

use futures_util::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A key-value store with expiry for the proxy's records.
pub trait ProxyStore: Send + Sync {
    /// Stores `value` under `key` for `ttl` (replacing any value).
    fn put(&self, key: &str, value: Value, ttl: Duration) -> BoxFuture<'_, Result<(), String>>;
    /// The value under `key`, if present and not expired.
    fn get(&self, key: &str) -> BoxFuture<'_, Result<Option<Value>, String>>;
    /// Removes and returns the value under `key` in one step (a code is used once, even when
    /// two requests race for it).
    fn take(&self, key: &str) -> BoxFuture<'_, Result<Option<Value>, String>>;
}

/// The proxy's state in this process (one replica).
#[derive(Debug, Default)]
pub struct MemoryProxyStore {
    entries: Mutex<HashMap<String, (Value, Instant)>>,
}

impl MemoryProxyStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many live records it holds (expired ones are dropped first).
    pub fn len(&self) -> usize {
        let mut map = self.entries.lock().expect("store lock");
        let now = Instant::now();
        map.retain(|_, (_, until)| *until > now);
        map.len()
    }

    /// Whether it holds no live record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ProxyStore for MemoryProxyStore {
    fn put(&self, key: &str, value: Value, ttl: Duration) -> BoxFuture<'_, Result<(), String>> {
        let mut map = self.entries.lock().expect("store lock");
        let now = Instant::now();
        // Expired records go when new ones come, so the map stays bounded by the live ones.
        if map.len() % 64 == 63 {
            map.retain(|_, (_, until)| *until > now);
        }
        map.insert(key.to_string(), (value, now + ttl));
        Box::pin(async { Ok(()) })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, Result<Option<Value>, String>> {
        let map = self.entries.lock().expect("store lock");
        let v = map
            .get(key)
            .filter(|(_, until)| *until > Instant::now())
            .map(|(v, _)| v.clone());
        Box::pin(async { Ok(v) })
    }

    fn take(&self, key: &str) -> BoxFuture<'_, Result<Option<Value>, String>> {
        let mut map = self.entries.lock().expect("store lock");
        let v = map
            .remove(key)
            .filter(|(_, until)| *until > Instant::now())
            .map(|(v, _)| v);
        Box::pin(async { Ok(v) })
    }
}
