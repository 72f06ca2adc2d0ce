//! The process's tokio runtime and the binding's threads that take the GIL: the sync-handler
//! pool ([`post_sync`]) and the one "Python thread" ([`post`]) that serves loops without an
//! inbox. Below both `crate::inbox` (which falls back to [`post`]) and `crate::runtime` (the
//! bridge from Rust futures to asyncio futures, which uses the inbox), so neither imports the
//! other's caller.
//!
//! - One multi-threaded tokio runtime per process, the engine's runtime for Python
//!   (`ferromcp_embed::runtime`, the builder every binding uses: two workers by default,
//!   `FERROMCP_WORKERS`, old name `FERROMCP_TOKIO_WORKERS`; its threads wait by
//!   `FERROMCP_WAIT_POLICY`), created lazily and re-created after `fork()` (a forked child
//!   inherits the runtime's memory but none of its threads). [`settings`] reads the
//!   environment once; the module's import fails on a value it cannot use.
//! - Tokio workers never take the GIL. Work for Python is queued and pulled: sync handlers by a
//!   pool of worker threads ([`post_sync`]); work for an asyncio loop by the loop itself through
//!   its inbox (`crate::inbox`); when a loop has no inbox (`FERROMCP_ASYNC_DISPATCH=callback`,
//!   or no loop bound), by one dedicated OS thread ([`post`]) which takes the GIL, runs every
//!   queued job in one go and hands calls to the loop with `loop.call_soon_threadsafe`
//!   (queued by `crate::runtime::call_soon` in [`queue_call`], sent by [`flush_calls`]).

