//! Composition and tool transforms for Python (`Server.mount`, `Server.import_server`,
//! `Server.transform_tool`): thin calls into the engine's `Server::mount`,
//! `Server::import_server` and `Server::add_transformed_tool` (core/src/server/compose.rs,
//! transform.rs). Authorization needs nothing here: it is a built-in middleware configured by
//! name (`{"name": "authorization", ...}`).

use crate::convert::{py_to_value, value_to_py};
use crate::error::{from_py_err, to_py_err};
use crate::server::NativeServer;
use ferromcp::server::transform::ToolTransform;
use pyo3::prelude::*;

/// Mounts `child` on `parent` under `prefix`, live (see `ferromcp::server::Server::mount`).
#[pyfunction]
pub fn mount_server(
    py: Python<'_>,
    parent: &NativeServer,
    prefix: &str,
    child: &NativeServer,
) -> PyResult<()> {
    parent
        .server
        .server()
        .mount(prefix, child.server.server())
        .map_err(|e| to_py_err(py, e))?;
    // The child's `async def` handlers run on the loop that serves the parent.
    parent.event_loop.lead(&child.event_loop);
    Ok(())
}

/// Copies `child`'s features into `parent` under `prefix`, once.
#[pyfunction]
pub fn import_server(
    py: Python<'_>,
    parent: &NativeServer,
    prefix: &str,
    child: &NativeServer,
) -> PyResult<()> {
    parent
        .server
        .server()
        .import_server(prefix, child.server.server())
        .map_err(|e| to_py_err(py, e))?;
    parent.event_loop.lead(&child.event_loop);
    Ok(())
}

/// Registers the tool `transform` (a `ToolTransformConfig` dict) makes from `server`'s tool
/// `original`. With `reshape`, a plain function called with the original's structured output,
/// whose return value is the new tool's (checked against `output_schema` when given).
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
    let config = py_to_value(transform)?;
    let mut t = ToolTransform::from_json(config).map_err(|e| to_py_err(py, e))?;
    if let Some(f) = reshape {
        let schema = output_schema.map(py_to_value).transpose()?;
        t = t.reshape_output(schema, move |value| {
            // A short, synchronous Python call (as the token store's): the GIL is taken on the
            // engine thread that finished the original call.
            Python::with_gil(|py| {
                let arg = value_to_py(py, &value).map_err(|e| from_py_err(py, &e))?;
                let out = f.bind(py).call1((arg,)).map_err(|e| from_py_err(py, &e))?;
                py_to_value(&out).map_err(|e| from_py_err(py, &e))
            })
        });
    }
    server
        .server
        .server()
        .add_transformed_tool(original, t)
        .map_err(|e| to_py_err(py, e))
}
