//! The asyncio loop's inbox: how work for an event loop reaches it (the "pull" dispatch).
//!
//! Each loop that serves handlers gets an [`Inbox`]: a queue of GIL jobs plus a socket pair whose
//! read end is registered with `loop.add_reader`. Tokio workers queue jobs and write one wake-up
//! byte when none is outstanding; the loop's reader callback runs the whole batch on the loop's
//! own thread, where loop callbacks are called directly (see `crate::runtime::call_soon`).
//! This saves the hand-off through the binding's Python thread that the callback dispatch
//! (`FERROMCP_ASYNC_DISPATCH=callback`) pays; the measurements are in the binding's README.

use crate::gil_threads::{post, Job};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

thread_local! {
    /// The loop (its address) whose inbox this thread is draining, or 0.
    static ON_LOOP: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A loop's identity for the inbox registry and [`draining_loop`]: its object's address (each
/// inbox holds its loop alive, so the address is not reused while it is registered).
pub fn loop_key(event_loop: &Py<PyAny>) -> usize {
    event_loop.as_ptr() as usize
}

/// The address of the loop whose inbox the current thread is draining (0 if none).
pub fn draining_loop() -> usize {
    ON_LOOP.with(|k| k.get())
}

/// How `async def` handlers are delivered to the asyncio loop (`FERROMCP_ASYNC_DISPATCH`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AsyncDispatch {
    /// The loop pulls queued calls itself: a tokio worker queues the call in the loop's
    /// [`Inbox`] and wakes the loop through a socket registered with `loop.add_reader`; the
    /// loop's reader callback takes the GIL-held batch and starts the handlers.
    Pull,
    /// The binding's Python thread takes the GIL, builds the call and schedules it on the loop
    /// with `call_soon_threadsafe` (one hand-off more than [`AsyncDispatch::Pull`]).
    Callback,
}

/// The dispatch chosen for this process: `FERROMCP_ASYNC_DISPATCH=callback` selects the
/// callback path; anything else (or unset) the pull path.
pub fn async_dispatch() -> AsyncDispatch {
    static MODE: std::sync::OnceLock<AsyncDispatch> = std::sync::OnceLock::new();
    *MODE.get_or_init(
        || match std::env::var("FERROMCP_ASYNC_DISPATCH").as_deref() {
            Ok("callback") => AsyncDispatch::Callback,
            _ => AsyncDispatch::Pull,
        },
    )
}

/// Calls queued for one asyncio loop, pulled by the loop when its wake-up socket is readable.
pub struct Inbox {
    jobs: Mutex<Vec<Job>>,
    /// Whether a wake-up byte is outstanding (the loop has not drained since).
    scheduled: std::sync::atomic::AtomicBool,
    wake: std::os::unix::net::UnixStream,
    read: std::os::unix::net::UnixStream,
    /// The loop (kept alive so its address identifies it in [`INBOXES`]).
    event_loop: Py<PyAny>,
}

impl Inbox {
    /// Queues `job` to run with the GIL on the loop's thread; wakes the loop if it is not
    /// already due to drain.
    pub fn push(&self, job: Job) {
        use std::io::Write;
        use std::sync::atomic::Ordering;
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(job);
        if !self.scheduled.swap(true, Ordering::SeqCst) {
            // Non-blocking: a full socket buffer already means a pending wake-up.
            let _ = (&self.wake).write(&[1]);
        }
    }

    /// Runs the queued jobs; returns how many there were.
    fn drain(&self, py: Python<'_>) -> usize {
        use std::io::Read;
        use std::sync::atomic::Ordering;
        let mut buf = [0u8; 64];
        while matches!((&self.read).read(&mut buf), Ok(n) if n > 0) {}
        // Cleared before taking the jobs: a push after the take wakes the loop again.
        self.scheduled.store(false, Ordering::SeqCst);
        let jobs = std::mem::take(&mut *self.jobs.lock().unwrap_or_else(|e| e.into_inner()));
        let key = loop_key(&self.event_loop);
        let outer = ON_LOOP.with(|k| k.replace(key));
        let n = jobs.len();
        for job in jobs {
            job(py);
        }
        ON_LOOP.with(|k| k.set(outer));
        n
    }
}

impl Inbox {
    /// Whether the loop has nothing else to run now (no other ready callback), so waiting a
    /// little for the next job delays nothing. A loop without asyncio's `_ready` queue (uvloop)
    /// never waits.
    fn loop_idle(&self, py: Python<'_>) -> bool {
        self.event_loop
            .bind(py)
            .getattr(pyo3::intern!(py, "_ready"))
            .and_then(|r| r.len())
            .map(|n| n == 0)
            .unwrap_or(false)
    }

    /// After a drain of `ran` jobs, when it was one job (calls come one at a time: with more,
    /// they come faster than the loop takes them and the wake-up byte is cheap), the recent calls
    /// came one at a time too (the engine's gate, [`crate::answer_wait::gate`]: a drain of one
    /// job also happens now and then under concurrent clients) and the loop is idle: schedules [`InboxWait`] with `call_soon`, so the loop polls its own I/O and timers
    /// (without blocking, as a callback is ready) before the wait starts. Waiting after larger
    /// drains cost about 4 % of the 32-client `async def` rate (busy machine,
    /// `bench/results/python-stdio-thread.md`).
    fn wait_after_drain(self: &Arc<Self>, py: Python<'_>, ran: usize) {
        if ran != 1 || crate::answer_wait::gate().is_none() || !self.loop_idle(py) {
            return;
        }
        if let Ok(cb) = Py::new(
            py,
            InboxWait {
                inbox: self.clone(),
            },
        ) {
            let _ = self
                .event_loop
                .bind(py)
                .call_method1(pyo3::intern!(py, "call_soon"), (cb,));
        }
    }

    /// Waits (GIL released, yielding the CPU) up to the gate's budget for a job, with
    /// the wake-up byte switched off meanwhile; returns whether one came.
    fn wait_for_job(&self, py: Python<'_>) -> bool {
        use std::sync::atomic::Ordering;
        if self.scheduled.swap(true, Ordering::SeqCst) {
            // A wake-up byte is already on its way: the reader runs next anyway.
            return false;
        }
        let has_jobs = || {
            !self
                .jobs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_empty()
        };
        let budget = crate::answer_wait::gate().unwrap_or_default();
        let got = py.allow_threads(|| {
            ferromcp::wait::spin(budget, || Ok(has_jobs().then_some(()))).is_some()
        });
        if got {
            return true;
        }
        // Pushers saw `scheduled` and wrote no byte: look again after clearing it.
        self.scheduled.store(false, Ordering::SeqCst);
        has_jobs()
    }
}

/// The loop's reader callback for an [`Inbox`].
#[pyclass(frozen)]
struct InboxReader {
    inbox: Arc<Inbox>,
}

#[pymethods]
impl InboxReader {
    fn __call__(&self, py: Python<'_>) {
        let ran = self.inbox.drain(py);
        self.inbox.wait_after_drain(py, ran);
    }
}

/// A loop callback that waits briefly for the inbox's next job when the loop is idle: a
/// sequential client's next call usually comes within the engine policy's budget, and is
/// then run without a wake-up of the loop's thread (on this VM as booted, waking a halted vCPU
/// costs tens of µs). Between two waits the loop runs one iteration of its own (the callback
/// is re-scheduled with `call_soon`), so its I/O and timers are never held up longer than one
/// wait.
#[pyclass(frozen)]
struct InboxWait {
    inbox: Arc<Inbox>,
}

#[pymethods]
impl InboxWait {
    fn __call__(&self, py: Python<'_>) {
        if !self.inbox.loop_idle(py) {
            return;
        }
        if self.inbox.wait_for_job(py) {
            let ran = self.inbox.drain(py);
            self.inbox.wait_after_drain(py, ran);
        }
    }
}

/// Runs `job` with the GIL for the loop identified by `loop_key` (its address): on that loop's
/// own thread through its [`Inbox`] when the pull dispatch is on (jobs there call loop callbacks
/// directly, see [`call_soon`]), else on the binding's Python thread.
pub fn post_for_loop(loop_key: Option<usize>, job: impl FnOnce(Python<'_>) + Send + 'static) {
    match loop_key.and_then(inbox_for) {
        Some(inbox) => inbox.push(Box::new(job)),
        None => post(job),
    }
}

/// Inboxes by loop (the loop object's address; each inbox holds its loop alive).
static INBOXES: Mutex<Vec<(usize, Arc<Inbox>)>> = Mutex::new(Vec::new());

/// Creates (once per loop) the inbox of `event_loop` and registers its reader. Must run on the
/// loop's thread (`add_reader` is not thread-safe). Inboxes of closed loops are dropped.
pub fn attach_inbox(py: Python<'_>, event_loop: &Bound<'_, PyAny>) -> PyResult<()> {
    if async_dispatch() != AsyncDispatch::Pull {
        return Ok(());
    }
    let key = loop_key(event_loop.as_unbound());
    let mut all = INBOXES.lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|(_, inbox)| {
        !inbox
            .event_loop
            .bind(py)
            .call_method0("is_closed")
            .and_then(|c| c.is_truthy())
            .unwrap_or(true)
    });
    if all.iter().any(|(k, _)| *k == key) {
        return Ok(());
    }
    let (wake, read) = std::os::unix::net::UnixStream::pair()
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    wake.set_nonblocking(true)
        .and_then(|_| read.set_nonblocking(true))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    use std::os::fd::AsRawFd;
    let fd = read.as_raw_fd();
    let inbox = Arc::new(Inbox {
        jobs: Mutex::new(Vec::new()),
        scheduled: std::sync::atomic::AtomicBool::new(false),
        wake,
        read,
        event_loop: event_loop.clone().unbind(),
    });
    event_loop.call_method1(
        "add_reader",
        (
            fd,
            Py::new(
                py,
                InboxReader {
                    inbox: inbox.clone(),
                },
            )?,
        ),
    )?;
    all.push((key, inbox));
    Ok(())
}

/// The inbox of the loop at address `key`, if the pull dispatch is on and one was attached.
pub fn inbox_for(key: usize) -> Option<Arc<Inbox>> {
    INBOXES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, i)| i.clone())
}