use ferromcp_embed::runtime::{engine_wait_policy, Binding, RuntimeSettings, RuntimeSettingsError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use tokio::runtime::Runtime;

/// A piece of work that needs the GIL.
pub type Job = Box<dyn FnOnce(Python<'_>) + Send>;

struct State {
    runtime: Arc<Runtime>,
    jobs: mpsc::Sender<Job>,
    pool: Arc<Pool>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Set in a forked child (a `pthread_atfork` child handler, registered when the first state is
/// made): the state then belongs to the parent. A flag instead of comparing `getpid()` with the
/// state's process id saves a system call on every handler call (glibc does not cache the pid).
static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn forked_child() {
    FORKED.store(true, Ordering::Relaxed);
}

fn with_state<T>(f: impl FnOnce(&State) -> T) -> T {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    // Only the child's first caller sees the flag (it is read and cleared under the lock).
    let forked = FORKED.load(Ordering::Relaxed) && FORKED.swap(false, Ordering::Relaxed);
    if guard.is_none() || forked {
        static AT_FORK: std::sync::Once = std::sync::Once::new();
        // SAFETY: registers a handler that only stores to an atomic (async-signal-safe).
        AT_FORK.call_once(|| unsafe {
            libc::pthread_atfork(None, None, Some(forked_child));
        });
        if let Some(old) = guard.take() {
            // Forked child: the old runtime's threads do not exist here; dropping it would try
            // to join them. Leak it instead.
            std::mem::forget(old);
        }
        let runtime = settings().build(Binding::Python).expect("tokio runtime");
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("ferromcp-python".into())
            .spawn(move || python_thread(rx))
            .expect("ferromcp python thread");
        *guard = Some(State {
            runtime,
            jobs: tx,
            pool: Arc::new(Pool::default()),
        });
    }
    f(guard.as_ref().expect("state initialized"))
}

/// The engine's runtime settings for Python from the environment (read once; see
/// `ferromcp_embed::runtime`). The module's import calls [`check_settings`] first, so a value
/// the engine cannot use never gets here.
pub fn settings() -> RuntimeSettings {
    *SETTINGS
        .get_or_init(|| RuntimeSettings::from_env(Binding::Python))
        .as_ref()
        .unwrap_or_else(|e| panic!("ferromcp: {e}"))
}

static SETTINGS: std::sync::OnceLock<Result<RuntimeSettings, RuntimeSettingsError>> =
    std::sync::OnceLock::new();

/// Fails with the variable, its value and what it accepts when the environment sets the
/// engine's runtime in a way it cannot use (called when the module is imported).
pub fn check_settings() -> PyResult<()> {
    match SETTINGS.get_or_init(|| RuntimeSettings::from_env(Binding::Python)) {
        Ok(_) => Ok(()),
        Err(e) => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "ferromcp: {e}"
        ))),
    }
}

/// Set at interpreter exit (`atexit`): the Python thread stops taking the GIL, so it never
/// races the interpreter's finalization (a thread waiting for the GIL while Python finalizes is
/// killed with `pthread_exit`, which aborts a Rust thread). Jobs posted afterwards are leaked.
/// The flag is read under [`GATE`]'s lock, and `busy` counts the binding's threads that are
/// inside (or about to enter) the GIL (the Python thread and the sync-handler workers).
static GATE: Mutex<Gate> = Mutex::new(Gate {
    shutdown: false,
    busy: 0,
});
static GATE_CV: Condvar = Condvar::new();

struct Gate {
    shutdown: bool,
    /// Threads inside (or about to enter) the GIL.
    busy: usize,
}

/// Stops delivering results to Python and waits (GIL released, at most 2 s) until the Python
/// thread is outside the GIL. Registered with `atexit` by the module.
#[pyfunction]
pub fn _shutdown(py: Python<'_>) {
    py.allow_threads(|| {
        let mut g = GATE.lock().unwrap_or_else(|e| e.into_inner());
        g.shutdown = true;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while g.busy > 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            g = GATE_CV
                .wait_timeout(g, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    });
}

fn enter_gate() -> bool {
    let mut g = GATE.lock().unwrap_or_else(|e| e.into_inner());
    if g.shutdown {
        return false;
    }
    g.busy += 1;
    true
}

fn leave_gate() {
    let mut g = GATE.lock().unwrap_or_else(|e| e.into_inner());
    g.busy = g.busy.saturating_sub(1);
    drop(g);
    GATE_CV.notify_all();
}

/// The loop of a thread that runs jobs with the GIL. `next` blocks (GIL released) until a job
/// arrives (`None`: stop); `more` returns further queued jobs without blocking. The thread keeps
/// one Python thread state for its whole life (the GIL is released with `allow_threads` while
/// waiting instead of dropping the thread state after every batch).
fn gil_thread(next: impl Fn() -> Option<Job> + Sync, more: impl Fn() -> Option<Job>) {
    BATCHING.with(|b| b.set(true));
    let first = match next() {
        Some(job) => job,
        None => return,
    };
    if !enter_gate() {
        std::mem::forget(first);
        park_forever();
    }
    Python::with_gil(|py| {
        let mut job = first;
        loop {
            job(py);
            let mut ran = 1;
            while let Some(m) = more() {
                m(py);
                ran += 1;
            }
            LAST_BATCH.with(|b| b.set(ran));
            flush_calls(py);
            let got = py.allow_threads(|| {
                leave_gate();
                let j = next()?;
                if !enter_gate() {
                    // Interpreter exit: never take the GIL again.
                    std::mem::forget(j);
                    park_forever();
                }
                Some(j)
            });
            match got {
                Some(j) => job = j,
                // No more jobs; the gate was already left inside allow_threads.
                None => break,
            }
        }
    });
}

fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

fn python_thread(rx: mpsc::Receiver<Job>) {
    // A Mutex only to make the receiver `Sync` for `allow_threads` (never contended).
    let rx = Mutex::new(rx);
    let lock = || rx.lock().unwrap_or_else(|e| e.into_inner());
    gil_thread(|| lock().recv().ok(), || lock().try_recv().ok());
}

/// Threads running sync (`def`) handlers directly with the GIL, off the event loop (the
/// equivalent of `asyncio.to_thread` without the asyncio round trip). Grows on demand up to
/// [`POOL_MAX`] threads (a handler blocked in I/O releases the GIL, so others can run); idle
/// threads stay.
#[derive(Default)]
struct Pool {
    state: Mutex<PoolState>,
    cv: Condvar,
    /// The queue's length, readable without the lock (by a spinning thread).
    queued: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct PoolState {
    queue: std::collections::VecDeque<Job>,
    idle: usize,
    /// Threads waiting for a job without sleeping (see [`Pool::next`]); each takes one job.
    spinning: usize,
    threads: usize,
}

const POOL_MAX: usize = 32;

impl Pool {
    fn submit(self: &Arc<Self>, job: Job) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.queue.push_back(job);
        self.queued
            .store(s.queue.len(), std::sync::atomic::Ordering::SeqCst);
        if s.queue.len() <= s.spinning {
            // A thread waiting without sleeping takes it: no wake-up, no new thread.
            return;
        }
        if s.idle == 0 && s.threads < POOL_MAX {
            s.threads += 1;
            drop(s);
            let pool = self.clone();
            let spawned = std::thread::Builder::new()
                .name("ferromcp-sync".into())
                .spawn(move || pool.work());
            if spawned.is_err() {
                self.state.lock().unwrap_or_else(|e| e.into_inner()).threads -= 1;
            }
        } else {
            drop(s);
            self.cv.notify_one();
        }
    }

    fn pop(&self, s: &mut PoolState) -> Option<Job> {
        let j = s.queue.pop_front();
        self.queued
            .store(s.queue.len(), std::sync::atomic::Ordering::SeqCst);
        j
    }

    fn next(&self) -> Option<Job> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(j) = self.pop(&mut s) {
                return Some(j);
            }
            let budget = engine_wait_policy().budget();
            if let (Some(budget), 0, 1) = (budget, s.spinning, LAST_BATCH.with(|b| b.get())) {
                // One thread waits for the next job without sleeping for a while (the engine's
                // policy for its own threads spins): the next call usually comes within that
                // time, and is then taken without waking a halted vCPU (see
                // `crate::answer_wait`). Only after a batch of one job: after larger batches
                // the jobs come faster than they are taken, and waiting cost several clients'
                // rates a few %. Not behind the one-at-a-time gate of the other hand-over
                // waits: with calls in flight each job's submit then woke a sleeping worker
                // (a futex wake and a GIL hand-off per call), and the sync (`def`) rows lost
                // a third to two thirds (stdio pipelined 82k against async def's 124k calls/s,
                // 32 HTTP clients 0.61-0.66x; bench/results/python-sync-pool-wait.md).
                s.spinning += 1;
                drop(s);
                ferromcp::wait::spin(budget, || {
                    Ok((self.queued.load(std::sync::atomic::Ordering::SeqCst) != 0).then_some(()))
                });
                s = self.state.lock().unwrap_or_else(|e| e.into_inner());
                s.spinning -= 1;
                if let Some(j) = self.pop(&mut s) {
                    return Some(j);
                }
            }
            s.idle += 1;
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
            s.idle -= 1;
        }
    }

    fn try_next(&self) -> Option<Job> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.pop(&mut s)
    }

    fn work(&self) {
        gil_thread(|| self.next(), || self.try_next());
    }
}

