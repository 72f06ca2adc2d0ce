//! Server-wide accounting shared by every connection of one [`super::serve_http`] server: open
//! connections, bytes held in read buffers and request bodies (against the memory budget,
//! [`super::HttpServerOptions::max_buffered_bytes`]), bytes examined while looking for the
//! end of request heads, and the HTTP sessions (with their routing tables) alive.
//! [`HttpServerStats`] is the snapshot users see.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

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
}

/// The live counters behind [`HttpServerStats`].
#[derive(Debug)]
pub(crate) struct Gauges {
    open: AtomicUsize,
    buffered: AtomicUsize,
    head_scanned: AtomicU64,
    sessions: AtomicUsize,
    budget: usize,
}

impl Gauges {
    /// Counters for a server allowing `budget` buffered bytes in all.
    pub(crate) fn new(budget: usize) -> Gauges {
        Gauges {
            open: AtomicUsize::new(0),
            buffered: AtomicUsize::new(0),
            head_scanned: AtomicU64::new(0),
            sessions: AtomicUsize::new(0),
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
        }
    }

    /// A connection opened; the guard counts it closed when dropped.
    pub(super) fn connection(self: &std::sync::Arc<Self>) -> OpenConnection {
        self.open.fetch_add(1, Ordering::Relaxed);
        OpenConnection(self.clone())
    }

    /// An HTTP session was made; the guard counts it gone when dropped.
    pub(super) fn session(self: &std::sync::Arc<Self>) -> LiveSession {
        self.sessions.fetch_add(1, Ordering::Relaxed);
        LiveSession(self.clone())
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

/// One HTTP session alive, counted until dropped.
#[derive(Debug)]
pub(super) struct LiveSession(std::sync::Arc<Gauges>);

impl Drop for LiveSession {
    fn drop(&mut self) {
        self.0.sessions.fetch_sub(1, Ordering::Relaxed);
    }
}
