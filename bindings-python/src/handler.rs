//! Calling Python handlers from the engine.
//!
//! The engine calls a foreign handler trait on a tokio worker, which only queues work: a sync
//! handler is pulled by a worker thread of the binding's pool (see
//! [`crate::runtime::post_sync`]); an async handler is pulled by the asyncio loop from its inbox
//! (see [`crate::inbox::post_for_loop`]), which calls `ferromcp._bridge.start(func, args,
//! responder)`; `start` runs `func(*args)` and reports its outcome through the [`Responder`].
//! The tokio side waits on a oneshot channel without the GIL. When the request is cancelled (MCP
//! `notifications/cancelled`, session closed, future dropped) the asyncio task is cancelled.

use crate::answer_wait::Outstanding;
use crate::convert::{opt_value, py_to_value, value_to_py};
use crate::error::from_py_err;
use crate::inbox::post_for_loop;
use crate::runtime::{bridge, call_soon, future_into_py, post_sync, Out};
use ferromcp::McpError;
use ferromcp_embed::{
    ForeignAnswer, ForeignClientHandler, ForeignContext, ForeignHandler, ForeignRequest,
};
use futures_util::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The asyncio loop handlers run on; set when a server starts serving or a client connects.
pub type LoopCell = Arc<crate::loop_slot::LoopSlot>;

/// The channel one Python call answers on; the call counts as outstanding (see
/// [`crate::answer_wait`]) until its answer is sent or the channel is dropped.
struct Reply {
    tx: oneshot::Sender<Result<Value, McpError>>,
    outstanding: Outstanding,
}

impl Reply {
    fn new(tx: oneshot::Sender<Result<Value, McpError>>) -> Self {
        Reply {
            tx,
            outstanding: Outstanding::start(),
        }
    }

    /// Sends the answer, then counts the call as answered.
    fn send(self, r: Result<Value, McpError>) {
        let Reply { tx, outstanding } = self;
        let _ = tx.send(r);
        drop(outstanding);
    }
}

struct ResponderState {
    tx: Option<Reply>,
    task: Option<Py<PyAny>>,
    cancelled: bool,
}

/// Receives the outcome of one Python handler call.
#[pyclass(frozen)]
pub struct Responder {
    state: Arc<Mutex<ResponderState>>,
}

fn cancel_task(py: Python<'_>, state: &Arc<Mutex<ResponderState>>, event_loop: &Py<PyAny>) {
    let task = {
        let mut s = state.lock().unwrap();
        s.cancelled = true;
        s.task.as_ref().map(|t| t.clone_ref(py))
    };
    if let Some(task) = task {
        if let Ok(cancel) = task.bind(py).getattr("cancel") {
            call_soon(py, event_loop, cancel, vec![]);
        }
    }
}

#[pymethods]
impl Responder {
    /// Called by `start` with the asyncio task running the handler.
    fn set_task(&self, task: &Bound<'_, PyAny>) -> PyResult<()> {
        let cancelled = {
            let mut s = self.state.lock().unwrap();
            s.task = Some(task.clone().unbind());
            s.cancelled
        };
        if cancelled {
            task.call_method0("cancel")?;
        }
        Ok(())
    }

    /// Done-callback of the task: sends its result or exception to the engine.
    fn done(&self, py: Python<'_>, task: &Bound<'_, PyAny>) {
        let result = if task
            .call_method0("cancelled")
            .and_then(|c| c.is_truthy())
            .unwrap_or(false)
        {
            Err(McpError::cancelled(Some("handler task was cancelled")))
        } else {
            match task.call_method0("result") {
                Ok(v) => py_to_value(&v).map_err(|e| {
                    McpError::internal(format!("handler returned a non-JSON value: {e}"))
                }),
                Err(e) => Err(from_py_err(py, &e)),
            }
        };
        self.send(result);
    }

    /// The handler finished in its first step (no task was created) and returned `value`.
    fn value(&self, value: &Bound<'_, PyAny>) {
        self.send(
            py_to_value(value)
                .map_err(|e| McpError::internal(format!("handler returned a non-JSON value: {e}"))),
        );
    }

