//! Errors across the boundary: [`McpError`] to the Python exception classes defined in
//! `ferromcp.errors` (chosen there by code and by the error's kind, named by
//! [`ferromcp_embed::kind_name`], so a peer's -32000 answer is not a closed connection), and
//! Python exceptions back to [`McpError`]. `ferromcp.errors` sits above this module (it reads
//! `ERROR_CODES` from it), so it hands its `from_code` down when imported
//! ([`set_error_factory`]) rather than being imported from here: no import circle (issue 35).

use crate::convert::{py_to_value, value_to_py};
use ferromcp::McpError;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::Mutex;

/// `ferromcp.errors.from_code`, as `ferromcp.errors` hands it over when imported (which
/// `import ferromcp` does before anything can fail).
static FROM_CODE: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

/// Takes the function that builds the Python exception of an engine error:
/// `factory(code, message, data, kind)` (`ferromcp.errors.from_code`). A later call replaces it.
#[pyfunction]
pub fn set_error_factory(factory: Py<PyAny>) {
    *FROM_CODE.lock().unwrap_or_else(|p| p.into_inner()) = Some(factory);
}

/// Builds the Python exception for an engine error (`ferromcp.errors.from_code`, given the
/// error's kind; a `RuntimeError` with the error's text if that fails).
pub fn to_py_err(py: Python<'_>, e: McpError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let data = match &e.data {
            Some(d) => value_to_py(py, d)?,
            None => py.None(),
        };
        let factory = FROM_CODE
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|f| f.clone_ref(py))
            .ok_or_else(|| PyRuntimeError::new_err("ferromcp.errors is not imported"))?;
        let exc = factory.call1(
            py,
            (
                e.code,
                e.message.clone(),
                data,
                ferromcp_embed::kind_name(e.kind()),
            ),
        )?;
        Ok(PyErr::from_value(exc.into_bound(py)))
    };
    build().unwrap_or_else(|_| PyRuntimeError::new_err(e.to_string()))
}

/// Converts a Python exception raised by a handler into an engine error: an exception with an
/// integer `code` attribute (`ferromcp.McpError`) keeps its code, message and `data`; anything
/// else is an internal error marked as an exception ([`McpError::handler_exception`]: a tool's
/// is a tool execution error, in a task of the tasks extension too).
pub fn from_py_err(py: Python<'_>, err: &PyErr) -> McpError {
    let value = err.value(py);
    if let Ok(code) = value.getattr("code").and_then(|c| c.extract::<i32>()) {
        let message = value
            .getattr("message")
            .and_then(|m| m.extract::<String>())
            .unwrap_or_else(|_| value.to_string());
        let mut out = McpError::new(code, message);
        if let Ok(d) = value.getattr("data") {
            if !d.is_none() {
                if let Ok(v) = py_to_value(&d) {
                    out = out.with_data(v);
                }
            }
        }
        return out;
    }
    let kind = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    McpError::handler_exception(format!("{kind}: {value}"))
}

/// Converts an engine error into a `PyErr` (acquires the GIL; use off tokio workers only).
pub fn py_err(e: McpError) -> PyErr {
    Python::with_gil(|py| to_py_err(py, e))
}
