//! Python middleware: `ferromcp._middleware` adapts the user's `(ctx, call_next)` callables
//! and classes into one async function `run(request, next, ctx)` per layer, registered here as
//! an [`embed::ForeignMiddleware`](ferromcp_embed::ForeignMiddleware); [`NativeNext`] is the
//! rest of the chain it awaits. The built-in layers are added by name
//! ([`ferromcp_embed::EmbeddedServer::add_middleware_config`]), the timing hook with a plain
//! Python function called on the binding's sync-handler pool.

use crate::convert::value_to_py;
use crate::handler::{LoopCell, NativeContext, PyHandler};
use crate::runtime::{awaited_on_loop, post, post_sync};
use ferromcp::McpError;
use ferromcp_embed::{ForeignContext, ForeignMiddleware, ForeignNext};
use futures_util::future::BoxFuture;
use pyo3::prelude::*;
use serde_json::Value;
use std::sync::Arc;

/// A Python middleware layer: `func(request, next, ctx)`, a coroutine function, and
/// optionally `notify(notification)`, a plain function shown each client notification.
pub struct PyMiddleware {
    handler: Arc<PyHandler>,
    notify: Option<Arc<Py<PyAny>>>,
}

impl PyMiddleware {
    /// The layer calling `func` on the server's asyncio loop, and `notify` (if any) on the
    /// binding's Python thread, in the order notifications arrive.
    pub fn new(func: Py<PyAny>, notify: Option<Py<PyAny>>, event_loop: LoopCell) -> Arc<Self> {
        Arc::new(Self {
            handler: PyHandler::new(func, event_loop),
            notify: notify.map(Arc::new),
        })
    }
}

impl ForeignMiddleware for PyMiddleware {
    fn handle(
        &self,
        request: Value,
        next: ForeignNext,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let c = ctx.clone();
        self.handler.invoke(
            &ctx,
            Box::new(move |py| {
                Ok(vec![
                    value_to_py(py, &request)?,
                    Py::new(py, NativeNext { next })?.into_any(),
                    Py::new(py, NativeContext::from(c))?.into_any(),
                ])
            }),
        )
    }

    fn notification(&self, notification: Value) {
        // On the binding's one Python thread, in the order the client sent them (`notify` only
        // schedules the layer's coroutine on the loop, so it never blocks that thread); the
        // sync-handler pool would let two notifications overtake each other.
        if let Some(notify) = &self.notify {
            let notify = notify.clone();
            post(move |py| call_reporting(py, &notify, &notification));
        }
    }
}

/// Calls `func(value)` on the sync-handler pool.
fn call_later(func: Arc<Py<PyAny>>, value: Value) {
    post_sync(move |py| call_reporting(py, &func, &value));
}

/// Calls `func(value)`; an exception is reported as unraisable.
fn call_reporting(py: Python<'_>, func: &Py<PyAny>, value: &Value) {
    let called = value_to_py(py, value).and_then(|v| func.bind(py).call1((v,)));
    if let Err(e) = called {
        e.write_unraisable(py, Some(func.bind(py)));
    }
}

/// The rest of a request's middleware chain, as a Python middleware awaits it.
#[pyclass(frozen, name = "NativeNext")]
pub struct NativeNext {
    next: ForeignNext,
}

#[pymethods]
impl NativeNext {
    /// Hands the request on (`changed`: the request dict with its `method`/`params` changed,
    /// or None) and returns an awaitable of the result dict; a JSON-RPC error raises its
    /// `McpError`. At most once per request.
    #[pyo3(signature = (changed=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        changed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let changed = changed.map(crate::convert::py_to_value).transpose()?;
        let fut = self.next.run(changed);
        // The rest of the chain runs on the engine's threads; its answer wakes this loop
        // directly (no tokio task in between).
        awaited_on_loop(py, fut)
    }
}

/// A timing hook: `hook(event)` with the event dict of
/// [`ferromcp_embed::timing_event_json`], called on the sync-handler pool (an exception is
/// reported as unraisable, the request is not affected).
pub fn timing_hook(hook: Py<PyAny>) -> Arc<dyn Fn(Value) + Send + Sync + 'static> {
    let hook = Arc::new(hook);
    Arc::new(move |event: Value| call_later(hook.clone(), event))
}
