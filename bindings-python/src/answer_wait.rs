//! Keeping the binding's threads awake for a hand-over that is about to arrive.
//!
//! A Python handler runs on another thread than the engine (a sync-handler worker or the
//! asyncio loop), so a call crosses threads twice. On this VM as booted (`guest_halt_poll_ns=0`)
//! the vCPU of a sleeping thread halts, and waking it costs tens of µs: that was most of a
//! sequential call's latency. Each side therefore waits a little (at most [`SPIN`], yielding the
//! CPU) before it sleeps, where the next event usually comes within that time:
//!
//! - the stdio session's thread, while Python calls are outstanding ([`wait_for_answer`], the
//!   runtime's `on_thread_park` hook), until one is answered or stdin has input; an answer
//!   completed meanwhile is picked up by a park that does not block;
//! - an HTTP request's handler future, in its first poll, when its call is the only one
//!   outstanding in the process ([`quick_answer`]): the worker that read the request writes
//!   the answer, without a remote wake-up of a parked worker (which on tokio's multi-threaded
//!   runtime also wakes the second worker for nothing); with more calls outstanding nothing
//!   waits there;
//! - one sync-handler worker, for the next job (`runtime::Pool::next`);
//! - the asyncio loop, for its inbox's next job when nothing else is ready on it
//!   (`inbox::InboxWait`, one loop iteration between two waits).
//!
//! The HTTP handler's wait and the asyncio loop's wait are used only while calls come one at a
//! time ([`calls_come_one_at_a_time`]): with concurrent clients (32 on 2 vCPUs) they were still
//! entered for 2-4 % of the calls (whenever one call happened to be the only one in flight), and
//! the spinning thread, yielding, kept a CPU from the threads that had work: 3-6x the context
//! switches per call of the 72d2088 wheel and a lower `async def` rate
//! (`bench/results/python-rows-quiet-machine.md`).
//!
//! Nothing else changes: handlers run where they ran, in the same order. `FERROMCP_ANSWER_WAIT=0`
//! turns all of it off. The counters are process-wide ([`Outstanding`] guards, created when a
//! call is handed to Python and dropped after its answer was sent or given up).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The switch (`FERROMCP_ANSWER_WAIT=0` turns every wait off) and the time limit are the
/// engine's, shared with its HTTP connections' wait for a sequential client's next request.
pub use ferromcp::transport::answer_wait::{enabled, SPIN};

/// Python calls handed over and not answered yet.
static OUTSTANDING: AtomicUsize = AtomicUsize::new(0);
/// Answers sent so far (any handler); a change means an answer may be waiting to be written.
static ANSWERED: AtomicUsize = AtomicUsize::new(0);
/// Python calls handed over so far.
static STARTS: AtomicUsize = AtomicUsize::new(0);
/// The number (in [`STARTS`]) of the last call handed over while another was outstanding; 0:
/// none yet.
static LAST_OVERLAP: AtomicUsize = AtomicUsize::new(0);

/// How many calls in a row must have come one at a time (none handed over while another was
/// outstanding) before the hand-over waits ([`quick_answer`], the asyncio inbox's wait) are
/// used again: with concurrent clients the next job comes without them, and a thread waiting
/// there only takes a CPU from the threads that have work (on 2 vCPUs the 32-client `async
/// def` rate fell from 71k to 62k calls/s, `bench/results/python-rows-quiet-machine.md`).
const QUIET_CALLS: usize = 64;

/// One Python call in flight. Dropping it counts the call as answered (after its answer was
/// sent, or when it was given up).
pub struct Outstanding(());

impl Outstanding {
    /// Counts a call being handed to Python.
    pub fn start() -> Self {
        let before = OUTSTANDING.fetch_add(1, Ordering::SeqCst);
        let n = STARTS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        if before > 0 {
            LAST_OVERLAP.store(n.max(1), Ordering::Relaxed);
        }
        Outstanding(())
    }
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        ANSWERED.fetch_add(1, Ordering::SeqCst);
        OUTSTANDING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether the last [`QUIET_CALLS`] calls came one at a time (each handed over with no other
/// outstanding), as a sequential client's do: only then do the hand-over waits pay.
pub fn calls_come_one_at_a_time() -> bool {
    let last = LAST_OVERLAP.load(Ordering::Relaxed);
    last == 0 || STARTS.load(Ordering::Relaxed).wrapping_sub(last) >= QUIET_CALLS
}

thread_local! {
    /// Whether this thread drives a stdio session (it waits in [`wait_for_answer`] instead).
    static STDIO_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the current thread as a stdio session's thread (see [`quick_answer`]).
pub fn mark_stdio_thread() {
    STDIO_THREAD.with(|t| t.set(true));
}

/// Called in a handler future's first poll, before `rx` was ever polled: when this is the only
/// outstanding Python call and the thread is not a stdio session's, waits (yielding the CPU) up
/// to [`SPIN`] for the answer and returns it. `None`: not waited, no answer yet or the sender
/// was dropped (then await `rx` as usual).
pub fn quick_answer<T>(
    rx: &mut tokio::sync::oneshot::Receiver<T>,
    cancel: &tokio_util::sync::CancellationToken,
) -> Option<T> {
    use tokio::sync::oneshot::error::TryRecvError;
    if !enabled()
        || OUTSTANDING.load(Ordering::SeqCst) != 1
        || STDIO_THREAD.with(|t| t.get())
        || !calls_come_one_at_a_time()
    {
        return None;
    }
    let start = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Closed) => {
                // `try_recv` gives no `RecvError`; awaiting the closed channel does, at once.
                return None;
            }
            Err(TryRecvError::Empty) => {}
        }
        if cancel.is_cancelled()
            || OUTSTANDING.load(Ordering::SeqCst) != 1
            || start.elapsed() >= SPIN
        {
            return None;
        }
        std::thread::yield_now();
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
/// the CPU) until one of them is answered, stdin has input, or [`SPIN`] has passed.
pub fn wait_for_answer() {
    if !enabled() {
        return;
    }
    if OUTSTANDING.load(Ordering::SeqCst) == 0 {
        return;
    }
    let seen = ANSWERED.load(Ordering::SeqCst);
    let start = Instant::now();
    let mut round = 0u32;
    loop {
        if ANSWERED.load(Ordering::SeqCst) != seen || OUTSTANDING.load(Ordering::SeqCst) == 0 {
            return;
        }
        round = round.wrapping_add(1);
        // stdin is checked every few rounds (a system call), the clock every round.
        if round % 8 == 0 && readable(0) {
            return;
        }
        if start.elapsed() >= SPIN {
            return;
        }
        std::thread::yield_now();
    }
}
