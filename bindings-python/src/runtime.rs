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
