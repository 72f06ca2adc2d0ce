//! Errors across the boundary: [`McpError`] to the Python exception classes defined in
//! `ferromcp.errors` (chosen there by code and by the error's kind, named by
//! [`ferromcp_embed::kind_name`], so a peer's -32000 answer is not a closed connection), and
//! Python exceptions back to [`McpError`].

use crate::convert::{py_to_value, value_to_py};
use ferromcp::McpError;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Builds the Python exception for an engine error (`ferromcp.errors.from_code`, given the
/// error's kind).
pub fn to_py_err(py: Python<'_>, e: McpError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let data = match &e.data {
            Some(d) => value_to_py(py, d)?,
            None => py.None(),
        };
        let exc = py.import("ferromcp.errors")?.getattr("from_code")?.call1((
            e.code,
            e.message.clone(),
            data,
            ferromcp_embed::kind_name(e.kind()),
        ))?;
        Ok(PyErr::from_value(exc))
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
