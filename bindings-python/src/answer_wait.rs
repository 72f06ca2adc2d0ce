//! The Python binding's hand-over waits, under the engine's one wait policy and gate
//! (`ferromcp::wait`).
//!
//! A Python handler runs on another thread than the engine (a sync-handler worker or the
//! asyncio loop), so a call crosses threads twice. On a VM whose idle vCPUs halt at once
//! (`guest_halt_poll_ns=0`) waking a parked thread costs tens of µs: that was most of a
//! sequential call's latency. Where the next event usually comes within the policy's budget,
//! the binding's threads try again (yielding the CPU) before they sleep:
//!
//! - an HTTP request's handler future, in its first poll: the engine's `wait::handover`, which
//!   every binding's foreign calls go through (the worker that read the request writes the
//!   answer, without a remote wake-up of a parked worker);
//! - the stdio session's thread, while Python calls are outstanding ([`wait_for_answer`], its
//!   runtime's `on_thread_park` hook), until one is answered or stdin has input (that thread's
//!   own policy is `park`, so the hand-over's wait leaves it to this hook);
//! - one sync-handler worker, for the next job (`gil_threads::Pool::next`);
//! - the asyncio loop, for its inbox's next job when nothing else is ready on it
//!   (`inbox::InboxWait`, one loop iteration between two waits).
//!
//! The sync-handler worker asks the engine runtime's policy alone (`FERROMCP_WAIT_POLICY`): one
//! spinning worker takes the next job without a wake-up however many calls are in flight, and
//! without it every job of a pipelined or concurrent load woke a sleeping worker. The others ask
//! the engine's gate ([`gate`]: that policy and whether foreign calls come one at a time,
//! `ferromcp::wait::CALLS`): with concurrent
//! clients (32 on 2 vCPUs) a wait entered whenever one call happened to be alone kept a CPU
//! from the threads that had work (3-6x the context switches per call and a lower `async def`
//! rate, `bench/results/python-rows-quiet-machine.md`). Nothing else changes: handlers run
//! where they ran, in the same order. `FERROMCP_WAIT_POLICY=park` turns all of it off.

use ferromcp::wait::CALLS;
use ferromcp_embed::runtime::engine_wait_policy;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Python calls handed over and not answered yet.
static OUTSTANDING: AtomicUsize = AtomicUsize::new(0);
/// Answers sent so far (any handler); a change means an answer may be waiting to be written.
static ANSWERED: AtomicUsize = AtomicUsize::new(0);

/// How long one of the binding's threads may wait for its next hand-over now: the engine's
/// gate for foreign calls under the engine's policy; `None`: sleep at once.
pub fn gate() -> Option<Duration> {
    CALLS.gate(engine_wait_policy())
}

/// One Python call in flight, for the stdio thread's [`wait_for_answer`]. Dropping it counts the
/// call as answered (after its answer was sent, or when it was given up).
pub struct Outstanding(());

impl Outstanding {
    /// Counts a call being handed to Python.
    pub fn start() -> Self {
        OUTSTANDING.fetch_add(1, Ordering::SeqCst);
        Outstanding(())
    }
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        ANSWERED.fetch_add(1, Ordering::SeqCst);
        OUTSTANDING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether `fd` has input (or hung up) right now, without blocking.
fn readable(fd: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout.
    unsafe { libc::poll(&mut p, 1, 0) > 0 }
}

/// The stdio runtime's `on_thread_park` hook: while Python calls are outstanding, wait (yielding
/// the CPU) until one of them is answered, stdin has input, or the engine policy's budget has
/// passed.
pub fn wait_for_answer() {
    let Some(budget) = engine_wait_policy().budget() else {
        return;
    };
    if OUTSTANDING.load(Ordering::SeqCst) == 0 {
        return;
    }
    let seen = ANSWERED.load(Ordering::SeqCst);
    let mut round = 0u32;
    ferromcp::wait::spin(budget, || {
        if ANSWERED.load(Ordering::SeqCst) != seen || OUTSTANDING.load(Ordering::SeqCst) == 0 {
            return Err(());
        }
        round = round.wrapping_add(1);
        // stdin is checked every few rounds (a system call), the clock every round.
        if round % 8 == 0 && readable(0) {
            return Err(());
        }
        Ok(None::<()>)
    });
}
