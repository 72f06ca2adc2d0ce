//! MCP Apps and response-cache invalidation for Python (`ferromcp.apps`, `ferromcp.caching`):
//! thin calls into the bindings' seam (`ferromcp_embed::apps`, `EmbeddedServer::invalidate_cache`),
//! the path Node and Swift take too. Every check is the engine's; its refusal is raised as a
//! `ValueError` carrying the engine's message (the Python API's error for a bad argument).

use crate::convert::{py_to_value, value_to_py};
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::apps;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn value_error(e: McpError) -> PyErr {
    PyValueError::new_err(e.message)
}

/// Registers an MCP App's UI resource from its wire form (`uri`, `name`, `title`,
/// `description`, `_meta`, `html`): `EmbeddedServer::add_ui_resource_json`.
#[pyfunction]
pub fn ui_add_resource(server: &NativeServer, definition: &Bound<'_, PyAny>) -> PyResult<()> {
    server
        .server
        .add_ui_resource_json(py_to_value(definition)?, None)
        .map_err(value_error)
}

/// A tool's `_meta` naming its UI, checked and completed (the flat `ui/resourceUri` added):
/// against `server` when given (the UI must be registered there), with the errors naming
/// `tool_name` when given.
#[pyfunction]
#[pyo3(signature = (server, tool_name, meta))]
pub fn ui_tool_meta(
    py: Python<'_>,
    server: Option<&NativeServer>,
    tool_name: Option<&str>,
    meta: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let meta = py_to_value(meta)?;
    let checked = match (server, tool_name) {
        (Some(s), Some(name)) => s.server.ui_tool_meta_json(name, meta),
        (Some(_), None) => {
            return Err(PyValueError::new_err(
                "ui_tool_meta: checking against a server needs the tool's name",
            ))
        }
        (None, name) => apps::tool_ui_meta_json(name, meta),
    };
    value_to_py(py, &checked.map_err(value_error)?)
}

/// Raises `ValueError` unless `uri` is a UI resource URI (`ui://` and something, no space).
#[pyfunction]
pub fn ui_check_uri(uri: &str) -> PyResult<()> {
    apps::check_ui_uri(uri).map_err(value_error)
}

/// Raises `ValueError` unless `ui` is a well-formed resource `_meta.ui`.
#[pyfunction]
pub fn ui_check_resource_meta(ui: &Bound<'_, PyAny>) -> PyResult<()> {
    apps::check_ui_resource_meta(&py_to_value(ui)?).map_err(value_error)
}

/// Whether a client's capabilities say it renders MCP Apps (any value; not a dict is no).
#[pyfunction]
pub fn ui_capabilities_support(capabilities: &Bound<'_, PyAny>) -> bool {
    py_to_value(capabilities).is_ok_and(|c| apps::capabilities_support_ui(&c))
}

/// The capabilities a client declares to say it renders MCP Apps.
#[pyfunction]
pub fn ui_client_capability(py: Python<'_>) -> PyResult<Py<PyAny>> {
    value_to_py(py, &apps::ui_client_capability())
}

/// The extension's identifiers (`extension`, `mimeType`, `scheme`, `legacyResourceUriKey`).
#[pyfunction]
pub fn ui_constants(py: Python<'_>) -> PyResult<Py<PyAny>> {
    value_to_py(py, &apps::ui_constants())
}

/// Forgets entries of the server's response caches: all, one method's, or one resource's
/// reads (`EmbeddedServer::invalidate_cache`).
#[pyfunction]
#[pyo3(signature = (server, method=None, uri=None))]
pub fn invalidate_cache(
    server: &NativeServer,
    method: Option<&str>,
    uri: Option<&str>,
) -> PyResult<()> {
    server
        .server
        .invalidate_cache(method, uri)
        .map_err(value_error)
}
