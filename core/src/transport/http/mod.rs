//! HTTP transports: the Streamable HTTP server and client (2025-03-26 and later) and the legacy
//! HTTP+SSE transport (2024-11-05), with the client's backwards-compatible fallback.
//!
//! Server: [`serve_http`] binds and serves; [`router`] gives an axum [`axum::Router`] to mount in an
//! existing app. Client: the transports a client speaks over (`crate::client::http::connect`
//! connects one).
//!
//! Hardening: Host/Origin are checked against DNS rebinding automatically on loopback binds
//! ([`HttpServerOptions::dns_rebinding_protection`]); every per-stream queue is bounded
//! ([`HttpServerOptions::stream_queue_capacity`]), a stream whose reader falls behind is closed
//! and can be resumed from the bounded event store; shutdown lets in-flight requests finish and
//! answers new ones 503. The client renews an expired session by itself
//! ([`HttpClientOptions::reinitialize_on_expiry`]): the transport re-sends the initialize it
//! carried, then `notifications/initialized`, and retries the failed message once, so the
//! [`crate::client::Client`]'s negotiated state stays valid.

mod chunked;
mod client;
pub(crate) mod compression;
pub(crate) mod gauges;
pub(crate) mod h1;
mod metrics_endpoint;
mod per_request;
mod queue;
pub(crate) mod request;
mod server;
pub(crate) mod sse;
mod store;
mod tool_headers;
mod trace_headers;

pub use client::{
    legacy_transport, streamable_transport, HttpClientOptions, HttpReader, HttpWriter,
    SessionIdCell,
};
pub use compression::{CompressionLevel, CompressionOptions, ContentCoding};
pub use gauges::{HttpServerStats, SseStreams};
pub use metrics_endpoint::{MetricsEndpoint, PROMETHEUS_TEXT};
pub use per_request::{decode_value as decode_header_value, METHOD_HEADER, NAME_HEADER};
pub(crate) use server::CHOSEN_SESSION_ID;
pub use server::{
    router, router_with_gauges, serve_http, ClientCertificates, HttpEndpointGauges,
    HttpServerHandle, HttpSession, PemSource, TlsOptions, PROTOCOL_VERSION_HEADER,
    SESSION_ID_HEADER,
};
pub use server::{track_connection, ConnectionSeat, FairConnection, FairListener};
pub use sse::{SseEvent, SseParser};
#[cfg(feature = "redis")]
pub use store::RedisStore;
pub use store::{
    check_redis_url, BusMessage, BusReceiver, EventBus, EventStore, InMemoryEventBus,
    InMemoryEventStore, InMemorySessionStore, SessionState, SessionStore, StoreError, StoreFuture,
};
pub(crate) use trace_headers::trace_context_headers;

use std::sync::Arc;
use std::time::Duration;

