//! `NativeClient`: the Python face of [`EmbeddedClient`]. `ferromcp.Client` adds the typed
//! methods on top of `request`.

use crate::convert::{opt_value, py_to_value, value_to_py};
use crate::error::to_py_err;
use crate::handler::{LoopCell, PyClientHandler, PyHandler};
use crate::runtime::{call_soon, future_into_py, Out};
use crate::server::NativeServer;
use ferromcp_embed::{
    CallOptions, CancelHandle, ClientConfig, EmbeddedClient, ForeignClientHandler,
};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// An explicit cancellation handle for one outgoing request.
#[pyclass(frozen, name = "CancelHandle")]
#[derive(Clone)]
pub struct NativeCancel {
    handle: CancelHandle,
}

#[pymethods]
impl NativeCancel {
    #[new]
    fn new() -> Self {
        Self {
            handle: CancelHandle::new(),
        }
    }

    /// Cancels the request.
    fn cancel(&self) {
        self.handle.cancel()
    }

    /// Whether `cancel` was called.
    fn is_cancelled(&self) -> bool {
        self.handle.is_cancelled()
    }
}

/// A connected client.
#[pyclass(frozen, name = "NativeClient")]
pub struct NativeClient {
    client: Arc<EmbeddedClient>,
    event_loop: LoopCell,
}

fn handler_for(
    py: Python<'_>,
    handler: Option<(Py<PyAny>, Py<PyAny>)>,
) -> PyResult<(LoopCell, Option<Arc<dyn ForeignClientHandler>>)> {
    let lp = py.import("asyncio")?.call_method0("get_running_loop")?;
    crate::inbox::attach_inbox(py, &lp)?;
    let cell: LoopCell = Arc::new(crate::loop_slot::LoopSlot::bound_to(lp.unbind()));
    let h = handler.map(|(req, notify)| {
        Arc::new(PyClientHandler {
            requests: PyHandler::new(req, cell.clone()),
            notify: Arc::new(notify),
        }) as Arc<dyn ForeignClientHandler>
    });
    Ok((cell, h))
}

fn wrap(client: EmbeddedClient, cell: LoopCell) -> Out {
    Out::Obj(Box::new(move |py| {
        Ok(Py::new(
            py,
            NativeClient {
                client: Arc::new(client),
                event_loop: cell,
            },
        )?
        .into_any())
    }))
}

