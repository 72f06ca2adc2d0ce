//! The binding's tokio runtime, the "Python thread" that delivers results to asyncio, and the
//! bridge from Rust futures to asyncio futures.
//!
//! - One multi-threaded tokio runtime per process, created lazily and re-created after `fork()`
//!   (a forked child inherits the runtime's memory but none of its threads).
//! - Tokio workers never take the GIL. Everything that must touch Python objects from Rust-side
//!   events is posted as a job to one dedicated OS thread ([`post`]) which takes the GIL, runs
//!   every queued job in one go and hands results to the event loop with
//!   `loop.call_soon_threadsafe`.

use crate::convert::value_to_py;
use crate::error::to_py_err;
use ferromcp::McpError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use serde_json::Value;
use std::future::Future;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use tokio::runtime::Runtime;

type Job = Box<dyn FnOnce(Python<'_>) + Send>;

struct State {
    pid: u32,
    runtime: Arc<Runtime>,
    jobs: mpsc::Sender<Job>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<T>(f: impl FnOnce(&State) -> T) -> T {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if guard.as_ref().map(|s| s.pid) != Some(pid) {
        if let Some(old) = guard.take() {
            // Forked child: the old runtime's threads do not exist here; dropping it would try
            // to join them. Leak it instead.
            std::mem::forget(old);
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ferromcp-tokio")
            .enable_all()
            .build()
            .expect("tokio runtime");
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("ferromcp-python".into())
            .spawn(move || python_thread(rx))
            .expect("ferromcp python thread");
        *guard = Some(State {
            pid,
            runtime: Arc::new(runtime),
            jobs: tx,
        });
    }
    f(guard.as_ref().expect("state initialized"))
}

/// Set at interpreter exit (`atexit`): the Python thread stops taking the GIL, so it never
/// races the interpreter's finalization (a thread waiting for the GIL while Python finalizes is
/// killed with `pthread_exit`, which aborts a Rust thread). Jobs posted afterwards are leaked.
/// The flag is read under [`GATE`]'s lock, and `busy` tells whether the thread is inside
/// (or about to enter) `Python::with_gil`.
static GATE: Mutex<Gate> = Mutex::new(Gate {
    shutdown: false,
    busy: false,
});
static GATE_CV: Condvar = Condvar::new();

struct Gate {
    shutdown: bool,
    busy: bool,
}

/// Stops delivering results to Python and waits (GIL released, at most 2 s) until the Python
/// thread is outside the GIL. Registered with `atexit` by the module.
#[pyfunction]
pub fn _shutdown(py: Python<'_>) {
    py.allow_threads(|| {
        let mut g = GATE.lock().unwrap_or_else(|e| e.into_inner());
        g.shutdown = true;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while g.busy {
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
    g.busy = true;
    true
}

fn leave_gate() {
    GATE.lock().unwrap_or_else(|e| e.into_inner()).busy = false;
    GATE_CV.notify_all();
}

fn python_thread(rx: mpsc::Receiver<Job>) {
    while let Ok(job) = rx.recv() {
        if !enter_gate() {
            std::mem::forget(job);
            continue;
        }
        Python::with_gil(|py| {
            job(py);
            while let Ok(more) = rx.try_recv() {
                more(py);
            }
        });
        leave_gate();
    }
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

/// Schedules `callable(*args)` on the event loop `event_loop` from any thread holding the GIL.
pub fn call_soon(
    py: Python<'_>,
    event_loop: &Py<PyAny>,
    callable: Bound<'_, PyAny>,
    args: Vec<Py<PyAny>>,
) {
    let mut all = vec![callable.unbind()];
    all.extend(args);
    let tuple = match pyo3::types::PyTuple::new(py, all) {
        Ok(t) => t,
        Err(_) => return,
    };
    // A closed loop raises RuntimeError: nobody is waiting any more, so drop the result.
    let _ = event_loop
        .bind(py)
        .call_method1("call_soon_threadsafe", tuple);
}

/// Builds a Python object with the GIL held.
pub type MakeObj = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// What a bridged Rust future produces, converted to Python on the Python thread.
pub enum Out {
    /// JSON, converted to plain Python objects.
    Json(Value),
    /// `None`.
    None,
    /// Anything else, built with the GIL held.
    Obj(MakeObj),
}

/// Aborts the tokio task behind an asyncio future when that future is cancelled.
#[pyclass(frozen)]
struct AbortOnCancel {
    handle: tokio::task::AbortHandle,
}

#[pymethods]
impl AbortOnCancel {
    fn __call__(&self, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut.call_method0("cancelled")?.is_truthy()? {
            self.handle.abort();
        }
        Ok(())
    }
}

/// Runs `fut` on the tokio runtime and returns an asyncio future (of the running loop) that
/// completes with its output. Cancelling the asyncio future drops the Rust future (an
/// outgoing MCP request is then cancelled with `notifications/cancelled`).
pub fn future_into_py<'py, F>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = Result<Out, McpError>> + Send + 'static,
{
    let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
    let py_fut = event_loop.call_method0("create_future")?;
    let loop_ref = event_loop.unbind();
    let fut_ref = py_fut.clone().unbind();
    let handle = runtime().spawn(async move {
        let result = fut.await;
        post(move |py| resolve(py, &loop_ref, fut_ref, result));
    });
    py_fut.call_method1(
        "add_done_callback",
        (AbortOnCancel {
            handle: handle.abort_handle(),
        },),
    )?;
    Ok(py_fut)
}

fn resolve(
    py: Python<'_>,
    event_loop: &Py<PyAny>,
    py_fut: Py<PyAny>,
    result: Result<Out, McpError>,
) {
    let (value, exc): (Py<PyAny>, Py<PyAny>) = match result.and_then(|out| {
        match out {
            Out::Json(v) => value_to_py(py, &v),
            Out::None => Ok(py.None()),
            Out::Obj(f) => f(py),
        }
        .map_err(|e| McpError::internal(format!("converting a result to Python: {e}")))
    }) {
        Ok(v) => (v, py.None()),
        Err(e) => (py.None(), to_py_err(py, e).into_value(py).into_any()),
    };
    let Ok(bridge) = bridge(py) else { return };
    let Ok(set) = bridge.getattr("resolve") else {
        return;
    };
    call_soon(py, event_loop, set, vec![py_fut, value, exc]);
}