/// Options of the HTTP server.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpServerOptions {
    /// Path of the Streamable HTTP endpoint (default `/mcp`).
    pub path: String,
    /// Answer requests with a single `application/json` body instead of an SSE stream.
    pub json_response: bool,
    /// Stateless mode: no session ids; every POST gets a fresh session treated as initialized.
    pub stateless: bool,
    /// Offer the GET (server-to-client) stream; when off, GET answers 405.
    pub enable_get_stream: bool,
    /// Most sessions alive at once. Default 10,000: an idle session costs about 3 KiB, so a full
    /// table of idle sessions stays around 30 MiB. When the table is full, initialize first
    /// removes expired sessions, then closes the least recently active idle session (no open
    /// stream, nothing in flight; its client gets 404 and initializes again); only when every
    /// session is busy does it answer 503. So an initialize flood pushes out sessions idle for
    /// longer than `max_sessions` / (flood rate), rather than locking every new client out.
    pub max_sessions: usize,
    /// Sessions idle this long (no request, no open stream, nothing in flight) are removed
    /// (default 30 minutes; the reaper runs every quarter of it, at most every minute).
    pub session_idle_timeout: Duration,
    /// Largest request body accepted (413 beyond). Default 4 MiB.
    pub max_body_size: usize,
    /// Largest request head (request line and header fields) accepted by [`serve_http`] (431
    /// beyond). Default 64 KiB. A head may also carry at most 128 header fields (431 beyond),
    /// whatever their size.
    pub max_head_size: usize,
    /// Most connections [`serve_http`] serves at once. At the cap, a new connection closes the
    /// longest idle one (see [`Self::connections_kept_for_sessions`]); when every connection
    /// has a request in progress or a stream open, it waits in the listen backlog until one
    /// closes or goes idle. Default 1,024.
    pub max_connections: usize,
    /// Most connections [`serve_http`] serves at once from one client address (IPv6 clients
    /// are counted per /64). A connection beyond it is answered 429 with `Retry-After` and
    /// closed, so that one peer cannot take the whole [`Self::max_connections`] budget.
    /// Default 256.
    pub max_connections_per_client: usize,
    /// Connections of [`Self::max_connections`] kept for clients that have a session: a
    /// connection counts as *without a session* until one of its requests names a live
    /// session (or opens one), and such connections may hold at most `max_connections -
    /// connections_kept_for_sessions` at once. Beyond that, and whenever the server is at
    /// `max_connections`, each new connection closes the longest idle connection without a
    /// session (one waiting for, or still receiving, its request head), then if there is none
    /// the longest idle connection with one; a connection with a request in progress or a
    /// stream open is never closed for it. So a flood of idle or slow connections, from one
    /// address or many, cannot keep a client with a session out. Default 128 (clamped to
    /// `max_connections - 1`).
    pub connections_kept_for_sessions: usize,
    /// Time a new connection has to send its first request's complete head (a silent or slow
    /// connection is closed after it, with 408 if it had begun). Default 10 s.
    pub header_read_timeout: Duration,
    /// Time a request may take to arrive once its first byte has (head and body); 408 beyond.
    /// Default 30 s.
    pub request_timeout: Duration,
    /// Time a kept-alive connection may sit idle between requests. Default 5 minutes.
    pub keep_alive_timeout: Duration,
    /// Time a write to a client may go without progress (a client that stops reading); the
    /// connection is closed after it. Default 30 s.
    pub write_timeout: Duration,
    /// Bytes all connections of [`serve_http`] may hold in read buffers and request bodies
    /// together; a request that would go beyond it is refused with 503 and its connection
    /// closed. Default 256 MiB.
    pub max_buffered_bytes: usize,
    /// Check `Host` and `Origin` against the allow-lists (403 otherwise), against DNS rebinding.
    ///
    /// `None` (the default) decides from the bound address: on for a loopback bind (allowing
    /// `localhost`, `127.0.0.1` and `[::1]` with the bound port unless `allowed_hosts` says
    /// otherwise); for any other bind, on only when `allowed_hosts` or `allowed_origins` is
    /// configured. `Some(true)`/`Some(false)` force it on or off. For [`router`] (no bound
    /// address known) the automatic choice is "on, loopback names with any port".
    pub dns_rebinding_protection: Option<bool>,
    /// Allowed `Host` values: `name` (any port) or `name:port` (that port only; a `Host` without
    /// a port means port 80). Empty: the loopback names with the bound port.
    pub allowed_hosts: Vec<String>,
    /// Allowed `Origin` values in full (`http://example.com:8080`); origins whose authority
    /// matches an allowed host are accepted too.
    pub allowed_origins: Vec<String>,
    /// Frames each SSE stream may hold waiting for its reader. A stream whose reader falls this
    /// far behind is closed (its events stay in the event store, so a client can resume with
    /// `Last-Event-ID` on 2025-11-25+) instead of blocking the session or growing without bound.
    pub stream_queue_capacity: usize,
    /// Bytes each SSE stream may hold waiting for its reader (encoded events, or answers kept
    /// for a JSON body), whatever [`Self::stream_queue_capacity`] allows: an event that would go
    /// beyond it closes the stream as a full queue does (its events stay in the event store,
    /// so a 2025-11-25+ client resumes with `Last-Event-ID` and loses nothing). One event is
    /// always taken by an empty queue, so an answer up to the message size still passes.
    /// Default 8 MiB, so a slow reader pins at most this much per stream (a session's streams
    /// are its open POSTs and its GET stream).
    pub max_stream_buffered_bytes: usize,
    /// Bytes all the SSE streams of one session may hold together waiting for their readers
    /// (its GET stream and the streams of its POSTs in progress): an event that would go beyond
    /// it closes its stream, as [`Self::max_stream_buffered_bytes`] does (resumable). With it,
    /// what one session's slow reading can pin is this plus one event per open stream (an
    /// empty queue always takes one). Default 32 MiB.
    pub max_session_buffered_bytes: usize,
    /// Polling mode: close the SSE stream of a request still running after this long (and each
    /// resumed stream after as long again); the client reconnects after `retry:` with
    /// `Last-Event-ID`. Applies to 2025-11-25+ sessions, whose streams are resumable.
    pub close_streams_after: Option<Duration>,
    /// The `retry:` hint (reconnection delay) sent with each stream's priming event.
    pub retry_interval: Option<Duration>,
    /// Idle time after which an open SSE stream (GET, a POST's stream, `subscriptions/listen`,
    /// the legacy SSE endpoint) gets a comment frame (`: keep-alive`), so that proxies and load
    /// balancers that cut idle connections leave it open; clients ignore comments. Default 15 s;
    /// `None`: never.
    pub sse_keep_alive: Option<Duration>,
    /// Idle time after which a session's standalone SSE stream (the Streamable HTTP GET, or
    /// the legacy SSE endpoint's stream) is ended cleanly (the chunked body is finished).
    /// *Idle* means both ways: the stream has carried no event (keep-alive comments do not
    /// count: they are the server's, not activity) **and** the session has received no
    /// request from its client, for this long. A client using its session, or one that gets
    /// notifications, is never cut; a stream that only holds a connection is. Nothing is lost:
    /// what the server sends afterwards waits for the next GET (replayed from the event store
    /// with `Last-Event-ID` on 2025-11-25+, or from the session's backlog), which clients open
    /// again when a GET stream ends; a legacy (2024-11-05) session ends with its stream, as
    /// when its client disconnects. A POST's stream and a `subscriptions/listen` stream are
    /// not timed out: each is a request in progress, ended by its answer (a listen by the
    /// client or at shutdown) and bounded by the request's own limits. Default 10 minutes;
    /// `None`: never.
    pub sse_idle_timeout: Option<Duration>,
    /// Where SSE events are kept for resumption (default: [`InMemoryEventStore`]).
    pub event_store: Option<Arc<dyn EventStore>>,
    /// Where the sessions' state is kept (default: [`InMemorySessionStore`]). Replicas sharing
    /// one session store, one [`Self::event_store`] and one [`Self::event_bus`] serve each
    /// other's sessions: any request may go to any replica.
    pub session_store: Option<Arc<dyn SessionStore>>,
    /// How replicas reach each other (default: [`InMemoryEventBus`], one process).
    pub event_bus: Option<Arc<dyn EventBus>>,
    /// Where the replicas record the 2026-07-28 `requestState` tokens they opened, so that each
    /// is good for one use across all of them (the sessions of this endpoint get the server's
    /// key ring with this store: [`crate::session::KeyRing::with_replay_store`]). Default: none,
    /// each process remembers the tokens it opened; with [`Self::redis_url`], the Redis store.
    pub replay_store: Option<Arc<dyn crate::session::ReplayStore>>,
    /// Where the replicas share the tasks of the tasks extension (2026-07-28), so that
    /// `tasks/get`, `tasks/update` and `tasks/cancel` work on any replica: the server's tasks
    /// are written there, and update and cancel reach the replica running the task over
    /// [`Self::event_bus`] ([`crate::server::TaskStore`]), as do the states written, for the
    /// `notifications/tasks` subscriptions of every replica (replicas sharing a task store
    /// must share the bus). Default: none, the server keeps its tasks in its own memory; with
    /// [`Self::redis_url`], the Redis store.
    pub task_store: Option<Arc<dyn crate::server::TaskStore>>,
    /// Keep sessions, SSE events and the bus on this Redis/Valkey
    /// (`redis://[user:password@]host:port[/db]`), so that replicas in any number of processes
    /// serve any session: the stores not set above become one `RedisStore` (sessions expire
    /// after [`Self::session_idle_timeout`], each stream keeps its last 256 events for an hour;
    /// `requestState` tokens are single use across the replicas; the tasks extension's tasks
    /// are shared).
    /// Needs the `redis` feature; [`serve_http`] connects before it listens.
    pub redis_url: Option<String>,
    /// Also serve the legacy 2024-11-05 HTTP+SSE endpoints.
    pub legacy_sse: bool,
    /// Path of the legacy SSE endpoint (default `/sse`).
    pub legacy_sse_path: String,
    /// Path of the legacy message endpoint (default `/messages`).
    pub legacy_messages_path: String,
    /// Protect the endpoints with OAuth bearer tokens: every request's token is verified
    /// (401 / 403 with a `WWW-Authenticate` challenge otherwise), the Protected Resource
    /// Metadata is served at [`crate::auth::ResourceAuth::metadata_path`], and handlers see the
    /// identity in [`crate::session::RequestContext::auth`]. `None`: no protection.
    ///
    /// ```
    /// use ferromcp::auth::{JwtVerifier, ResourceAuth};
    /// use ferromcp::transport::http::HttpServerOptions;
    /// use std::sync::Arc;
    ///
    /// let verifier = JwtVerifier::from_jwks_url(
    ///     "https://auth.example.com/jwks.json",
    ///     "https://auth.example.com",
    ///     "https://mcp.example.com/mcp",
    /// )?;
    /// let auth = ResourceAuth::new(
    ///     "https://mcp.example.com/mcp",
    ///     vec!["https://auth.example.com".into()],
    ///     Arc::new(verifier),
    /// )
    /// .require_scopes(&["mcp:tools"]);
    /// let options = HttpServerOptions::default().with_auth(Some(Arc::new(auth)));
    /// assert!(options.auth.is_some());
    /// # Ok::<(), ferromcp::auth::AuthError>(())
    /// ```
    pub auth: Option<Arc<crate::auth::ResourceAuth>>,
    /// Path of the readiness endpoint (default `/healthz`; `None`: not served). `GET` answers
    /// 200 `{"status": "ok", ...}` while the server takes requests and its session store
    /// answers, else 503 `{"status": "unavailable", "sessionStore": "<why>"}` (or
    /// `"shuttingDown": true`); it needs no session or token, and the Host/Origin checks apply.
    pub health_path: Option<String>,
    /// Serve over TLS (`https://`) with this certificate, reloaded when its files change, and
    /// optionally verify client certificates (mutual TLS); see [`TlsOptions`]. The handshake
    /// must finish within [`Self::header_read_timeout`]. Only [`serve_http`] uses it: a
    /// [`router`] mounted in an axum app is served over whatever TLS that app sets up.
    /// Default: none, plain HTTP.
    pub tls: Option<TlsOptions>,
    /// `Content-Encoding` of the endpoint's bodies (gzip, br, zstd; see [`CompressionOptions`]
    /// and docs/compression.md): JSON and SSE answers are encoded as the request's
    /// `Accept-Encoding` allows, when at least `min_size` bytes; request bodies in those codings
    /// are decoded, within [`Self::max_body_size`] after decoding. Default: on (zstd, br, gzip
    /// from 1,024 bytes). `None`: answers are never encoded and an encoded request body gets
    /// 415.
    pub compression: Option<CompressionOptions>,
    /// An opt-in metrics endpoint (`GET`, e.g. `/metrics`, Prometheus text; see
    /// [`MetricsEndpoint`] and docs/observability.md). Default: none.
    pub metrics: Option<MetricsEndpoint>,
    /// Serve this OAuth proxy's endpoints (its authorization server metadata, `/authorize`, the
    /// consent page, the upstream callback, `/token`, `/register`, `/revoke` and the protected
    /// resource metadata; see [`crate::auth::OAuthProxy`] and docs/oauth-proxy.md) beside the MCP
    /// endpoint, from [`serve_http`]'s listener and from [`router`], so a server signs its
    /// clients in without an HTTP app of its own. It does not protect the endpoint by itself:
    /// set [`Self::auth`] to a [`crate::auth::ResourceAuth`] verifying with the proxy (it is a
    /// [`crate::auth::TokenVerifier`]). Bodies are read within [`Self::max_body_size`]; the
    /// proxy refuses those over its own limit (64 KiB). Default: none.
    pub oauth_proxy: Option<crate::auth::OAuthProxy>,
}

