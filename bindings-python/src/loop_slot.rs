//! Which asyncio loop a server's (or client's) `async def` handlers run on.
//!
//! A server binds its loop when it starts serving. `Server.run()` over stdio starts the engine
//! before Python has even imported asyncio (so `initialize`, `ping` and the `*/list` requests,
//! which need no Python, are answered while the loop starts): the slot is then *deferred*, and
//! handler calls that arrive before the loop is bound wait for it instead of failing.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LockResult, Mutex, MutexGuard};
use tokio::sync::watch;

/// The loop handlers run on (shared by every handler of one server or client).
pub struct LoopSlot {
    event_loop: Mutex<Option<Py<PyAny>>>,
    bound: watch::Sender<bool>,
    deferred: AtomicBool,
    /// Slots that follow this one (servers mounted on or imported into this server, see
    /// `compose.rs`): bound and deferred with it, since their handlers are served by it.
    followers: Mutex<Vec<std::sync::Weak<LoopSlot>>>,
}

impl Default for LoopSlot {
    fn default() -> Self {
        LoopSlot {
            event_loop: Mutex::new(None),
            bound: watch::Sender::new(false),
            deferred: AtomicBool::new(false),
            followers: Mutex::new(Vec::new()),
        }
    }
}

impl LoopSlot {
    /// A slot already bound to `event_loop`.
    pub fn bound_to(event_loop: Py<PyAny>) -> Self {
        let slot = LoopSlot::default();
        slot.set(event_loop);
        slot
    }

    /// The bound loop (if any), locked.
    pub fn lock(&self) -> LockResult<MutexGuard<'_, Option<Py<PyAny>>>> {
        self.event_loop.lock()
    }

    /// Binds `event_loop` and releases the handler calls waiting for it.
    pub fn set(&self, event_loop: Py<PyAny>) {
        for f in self.live_followers() {
            let lp = Python::with_gil(|py| event_loop.clone_ref(py));
            f.set(lp);
        }
        *self.event_loop.lock().unwrap_or_else(|e| e.into_inner()) = Some(event_loop);
        self.bound.send_replace(true);
    }

    /// From now until a loop is bound, handler calls wait for one.
    pub fn defer(&self) {
        for f in self.live_followers() {
            f.defer();
        }
        self.deferred.store(true, Ordering::SeqCst);
    }

    /// Makes `follower` take this slot's loop, now (when bound) and whenever it is bound.
    pub fn lead(&self, follower: &std::sync::Arc<LoopSlot>) {
        self.followers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(std::sync::Arc::downgrade(follower));
        if self.deferred.load(Ordering::SeqCst) {
            follower.defer();
        }
        let bound = self.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(lp) = bound.as_ref() {
            let lp = Python::with_gil(|py| lp.clone_ref(py));
            follower.set(lp);
        }
    }

    fn live_followers(&self) -> Vec<std::sync::Arc<LoopSlot>> {
        let mut f = self.followers.lock().unwrap_or_else(|e| e.into_inner());
        f.retain(|w| w.strong_count() > 0);
        f.iter().filter_map(std::sync::Weak::upgrade).collect()
    }

    /// Whether a handler call has to wait (deferred and not bound yet).
    pub fn must_wait(&self) -> bool {
        self.deferred.load(Ordering::SeqCst) && !*self.bound.borrow()
    }

    /// Resolves once a loop is bound.
    pub async fn ready(&self) {
        let mut rx = self.bound.subscribe();
        let _ = rx.wait_for(|b| *b).await;
    }

    /// The identity (address) of the bound loop (see [`crate::inbox::post_for_loop`]).
    pub fn key(&self) -> Option<usize> {
        self.lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(crate::inbox::loop_key)
    }
}
