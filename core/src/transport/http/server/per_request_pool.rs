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
//! ([`Session::holds_nothing`]). It is taken again only for a request whose `_meta` and the
//! server's capabilities are the very objects it was negotiated with
//! ([`Session::negotiated_as`]). While a call runs, its session is the POST's alone, so a client
//! that disconnects still closes it and cancels the handler. Kept sessions are closed with the
//! endpoint.
//!
//! There are a few slots, one per runtime worker in the usual case (a thread uses the slot its
//! index names), each on its own cache line and taken with `try_lock`: a worker never waits for
//! another, and the sessions it keeps are written by the core that serves them.

use crate::session::{RequestMeta, Session};
use serde_json::Value;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How many sessions are kept (at most one per slot).
const SLOTS: usize = 8;

/// One kept session, on a cache line of its own.
#[repr(align(128))]
#[derive(Default)]
struct Slot(Mutex<Option<Arc<Session>>>);

/// The per-request-era sessions an endpoint keeps for the next call (see the module docs).
#[derive(Default)]
pub(super) struct SessionPool {
    slots: [Slot; SLOTS],
}

/// The next thread index to hand out.
static NEXT_THREAD: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's index (`usize::MAX` until it first uses a pool).
    static THREAD: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl SessionPool {
    /// This thread's slot.
    fn slot(&self) -> &Slot {
        let index = THREAD.with(|t| {
            if t.get() == usize::MAX {
                t.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
            }
            t.get()
        });
        &self.slots[index % SLOTS]
    }

    /// A kept session negotiated for `meta` under `own_capabilities`, if this thread's slot
    /// holds one (it leaves the pool).
    pub(super) fn take(
        &self,
        meta: &RequestMeta,
        own_capabilities: &Arc<Value>,
    ) -> Option<Arc<Session>> {
        let mut slot = self.slot().0.try_lock().ok()?;
        if slot.as_ref()?.negotiated_as(meta, own_capabilities) {
            slot.take()
        } else {
            None
        }
    }

    /// Keeps `session`, whose call answered with a tool result, for the next call when nothing
    /// else holds it and it holds nothing of that call; otherwise (or when this thread's slot is
    /// busy) closes it. A session the slot held before is closed.
    pub(super) fn give_back(&self, session: Arc<Session>) {
        let keep = Arc::strong_count(&session) == 1
            && Arc::weak_count(&session) == 0
            && session.holds_nothing();
        if !keep {
            session.close();
            return;
        }
        let Ok(mut slot) = self.slot().0.try_lock() else {
            session.close();
            return;
        };
        if let Some(old) = slot.replace(session) {
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
                .is_some_and(|s| s.protocol_version() == Some(version))
        })
    }
}

impl Drop for SessionPool {
    /// Closes the kept sessions (none has anything to cancel: each ends as a session closed
    /// right after its call would have).
    fn drop(&mut self) {
        for slot in &self.slots {
            if let Some(s) = slot.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
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
        let s = session(&server);
        s.begin_per_request(m.clone(), caps.clone());
        pool.give_back(s.clone());
        // Another handle was held: closed, not kept.
        assert!(s.is_closed());
        assert!(!pool.holds(ProtocolVersion::V2026_07_28));
        let s = session(&server);
        s.begin_per_request(m.clone(), caps.clone());
        let first = Arc::as_ptr(&s);
        pool.give_back(s);
        assert!(pool.holds(ProtocolVersion::V2026_07_28));
        // Equal values in other objects: not the same negotiation.
        let other = RequestMeta {
            client_info: Arc::new((*m.client_info).clone()),
            ..m.clone()
        };
        assert!(pool.take(&other, &caps).is_none());
        assert!(pool.take(&m, &Arc::new(serde_json::json!({}))).is_none());
        let again = pool.take(&m, &caps).expect("kept for the same _meta");
        assert_eq!(Arc::as_ptr(&again), first);
        assert!(pool.take(&m, &caps).is_none(), "taken once");
        drop(again);
    }

    #[test]
    fn kept_sessions_close_with_the_pool() {
        let server = Server::builder("t", "1").build().unwrap();
        let pool = SessionPool::default();
        let s = session(&server);
        s.begin_per_request(meta(), Arc::new(serde_json::json!({})));
        let closed = s.closed.clone();
        pool.give_back(s);
        assert!(!closed.is_cancelled());
        drop(pool);
        assert!(closed.is_cancelled());
    }
}
