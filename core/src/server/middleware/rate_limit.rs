//! Rate limiting: token buckets keyed by principal, session, client address or tool, with
//! per-tool limits; a request over its limit is refused with `-32004 "Rate limited"` and
//! `data: {retryAfter, limit, window}` (seconds), as the MCP API reference has it.

use super::trusted_proxies::{client_behind, HeaderSyntax, IpRange};
use super::{Middleware, MiddlewareRequest, MiddlewareResponse, Next};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The JSON-RPC code of a request refused for its rate (`"Rate limited"`); the same constant as
/// [`crate::error::codes::RATE_LIMITED`], which the bindings' error tables are built from.
pub const RATE_LIMITED: i32 = crate::error::codes::RATE_LIMITED;

/// What a bucket's key is made of; several parts make one key (e.g. principal and tool).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum RateKey {
    /// The verified token's subject (or client id); requests without one share the key
    /// `anonymous`.
    Principal,
    /// The session ([`MiddlewareRequest::session_key`]).
    Session,
    /// The client's address: the IP address of the HTTP connection's peer (the socket's), or,
    /// when [`RateLimitConfig::address_header`] names a header set by your proxies and the peer
    /// is one of [`RateLimitConfig::trusted_proxies`], the client that header names (its
    /// rightmost entry that is not a trusted proxy). Requests without a peer address (not over
    /// HTTP, or axum served without connect info) share the key `unknown`, with a warning
    /// logged once.
    ClientAddress,
    /// The tool called (`tools/call`); other methods count under their method name.
    Tool,
    /// One bucket for everything (nothing else in the key).
    Global,
}

/// A tool's own limit.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolLimit {
    /// Calls allowed per window (the bucket's size); at least 1.
    pub limit: u32,
    /// The window, in milliseconds: a full bucket refills over it.
    pub window_ms: u64,
}

impl ToolLimit {
    /// `limit` calls per `window` for one tool.
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window_ms: window.as_millis().min(u64::MAX as u128) as u64,
        }
    }
}

/// The rate limit's options. JSON: `{"limit": 100, "windowMs": 60000, "by"?: ["principal"],
/// "tools"?: {"search": {"limit": 5, "windowMs": 1000}}, "methods"?: ["tools/call"],
/// "addressHeader"?: "x-forwarded-for", "trustedProxies"?: ["10.0.0.0/8"]}` (`addressHeader`,
/// `"forwarded"` for RFC 7239, is read only from the `trustedProxies`, loopback by default).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct RateLimitConfig {
    /// Requests allowed per window and key (the bucket's size); at least 1.
    pub limit: u32,
    /// The window, in milliseconds: a full bucket refills over it, `limit / window` a second.
    pub window_ms: u64,
    /// What the key is made of (default: the session).
    #[serde(default = "default_by")]
    pub by: Vec<RateKey>,
    /// Per-tool limits, applied to `tools/call` of that tool instead of `limit` (their buckets
    /// are apart from the others': the key gets the tool's name).
    #[serde(default)]
    pub tools: BTreeMap<String, ToolLimit>,
    /// The methods counted (default: every request the server gets).
    #[serde(default)]
    pub methods: Option<Vec<String>>,
    /// A header holding the client's address, appended to by your proxies (e.g.
    /// `x-forwarded-for`, or `forwarded` for RFC 7239's `Forwarded: for=...`, whose elements
    /// are read as its hops), for [`RateKey::ClientAddress`]. Default: none, the key is the
    /// connection peer's IP address: a header any client can write would let it pick its own
    /// bucket. It is read only on connections from [`Self::trusted_proxies`], from the right:
    /// the first entry that is not a trusted proxy is the client (every line of the header, in
    /// order; when every entry is trusted, the leftmost). Only this header is read: with
    /// `forwarded`, an `X-Forwarded-For` beside it is not, and the other way round (a proxy
    /// passes on the header it does not write as the client sent it).
    #[serde(default)]
    pub address_header: Option<String>,
    /// The proxies whose [`Self::address_header`] is believed: IP addresses and CIDR ranges
    /// (JSON strings: `"10.0.0.0/8"`, `"2001:db8::/32"`, `"192.0.2.7"`). Default (`None`):
    /// loopback only (`127.0.0.0/8`, `::1`), a proxy on the same host; `["0.0.0.0/0", "::/0"]`
    /// trusts every peer (only for a server no client can reach but through the proxies).
    #[serde(default)]
    pub trusted_proxies: Option<Vec<IpRange>>,
    /// Buckets on this Redis, shared by every replica given the same URL (needs the `redis`
    /// feature); default: in this process.
    #[serde(default)]
    pub redis_url: Option<String>,
}