    /// The handler raised `CancelledError` in its first step (no task was created).
    fn cancelled(&self) {
        self.send(Err(McpError::cancelled(Some("handler task was cancelled"))));
    }

    /// Reports an error from `start` itself (the handler could not be started).
    fn fail(&self, py: Python<'_>, exc: &Bound<'_, PyAny>) {
        let err = PyErr::from_value(exc.clone());
        self.send(Err(from_py_err(py, &err)));
    }
}

impl Responder {
    fn send(&self, r: Result<Value, McpError>) {
        let mut s = self.state.lock().unwrap();
        s.task = None;
        if let Some(tx) = s.tx.take() {
            tx.send(r);
        }
    }
}

/// `ferromcp._bridge.start`, looked up once.
fn bridge_start(py: Python<'_>) -> PyResult<&Py<PyAny>> {
    static START: GILOnceCell<Py<PyAny>> = GILOnceCell::new();
    START.get_or_try_init(py, || Ok(bridge(py)?.getattr("start")?.unbind()))
}

/// Cancels the Python task if the engine stops waiting before it finished.
struct CancelGuard {
    state: Arc<Mutex<ResponderState>>,
    event_loop: LoopCell,
    armed: bool,
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let state = self.state.clone();
        let cell = self.event_loop.clone();
        post_for_loop(cell.key(), move |py| {
            let lp = cell.lock().unwrap().as_ref().map(|l| l.clone_ref(py));
            if let Some(lp) = lp {
                cancel_task(py, &state, &lp);
            }
        });
    }
}

