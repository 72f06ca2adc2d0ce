//! Per-request-era sessions kept from one JSON-answered `tools/call` to the next with the same
//! `_meta` ([`super::per_request_post`]).
//!
//! The per-request era (2026-07-28) has no sessions on the wire: every request names its
//! client's revision, capabilities and identity in `_meta`, and the engine serves it on a bare
//! engine session opened for it alone. A client sends the same `_meta` with every call, which
//! the `_meta` table hands out as the same shared objects ([`crate::session::SharedMeta`]), so
//! the session the next call would open is the one the last call just finished with: negotiated
//! with the same values, holding nothing. Opening, closing and freeing a session per call was a
//! good part of a call's cost (about 1.3k of the ~26k instructions of the HTTP echo call), so
//! such a session is kept here for the next call instead of closed.
//!
//! A session is kept only when nothing can tell it from a new one: the call answered with a
//! tool result (no task made, no input requested), nothing else holds it (its only handle is the
//! POST's: no context, peer or task kept a clone), and it holds nothing of the call
//! ([`Session::holds_nothing`]). It is taken again only for a request whose `_meta` holds the
//! very objects it was negotiated with ([`Session::negotiated_as`]), while the server's
//! capabilities have not changed since it was opened (their generation, read without a lock:
//! [`crate::server::Server::capabilities_generation`]). While a call runs, its session is the POST's alone, so a client
//! that disconnects still closes it and cancels the handler. Kept sessions are closed with the
//! endpoint.
//!
//! There are a few slots, one per runtime worker in the usual case (threads are given slots in
//! turn), each on its own cache line and taken with `try_lock`: a worker never waits for
//! another, and the sessions it keeps are written by the core that serves them.

use crate::session::{RequestMeta, Session};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How many sessions are kept (at most one per slot).
const SLOTS: usize = 8;

/// One kept session with the generation of the server's capabilities it was opened under
/// ([`crate::server::Server::capabilities_generation`]), on a cache line of its own.
#[repr(align(128))]
#[derive(Default)]
struct Slot(Mutex<Option<(Arc<Session>, u64)>>);

/// The per-request-era sessions an endpoint keeps for the next call (see the module docs).
#[derive(Default)]
pub(super) struct SessionPool {
    slots: [Slot; SLOTS],
}

/// The next thread index to hand out.
static NEXT_THREAD: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's slot (`usize::MAX` until it first uses a pool).
    static THREAD: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl SessionPool {
    /// The slot of the calling thread (a POST takes and gives back through the slot of the
    /// thread it started on; another is as good, if it moved).
    pub(super) fn slot_here(&self) -> usize {
        THREAD.with(|t| {
            if t.get() == usize::MAX {
                t.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed) % SLOTS);
            }
            t.get()
        })
    }

    /// A kept session of `slot` negotiated for `meta` under the capabilities of `generation`
    /// (the server's current one), if there is one (it leaves the pool).
    pub(super) fn take(
        &self,
        slot: usize,
        meta: &RequestMeta,
        generation: u64,
    ) -> Option<Arc<Session>> {
        let mut slot = self.slots[slot].0.try_lock().ok()?;
        let (session, kept_at) = slot.as_ref()?;
        if *kept_at == generation && session.negotiated_as(meta) {
            slot.take().map(|(s, _)| s)
        } else {
            None
        }
    }

    /// Keeps `session`, opened under the capabilities of `generation` and whose call answered
    /// with a tool result, in `slot` for the next call when nothing else holds it and it holds
    /// nothing of that call; otherwise (or when the slot is busy) closes it. A session the slot
    /// held before is closed.
    pub(super) fn give_back(&self, slot: usize, session: Arc<Session>, generation: u64) {
        let keep = Arc::strong_count(&session) == 1
            && Arc::weak_count(&session) == 0
            && session.holds_nothing();
        if !keep {
            session.close();
            return;
        }
        let Ok(mut slot) = self.slots[slot].0.try_lock() else {
            session.close();
            return;
        };
        if let Some((old, _)) = slot.replace((session, generation)) {
            drop(slot);
            old.close();
        }
    }

    /// Whether a kept session serves `version` (tests).
    #[cfg(test)]
    fn holds(&self, version: crate::protocol::ProtocolVersion) -> bool {
        self.slots.iter().any(|s| {
            s.0.lock()
                .unwrap()
                .as_ref()
                .is_some_and(|(s, _)| s.protocol_version() == Some(version))
        })
    }
}

impl Drop for SessionPool {
    /// Closes the kept sessions (none has anything to cancel: each ends as a session closed
    /// right after its call would have).
    fn drop(&mut self) {
        for slot in &self.slots {
            if let Some((s, _)) = slot.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
                s.close();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ProtocolVersion;
    use crate::server::Server;

    fn session(server: &Server) -> Arc<Session> {
        Session::with_shared_config(
            crate::session::Role::Server,
            Arc::new(server.clone()),
            server.session_config(),
            crate::session::Outbound::discard(),
            None,
        )
    }

    fn meta() -> RequestMeta {
        RequestMeta {
            version: ProtocolVersion::V2026_07_28,
            client_capabilities: Arc::new(serde_json::json!({})),
            client_info: Arc::new(serde_json::json!({"name": "t"})),
            log_level: None,
        }
    }

    #[test]
    fn a_session_comes_back_only_for_the_same_meta_and_capabilities() {
        let server = Server::builder("t", "1").build().unwrap();
        let pool = SessionPool::default();
        let (m, caps) = (meta(), Arc::new(serde_json::json!({})));
        let slot = pool.slot_here();
        let s = session(&server);
        s.begin_per_request(m.clone(), caps.clone());
        pool.give_back(slot, s.clone(), 0);
        // Another handle was held: closed, not kept.
        assert!(s.is_closed());
        assert!(!pool.holds(ProtocolVersion::V2026_07_28));
        let s = session(&server);
        s.begin_per_request(m.clone(), caps.clone());
        let first = Arc::as_ptr(&s);
        pool.give_back(slot, s, 0);
        assert!(pool.holds(ProtocolVersion::V2026_07_28));
        // Equal values in other objects: not the same negotiation.
        let other = RequestMeta {
            client_info: Arc::new((*m.client_info).clone()),
            ..m.clone()
        };
        assert!(pool.take(slot, &other, 0).is_none());
        // The capabilities changed since.
        assert!(pool.take(slot, &m, 1).is_none());
        let again = pool.take(slot, &m, 0).expect("kept for the same _meta");
        assert_eq!(Arc::as_ptr(&again), first);
        assert!(pool.take(slot, &m, 0).is_none(), "taken once");
        drop(again);
    }

    #[test]
    fn kept_sessions_close_with_the_pool() {
        let server = Server::builder("t", "1").build().unwrap();
        let pool = SessionPool::default();
        let s = session(&server);
        s.begin_per_request(meta(), Arc::new(serde_json::json!({})));
        let closed = s.closed.clone();
        pool.give_back(pool.slot_here(), s, 0);
        assert!(!closed.is_cancelled());
        drop(pool);
        assert!(closed.is_cancelled());
    }
}
