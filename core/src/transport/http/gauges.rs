//! Server-wide accounting shared by every connection of one [`super::serve_http`] server: open
//! connections, bytes held in read buffers and request bodies (against the memory budget,
//! [`super::HttpServerOptions::max_buffered_bytes`]), bytes examined while looking for the
//! end of request heads, the HTTP sessions (with their routing tables) alive and the SSE
//! streams open, by kind. [`HttpServerStats`] is the snapshot users see.
//!
//! Streams and sessions are counted when they open and close, never per request: an answer
//! sent whole (the usual POST) is no open stream. A hook may be told when a session ends and
//! how long it lived (the OpenTelemetry layer's `mcp.server.session.duration`); without one a
//! session costs one more atomic load.

use crate::protocol::ProtocolVersion;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A snapshot of a running server's connection layer ([`super::HttpServerHandle::stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpServerStats {
    /// Connections being served.
    pub open_connections: usize,
    /// Bytes held by all connections in read buffers and request bodies (counted against
    /// [`super::HttpServerOptions::max_buffered_bytes`]).
    pub buffered_bytes: usize,
    /// Bytes examined while looking for the end of request heads, in total. Each byte of a head
    /// is examined about once however it is split into reads (about twice with the final
    /// parse).
    pub head_bytes_scanned: u64,
    /// HTTP sessions alive: each holds an engine session and its routing table, whether it is
    /// in the session table (a handshake-era session) or serves one POST (stateless mode; a
    /// stateless JSON request holds an engine session only, counted until its handler ends). A
    /// per-request-era (2026-07-28) request answered with one JSON body makes none.
    pub live_sessions: usize,
    /// SSE streams open now, by kind.
    pub open_sse_streams: SseStreams,
}

/// SSE streams open on a server, by kind ([`HttpServerStats::open_sse_streams`]). A POST whose
/// answers were all ready when its head went out is sent whole and is no open stream here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseStreams {
    /// Standalone GET streams of Streamable HTTP sessions (resumed ones included).
    pub get: usize,
    /// POST response streams still waiting for their answers (resumed ones included).
    pub post: usize,
    /// `subscriptions/listen` streams (2026-07-28).
    pub listen: usize,
    /// Streams of the 2024-11-05 HTTP+SSE transport (`GET /sse`).
    pub legacy: usize,
}

/// The kind of an SSE stream ([`SseStreams`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamKind {
    Get = 0,
    Post = 1,
    Listen = 2,
    Legacy = 3,
}

/// Told when an HTTP session with an id ends: how long it lived, and its negotiated revision.
pub(crate) type SessionEndHook = Box<dyn Fn(Duration, Option<ProtocolVersion>) + Send + Sync>;

/// The live counters behind [`HttpServerStats`].
pub(crate) struct Gauges {
    open: AtomicUsize,
    buffered: AtomicUsize,
    head_scanned: AtomicU64,
    sessions: AtomicUsize,
    streams: [AtomicUsize; 4],
    /// Set at most once (`HttpServerHandle`'s telemetry hook).
    session_end: OnceLock<SessionEndHook>,
    budget: usize,
}

impl std::fmt::Debug for Gauges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gauges")
            .field("stats", &self.snapshot())
            .field("session_end_hook", &self.session_end.get().is_some())
            .finish_non_exhaustive()
    }
}

impl Gauges {
    /// Counters for a server allowing `budget` buffered bytes in all.
    pub(crate) fn new(budget: usize) -> Gauges {
        Gauges {
            open: AtomicUsize::new(0),
            buffered: AtomicUsize::new(0),
            head_scanned: AtomicU64::new(0),
            sessions: AtomicUsize::new(0),
            streams: Default::default(),
            session_end: OnceLock::new(),
            budget,
        }
    }

    /// The current values.
    pub(super) fn snapshot(&self) -> HttpServerStats {
        HttpServerStats {
            open_connections: self.open.load(Ordering::Relaxed),
            buffered_bytes: self.buffered.load(Ordering::Relaxed),
            head_bytes_scanned: self.head_scanned.load(Ordering::Relaxed),
            live_sessions: self.sessions.load(Ordering::Relaxed),
            open_sse_streams: SseStreams {
                get: self.streams[StreamKind::Get as usize].load(Ordering::Relaxed),
                post: self.streams[StreamKind::Post as usize].load(Ordering::Relaxed),
                listen: self.streams[StreamKind::Listen as usize].load(Ordering::Relaxed),
                legacy: self.streams[StreamKind::Legacy as usize].load(Ordering::Relaxed),
            },
        }
    }

    /// Installs the hook told when a session ends; false if one was installed before.
    #[cfg(feature = "otel")]
    pub(crate) fn on_session_end(&self, hook: SessionEndHook) -> bool {
        self.session_end.set(hook).is_ok()
    }

    /// An SSE stream of `kind` opened; the guard counts it closed when dropped.
    pub(super) fn stream(self: &Arc<Self>, kind: StreamKind) -> OpenStream {
        self.streams[kind as usize].fetch_add(1, Ordering::Relaxed);
        OpenStream(self.clone(), kind)
    }

    /// A connection opened; the guard counts it closed when dropped.
    pub(super) fn connection(self: &std::sync::Arc<Self>) -> OpenConnection {
        self.open.fetch_add(1, Ordering::Relaxed);
        OpenConnection(self.clone())
    }

    /// An HTTP session was made; the guard counts it gone when dropped.
    pub(super) fn session(self: &std::sync::Arc<Self>) -> LiveSession {
        self.sessions.fetch_add(1, Ordering::Relaxed);
        // The clock is read only for a hook that will be told the session's duration.
        let started = self.session_end.get().map(|_| Instant::now());
        LiveSession(self.clone(), started)
    }

    /// Counts `n` more bytes examined for the end of a head.
    pub(super) fn scanned(&self, n: u64) {
        if n > 0 {
            self.head_scanned.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Moves a connection's charge from `from` to `to` bytes; false (and nothing charged) when
    /// growing would go past the budget.
    /// An unchanged charge touches nothing: the counter is shared by every connection, and most
    /// reads leave a connection's buffers as they were.
    pub(super) fn recharge(&self, from: usize, to: usize) -> bool {
        if to == from {
            return true;
        }
        if to < from {
            self.buffered.fetch_sub(from - to, Ordering::Relaxed);
            return true;
        }
        let more = to - from;
        let before = self.buffered.fetch_add(more, Ordering::Relaxed);
        if before.saturating_add(more) > self.budget {
            self.buffered.fetch_sub(more, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// One open connection, counted until dropped.
#[derive(Debug)]
pub(super) struct OpenConnection(std::sync::Arc<Gauges>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One HTTP session alive, counted until dropped; when it was made, if a hook is to be told
/// its duration.
#[derive(Debug)]
pub(super) struct LiveSession(std::sync::Arc<Gauges>, Option<Instant>);

impl LiveSession {
    /// The session (one with an id) ends under revision `version`: the hook, if any, is told
    /// how long it lived. Once.
    pub(super) fn ended(&mut self, version: Option<ProtocolVersion>) {
        if let (Some(started), Some(hook)) = (self.1.take(), self.0.session_end.get()) {
            hook(started.elapsed(), version);
        }
    }
}

/// One SSE stream open, counted until dropped.
#[derive(Debug)]
pub(crate) struct OpenStream(Arc<Gauges>, StreamKind);

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.streams[self.1 as usize].fetch_sub(1, Ordering::Relaxed);
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        self.0.sessions.fetch_sub(1, Ordering::Relaxed);
    }
}
