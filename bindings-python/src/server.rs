//! `NativeServer`: the Python face of [`EmbeddedServer`]. The `ferromcp.Server` facade builds
//! JSON definitions and handler wrappers and registers them here.

use crate::convert::{py_to_value, value_to_py};
use crate::error::to_py_err;
use crate::handler::{LoopCell, NativeContext, PyHandler};
use crate::runtime::{future_into_py, Out};
use ferromcp_embed::{EmbeddedHttpServer, EmbeddedServer, HttpConfig};
use pyo3::prelude::*;
use std::sync::Arc;

/// A server with Python handlers.
#[pyclass(frozen, name = "NativeServer")]
pub struct NativeServer {
    pub(crate) server: EmbeddedServer,
    pub(crate) event_loop: LoopCell,
}

#[pymethods]
impl NativeServer {
    /// Creates a server from a config dict (`name`, `version`, `title`, `instructions`, ...).
    #[new]
    fn new(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config = py_to_value(config)?;
        let server = EmbeddedServer::from_json(config).map_err(|e| to_py_err(py, e))?;
        Ok(Self {
            server,
            event_loop: Default::default(),
        })
    }

    /// Registers a tool: `definition` is the MCP `Tool` dict, `handler(arguments, ctx)` returns
    /// a value the engine shapes into a `CallToolResult` (`embed::shape::tool_result`). With
    /// `wrap_result` (the `outputSchema` wraps the return value as `{"result": ...}`), a
    /// non-dict answer is that return value, and the engine builds the text and
    /// `structuredContent` (`embed::shape::wrapped_tool_result`); a dict answer is shaped.
    /// With `context=False` the handler is called as `handler(arguments)` (no context object is
    /// made for a tool that never reads it).
    #[pyo3(signature = (definition, handler, wrap_result=false, context=true))]
    fn add_tool(
        &self,
        py: Python<'_>,
        definition: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
        wrap_result: bool,
        context: bool,
    ) -> PyResult<()> {
        let def = py_to_value(definition)?;
        let handler = if context {
            PyHandler::new(handler, self.event_loop.clone())
        } else {
            PyHandler::without_context(handler, self.event_loop.clone())
        };
        let added = if wrap_result {
            self.server.add_tool_wrapping(def, handler)
        } else {
            self.server.add_tool_json(def, handler)
        };
        added.map_err(|e| to_py_err(py, e))
    }

    /// Adds a middleware layer after those already there: `func(request, next, ctx)`, a
    /// coroutine function (see `ferromcp.middleware`), and `notify(notification)`, a plain
    /// function shown each client notification. Refused once the server handled a request.
    #[pyo3(signature = (func, notify=None))]
    fn add_middleware(
        &self,
        py: Python<'_>,
        func: Py<PyAny>,
        notify: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let layer = crate::middleware::PyMiddleware::new(func, notify, self.event_loop.clone());
        self.server
            .add_middleware(layer)
            .map_err(|e| to_py_err(py, e))
    }

    /// Adds a built-in middleware layer by name and options
    /// (`{"name": "rateLimit", "limit": 10, "windowMs": 1000}`).
    fn add_middleware_config(&self, py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<()> {
        let config = py_to_value(config)?;
        self.server
            .add_middleware_config(config)
            .map_err(|e| to_py_err(py, e))
    }

    /// Adds the built-in timing layer: `hook(event)` (a plain function) gets each request's
    /// `{"method", "tool", "durationMs", "outcome", "code"}`.
    fn add_timing_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<()> {
        self.server
            .add_timing_hook(crate::middleware::timing_hook(hook))
            .map_err(|e| to_py_err(py, e))
    }

    /// The asyncio loop serving the handlers (None before serving).
    #[getter]
    fn event_loop(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.event_loop
            .lock()
            .unwrap()
            .as_ref()
            .map(|l| l.clone_ref(py))
    }

    /// Removes a tool.
    fn remove_tool(&self, name: &str) -> bool {
        self.server.remove_tool(name)
    }

    /// Registers a static resource; `handler(uri, variables, ctx)` returns a list of contents.
    fn add_resource(
        &self,
        py: Python<'_>,
        definition: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
    ) -> PyResult<()> {
        let def = py_to_value(definition)?;
        self.server
            .add_resource_json(def, PyHandler::new(handler, self.event_loop.clone()))
            .map_err(|e| to_py_err(py, e))
    }

    /// Registers a resource template.
    fn add_resource_template(
        &self,
        py: Python<'_>,
        definition: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
    ) -> PyResult<()> {
        let def = py_to_value(definition)?;
        self.server
            .add_resource_template_json(def, PyHandler::new(handler, self.event_loop.clone()))
            .map_err(|e| to_py_err(py, e))
    }

    /// Removes a static resource.
    fn remove_resource(&self, uri: &str) -> bool {
        self.server.remove_resource(uri)
    }

    /// Registers a prompt; `handler(arguments, ctx)` returns a `GetPromptResult` dict.
    fn add_prompt(
        &self,
        py: Python<'_>,
        definition: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
    ) -> PyResult<()> {
        let def = py_to_value(definition)?;
        self.server
            .add_prompt_json(def, PyHandler::new(handler, self.event_loop.clone()))
            .map_err(|e| to_py_err(py, e))
    }

    /// Removes a prompt.
    fn remove_prompt(&self, name: &str) -> bool {
        self.server.remove_prompt(name)
    }

    /// Registers a completion handler (`reference` None: the fallback).
    #[pyo3(signature = (reference, argument, handler))]
    fn add_completion(
        &self,
        py: Python<'_>,
        reference: &Bound<'_, PyAny>,
        argument: Option<String>,
        handler: Py<PyAny>,
    ) -> PyResult<()> {
        let r = py_to_value(reference)?;
        self.server
            .add_completion_json(
                r,
                argument,
                PyHandler::new(handler, self.event_loop.clone()),
            )
            .map_err(|e| to_py_err(py, e))
    }

    /// Tells subscribers that a resource changed.
    fn notify_resource_updated(&self, uri: &str) {
        self.server.notify_resource_updated(uri)
    }

    /// Reads one of this server's resources from inside a handler, in the context `ctx` of
    /// its request (`ferromcp.Context.read_resource`); resolves to the `ReadResourceResult`
    /// dict (`embed::EmbeddedServer::read_resource`: middleware, templates and errors as a
    /// client sees them).
    fn read_resource<'py>(
        &self,
        py: Python<'py>,
        uri: String,
        ctx: &Bound<'py, NativeContext>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = ctx.get().foreign().clone();
        let server = self.server.clone();
        future_into_py(py, async move {
            Ok(Out::Json(server.read_resource(&uri, &ctx).await?))
        })
    }