#[pymethods]
impl NativeClient {
    /// Spawns a server process and connects (awaitable of `NativeClient`). `handler` is a
    /// `(request(method, params, ctx), notification(method, params))` pair.
    #[staticmethod]
    #[pyo3(signature = (program, args, env, cwd, config, handler=None))]
    fn connect_stdio<'py>(
        py: Python<'py>,
        program: String,
        args: Vec<String>,
        env: HashMap<String, String>,
        cwd: Option<String>,
        config: &Bound<'py, PyAny>,
        handler: Option<(Py<PyAny>, Py<PyAny>)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let config = ClientConfig::from_json(py_to_value(config)?).map_err(|e| to_py_err(py, e))?;
        let (cell, h) = handler_for(py, handler)?;
        future_into_py(py, async move {
            let env = env.into_iter().collect();
            let c = EmbeddedClient::connect_stdio(program, args, env, cwd, &config, h).await?;
            Ok(wrap(c, cell))
        })
    }

    /// Connects to a Streamable HTTP endpoint (awaitable of `NativeClient`).
    #[staticmethod]
    /// `auth`: the dict of `ferromcp.OAuth` (OAuth 2.1 authorization), or `None`;
    /// `root_certificates`: extra trusted CA certificates (PEM text each) for `https://`.
    #[pyo3(signature = (url, headers, legacy_fallback, config, handler=None, auth=None, root_certificates=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn connect_http<'py>(
        py: Python<'py>,
        url: String,
        headers: Vec<(String, String)>,
        legacy_fallback: bool,
        config: &Bound<'py, PyAny>,
        handler: Option<(Py<PyAny>, Py<PyAny>)>,
        auth: Option<&Bound<'py, pyo3::types::PyDict>>,
        root_certificates: Vec<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let config = ClientConfig::from_json(py_to_value(config)?).map_err(|e| to_py_err(py, e))?;
        let (cell, h) = handler_for(py, handler)?;
        let auth = auth
            .map(|d| crate::auth::oauth_from_py(d, cell.clone()))
            .transpose()?;
        future_into_py(py, async move {
            let options = ferromcp_embed::HttpConnectOptions {
                headers,
                legacy_fallback,
                extra_root_certificates: root_certificates,
            };
            let c = EmbeddedClient::connect_http_with(&url, options, auth, &config, h).await?;
            Ok(wrap(c, cell))
        })
    }

    /// Connects to a `NativeServer` in this process over an in-memory transport.
    #[staticmethod]
    #[pyo3(signature = (server, config, handler=None))]
    fn connect_memory<'py>(
        py: Python<'py>,
        server: &Bound<'py, NativeServer>,
        config: &Bound<'py, PyAny>,
        handler: Option<(Py<PyAny>, Py<PyAny>)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let config = ClientConfig::from_json(py_to_value(config)?).map_err(|e| to_py_err(py, e))?;
        let srv = server.get();
        srv.bind_loop(py)?;
        let embedded = srv.server.clone();
        let (cell, h) = handler_for(py, handler)?;
        future_into_py(py, async move {
            let c = EmbeddedClient::connect_memory(&embedded, &config, h).await?;
            Ok(wrap(c, cell))
        })
    }

    /// The server's `initialize` result.
    #[getter]
    fn initialize_result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.client.initialize_result())
    }

    /// The negotiated protocol revision.
    #[getter]
    fn protocol_version(&self) -> String {
        self.client.protocol_version()
    }

    /// Sends a request; `on_progress(params)` is called on the loop for each progress
    /// notification; `cancel` cancels it explicitly (so does cancelling the awaiting task).
    #[pyo3(signature = (method, params=None, timeout_ms=None, on_progress=None, cancel=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
        timeout_ms: Option<u64>,
        on_progress: Option<Py<PyAny>>,
        cancel: Option<NativeCancel>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = opt_value(params)?;
        let client = self.client.clone();
        let cell = self.event_loop.clone();
        let on_progress = on_progress.map(|cb| {
            let cb = Arc::new(cb);
            Arc::new(move |v: serde_json::Value| {
                let cb = cb.clone();
                let cell = cell.clone();
                crate::inbox::post_for_loop(cell.key(), move |py| {
                    let lp = cell.lock().unwrap().as_ref().map(|l| l.clone_ref(py));
                    if let (Some(lp), Ok(p)) = (lp, value_to_py(py, &v)) {
                        call_soon(py, &lp, cb.clone_ref(py).into_bound(py), vec![p]);
                    }
                });
            }) as Arc<dyn Fn(serde_json::Value) + Send + Sync>
        });
        let opts = CallOptions {
            timeout_ms,
            reset_timeout_on_progress: on_progress.is_some(),
            on_progress,
            cancel: cancel.map(|c| c.handle),
        };
        future_into_py(py, async move {
            Ok(Out::Json(client.request(&method, params, opts).await?))
        })
    }

    /// Opens a `subscriptions/listen` subscription (2026-07-28): `filter` is a
    /// `SubscriptionFilter` dict; an awaitable of `NativeSubscription` once acknowledged.
    fn listen<'py>(
        &self,
        py: Python<'py>,
        filter: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::listen::listen(py, self.client.clone(), filter)
    }

    /// Calls a tool as a task (awaitable of the `CreateTaskResult` dict); 2025-11-25 tasks or
    /// the tasks extension, by the negotiated revision (`EmbeddedClient::call_tool_as_task`).
    #[pyo3(signature = (name, arguments=None, ttl_ms=None))]
    fn call_tool_as_task<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
        ttl_ms: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = opt_value(arguments)?.unwrap_or_else(|| serde_json::json!({}));
        let client = self.client.clone();
        future_into_py(py, async move {
            Ok(Out::Json(
                client.call_tool_as_task(&name, arguments, ttl_ms).await?,
            ))
        })
    }

    /// The task's state (awaitable of the `Task` dict); input the task waits for is answered
    /// with this client's handlers first.
    fn get_task<'py>(&self, py: Python<'py>, task_id: String) -> PyResult<Bound<'py, PyAny>> {
        let client = self.client.clone();
        future_into_py(py, async move {
            Ok(Out::Json(client.get_task(&task_id).await?))
        })
    }

    /// Waits for the task's end (awaitable of its `CallToolResult` dict); `timeout_ms` and
    /// `cancel` bound the wait, not the task.
    #[pyo3(signature = (task_id, timeout_ms=None, cancel=None))]
    fn get_task_result<'py>(
        &self,
        py: Python<'py>,
        task_id: String,
        timeout_ms: Option<u64>,
        cancel: Option<NativeCancel>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let client = self.client.clone();
        let opts = CallOptions {
            timeout_ms,
            cancel: cancel.map(|c| c.handle),
            ..Default::default()
        };
        future_into_py(py, async move {
            Ok(Out::Json(client.get_task_result(&task_id, opts).await?))
        })
    }

    /// Cancels the task (awaitable of its `Task` dict after the cancellation).
    fn cancel_task<'py>(&self, py: Python<'py>, task_id: String) -> PyResult<Bound<'py, PyAny>> {
        let client = self.client.clone();
        future_into_py(py, async move {
            Ok(Out::Json(client.cancel_task(&task_id).await?))
        })
    }

    /// Sends a notification.
    #[pyo3(signature = (method, params=None))]
    fn notify<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = opt_value(params)?;
        let client = self.client.clone();
        future_into_py(py, async move {
            client.notify(&method, params).await?;
            Ok(Out::None)
        })
    }

    /// Closes the session (and shuts a spawned server down).
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.client.clone();
        future_into_py(py, async move {
            client.close().await;
            Ok(Out::None)
        })
    }
}
