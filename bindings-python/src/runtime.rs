//! The bridge from Rust futures to asyncio futures ([`future_into_py`]) and the scheduling of
//! calls on an event loop ([`call_soon`]): directly when already on that loop's thread (draining
//! its inbox, `crate::inbox`), batched on the binding's GIL threads, else with
//! `call_soon_threadsafe`. The runtime and the GIL threads themselves are in
//! `crate::gil_threads` (re-exported here under the names the rest of the binding uses).

use crate::convert::value_to_py;
use crate::error::to_py_err;
pub use crate::gil_threads::{
    _shutdown, bridge, check_settings, post, post_sync, runtime, settings,
};
use crate::gil_threads::{batching, queue_call};
use ferromcp::McpError;
use pyo3::prelude::*;
use serde_json::Value;
use std::future::Future;

/// Schedules `callable(*args)` on the event loop `event_loop` from any thread holding the GIL.
/// On the binding's own threads the calls are queued and flushed after the current batch of
/// jobs with one `call_soon_threadsafe` per loop (one wake-up of the loop per batch).
pub fn call_soon(
    py: Python<'_>,
    event_loop: &Py<PyAny>,
    callable: Bound<'_, PyAny>,
    args: Vec<Py<PyAny>>,
) {
    if crate::inbox::draining_loop() == crate::inbox::loop_key(event_loop) {
        // Already on that loop's thread (draining its inbox): call it now.
        if let Err(e) = pyo3::types::PyTuple::new(py, args).and_then(|a| callable.call1(a)) {
            report_callback_error(py, event_loop, e);
        }
        return;
    }
    let mut all = vec![callable.unbind()];
    all.extend(args);
    let tuple = match pyo3::types::PyTuple::new(py, all) {
        Ok(t) => t,
        Err(_) => return,
    };
    if batching() {
        queue_call(event_loop.clone_ref(py), tuple.into_any().unbind());
        return;
    }
    let Ok(run) = bridge(py).and_then(|b| b.getattr("run_batch")) else {
        return;
    };
    let Ok(list) = pyo3::types::PyList::new(py, [tuple]) else {
        return;
    };
    // A closed loop raises RuntimeError: nobody is waiting any more, so drop the result.
    let _ = event_loop
        .bind(py)
        .call_method1("call_soon_threadsafe", (run, list));
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
    let key = crate::inbox::loop_key(&loop_ref);
    let handle = runtime().spawn(async move {
        let result = fut.await;
        crate::inbox::post_for_loop(Some(key), move |py| resolve(py, &loop_ref, fut_ref, result));
    });
    py_fut.call_method1(
        "add_done_callback",
        (AbortOnCancel {
            handle: handle.abort_handle(),
        },),
    )?;
    Ok(py_fut)
}

/// A future that only waits for another thread's answer (a channel's receiver), bridged to an
/// asyncio future of the running loop without a tokio task: it is polled on the loop's thread,
/// first right here, and again when its waker is woken, which queues the next poll in the
/// loop's inbox (`crate::inbox::post_for_loop`). So the thread that sends the answer wakes
/// the loop directly, where [`future_into_py`] would wake a tokio worker first, which then
/// wakes the loop: one thread hand-over less per await (a Python middleware's `call_next`,
/// `crate::middleware::NativeNext`). A future that does work of its own (I/O, timers) belongs
/// on the runtime: use [`future_into_py`]. Cancelling the asyncio future drops the Rust one.
pub fn awaited_on_loop<'py>(
    py: Python<'py>,
    fut: futures_util::future::BoxFuture<'static, Result<Value, McpError>>,
) -> PyResult<Bound<'py, PyAny>> {
    static GET_RUNNING_LOOP: pyo3::sync::GILOnceCell<Py<PyAny>> = pyo3::sync::GILOnceCell::new();
    let get_loop = GET_RUNNING_LOOP.get_or_try_init(py, || {
        py.import("asyncio")?
            .getattr("get_running_loop")
            .map(Bound::unbind)
    })?;
    let event_loop = get_loop.bind(py).call0()?;
    let py_fut = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
    let polled = std::sync::Arc::new(LoopPolled {
        fut: std::sync::Mutex::new(Some(fut)),
        key: crate::inbox::loop_key(event_loop.as_unbound()),
        event_loop: event_loop.unbind(),
        py_fut: py_fut.clone().unbind(),
    });
    py_fut.call_method1(
        pyo3::intern!(py, "add_done_callback"),
        (DropOnCancel {
            polled: polled.clone(),
        },),
    )?;
    polled.poll(py);
    Ok(py_fut)
}

/// The state of [`awaited_on_loop`]: the Rust future until it is ready (or cancelled), and
/// where its output goes.
struct LoopPolled {
    fut:
        std::sync::Mutex<Option<futures_util::future::BoxFuture<'static, Result<Value, McpError>>>>,
    key: usize,
    event_loop: Py<PyAny>,
    py_fut: Py<PyAny>,
}

impl LoopPolled {
    /// Polls the future once (on the loop's thread, with the GIL); when ready, completes the
    /// asyncio future (directly: this runs on its loop).
    fn poll(self: &std::sync::Arc<Self>, py: Python<'_>) {
        let mut slot = self.fut.lock().unwrap_or_else(|e| e.into_inner());
        let Some(fut) = slot.as_mut() else { return };
        let waker = std::task::Waker::from(self.clone());
        let std::task::Poll::Ready(result) = fut
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker))
        else {
            return;
        };
        *slot = None;
        drop(slot);
        resolve(
            py,
            &self.event_loop,
            self.py_fut.clone_ref(py),
            result.map(Out::Json),
        );
    }
}

impl std::task::Wake for LoopPolled {
    fn wake(self: std::sync::Arc<Self>) {
        let key = self.key;
        crate::inbox::post_for_loop(Some(key), move |py| self.poll(py));
    }
}

/// Drops the Rust future of [`awaited_on_loop`] when its asyncio future is cancelled.
#[pyclass(frozen)]
struct DropOnCancel {
    polled: std::sync::Arc<LoopPolled>,
}

#[pymethods]
impl DropOnCancel {
    fn __call__(&self, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut.call_method0("cancelled")?.is_truthy()? {
            let dropped = self
                .polled
                .fut
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            drop(dropped);
        }
        Ok(())
    }
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

/// Hands an exception raised by a callback called directly on the loop to the loop's exception
/// handler, like a failing `call_soon` callback.
fn report_callback_error(py: Python<'_>, event_loop: &Py<PyAny>, e: PyErr) {
    let ctx = pyo3::types::PyDict::new(py);
    let _ = ctx.set_item("message", "ferromcp callback failed");
    let _ = ctx.set_item("exception", e.into_value(py));
    let _ = event_loop
        .bind(py)
        .call_method1("call_exception_handler", (ctx,));
}