    /// Binds the handlers to the running asyncio loop.
    pub(crate) fn bind_loop(&self, py: Python<'_>) -> PyResult<()> {
        bind_running_loop(py, &self.event_loop)
    }

    /// Starts serving stdin/stdout right away, before any asyncio loop runs: requests that need
    /// no Python (`initialize`, `ping`, the `*/list` requests) are answered at once, and calls
    /// of `async def` handlers wait until [`NativeStdioRun::finish`] binds the loop. Used by
    /// `Server.run()` so that importing asyncio does not delay the handshake.
    fn start_stdio(&self) -> NativeStdioRun {
        self.event_loop.defer();
        let server = self.server.clone();
        let task =
            crate::stdio_thread::spawn_stdio_session(async move { server.serve_stdio().await });
        NativeStdioRun {
            task: std::sync::Mutex::new(Some(task)),
            event_loop: self.event_loop.clone(),
        }
    }

    /// Ends stdio serving gracefully (`EmbeddedServer::stop_stdio`), whichever way it was
    /// started (`serve_stdio`, `serve_stdio_blocking`, `start_stdio`): no further request is
    /// read, an open `subscriptions/listen` is answered with its completion result, requests
    /// being served are answered. Does not wait; final (a later serving call returns at once).
    fn stop_stdio(&self) {
        self.server.stop_stdio();
    }