fn default_by() -> Vec<RateKey> {
    vec![RateKey::Session]
}

impl RateLimitConfig {
    /// `limit` requests per `window` and session.
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window_ms: window.as_millis().min(u64::MAX as u128) as u64,
            by: default_by(),
            tools: BTreeMap::new(),
            methods: None,
            address_header: None,
            trusted_proxies: None,
            redis_url: None,
        }
    }

    fn check(&self) -> Result<(), McpError> {
        let limits = std::iter::once(("", self.limit, self.window_ms)).chain(
            self.tools
                .iter()
                .map(|(t, l)| (t.as_str(), l.limit, l.window_ms)),
        );
        for (tool, limit, window) in limits {
            let what = if tool.is_empty() {
                "rateLimit".to_string()
            } else {
                format!("rateLimit.tools[{tool:?}]")
            };
            if limit == 0 || window == 0 {
                return Err(McpError::invalid_params(format!(
                    "{what}: limit and windowMs must be at least 1"
                )));
            }
        }
        if self.by.is_empty() {
            return Err(McpError::invalid_params(
                "rateLimit.by: name at least one key part (\"global\" for one bucket)",
            ));
        }
        Ok(())
    }
}

/// What a bucket store decided for one request.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum RateDecision {
    /// A token was taken: the request goes on.
    Allowed,
    /// The bucket is empty: a token comes back after this long.
    Limited {
        /// How long until the next token.
        retry_after: Duration,
    },
}

/// Where the buckets live: this process ([`InMemoryBuckets`]) or a store shared by replicas.
pub trait BucketStore: Send + Sync + 'static {
    /// Takes one token from bucket `key` (size `limit`, refilled over `window`), made full on
    /// first use.
    fn take<'a>(
        &'a self,
        key: &'a str,
        limit: u32,
        window: Duration,
    ) -> BoxFuture<'a, Result<RateDecision, McpError>>;

    /// Whether bucket `key` has a token now, without taking it (`Allowed`) or not (`Limited`,
    /// with the time until it has one): what the HTTP listener asks before reading a body
    /// ([`RateLimit::refuses_address`]). The default answers `Allowed`, so a store without it
    /// refuses only with the JSON-RPC error.
    fn peek<'a>(
        &'a self,
        key: &'a str,
        limit: u32,
        window: Duration,
    ) -> BoxFuture<'a, Result<RateDecision, McpError>> {
        let _ = (key, limit, window);
        Box::pin(std::future::ready(Ok(RateDecision::Allowed)))
    }
}

/// Token buckets in this process's memory. A bucket that has refilled completely is the same
/// as none and is forgotten on the next sweep (every 1024 new keys), so memory follows the
/// keys active within a window.
#[derive(Default)]
pub struct InMemoryBuckets {
    buckets: Mutex<Buckets>,
}

#[derive(Default)]
struct Buckets {
    map: HashMap<String, Bucket>,
    inserts_since_sweep: usize,
}

struct Bucket {
    tokens: f64,
    at: Instant,
    limit: u32,
    window: Duration,
}

impl Bucket {
    fn refill(&mut self, now: Instant) {
        let rate = f64::from(self.limit) / self.window.as_secs_f64();
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate).min(f64::from(self.limit));
        self.at = now;
    }
}

