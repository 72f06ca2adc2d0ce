//! [`ResponseCache`]: answers repeated list and read requests from memory for a time to live,
//! so a server's list handlers, authorization filtering and resource reads run once per TTL
//! and partition instead of once per request.
//!
//! What is cached: the results of `tools/list`, `resources/list`, `resources/templates/list`,
//! `prompts/list` and `resources/read` (each may be left out with `methods`), and `tools/call`
//! of the tools named in `tools` (opt-in: a call usually has effects). Errors, `isError` tool
//! results and task-augmented calls are never cached.
//!
//! The key rule (so one principal's or session's answer never reaches another): an entry is
//! keyed by the method, the request's `params` without `_meta`, the negotiated protocol
//! revision and a partition chosen by [`CacheScope`]:
//! - `Principal` (the default): the authenticated principal (subject, client id and its
//!   scopes, sorted) when the request carries a verified token, else the session
//!   ([`MiddlewareRequest::session_key`]); anonymous sessions never share entries;
//! - `Session`: always the session, for servers whose answers depend on the session itself
//!   (a predicate on it, client capabilities, session state);
//! - `Shared`: one entry for everyone, for answers that depend on neither.
//!
//! A token's other claims are not in the key: a server whose answers depend on them uses
//! `Session`.
//!
//! Invalidation: explicitly ([`ResponseCache::invalidate_all`], [`ResponseCache::invalidate`]
//! by method, [`ResponseCache::invalidate_resource`] by URI; the cache is a cheap clone, so keep
//! one), and automatically on the server's own notifications: `tools/list_changed` empties the
//! `tools/list` and cached `tools/call` entries, `prompts/list_changed` the `prompts/list` ones,
//! `resources/list_changed` every resource entry, `resources/updated` the reads of that URI.
//! The cache learns them through the server's fan-out hook (installed when an HTTP endpoint
//! starts serving the server, or on the first request), which also carries what mounted servers
//! relay. An answer computed while an invalidation happened is not stored (a generation count,
//! as the capabilities cache does).
//!
//! Across replicas (an HTTP endpoint whose replicas share an event bus: `redis_url`, or
//! endpoints of one process sharing an `InMemoryEventBus`): an explicit invalidation forgets
//! this replica's entries at once, then goes on the bus
//! ([`BusMessage::CacheInvalidate`](crate::transport::http::BusMessage), on the channel every
//! other replica message uses, `{prefix}bus` on Redis), and each other replica applies it to the
//! response caches in the chain of the server it serves. The server-wide notifications raised on
//! another replica (`list_changed`, `resources/updated`, already carried by the bus for the
//! sessions) are applied to this replica's caches the same way. The invalidation names no
//! cache: a server with two caches loses the entries of both on the other replicas (a miss
//! more, never a stale answer).
//!
//! Why the bus (pub/sub) and not a generation counter on Redis: a hit stays a memory look-up.
//! A counter read on every hit is a Redis round trip per cached answer, the cost the cache is
//! there to save; read on a period instead, the period becomes the staleness. An invalidation
//! is rare next to the reads it saves, and costs one `PUBLISH`.
//!
//! During a Redis outage nothing is lost silently. The replica where the invalidation is made
//! forgets its entries regardless. The bus keeps what it could not publish in its backlog
//! (logged at `warn`: "redis event bus: publishing failed; holding messages back until Redis
//! answers") and publishes it, in order, once Redis answers again, after a pause that lets the
//! other replicas subscribe again: the invalidation arrives late, not never. Only an outage
//! that outlasts the backlog (`BUS_BACKLOG` messages) drops messages; that is logged at `error`
//! and counted (`RedisStore::bus_dropped`). Each cache counts the invalidations it handed to
//! the other replicas and those it received ([`ResponseCache::replica_invalidations`]). And
//! whatever happens to the bus, the TTL bounds how long an entry outlives its invalidation.

use super::{Middleware, MiddlewareRequest, MiddlewareResponse, Next};
use crate::server::api::ServerInner;
use crate::server::Server;
use crate::McpError;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The methods cached by default.
pub const CACHED_METHODS: [&str; 5] = [
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
    "resources/read",
];