/// Wraps a [`ForeignContext`] as a Python object when the handler is called.
pub(crate) type ArgsFn = Box<dyn FnOnce(Python<'_>) -> PyResult<Vec<Py<PyAny>>> + Send>;

/// A Python callable used as a handler of any kind, called as `func(*args)`: a coroutine
/// function runs as an asyncio task on the loop; any other callable runs directly on a
/// sync-handler worker thread (see [`crate::runtime::post_sync`]) and its return value is the
/// answer.
pub struct PyHandler {
    func: Arc<Py<PyAny>>,
    event_loop: LoopCell,
    sync: bool,
    /// Whether `func` gets the request's context as its last argument (see
    /// [`PyHandler::without_context`]).
    with_context: bool,
}

impl PyHandler {
    /// A handler calling `func` (on the loop in `event_loop` if it is a coroutine function).
    pub fn new(func: Py<PyAny>, event_loop: LoopCell) -> Arc<Self> {
        Self::with_context(func, event_loop, true)
    }

    /// Like [`PyHandler::new`], for a tool whose Python side never reads the request's context:
    /// `func` is called without it (`func(arguments)`), which saves making a `NativeContext`
    /// object (and a copy of the engine's context) on every call.
    pub fn without_context(func: Py<PyAny>, event_loop: LoopCell) -> Arc<Self> {
        Self::with_context(func, event_loop, false)
    }

    fn with_context(func: Py<PyAny>, event_loop: LoopCell, with_context: bool) -> Arc<Self> {
        // A coroutine function has CO_COROUTINE (0x80) in its code flags (read directly: no
        // `inspect` import at startup). Callables without a code object count as async.
        let sync = Python::with_gil(|py| {
            func.bind(py)
                .getattr("__code__")
                .and_then(|c| c.getattr("co_flags"))
                .and_then(|f| f.extract::<u32>())
                .map(|flags| flags & 0x80 == 0)
                .unwrap_or(false)
        });
        Arc::new(Self {
            func: Arc::new(func),
            event_loop,
            sync,
            with_context,
        })
    }

    pub(crate) fn invoke(
        &self,
        ctx: &ForeignContext,
        args: ArgsFn,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.invoke_as(ctx, args, std::convert::identity)
    }

    /// [`Self::invoke`], its answer made a `T` by `read` (inside the one future, so the
    /// [`ForeignHandler`] answer costs no second boxed future).
    fn invoke_as<T: Send + 'static>(
        &self,
        ctx: &ForeignContext,
        args: ArgsFn,
        read: fn(Value) -> T,
    ) -> BoxFuture<'static, Result<T, McpError>> {
        if self.sync {
            return self.invoke_sync(ctx.cancellation_token(), args, read);
        }
        let token = ctx.cancellation_token();
        if self.event_loop.must_wait() {
            // `Server.run()` answers the handshake before the loop is up: wait for it.
            let this = PyHandler {
                func: self.func.clone(),
                event_loop: self.event_loop.clone(),
                sync: false,
                with_context: self.with_context,
            };
            return Box::pin(async move {
                tokio::select! {
                    _ = this.event_loop.ready() => this.invoke_async(token, args, read).await,
                    _ = token.cancelled() => Err(McpError::cancelled(Some("request cancelled"))),
                }
            });
        }
        self.invoke_async(token, args, read)
    }

    /// Async handler: queued for the loop (see [`crate::inbox`]), run as an asyncio task.
    fn invoke_async<T: Send + 'static>(
        &self,
        token: tokio_util::sync::CancellationToken,
        args: ArgsFn,
        read: fn(Value) -> T,
    ) -> BoxFuture<'static, Result<T, McpError>> {
        let (tx, rx) = oneshot::channel();
        let state = Arc::new(Mutex::new(ResponderState {
            tx: Some(Reply::new(tx)),
            task: None,
            cancelled: false,
        }));
        let cell = self.event_loop.clone();
        let job_state = state.clone();
        let func = self.func.clone();
        let key = cell.key();
        let job = move |py: Python<'_>| {
            let func = func.clone_ref(py);
            let fail = |e: McpError| {
                if let Some(tx) = job_state.lock().unwrap().tx.take() {
                    tx.send(Err(e));
                }
            };
            let lp = cell.lock().unwrap().as_ref().map(|l| l.clone_ref(py));
            let Some(lp) = lp else {
                return fail(McpError::internal(
                    "no asyncio event loop is running the handlers",
                ));
            };
            let args = match args(py).and_then(|a| pyo3::types::PyTuple::new(py, a)) {
                Ok(a) => a,
                Err(e) => return fail(from_py_err(py, &e)),
            };
            let responder = match Py::new(
                py,
                Responder {
                    state: job_state.clone(),
                },
            ) {
                Ok(r) => r,
                Err(e) => return fail(from_py_err(py, &e)),
            };
            match bridge_start(py) {
                Ok(start) => call_soon(
                    py,
                    &lp,
                    start.bind(py).clone(),
                    vec![func, args.into_any().unbind(), responder.into_any()],
                ),
                Err(e) => fail(from_py_err(py, &e)),
            }
        };
        post_for_loop(key, job);
        let guard_loop = self.event_loop.clone();
        Box::pin(async move {
            let mut guard = CancelGuard {
                state,
                event_loop: guard_loop,
                armed: true,
            };
            let r = tokio::select! {
                r = rx => r.unwrap_or_else(|_| Err(McpError::internal("handler vanished"))),
                _ = token.cancelled() => Err(McpError::cancelled(Some("request cancelled"))),
            };
            if r.is_ok() || !token.is_cancelled() {
                guard.armed = false;
            }
            r.map(read)
        })
    }
}

impl PyHandler {
    /// Sync handler: runs on a worker thread with the GIL, no event loop involved. Cancellation
    /// answers at once and drops the result; the Python call itself runs to its end.
    fn invoke_sync<T: Send + 'static>(
        &self,
        token: tokio_util::sync::CancellationToken,
        args: ArgsFn,
        read: fn(Value) -> T,
    ) -> BoxFuture<'static, Result<T, McpError>> {
        let (tx, rx) = oneshot::channel();
        let func = self.func.clone();
        let job_token = token.clone();
        let tx = Reply::new(tx);
        post_sync(move |py| {
            if job_token.is_cancelled() {
                tx.send(Err(McpError::cancelled(Some("request cancelled"))));
                return;
            }
            let result = args(py)
                .and_then(|a| pyo3::types::PyTuple::new(py, a))
                .and_then(|a| func.bind(py).call1(a))
                .map_err(|e| from_py_err(py, &e))
                .and_then(|v| {
                    py_to_value(&v).map_err(|e| {
                        McpError::internal(format!("handler returned a non-JSON value: {e}"))
                    })
                });
            tx.send(result);
        });
        Box::pin(async move {
            let r = tokio::select! {
                r = rx => r.unwrap_or_else(|_| Err(McpError::internal("handler vanished"))),
                _ = token.cancelled() => Err(McpError::cancelled(Some("request cancelled"))),
            };
            r.map(read)
        })
    }
}