impl InMemoryBuckets {
    /// Takes a token now (the synchronous heart of [`BucketStore::take`]).
    pub fn take_now(&self, key: &str, limit: u32, window: Duration) -> RateDecision {
        self.take_at(key, limit, window, Instant::now())
    }

    fn take_at(&self, key: &str, limit: u32, window: Duration, now: Instant) -> RateDecision {
        let mut b = self.buckets.lock().unwrap();
        if !b.map.contains_key(key) {
            b.inserts_since_sweep += 1;
            if b.inserts_since_sweep >= 1024 {
                b.inserts_since_sweep = 0;
                b.map.retain(|_, bucket| {
                    bucket.refill(now);
                    bucket.tokens < f64::from(bucket.limit)
                });
            }
        }
        let bucket = b.map.entry(key.to_string()).or_insert(Bucket {
            tokens: f64::from(limit),
            at: now,
            limit,
            window,
        });
        // A changed limit takes effect at once (the tokens kept, within the new size).
        bucket.limit = limit;
        bucket.window = window;
        bucket.refill(now);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return RateDecision::Allowed;
        }
        let rate = f64::from(limit) / window.as_secs_f64();
        RateDecision::Limited {
            retry_after: Duration::from_secs_f64((1.0 - bucket.tokens) / rate),
        }
    }

    /// Whether bucket `key` has a token now (without taking it); a bucket never used is full.
    pub fn peek_now(&self, key: &str, limit: u32, window: Duration) -> RateDecision {
        let now = Instant::now();
        let mut b = self.buckets.lock().unwrap();
        let Some(bucket) = b.map.get_mut(key) else {
            return RateDecision::Allowed;
        };
        bucket.limit = limit;
        bucket.window = window;
        bucket.refill(now);
        if bucket.tokens >= 1.0 {
            return RateDecision::Allowed;
        }
        let rate = f64::from(limit) / window.as_secs_f64();
        RateDecision::Limited {
            retry_after: Duration::from_secs_f64((1.0 - bucket.tokens) / rate),
        }
    }

    /// How many buckets are kept now.
    pub fn len(&self) -> usize {
        self.buckets.lock().unwrap().map.len()
    }

    /// Whether no bucket is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl BucketStore for InMemoryBuckets {
    fn take<'a>(
        &'a self,
        key: &'a str,
        limit: u32,
        window: Duration,
    ) -> BoxFuture<'a, Result<RateDecision, McpError>> {
        let decision = self.take_now(key, limit, window);
        Box::pin(std::future::ready(Ok(decision)))
    }

    fn peek<'a>(
        &'a self,
        key: &'a str,
        limit: u32,
        window: Duration,
    ) -> BoxFuture<'a, Result<RateDecision, McpError>> {
        Box::pin(std::future::ready(Ok(self.peek_now(key, limit, window))))
    }
}

/// The rate-limiting middleware.
pub struct RateLimit {
    config: RateLimitConfig,
    store: Arc<dyn BucketStore>,
    /// The address header's name in lowercase (how header fields are looked up).
    address_header: Option<String>,
    /// [`RateLimitConfig::trusted_proxies`], or loopback when not given.
    trusted: Vec<IpRange>,
}