ferromcp_protocol::with_setters!(HttpServerOptions {
    path: String => with_path,
    json_response: bool => with_json_response,
    stateless: bool => with_stateless,
    enable_get_stream: bool => with_enable_get_stream,
    max_sessions: usize => with_max_sessions,
    session_idle_timeout: Duration => with_session_idle_timeout,
    max_body_size: usize => with_max_body_size,
    max_head_size: usize => with_max_head_size,
    max_connections: usize => with_max_connections,
    max_connections_per_client: usize => with_max_connections_per_client,
    connections_kept_for_sessions: usize => with_connections_kept_for_sessions,
    header_read_timeout: Duration => with_header_read_timeout,
    request_timeout: Duration => with_request_timeout,
    keep_alive_timeout: Duration => with_keep_alive_timeout,
    write_timeout: Duration => with_write_timeout,
    max_buffered_bytes: usize => with_max_buffered_bytes,
    dns_rebinding_protection: Option<bool> => with_dns_rebinding_protection,
    allowed_hosts: Vec<String> => with_allowed_hosts,
    allowed_origins: Vec<String> => with_allowed_origins,
    stream_queue_capacity: usize => with_stream_queue_capacity,
    max_stream_buffered_bytes: usize => with_max_stream_buffered_bytes,
    max_session_buffered_bytes: usize => with_max_session_buffered_bytes,
    close_streams_after: Option<Duration> => with_close_streams_after,
    retry_interval: Option<Duration> => with_retry_interval,
    sse_keep_alive: Option<Duration> => with_sse_keep_alive,
    sse_idle_timeout: Option<Duration> => with_sse_idle_timeout,
    event_store: Option<Arc<dyn EventStore>> => with_event_store,
    session_store: Option<Arc<dyn SessionStore>> => with_session_store,
    event_bus: Option<Arc<dyn EventBus>> => with_event_bus,
    replay_store: Option<Arc<dyn crate::session::ReplayStore>> => with_replay_store,
    task_store: Option<Arc<dyn crate::server::TaskStore>> => with_task_store,
    redis_url: Option<String> => with_redis_url,
    legacy_sse: bool => with_legacy_sse,
    legacy_sse_path: String => with_legacy_sse_path,
    legacy_messages_path: String => with_legacy_messages_path,
    auth: Option<Arc<crate::auth::ResourceAuth>> => with_auth,
    health_path: Option<String> => with_health_path,
    tls: Option<TlsOptions> => with_tls,
    compression: Option<CompressionOptions> => with_compression,
    metrics: Option<MetricsEndpoint> => with_metrics,
    oauth_proxy: Option<crate::auth::OAuthProxy> => with_oauth_proxy,
});