impl PyHandler {
    /// Calls `func(*values)` outside any MCP request (e.g. the OAuth redirect callback): on the
    /// loop if it is a coroutine function, else on a sync-handler worker.
    pub fn call_values(&self, values: Vec<Value>) -> BoxFuture<'static, Result<Value, McpError>> {
        let token = tokio_util::sync::CancellationToken::new();
        let args: ArgsFn = Box::new(move |py| values.iter().map(|v| value_to_py(py, v)).collect());
        if self.sync {
            self.invoke_sync(token, args, std::convert::identity)
        } else {
            self.invoke_async(token, args, std::convert::identity)
        }
    }
}

fn ctx_arg(ctx: &ForeignContext) -> impl FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send {
    let ctx = ctx.clone();
    move |py| Ok(Py::new(py, NativeContext { ctx })?.into_any())
}

/// Every kind of server handler: `handler(value, ctx)` for tools, prompts and completions
/// (`handler(value)` when it was made [`PyHandler::without_context`]), and
/// `handler(uri, variables, ctx)` for resources.
impl ForeignHandler for PyHandler {
    fn call(
        &self,
        request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let args: ArgsFn = match request {
            ForeignRequest::ReadResource { uri, variables } => {
                let c = ctx_arg(&ctx);
                Box::new(move |py| {
                    Ok(vec![
                        uri.into_pyobject(py)?.into_any().unbind(),
                        value_to_py(py, &variables)?,
                        c(py)?,
                    ])
                })
            }
            ForeignRequest::CallTool { arguments: value }
            | ForeignRequest::GetPrompt { arguments: value }
            | ForeignRequest::Complete { params: value } => {
                if self.with_context {
                    let c = ctx_arg(&ctx);
                    Box::new(move |py| Ok(vec![value_to_py(py, &value)?, c(py)?]))
                } else {
                    Box::new(move |py| Ok(vec![value_to_py(py, &value)?]))
                }
            }
        };
        self.invoke_as(&ctx, args, ForeignAnswer::Value)
    }
}

/// A Python client handler: `request(method, params, ctx)` (async) and
/// `notification(method, params)` (plain function, called on the loop).
pub struct PyClientHandler {
    /// Answers server requests.
    pub requests: Arc<PyHandler>,
    /// Receives notifications.
    pub notify: Arc<Py<PyAny>>,
}

impl ForeignClientHandler for PyClientHandler {
    fn request(
        &self,
        method: String,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let c = ctx_arg(&ctx);
        self.requests.invoke(
            &ctx,
            Box::new(move |py| {
                Ok(vec![
                    method.into_pyobject(py)?.into_any().unbind(),
                    value_to_py(py, &params)?,
                    c(py)?,
                ])
            }),
        )
    }

    fn notification(&self, method: String, params: Value) {
        let cell = self.requests.event_loop.clone();
        let f = self.notify.clone();
        post_for_loop(cell.key(), move |py| {
            let f = f.clone_ref(py);
            let lp = cell.lock().unwrap().as_ref().map(|l| l.clone_ref(py));
            let (Some(lp), Ok(p), Ok(m)) = (lp, value_to_py(py, &params), method.into_pyobject(py))
            else {
                return;
            };
            call_soon(py, &lp, f.into_bound(py), vec![m.into_any().unbind(), p]);
        });
    }
}