/// Runs `job` with the GIL on a sync-handler worker thread (never on a tokio worker or the event
/// loop).
pub fn post_sync(job: impl FnOnce(Python<'_>) + Send + 'static) {
    let pool = with_state(|s| s.pool.clone());
    pool.submit(Box::new(job));
}

/// The process's tokio runtime.
pub fn runtime() -> Arc<Runtime> {
    with_state(|s| s.runtime.clone())
}

/// Runs `job` with the GIL on the binding's Python thread (never on a tokio worker).
pub fn post(job: impl FnOnce(Python<'_>) + Send + 'static) {
    let tx = with_state(|s| s.jobs.clone());
    let _ = tx.send(Box::new(job));
}

static BRIDGE: GILOnceCell<Py<PyModule>> = GILOnceCell::new();

/// The `ferromcp._bridge` module (Python helpers the native layer calls).
pub fn bridge(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    BRIDGE
        .get_or_try_init(py, || Ok(py.import("ferromcp._bridge")?.unbind()))
        .map(|m| m.bind(py))
}

thread_local! {
    /// How many jobs this GIL thread ran in its last batch (see [`Pool::next`]).
    static LAST_BATCH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Calls queued by `crate::runtime::call_soon` on a binding thread, flushed after each batch of jobs.
    static PENDING: std::cell::RefCell<Vec<(Py<PyAny>, Py<PyAny>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// Whether this thread is one of the binding's job threads (which flush [`PENDING`]).
    static BATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Sends the calls queued by [`queue_call`] to their loops: one `call_soon_threadsafe(run_batch,
/// calls)` per loop.
pub fn flush_calls(py: Python<'_>) {
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    if pending.is_empty() {
        return;
    }
    let Ok(run) = bridge(py).and_then(|b| b.getattr("run_batch")) else {
        return;
    };
    let mut groups: Vec<(Py<PyAny>, Vec<Py<PyAny>>)> = Vec::new();
    for (lp, call) in pending {
        match groups.iter_mut().find(|(l, _)| l.is(&lp)) {
            Some((_, calls)) => calls.push(call),
            None => groups.push((lp, vec![call])),
        }
    }
    for (lp, calls) in groups {
        let Ok(list) = pyo3::types::PyList::new(py, calls) else {
            continue;
        };
        // A closed loop raises RuntimeError: nobody is waiting any more, so drop the calls.
        let _ = lp
            .bind(py)
            .call_method1("call_soon_threadsafe", (run.clone(), list));
    }
}

/// Whether this thread is one of the binding's job threads, whose calls to a loop are queued
/// ([`queue_call`]) and sent after the batch by [`flush_calls`].
pub fn batching() -> bool {
    BATCHING.with(|b| b.get())
}

/// Queues `call` (a tuple `(callable, *args)`) for `event_loop`, sent with the rest of this
/// thread's batch by [`flush_calls`]. Only on a thread where [`batching`] is true.
pub fn queue_call(event_loop: Py<PyAny>, call: Py<PyAny>) {
    PENDING.with(|p| p.borrow_mut().push((event_loop, call)));
}