impl RateLimit {
    /// A rate limit with its buckets in this process, or on Redis when the config names
    /// [`RateLimitConfig::redis_url`]; fails on a limit or window of 0, an empty key, or a
    /// Redis URL without the `redis` feature.
    ///
    /// ```
    /// use ferromcp::server::middleware::{RateLimit, RateLimitConfig, RATE_LIMITED};
    /// use ferromcp::server::Server;
    /// use serde_json::{json, Value};
    /// use std::time::Duration;
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// // Two tool calls a minute per session (the default key).
    /// let mut config = RateLimitConfig::new(2, Duration::from_secs(60));
    /// config.methods = Some(vec!["tools/call".into()]); // default: every request, initialize too
    /// let server = Server::builder("limited", "1.0")
    ///     .middleware(RateLimit::new(config)?)
    ///     .tool("search", "Searches", |_: Value, _ctx| async { "found" })
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// client.call_tool("search", json!({})).await?;
    /// client.call_tool("search", json!({})).await?;
    /// let refused = client.call_tool("search", json!({})).await.unwrap_err();
    /// assert_eq!(refused.code, RATE_LIMITED);
    /// assert_eq!(refused.data.unwrap()["limit"], 2);
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(config: RateLimitConfig) -> Result<Self, McpError> {
        let store: Arc<dyn BucketStore> = match &config.redis_url {
            None => Arc::new(InMemoryBuckets::default()),
            #[cfg(feature = "redis")]
            Some(url) => Arc::new(super::RedisBuckets::open(url)?),
            #[cfg(not(feature = "redis"))]
            Some(_) => {
                return Err(McpError::invalid_params(
                    "rateLimit.redisUrl needs ferromcp built with the `redis` feature",
                ))
            }
        };
        Self::with_store(config, store)
    }

    /// A rate limit with its buckets in `store` (shared by replicas).
    pub fn with_store(
        config: RateLimitConfig,
        store: Arc<dyn BucketStore>,
    ) -> Result<Self, McpError> {
        config.check()?;
        let address_header = config
            .address_header
            .as_deref()
            .map(|h| h.trim().to_ascii_lowercase());
        let trusted = config
            .trusted_proxies
            .clone()
            .unwrap_or_else(IpRange::loopback);
        Ok(Self {
            config,
            store,
            address_header,
            trusted,
        })
    }

    /// The bucket `request` takes from: its key, size and window; `None`: not counted.
    fn bucket_of(&self, request: &MiddlewareRequest) -> Option<(String, u32, Duration)> {
        let c = &self.config;
        if let Some(methods) = &c.methods {
            if !methods.iter().any(|m| m == request.method()) {
                return None;
            }
        }
        let tool = request.tool_name();
        let own = tool.and_then(|t| c.tools.get(t));
        let mut key = String::from("rl");
        for part in &c.by {
            key.push('|');
            match part {
                RateKey::Principal => key.push_str(request.principal_name().unwrap_or("anonymous")),
                RateKey::Session => key.push_str(&request.session_key()),
                RateKey::ClientAddress => {
                    key.push_str(&self.address_key(request.client_address(), |name| {
                        request.http_header_lines(name)
                    }))
                }
                RateKey::Tool => key.push_str(tool.unwrap_or(request.method())),
                RateKey::Global => key.push('*'),
            }
        }
        match own {
            Some(l) => {
                key.push_str("|tool:");
                key.push_str(tool.unwrap_or_default());
                Some((key, l.limit, Duration::from_millis(l.window_ms)))
            }
            None => Some((key, c.limit, Duration::from_millis(c.window_ms))),
        }
    }
}

/// Whether the warning about requests without an address was logged (once per process).
static NO_ADDRESS_WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the warning about an address header from a peer not trusted was logged (once per
/// process).
static UNTRUSTED_HEADER_WARNED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

impl RateLimit {
    /// The client address a [`RateKey::ClientAddress`] key holds: with
    /// [`RateLimitConfig::address_header`] named and the connection's peer `peer` a trusted
    /// proxy, the client the header names (its rightmost entry that is not a trusted proxy);
    /// else the peer's IP address; else `unknown` (one bucket shared by every such request; a
    /// warning is logged the first time). `header_of` reads a request header (every line of
    /// it joined by commas; the name is given in lowercase).
    pub(crate) fn address_key(
        &self,
        peer: Option<IpAddr>,
        header_of: impl FnOnce(&str) -> Option<String>,
    ) -> String {
        match peer {
            Some(ip) => match &self.address_header {
                None => ip.to_string(),
                Some(name) => {
                    let header = header_of(name);
                    let syntax = HeaderSyntax::of(name);
                    let client = client_behind(ip, header.as_deref(), syntax, &self.trusted);
                    if header.is_some()
                        && client == ip.to_canonical()
                        && !super::trusted_proxies::is_trusted(&self.trusted, ip)
                        && !UNTRUSTED_HEADER_WARNED.swap(true, std::sync::atomic::Ordering::Relaxed)
                    {
                        tracing::warn!(
                            target: "ferromcp::rate_limit",
                            peer = %ip,
                            header = %name,
                            "rate limit by clientAddress: a request from a peer that is not a \
                             trusted proxy carries the address header; it is ignored (list your \
                             proxies in trustedProxies if this peer is one)"
                        );
                    }
                    client.to_string()
                }
            },
            None => {
                if !NO_ADDRESS_WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    tracing::warn!(
                        target: "ferromcp::rate_limit",
                        "rate limit by clientAddress: a request has no peer address (not over \
                         HTTP, or axum served without connect info; an address header is read \
                         only from a trusted peer); such requests share one bucket"
                    );
                }
                "unknown".to_string()
            }
        }
    }
}