/// The request context handed to Python handlers (wrapped by `ferromcp.Context`).
#[pyclass(frozen, name = "NativeContext")]
pub struct NativeContext {
    ctx: ForeignContext,
}

impl NativeContext {
    /// The engine's context of the request.
    pub(crate) fn foreign(&self) -> &ForeignContext {
        &self.ctx
    }
}

impl From<ForeignContext> for NativeContext {
    fn from(ctx: ForeignContext) -> Self {
        Self { ctx }
    }
}

#[pymethods]
impl NativeContext {
    /// The request id (int or str).
    #[getter]
    fn request_id(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.request_id())
    }

    /// The request's `_meta` (dict or None).
    #[getter]
    fn meta(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.meta())
    }

    /// The negotiated protocol revision.
    #[getter]
    fn protocol_version(&self) -> Option<String> {
        self.ctx.protocol_version()
    }

    /// The peer's info object.
    #[getter]
    fn peer_info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.peer_info())
    }

    /// The peer's capabilities.
    #[getter]
    fn peer_capabilities(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.peer_capabilities())
    }

    /// The request's progress token (None when the requester asked for no progress).
    #[getter]
    fn progress_token(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.progress_token())
    }

    /// The verified bearer token's identity on a protected HTTP server (None otherwise).
    #[getter]
    fn auth(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.auth())
    }

    /// The HTTP request's header fields as `[name, value]` pairs (None outside HTTP).
    #[getter]
    fn http_headers(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.http_headers())
    }

    /// Closes the SSE stream carrying this request (Streamable HTTP); the client resumes with
    /// `Last-Event-ID`. False where there is no such stream.
    fn close_sse_stream(&self) -> bool {
        self.ctx.close_sse_stream()
    }

    /// Whether the request was cancelled.
    fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Cancels the request locally.
    fn cancel(&self) {
        self.ctx.cancel()
    }

    /// Awaitable that completes when the request is cancelled.
    fn cancelled<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.ctx.clone();
        future_into_py(py, async move {
            ctx.cancelled().await;
            Ok(Out::None)
        })
    }

    /// Sends a progress notification (if the requester asked for progress).
    #[pyo3(signature = (progress, total=None, message=None))]
    fn progress<'py>(
        &self,
        py: Python<'py>,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.ctx.clone();
        future_into_py(py, async move {
            ctx.progress(progress, total, message).await?;
            Ok(Out::None)
        })
    }

    /// Sends a log message.
    #[pyo3(signature = (level, data, logger=None))]
    fn log<'py>(
        &self,
        py: Python<'py>,
        level: String,
        data: &Bound<'py, PyAny>,
        logger: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let data = py_to_value(data)?;
        let ctx = self.ctx.clone();
        future_into_py(py, async move {
            ctx.log(&level, logger, data).await?;
            Ok(Out::None)
        })
    }

    /// Sends a request to the peer and returns its result.
    #[pyo3(signature = (method, params=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = opt_value(params)?;
        let ctx = self.ctx.clone();
        future_into_py(py, async move {
            Ok(Out::Json(ctx.request(&method, params).await?))
        })
    }

    /// Asks the client for several inputs at once (`{key: {"method", "params"}}`); returns the
    /// answers by key (2026-07-28: through `input_required` and the client's retry).
    fn input<'py>(
        &self,
        py: Python<'py>,
        requests: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let requests = py_to_value(requests)?;
        let ctx = self.ctx.clone();
        future_into_py(py, async move { Ok(Out::Json(ctx.input(requests).await?)) })
    }

    /// The client's answer to input request `key` carried by this retry (None when absent).
    fn input_response(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.input_response(key))
    }

    /// The verified state of the previous `input_required` round (None when absent).
    #[getter]
    fn request_state(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.ctx.request_state())
    }

    /// Sends a notification related to this request.
    #[pyo3(signature = (method, params=None))]
    fn notify<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = opt_value(params)?;
        let ctx = self.ctx.clone();
        future_into_py(py, async move {
            ctx.notify(&method, params).await?;
            Ok(Out::None)
        })
    }
}