/// Which requests share a cache entry (see the module's key rule).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum CacheScope {
    /// The principal (subject, client id, scopes) when authenticated, else the session.
    #[default]
    Principal,
    /// The session, always.
    Session,
    /// Everyone.
    Shared,
}

/// [`ResponseCache`]'s options (JSON: `{"name": "responseCache", "ttlMs": 30000, "methods":
/// [...], "tools": ["weather"], "scope": "principal", "maxEntries": 10000}`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ResponseCacheConfig {
    /// How long an answer is served from the cache, in milliseconds (at least 1).
    pub ttl_ms: u64,
    /// The list and read methods cached (default [`CACHED_METHODS`]); `tools/call` is governed
    /// by `tools` alone.
    #[serde(default)]
    pub methods: Option<Vec<String>>,
    /// The tools whose `tools/call` results are cached (by arguments).
    #[serde(default)]
    pub tools: Vec<String>,
    /// The partition of the key.
    #[serde(default)]
    pub scope: CacheScope,
    /// At most this many entries (default 10,000); when full, expired entries are dropped and,
    /// if none were, the new answer is not stored.
    #[serde(default = "default_max_entries")]
    pub max_entries: usize,
}

fn default_max_entries() -> usize {
    10_000
}

impl ResponseCacheConfig {
    /// Options with a TTL and the defaults elsewhere.
    pub fn new(ttl: Duration) -> Self {
        ResponseCacheConfig {
            ttl_ms: ttl.as_millis().min(u64::MAX as u128) as u64,
            methods: None,
            tools: Vec::new(),
            scope: CacheScope::default(),
            max_entries: default_max_entries(),
        }
    }
}

/// What an explicit invalidation forgets; it travels between the replicas of an HTTP
/// deployment on their event bus
/// ([`BusMessage::CacheInvalidate`](crate::transport::http::BusMessage)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "camelCase")]
#[non_exhaustive]
pub enum CacheInvalidation {
    /// Every entry ([`ResponseCache::invalidate_all`]).
    All,
    /// The entries of one method ([`ResponseCache::invalidate`]).
    Method {
        /// The method (`"tools/list"`, `"tools/call"`, ...).
        method: String,
    },
    /// The cached reads of one resource ([`ResponseCache::invalidate_resource`]).
    Resource {
        /// The resource's URI.
        uri: String,
    },
}

/// A hook passing an explicit invalidation on to the other replicas (an HTTP endpoint's bus):
/// `None` once its endpoint is gone (the hook is then dropped), else whether it was published
/// (`false`: no other replica listens).
pub(crate) type CacheRelay = Arc<dyn Fn(&CacheInvalidation) -> Option<bool> + Send + Sync>;

struct Entry {
    value: Value,
    expires: Instant,
}

struct Inner {
    ttl: Duration,
    methods: Vec<String>,
    tools: Vec<String>,
    scope: CacheScope,
    max_entries: usize,
    /// Entries by method, then by the rest of the key.
    entries: Mutex<HashMap<String, HashMap<String, Entry>>>,
    /// Bumped by every invalidation.
    generation: AtomicU64,
    /// The servers whose notifications this cache follows, and through which its explicit
    /// invalidations reach the other replicas.
    watched: Mutex<Vec<Weak<ServerInner>>>,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Explicit invalidations published for the other replicas.
    relayed: AtomicU64,
    /// Invalidations received from other replicas.
    received: AtomicU64,
}

/// The response cache layer; clones share one cache (keep one to invalidate it).
///
/// ```
/// use ferromcp::server::middleware::{ResponseCache, ResponseCacheConfig};
/// use std::time::Duration;
///
/// let mut config = ResponseCacheConfig::new(Duration::from_secs(30));
/// config.tools = vec!["forecast".into()]; // also cache this tool's calls, by arguments
/// let cache = ResponseCache::new(config).unwrap();
/// let handle = cache.clone(); // for handle.invalidate_all() later
/// # let _ = handle;
/// ```
#[derive(Clone)]
pub struct ResponseCache {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache")
            .field("ttl", &self.inner.ttl)
            .field("scope", &self.inner.scope)
            .field("entries", &self.len())
            .finish()
    }
}