impl RateLimit {
    /// Whether this limit is one the HTTP listener applies before reading a body: keyed by the
    /// client's address alone (`by: [clientAddress]`), counting every request (no `methods`)
    /// with no per-tool limits. Only then does the address alone say which bucket a request
    /// would take from.
    pub fn limits_addresses(&self) -> bool {
        let c = &self.config;
        c.by == [RateKey::ClientAddress] && c.methods.is_none() && c.tools.is_empty()
    }

    /// The header this limit reads the client's address from (on connections from its trusted
    /// proxies), if one is configured.
    pub fn address_header(&self) -> Option<&str> {
        self.config.address_header.as_deref()
    }

    /// The proxies whose address header this limit believes
    /// ([`RateLimitConfig::trusted_proxies`]; loopback when not given).
    pub fn trusted_proxies(&self) -> &[IpRange] {
        &self.trusted
    }

    /// For the HTTP listener, before a request's body is read: when this is an address limit
    /// ([`limits_addresses`](Self::limits_addresses)) and the bucket of the client's address
    /// (the connection's peer `peer`, or the trusted header read by `header_of`, as the layer
    /// keys it) has no token left, the time until it has one, its size and its window; `None`
    /// lets the request be read (the JSON-RPC layer then takes its tokens as usual, so nothing
    /// is counted twice). A store that fails lets the request through, as the layer does.
    pub async fn refuses_address(
        &self,
        peer: Option<IpAddr>,
        header_of: impl FnOnce(&str) -> Option<String>,
    ) -> Option<(Duration, u32, Duration)> {
        if !self.limits_addresses() {
            return None;
        }
        let c = &self.config;
        let key = format!("rl|{}", self.address_key(peer, header_of));
        let window = Duration::from_millis(c.window_ms);
        match self.store.peek(&key, c.limit, window).await {
            Ok(RateDecision::Limited { retry_after }) => Some((retry_after, c.limit, window)),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(
                    target: "ferromcp::rate_limit",
                    error = %e.message,
                    "rate limit store failed; HTTP request let through"
                );
                None
            }
        }
    }
}

/// Seconds as a JSON number: whole seconds as an integer, else to the millisecond.
fn seconds(d: Duration) -> Value {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        json!((ms / 1000) as u64)
    } else {
        json!(ms as f64 / 1000.0)
    }
}

/// The `-32004` error for a request over a limit of `limit` per `window`, allowed again after
/// `retry_after` (rounded up to the millisecond).
pub(crate) fn rate_limited(retry_after: Duration, limit: u32, window: Duration) -> McpError {
    let retry = Duration::from_millis(retry_after.as_nanos().div_ceil(1_000_000) as u64);
    McpError::new(RATE_LIMITED, "Rate limited").with_data(json!({
        "retryAfter": seconds(retry),
        "limit": limit,
        "window": seconds(window),
    }))
}