    /// Binds `host:port` and serves Streamable HTTP (awaitable of `NativeHttpServer`; binds the
    /// running loop). `options` is a dict of the engine's HTTP options (camelCase keys).
    /// `auth`: the dict of `ferromcp.ProtectedResource` (bearer-token protection), or `None`.
    #[pyo3(signature = (host, port, options=None, auth=None))]
    fn serve_http<'py>(
        &self,
        py: Python<'py>,
        host: String,
        port: u16,
        options: Option<&Bound<'py, PyAny>>,
        auth: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = match options {
            Some(o) => py_to_value(o)?,
            None => serde_json::Value::Null,
        };
        let config = HttpConfig::from_json(options).map_err(|e| to_py_err(py, e))?;
        self.bind_loop(py)?;
        let auth = auth
            .map(|d| crate::auth::resource_auth_from_py(d, self.event_loop.clone()))
            .transpose()?;
        let server = self.server.clone();
        future_into_py(py, async move {
            let http = server.serve_http_auth(&host, port, &config, auth).await?;
            Ok(Out::Obj(Box::new(move |py| {
                Ok(Py::new(py, NativeHttpServer { http })?.into_any())
            })))
        })
    }

    /// A request-level Streamable HTTP handler for an ASGI app (`ferromcp.asgi`; the engine's
    /// `EmbeddedServer::http_handler`, as the Node binding's `createHttpHandler`). `options` as
    /// for [`Self::serve_http`]; `auth` the dict of `ferromcp.ProtectedResource`. Handlers run
    /// on the loop bound with `bind_loop()`.
    #[pyo3(signature = (options=None, auth=None))]
    fn http_handler(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyAny>>,
        auth: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<crate::asgi::NativeHttpHandler> {
        let options = match options {
            Some(o) => py_to_value(o)?,
            None => serde_json::Value::Null,
        };
        let config = HttpConfig::from_json(options).map_err(|e| to_py_err(py, e))?;
        let auth = auth
            .map(|d| crate::auth::resource_auth_from_py(d, self.event_loop.clone()))
            .transpose()?;
        // The router's session table starts its background tasks on the binding's runtime.
        let runtime = crate::runtime::runtime();
        let _entered = runtime.enter();
        let handler = self
            .server
            .http_handler_auth(&config, auth)
            .map_err(|e| to_py_err(py, e))?;
        Ok(crate::asgi::NativeHttpHandler { handler })
    }

    /// The `openTelemetry` layer's metrics as Prometheus text (`None` without the layer or its
    /// `prometheus` option), for a host framework's route.
    fn prometheus_text(&self) -> Option<String> {
        self.server.prometheus_text()
    }

    /// Sends a log message to every live session.
    #[pyo3(signature = (level, data, logger=None))]
    fn log<'py>(
        &self,
        py: Python<'py>,
        level: String,
        data: &Bound<'py, PyAny>,
        logger: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let data = py_to_value(data)?;
        let server = self.server.clone();
        future_into_py(py, async move {
            server.log(&level, logger, data).await;
            Ok(Out::None)
        })
    }

    /// Serves stdin/stdout until stdin closes, blocking the calling thread with the GIL released
    /// and no event loop: for servers whose handlers are all sync (they run on worker threads).
    /// Signals are checked every 50 ms (Ctrl-C raises `KeyboardInterrupt` and stops serving).
    fn serve_stdio_blocking(&self, py: Python<'_>) -> PyResult<()> {
        let server = self.server.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let task = crate::stdio_thread::spawn_stdio_session(async move {
            let _ = tx.send(server.serve_stdio().await);
        });
        let mut rx = rx;
        loop {
            let (got, back) = py.allow_threads(move || {
                let got = rx.recv_timeout(std::time::Duration::from_millis(50));
                (got, rx)
            });
            rx = back;
            match got {
                Ok(r) => return r.map_err(|e| to_py_err(py, e)),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        task.abort();
                        return Err(e);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(to_py_err(
                        py,
                        ferromcp::McpError::internal("stdio server stopped"),
                    ))
                }
            }
        }
    }

    /// Serves stdin/stdout until stdin closes or [`Self::stop_stdio`] (awaitable; binds the
    /// running loop).
    fn serve_stdio<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.bind_loop(py)?;
        let server = self.server.clone();
        future_into_py(py, async move {
            server.serve_stdio().await?;
            Ok(Out::None)
        })
    }
}

/// The `CallToolResult` dict the engine makes of a tool's answer `value`
/// (`embed::shape::tool_result`; `structured`: the tool has an `outputSchema`). For a
/// `wrap_result` tool's answers that are not its return value.
#[pyfunction]
pub fn shape_tool_result(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    structured: bool,
) -> PyResult<Py<PyAny>> {
    let v = ferromcp_embed::shape::tool_result(py_to_value(value)?, structured);
    value_to_py(py, &v)
}

/// Binds `cell`'s handlers to the running asyncio loop (and gives that loop its inbox).
fn bind_running_loop(py: Python<'_>, cell: &LoopCell) -> PyResult<()> {
    let lp = py.import("asyncio")?.call_method0("get_running_loop")?;
    crate::inbox::attach_inbox(py, &lp)?;
    cell.set(lp.unbind());
    Ok(())
}

/// A stdio server started by [`NativeServer::start_stdio`].
#[pyclass(frozen, name = "NativeStdioRun")]
pub struct NativeStdioRun {
    task: std::sync::Mutex<Option<tokio::task::JoinHandle<Result<(), ferromcp::McpError>>>>,
    event_loop: LoopCell,
}

/// Stops the serving task when the awaiting Python side goes away (e.g. Ctrl-C).
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[pymethods]
impl NativeStdioRun {
    /// Binds the running loop (releasing the waiting handler calls) and returns an awaitable
    /// that completes when stdin closes. Cancelling it stops serving.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let task = self
            .task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("finish() called twice"))?;
        bind_running_loop(py, &self.event_loop)?;
        future_into_py(py, async move {
            let _stop = AbortOnDrop(task.abort_handle());
            match task.await {
                Ok(r) => r.map(|_| Out::None),
                Err(e) => Err(ferromcp::McpError::internal(format!(
                    "stdio server stopped: {e}"
                ))),
            }
        })
    }
}

/// A running Streamable HTTP server.
#[pyclass(frozen, name = "NativeHttpServer")]
pub struct NativeHttpServer {
    http: Arc<EmbeddedHttpServer>,
}

#[pymethods]
impl NativeHttpServer {
    /// The endpoint URL (`http://HOST:PORT/PATH`).
    #[getter]
    fn url(&self) -> String {
        self.http.url().to_string()
    }

    /// The bound port.
    #[getter]
    fn port(&self) -> u16 {
        self.http.port()
    }

    /// Stops the server gracefully (awaitable).
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let http = self.http.clone();
        future_into_py(py, async move {
            http.close().await?;
            Ok(Out::None)
        })
    }

    /// Resolves when the server has stopped (awaitable).
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let http = self.http.clone();
        future_into_py(py, async move {
            http.wait().await;
            Ok(Out::None)
        })
    }
}
