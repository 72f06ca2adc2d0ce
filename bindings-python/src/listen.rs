//! `NativeSubscription`: the Python face of [`EmbeddedSubscription`] (`subscriptions/listen`,
//! 2026-07-28). `ferromcp.Subscription` wraps it as an async context manager and iterator.

use crate::convert::{py_to_value, value_to_py};
use crate::error::to_py_err;
use crate::runtime::{future_into_py, Out};
use ferromcp_embed::{EmbeddedClient, EmbeddedSubscription};
use pyo3::prelude::*;
use serde_json::json;
use std::sync::Arc;

/// An open subscription. `next()` is an awaitable of `(method, params)` or `None` once it is
/// over; `close()` ends it on the server (also while a `next()` waits).
#[pyclass(frozen, name = "NativeSubscription")]
pub struct NativeSubscription {
    sub: Arc<EmbeddedSubscription>,
}

/// `client.listen(filter)`: an awaitable of `NativeSubscription` once the server acknowledged.
pub fn listen<'py>(
    py: Python<'py>,
    client: Arc<EmbeddedClient>,
    filter: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let filter = py_to_value(filter)?;
    future_into_py(py, async move {
        let sub = Arc::new(client.listen(filter).await?);
        Ok(Out::Obj(Box::new(move |py| {
            Ok(Py::new(py, NativeSubscription { sub })?.into_any())
        })))
    })
}

#[pymethods]
impl NativeSubscription {
    /// The subscription id.
    #[getter]
    fn id(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.sub.id())
    }

    /// The filter the server agreed to (`SubscriptionFilter` dict).
    #[getter]
    fn acknowledged(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &self.sub.acknowledged())
    }

    /// Awaitable of the next `(method, params)`, or `None` once the subscription is over.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let sub = self.sub.clone();
        future_into_py(py, async move {
            Ok(match sub.next().await {
                Some(n) => Out::Json(json!([n.method, n.params])),
                None => Out::None,
            })
        })
    }

    /// The server's final result when it ended the subscription, else `None`.
    #[getter]
    fn result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.sub.end() {
            Some(Ok(v)) => value_to_py(py, &v),
            _ => Ok(py.None()),
        }
    }

    /// The error that ended the subscription (an `McpError`), else `None`.
    #[getter]
    fn error(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.sub.end() {
            Some(Err(e)) => Ok(to_py_err(py, e).into_value(py).into_any()),
            _ => Ok(py.None()),
        }
    }

    /// Whether the subscription is over.
    #[getter]
    fn ended(&self) -> bool {
        self.sub.end().is_some()
    }

    /// Ends the subscription (idempotent, does not block).
    fn close(&self) {
        self.sub.close()
    }
}