impl ResponseCache {
    /// A cache with these options; a TTL of 0 or `maxEntries` of 0 is refused.
    pub fn new(config: ResponseCacheConfig) -> Result<Self, McpError> {
        if config.ttl_ms == 0 {
            return Err(McpError::invalid_params(
                "responseCache: ttlMs must be at least 1",
            ));
        }
        if config.max_entries == 0 {
            return Err(McpError::invalid_params(
                "responseCache: maxEntries must be at least 1",
            ));
        }
        let methods = config
            .methods
            .unwrap_or_else(|| CACHED_METHODS.iter().map(|m| m.to_string()).collect());
        Ok(ResponseCache {
            inner: Arc::new(Inner {
                ttl: Duration::from_millis(config.ttl_ms),
                methods,
                tools: config.tools,
                scope: config.scope,
                max_entries: config.max_entries,
                entries: Mutex::new(HashMap::new()),
                generation: AtomicU64::new(0),
                watched: Mutex::new(Vec::new()),
                hits: AtomicU64::new(0),
                misses: AtomicU64::new(0),
                relayed: AtomicU64::new(0),
                received: AtomicU64::new(0),
            }),
        })
    }

    /// Forgets every entry, here and on the other replicas (see the module's "Across
    /// replicas").
    pub fn invalidate_all(&self) {
        self.invalidate_everywhere(CacheInvalidation::All);
    }

    /// Forgets the entries of one method (`"tools/list"`, `"tools/call"`, ...), here and on
    /// the other replicas.
    pub fn invalidate(&self, method: &str) {
        self.invalidate_everywhere(CacheInvalidation::Method {
            method: method.to_string(),
        });
    }

    /// Forgets the cached reads of one resource URI, here and on the other replicas.
    pub fn invalidate_resource(&self, uri: &str) {
        self.invalidate_everywhere(CacheInvalidation::Resource {
            uri: uri.to_string(),
        });
    }

    /// Explicit invalidations this cache published for the other replicas, and those it
    /// received from them, since it was made (both stay 0 on a server without replicas).
    pub fn replica_invalidations(&self) -> (u64, u64) {
        (
            self.inner.relayed.load(Ordering::Relaxed),
            self.inner.received.load(Ordering::Relaxed),
        )
    }

    /// Applies `invalidation` here, then hands it to the relays of the servers this cache
    /// serves (their HTTP endpoints' buses).
    fn invalidate_everywhere(&self, invalidation: CacheInvalidation) {
        self.inner.apply(&invalidation);
        let servers: Vec<Server> = self
            .inner
            .watched
            .lock()
            .unwrap()
            .iter()
            .filter_map(Weak::upgrade)
            .map(|inner| Server { inner })
            .collect();
        let mut published = false;
        for server in &servers {
            published |= server.relay_cache_invalidation(&invalidation);
        }
        if published {
            self.inner.relayed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many entries are held (expired ones included until they are dropped).
    pub fn len(&self) -> usize {
        self.inner
            .entries
            .lock()
            .unwrap()
            .values()
            .map(HashMap::len)
            .sum()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Requests answered from the cache, and those that were not, since it was made.
    pub fn stats(&self) -> (u64, u64) {
        (
            self.inner.hits.load(Ordering::Relaxed),
            self.inner.misses.load(Ordering::Relaxed),
        )
    }

    /// Follows `server`'s notifications, and passes explicit invalidations on through it
    /// (once per server): when an HTTP endpoint starts serving it, or on the first request.
    pub(crate) fn watch(&self, server: &Server) {
        {
            let mut watched = self.inner.watched.lock().unwrap();
            watched.retain(|w| w.strong_count() > 0);
            if watched
                .iter()
                .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&server.inner)))
            {
                return;
            }
            watched.push(Arc::downgrade(&server.inner));
        }
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        server.add_fanout(Arc::new(move |method: &str, params: Option<&Value>| {
            let Some(inner) = weak.upgrade() else {
                return false;
            };
            inner.on_notification(method, params);
            true
        }));
    }