impl Middleware for RateLimit {
    fn address_limit(&self) -> Option<&RateLimit> {
        self.limits_addresses().then_some(self)
    }

    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let Some((key, limit, window)) = self.bucket_of(&request) else {
                return next.run(request).await;
            };
            match self.store.take(&key, limit, window).await {
                Ok(RateDecision::Allowed) => next.run(request).await,
                Ok(RateDecision::Limited { retry_after }) => {
                    Err(rate_limited(retry_after, limit, window))
                }
                // The store is away (Redis down): the request goes on rather than every
                // request being refused for it.
                Err(e) => {
                    tracing::warn!(
                        target: "ferromcp::rate_limit",
                        error = %e.message,
                        "rate limit store failed; request let through"
                    );
                    next.run(request).await
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refills_at_limit_per_window() {
        let b = InMemoryBuckets::default();
        let t0 = Instant::now();
        let w = Duration::from_secs(10);
        assert_eq!(b.take_at("k", 2, w, t0), RateDecision::Allowed);
        assert_eq!(b.take_at("k", 2, w, t0), RateDecision::Allowed);
        let RateDecision::Limited { retry_after } = b.take_at("k", 2, w, t0) else {
            panic!("third call refused");
        };
        assert_eq!(retry_after, Duration::from_secs(5));
        // Half a token 2.5 s later: still refused, 2.5 s to go.
        let RateDecision::Limited { retry_after } =
            b.take_at("k", 2, w, t0 + Duration::from_millis(2500))
        else {
            panic!("still refused");
        };
        assert_eq!(retry_after.as_millis(), 2500);
        assert_eq!(
            b.take_at("k", 2, w, t0 + Duration::from_secs(5)),
            RateDecision::Allowed
        );
        // Another key has its own bucket.
        assert_eq!(b.take_at("other", 2, w, t0), RateDecision::Allowed);
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_redis_url_that_is_not_one_is_invalid_params_without_the_url() {
        let mut config = RateLimitConfig::new(3, Duration::from_secs(1));
        config.redis_url = Some("http://user:secret@127.0.0.1:6379".into());
        let e = RateLimit::new(config).err().expect("refused");
        assert_eq!(e.code, crate::error::codes::INVALID_PARAMS);
        assert!(e.message.contains("not a Redis URL"), "{}", e.message);
        assert!(!e.message.contains("secret"), "{}", e.message);
    }

    #[test]
    fn full_buckets_are_swept() {
        let b = InMemoryBuckets::default();
        let t0 = Instant::now();
        let w = Duration::from_millis(10);
        for i in 0..1023 {
            b.take_at(&format!("k{i}"), 1, w, t0);
        }
        assert_eq!(b.len(), 1023);
        // The 1024th new key sweeps the others, refilled by now.
        b.take_at("last", 1, w, t0 + Duration::from_secs(1));
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn the_error_gives_seconds_as_the_reference_does() {
        let e = rate_limited(Duration::from_secs(60), 100, Duration::from_secs(3600));
        assert_eq!(e.code, -32004);
        assert_eq!(e.message, "Rate limited");
        assert_eq!(
            e.data,
            Some(json!({ "retryAfter": 60, "limit": 100, "window": 3600 }))
        );
        let e = rate_limited(
            Duration::from_micros(250_400),
            2,
            Duration::from_millis(500),
        );
        assert_eq!(
            e.data,
            Some(json!({ "retryAfter": 0.251, "limit": 2, "window": 0.5 }))
        );
    }

    #[test]
    fn a_limit_of_zero_is_refused() {
        let e = RateLimit::new(RateLimitConfig::new(0, Duration::from_secs(1)))
            .err()
            .unwrap();
        assert!(e.message.contains("at least 1"), "{}", e.message);
        let mut c = RateLimitConfig::new(1, Duration::from_secs(1));
        c.tools.insert(
            "t".into(),
            ToolLimit {
                limit: 1,
                window_ms: 0,
            },
        );
        assert!(RateLimit::new(c).is_err());
    }
}
