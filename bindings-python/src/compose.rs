//! Composition and tool transforms for Python (`Server.mount`, `Server.import_server`,
//! `Server.transform_tool`): thin calls into the bindings' seam (`embed/src/compose.rs`,
//! the path Node and Swift take too). A transform's `transform_output` is a Python callable
//! behind [`ForeignOutputReshape`]. Authorization needs nothing here: it is a built-in
//! middleware configured by name (`{"name": "authorization", ...}`).

use crate::convert::{py_to_value, value_to_py};
use crate::error::{from_py_err, to_py_err};
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::{is_output_schema_without_reshape, ForeignOutputReshape};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;
use std::sync::Arc;

/// The engine's view of a Python `transform_output` callable: a short, synchronous Python call
/// (as the token store's), the GIL taken on the engine thread that finished the original call.
/// A raised `McpError` keeps its code, message and `data` (the call fails with it); any other
/// exception is a handler exception whose text (`Kind: message`) the caller's internal error
/// says ([`from_py_err`], as for handlers).
struct PyReshape(Py<PyAny>);

impl ForeignOutputReshape for PyReshape {
    fn reshape(&self, structured: Value) -> Result<Value, McpError> {
        Python::with_gil(|py| {
            let failed = |e: PyErr| from_py_err(py, &e);
            let arg = value_to_py(py, &structured).map_err(failed)?;
            let out = self.0.bind(py).call1((arg,)).map_err(failed)?;
            py_to_value(&out).map_err(failed)
        })
    }
}

/// Mounts `child` on `parent` under `prefix`, live (`EmbeddedServer::mount`).
#[pyfunction]
pub fn mount_server(
    py: Python<'_>,
    parent: &NativeServer,
    prefix: &str,
    child: &NativeServer,
) -> PyResult<()> {
    parent
        .server
        .mount(prefix, &child.server)
        .map_err(|e| to_py_err(py, e))?;
    // The child's `async def` handlers run on the loop that serves the parent.
    parent.event_loop.lead(&child.event_loop);
    Ok(())
}

/// Copies `child`'s features into `parent` under `prefix`, once
/// (`EmbeddedServer::import_server`).
#[pyfunction]
pub fn import_server(
    py: Python<'_>,
    parent: &NativeServer,
    prefix: &str,
    child: &NativeServer,
) -> PyResult<()> {
    parent
        .server
        .import_server(prefix, &child.server)
        .map_err(|e| to_py_err(py, e))?;
    parent.event_loop.lead(&child.event_loop);
    Ok(())
}

/// Registers the tool `transform` (a `ToolTransformConfig` dict) makes from `server`'s tool
/// `original` (`EmbeddedServer::add_transformed_tool_json`). With `reshape`, a plain function
/// called with the original's structured output, whose return value is the new tool's
/// (checked against `output_schema` when given). An `output_schema` without `reshape` raises
/// `ValueError` (the engine's refusal, told apart by its reason).
#[pyfunction]
#[pyo3(signature = (server, original, transform, reshape=None, output_schema=None))]
pub fn add_transformed_tool(
    py: Python<'_>,
    server: &NativeServer,
    original: &str,
    transform: &Bound<'_, PyAny>,
    reshape: Option<Py<PyAny>>,
    output_schema: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let transform = py_to_value(transform)?;
    let output_schema = output_schema.map(py_to_value).transpose()?;
    let reshape = reshape.map(|f| Arc::new(PyReshape(f)) as Arc<dyn ForeignOutputReshape>);
    server
        .server
        .add_transformed_tool_json(original, transform, reshape, output_schema)
        .map_err(|e| {
            // A wrong combination of arguments, which Python spells ValueError; the other
            // refusals keep their MCP error (InvalidParams).
            if is_output_schema_without_reshape(&e) {
                PyValueError::new_err(
                    "output_schema describes what transform_output returns: give both",
                )
            } else {
                to_py_err(py, e)
            }
        })
}
