//! The connections [`super::serve_http`] holds, for sharing its connection budget fairly: which
//! ones are idle (waiting for, or still receiving, a request head) and which have shown a
//! session, so that when room is needed the listener closes an idle connection without a
//! session first (see [`crate::transport::http::HttpServerOptions::connections_kept_for_sessions`]).
//!
//! A request costs two atomic stores on its own connection's state (idle, busy) and no lock;
//! the board's lock is taken when a connection opens or closes, and a victim is found by a scan
//! of the open connections, which happens only when the budget is spent (at most
//! `max_connections` entries, a few microseconds).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Microseconds since a process-wide start, plus one (so that 0 can mean "busy").
fn stamp() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_micros() as u64 + 1
}

/// One open connection's state, shared by its task and the board.
pub(crate) struct ConnState {
    /// When the connection last became idle ([`stamp`]); 0 while a request is in progress.
    idle_since: AtomicU64,
    /// One of its requests named a live session or opened one.
    proven: AtomicBool,
    /// Cancelled to close the connection (it closes at once if idle, else once idle again).
    evict: CancellationToken,
}

impl crate::transport::http::h1::Watch for ConnState {
    fn idle(&self) {
        self.idle_since.store(stamp(), Ordering::Relaxed);
    }

    fn busy(&self) {
        self.idle_since.store(0, Ordering::Relaxed);
    }
}

impl ConnState {
    /// Whether the connection waits for (or is receiving) a request head.
    pub(crate) fn is_idle(&self) -> bool {
        self.idle_since.load(Ordering::Relaxed) != 0
    }

    /// The token that closes this connection.
    pub(crate) fn evict_token(&self) -> CancellationToken {
        self.evict.clone()
    }
}

/// The open connections of one listener.
pub(crate) struct Board {
    open: Mutex<HashMap<u64, Arc<ConnState>>>,
    next: AtomicU64,
    /// Open connections not (yet) shown to carry a session.
    unproven: AtomicUsize,
    /// Most connections without a session kept while newer ones arrive.
    max_unproven: usize,
    /// Connections closed to make room, and when that was last logged ([`stamp`]).
    evicted: AtomicU64,
    warned: AtomicU64,
}

/// Least time between two warnings that connections are being closed to make room.
const WARN_EVERY_MICROS: u64 = 10_000_000;

/// A connection's place on the board; leaves it when dropped.
pub(crate) struct Registered {
    id: u64,
    pub(crate) state: Arc<ConnState>,
    board: Arc<Board>,
}

impl Board {
    /// A board for `max_connections`, `kept_for_sessions` of which connections without a
    /// session do not keep.
    pub(crate) fn new(max_connections: usize, kept_for_sessions: usize) -> Arc<Self> {
        let max = max_connections.max(1);
        Arc::new(Self {
            open: Mutex::default(),
            next: AtomicU64::new(0),
            unproven: AtomicUsize::new(0),
            max_unproven: max - kept_for_sessions.min(max - 1),
            evicted: AtomicU64::new(0),
            warned: AtomicU64::new(0),
        })
    }

    /// Connections on the board now.
    pub(crate) fn open_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<ConnState>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a new connection on the board (idle: it waits for its first head). When the
    /// connections without a session are then over their share, the longest idle of the
    /// others is closed.
    pub(crate) fn register(self: &Arc<Self>) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(ConnState {
            idle_since: AtomicU64::new(stamp()),
            proven: AtomicBool::new(false),
            evict: CancellationToken::new(),
        });
        self.lock().insert(id, state.clone());
        if self.unproven.fetch_add(1, Ordering::Relaxed) + 1 > self.max_unproven {
            self.evict(false, Some(id));
        }
        Registered {
            id,
            state,
            board: self.clone(),
        }
    }

    /// Closes the longest idle connection without a session, or when there is none and
    /// `or_with_session`, the longest idle one with a session (never `except`). False when
    /// no connection is idle.
    pub(crate) fn evict(&self, or_with_session: bool, except: Option<u64>) -> bool {
        let open = self.lock();
        for with_session in [false, true] {
            if with_session && !or_with_session {
                break;
            }
            loop {
                let victim = open
                    .iter()
                    .filter(|(id, c)| {
                        Some(**id) != except
                            && c.proven.load(Ordering::Relaxed) == with_session
                            && !c.evict.is_cancelled()
                    })
                    .filter_map(|(_, c)| {
                        let since = c.idle_since.load(Ordering::Relaxed);
                        (since != 0).then_some((since, c))
                    })
                    .min_by_key(|(since, _)| *since);
                let Some((since, c)) = victim else { break };
                // Still idle since then (not begun a request meanwhile): closed.
                if c.idle_since.load(Ordering::Relaxed) == since {
                    c.evict.cancel();
                    self.closed_one(with_session);
                    return true;
                }
            }
        }
        false
    }
}

impl Board {
    /// Counts a connection closed to make room, with a warning at most every 10 s (a flood
    /// closes thousands).
    fn closed_one(&self, with_session: bool) {
        let total = self.evicted.fetch_add(1, Ordering::Relaxed) + 1;
        let now = stamp();
        let last = self.warned.load(Ordering::Relaxed);
        if (last == 0 || now - last >= WARN_EVERY_MICROS)
            && self
                .warned
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(
                closed = total,
                with_session,
                unproven = self.unproven.load(Ordering::Relaxed),
                "connection budget spent: closing idle connections to make room"
            );
        } else {
            tracing::debug!(with_session, "connection budget: closed an idle connection");
        }
    }
}

impl Registered {
    /// One of this connection's requests named a live session or opened one.
    pub(crate) fn proven(&self) {
        if !self.state.proven.swap(true, Ordering::Relaxed) {
            self.board.unproven.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.board.lock().remove(&self.id);
        if !self.state.proven.load(Ordering::Relaxed) {
            self.board.unproven.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::http::h1::Watch;

    #[test]
    fn the_longest_idle_connection_without_a_session_is_closed_first() {
        let board = Board::new(4, 1);
        let a = board.register();
        let b = board.register();
        let c = board.register();
        // a has a session; b is busy; c is idle without one.
        a.proven();
        b.state.busy();
        assert!(board.evict(false, None));
        assert!(c.state.evict.is_cancelled());
        assert!(!a.state.evict.is_cancelled() && !b.state.evict.is_cancelled());
        // No idle connection without a session left: only with `or_with_session`.
        assert!(!board.evict(false, None));
        assert!(board.evict(true, None));
        assert!(a.state.evict.is_cancelled());
        assert!(
            !board.evict(true, None),
            "a busy connection is never closed"
        );
    }

    #[test]
    fn connections_without_a_session_keep_out_of_the_reserved_share() {
        // 3 connections, 1 kept for sessions: the third without a session closes the first.
        let board = Board::new(3, 1);
        let a = board.register();
        std::thread::sleep(std::time::Duration::from_millis(1));
        let b = board.register();
        assert!(!a.state.evict.is_cancelled());
        let c = board.register();
        assert!(
            a.state.evict.is_cancelled(),
            "the longest idle one is closed"
        );
        assert!(!b.state.evict.is_cancelled() && !c.state.evict.is_cancelled());
        drop(a);
        assert_eq!(board.unproven.load(Ordering::Relaxed), 2);
        b.proven();
        drop(b);
        assert_eq!(board.unproven.load(Ordering::Relaxed), 1);
        drop(c);
        assert!(board.lock().is_empty());
    }
}
