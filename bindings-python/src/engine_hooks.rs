//! The engine's authorization predicate and list provider, called in Python:
//! [`add_access_predicate`] (behind `ferromcp.allow_if.AllowIf`) and [`add_list_provider`]
//! (behind the low-level server's paging list handlers). The decisions (which items a page
//! holds, what a hidden item's call gets, what a list answer must be) are the engine's
//! (`embed::ForeignAccessPredicate`, `embed::ForeignListProvider`); here a Python function is
//! only called, through the same [`PyHandler`] every handler uses.

use crate::convert::value_to_py;
use crate::error::to_py_err;
use crate::handler::{NativeContext, PyHandler};
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::{ForeignAccessPredicate, ForeignContext, ForeignListProvider};
use futures_util::future::BoxFuture;
use pyo3::prelude::*;
use serde_json::Value;
use std::sync::Arc;

/// A Python predicate: `func(request, kind, names, ctx)` answers a list of booleans.
struct PyAccessPredicate(Arc<PyHandler>);

impl ForeignAccessPredicate for PyAccessPredicate {
    fn allowed(
        &self,
        request: Value,
        kind: &'static str,
        names: Vec<String>,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let c = ctx.clone();
        self.0.invoke(
            &ctx,
            Box::new(move |py| {
                Ok(vec![
                    value_to_py(py, &request)?,
                    kind.into_pyobject(py)?.into_any().unbind(),
                    names.into_pyobject(py)?.into_any().unbind(),
                    Py::new(py, NativeContext::from(c))?.into_any(),
                ])
            }),
        )
    }
}

/// A Python list handler: `func(method, params, ctx)` answers the page.
struct PyListProvider(Arc<PyHandler>);

impl ForeignListProvider for PyListProvider {
    fn page(
        &self,
        method: &'static str,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let c = ctx.clone();
        self.0.invoke(
            &ctx,
            Box::new(move |py| {
                Ok(vec![
                    method.into_pyobject(py)?.into_any().unbind(),
                    value_to_py(py, &params)?,
                    Py::new(py, NativeContext::from(c))?.into_any(),
                ])
            }),
        )
    }
}

/// Adds the engine's authorization layer asking `func(request, kind, names, ctx)` (a plain
/// function runs on a sync-handler worker, a coroutine function on the loop), which answers one
/// boolean per name. What it raises hides every item it was asked about (and is logged).
#[pyfunction]
pub fn add_access_predicate(
    py: Python<'_>,
    server: &NativeServer,
    func: Py<PyAny>,
) -> PyResult<()> {
    let handler = PyHandler::new(func, server.event_loop.clone());
    server
        .server
        .add_access_predicate(Arc::new(PyAccessPredicate(handler)))
        .map_err(|e| to_py_err(py, e))
}

/// Adds the layer answering the list `methods` with `func(method, params, ctx)` (a coroutine
/// function, run on the loop), whose page and `nextCursor` reach the client as they are; the
/// other list methods answer -32601.
#[pyfunction]
pub fn add_list_provider(
    py: Python<'_>,
    server: &NativeServer,
    methods: Vec<String>,
    func: Py<PyAny>,
) -> PyResult<()> {
    let handler = PyHandler::new(func, server.event_loop.clone());
    server
        .server
        .add_list_provider(&methods, Arc::new(PyListProvider(handler)))
        .map_err(|e| to_py_err(py, e))
}