    fn partition(&self, request: &MiddlewareRequest) -> String {
        let principal = || {
            request.principal().map(|a| {
                let mut scopes = a.scopes.clone();
                scopes.sort();
                format!(
                    "p:{}\u{1}{}\u{1}{}",
                    a.subject.as_deref().unwrap_or(""),
                    a.client_id.as_deref().unwrap_or(""),
                    scopes.join(" ")
                )
            })
        };
        match self.inner.scope {
            CacheScope::Shared => String::new(),
            CacheScope::Session => format!("s:{}", request.session_key()),
            CacheScope::Principal => {
                principal().unwrap_or_else(|| format!("s:{}", request.session_key()))
            }
        }
    }

    /// The key past the method, or `None` when this request is not cached.
    fn key(&self, request: &MiddlewareRequest) -> Option<String> {
        let method = request.method();
        // Whether it is cached is decided before the params are read (a typed `tools/call`
        // makes them JSON when read).
        if method == "tools/call" {
            let tool = request.tool_name()?;
            if !self.inner.tools.iter().any(|t| t == tool)
                || request.params().is_some_and(|p| p.get("task").is_some())
            {
                return None;
            }
        } else if !self.inner.methods.iter().any(|m| m == method) {
            return None;
        }
        let params = request.params();
        let params = match params {
            Some(Value::Object(p)) if p.contains_key("_meta") => {
                let mut p = p.clone();
                p.remove("_meta");
                Value::Object(p)
            }
            Some(p) => p.clone(),
            None => Value::Null,
        };
        let version = request
            .context()
            .protocol_version()
            .map(|v| v.as_str().to_string())
            .unwrap_or_default();
        Some(format!(
            "{}\u{0}{version}\u{0}{params}",
            self.partition(request)
        ))
    }
}

/// The `uri` in the params part of a key (the text after the last NUL: JSON never holds a raw
/// NUL, serde_json escapes it).
fn uri_of(key: &str) -> Option<String> {
    let params = key.rsplit('\u{0}').next()?;
    let v: Value = serde_json::from_str(params).ok()?;
    v.get("uri")?.as_str().map(str::to_string)
}

impl Inner {
    fn apply(&self, invalidation: &CacheInvalidation) {
        match invalidation {
            CacheInvalidation::All => self.invalidate(|_, _| true),
            CacheInvalidation::Method { method } => self.invalidate(|m, _| m == method),
            CacheInvalidation::Resource { uri } => self.invalidate(|m, key| {
                m == "resources/read" && uri_of(key).as_deref() == Some(uri.as_str())
            }),
        }
    }

    fn invalidate(&self, drop: impl Fn(&str, &str) -> bool) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        let mut entries = self.entries.lock().unwrap();
        for (method, by_key) in entries.iter_mut() {
            by_key.retain(|key, _| !drop(method, key));
        }
        entries.retain(|_, by_key| !by_key.is_empty());
    }

    fn on_notification(&self, method: &str, params: Option<&Value>) {
        match method {
            "notifications/tools/list_changed" => {
                self.invalidate(|m, _| m == "tools/list" || m == "tools/call")
            }
            "notifications/prompts/list_changed" => self.invalidate(|m, _| m == "prompts/list"),
            "notifications/resources/list_changed" => self.invalidate(|m, _| {
                matches!(
                    m,
                    "resources/list" | "resources/templates/list" | "resources/read"
                )
            }),
            "notifications/resources/updated" => {
                match params.and_then(|p| p.get("uri")).and_then(Value::as_str) {
                    Some(uri) => self.invalidate(|m, key| {
                        m == "resources/read" && uri_of(key).as_deref() == Some(uri)
                    }),
                    None => self.invalidate(|m, _| m == "resources/read"),
                }
            }
            _ => {}
        }
    }

    fn get(&self, method: &str, key: &str) -> Option<Value> {
        let mut entries = self.entries.lock().unwrap();
        let by_key = entries.get_mut(method)?;
        match by_key.get(key) {
            Some(e) if e.expires > Instant::now() => Some(e.value.clone()),
            Some(_) => {
                by_key.remove(key);
                None
            }
            None => None,
        }
    }

    fn put(&self, method: &str, key: String, value: Value, generation: u64) {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap();
        if self.generation.load(Ordering::Acquire) != generation {
            return;
        }
        let count: usize = entries.values().map(HashMap::len).sum();
        if count >= self.max_entries {
            for by_key in entries.values_mut() {
                by_key.retain(|_, e| e.expires > now);
            }
            if entries.values().map(HashMap::len).sum::<usize>() >= self.max_entries {
                return;
            }
        }
        entries.entry(method.to_string()).or_default().insert(
            key,
            Entry {
                value,
                expires: now + self.ttl,
            },
        );
    }
}

