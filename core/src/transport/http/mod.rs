//! HTTP transports: the Streamable HTTP server and client (2025-03-26 and later) and the legacy
//! HTTP+SSE transport (2024-11-05), with the client's backwards-compatible fallback.
//!
//! Server: [`serve_http`] binds and serves; [`router`] gives an axum [`axum::Router`] to mount in an
//! existing app. Client: [`connect`] returns a [`crate::client::Client`] speaking over HTTP.

mod client;
mod server;
mod sse;
mod store;

pub use client::{
    connect, connect_legacy, legacy_transport, streamable_transport, HttpClientOptions, HttpReader,
    HttpWriter,
};
pub use server::{
    router, serve_http, HttpServerHandle, HttpSession, PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER,
};
pub use sse::{SseEvent, SseParser};
pub use store::{EventStore, InMemoryEventStore, InMemorySessionStore, SessionStore};

use std::sync::Arc;
use std::time::Duration;

/// Options of the HTTP server.
#[derive(Clone)]
pub struct HttpServerOptions {
    /// Path of the Streamable HTTP endpoint (default `/mcp`).
    pub path: String,
    /// Answer requests with a single `application/json` body instead of an SSE stream.
    pub json_response: bool,
    /// Stateless mode: no session ids; every POST gets a fresh session treated as initialized.
    pub stateless: bool,
    /// Offer the GET (server-to-client) stream; when off, GET answers 405.
    pub enable_get_stream: bool,
    /// Most sessions alive at once; initialize beyond it answers 503.
    pub max_sessions: usize,
    /// Sessions idle this long (no request, no open stream, nothing in flight) are removed.
    pub session_idle_timeout: Duration,
    /// Largest request body accepted (413 beyond).
    pub max_body_size: usize,
    /// Check `Host` and `Origin` against the allow-lists (403 otherwise). On by default.
    pub dns_rebinding_protection: bool,
    /// Allowed `Host` values (`name` or `name:port`); default the loopback names.
    pub allowed_hosts: Vec<String>,
    /// Allowed `Origin` values in full (`http://example.com:8080`); origins whose host is in
    /// `allowed_hosts` are accepted too.
    pub allowed_origins: Vec<String>,
    /// The `retry:` hint (reconnection delay) sent with each stream's priming event.
    pub retry_interval: Option<Duration>,
    /// Where SSE events are kept for resumption (default: [`InMemoryEventStore`]).
    pub event_store: Option<Arc<dyn EventStore>>,
    /// Where sessions are kept (default: [`InMemorySessionStore`]).
    pub session_store: Option<Arc<dyn SessionStore>>,
    /// Also serve the legacy 2024-11-05 HTTP+SSE endpoints.
    pub legacy_sse: bool,
    /// Path of the legacy SSE endpoint (default `/sse`).
    pub legacy_sse_path: String,
    /// Path of the legacy message endpoint (default `/messages`).
    pub legacy_messages_path: String,
}

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
            dns_rebinding_protection: true,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            retry_interval: Some(Duration::from_secs(1)),
            event_store: None,
            session_store: None,
            legacy_sse: true,
            legacy_sse_path: "/sse".into(),
            legacy_messages_path: "/messages".into(),
        }
    }
}