impl std::fmt::Debug for HttpServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServerOptions")
            .field("path", &self.path)
            .field("json_response", &self.json_response)
            .field("stateless", &self.stateless)
            .field("max_sessions", &self.max_sessions)
            .finish_non_exhaustive()
    }
}

impl Default for HttpServerOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            json_response: false,
            stateless: false,
            enable_get_stream: true,
            max_sessions: 10_000,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_body_size: 4 * 1024 * 1024,
            max_head_size: 64 * 1024,
            max_connections: 1024,
            max_connections_per_client: 256,
            connections_kept_for_sessions: 128,
            header_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            keep_alive_timeout: Duration::from_secs(5 * 60),
            write_timeout: Duration::from_secs(30),
            max_buffered_bytes: 256 * 1024 * 1024,
            dns_rebinding_protection: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            stream_queue_capacity: 1024,
            max_stream_buffered_bytes: 8 * 1024 * 1024,
            max_session_buffered_bytes: 32 * 1024 * 1024,
            close_streams_after: None,
            retry_interval: Some(Duration::from_secs(1)),
            sse_keep_alive: Some(Duration::from_secs(15)),
            sse_idle_timeout: Some(Duration::from_secs(10 * 60)),
            event_store: None,
            session_store: None,
            event_bus: None,
            replay_store: None,
            task_store: None,
            redis_url: None,
            legacy_sse: true,
            legacy_sse_path: "/sse".into(),
            legacy_messages_path: "/messages".into(),
            auth: None,
            health_path: Some("/healthz".into()),
            tls: None,
            compression: Some(CompressionOptions::default()),
            metrics: None,
            oauth_proxy: None,
        }
    }
}