/// What the HTTP endpoints serving a server do with its response caches across replicas.
impl Server {
    /// The response caches in this server's chain, as it is now (the chain is not fixed).
    pub(crate) fn response_caches(&self) -> Vec<ResponseCache> {
        self.inner
            .middleware
            .current()
            .iter()
            .filter_map(|layer| layer.response_cache().cloned())
            .collect()
    }

    /// Adds a relay for explicit invalidations (an HTTP endpoint whose replicas share a bus).
    pub(crate) fn add_cache_relay(&self, relay: CacheRelay) {
        self.inner.cache_relays.lock().unwrap().push(relay);
    }

    /// Hands an explicit invalidation to the relays (dropping those whose endpoint is gone);
    /// whether any published it.
    fn relay_cache_invalidation(&self, invalidation: &CacheInvalidation) -> bool {
        let relays: Vec<CacheRelay> = self.inner.cache_relays.lock().unwrap().clone();
        let mut published = false;
        let mut gone: Vec<CacheRelay> = Vec::new();
        for relay in &relays {
            match relay(invalidation) {
                Some(p) => published |= p,
                None => gone.push(relay.clone()),
            }
        }
        if !gone.is_empty() {
            self.inner
                .cache_relays
                .lock()
                .unwrap()
                .retain(|r| !gone.iter().any(|g| Arc::ptr_eq(g, r)));
        }
        published
    }

    /// An explicit invalidation made on another replica, applied to this server's caches.
    pub(crate) fn invalidate_caches_here(&self, invalidation: &CacheInvalidation) {
        for cache in self.response_caches() {
            cache.inner.apply(invalidation);
            cache.inner.received.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A server-wide notification raised on another replica, applied to this server's caches
    /// as their own server's are.
    pub(crate) fn caches_see_notification(&self, method: &str, params: Option<&Value>) {
        for cache in self.response_caches() {
            cache.inner.on_notification(method, params);
        }
    }
}

impl Middleware for ResponseCache {
    fn response_cache(&self) -> Option<&ResponseCache> {
        Some(self)
    }

    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let Some(key) = self.key(&request) else {
                return next.run(request).await;
            };
            self.watch(next.server());
            let method = request.method().to_string();
            if let Some(hit) = self.inner.get(&method, &key) {
                self.inner.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(MiddlewareResponse::json(hit));
            }
            self.inner.misses.fetch_add(1, Ordering::Relaxed);
            let generation = self.inner.generation.load(Ordering::Acquire);
            let result = next.run(request).await?;
            let tool_error = method == "tools/call" && result.is_tool_error();
            if !tool_error {
                self.inner
                    .put(&method, key, result.result().clone(), generation);
            }
            Ok(result)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_ttl_and_zero_entries_are_refused() {
        assert!(ResponseCache::new(ResponseCacheConfig::new(Duration::ZERO)).is_err());
        let mut c = ResponseCacheConfig::new(Duration::from_secs(1));
        c.max_entries = 0;
        assert!(ResponseCache::new(c).is_err());
    }

    #[test]
    fn uri_is_found_in_a_key() {
        let key = "s:conn-1\u{0}2025-11-25\u{0}{\"uri\":\"file:///a.txt\"}";
        assert_eq!(uri_of(key).as_deref(), Some("file:///a.txt"));
        assert_eq!(uri_of("s\u{0}v\u{0}null"), None);
    }

    #[test]
    fn an_answer_computed_across_an_invalidation_is_not_stored() {
        let cache = ResponseCache::new(ResponseCacheConfig::new(Duration::from_secs(60))).unwrap();
        let g = cache.inner.generation.load(Ordering::Acquire);
        cache.invalidate("tools/list");
        cache.inner.put("tools/list", "k".into(), Value::Null, g);
        assert!(cache.is_empty());
        let g = cache.inner.generation.load(Ordering::Acquire);
        cache.inner.put("tools/list", "k".into(), Value::Null, g);
        assert_eq!(cache.len(), 1);
    }
}
