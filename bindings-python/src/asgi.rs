//! `NativeHttpHandler`: Streamable HTTP one request at a time, for the ASGI app of
//! `ferromcp.asgi` (the Python host owns the listener: uvicorn, hypercorn, ...). A thin layer on
//! [`EmbeddedHttpHandler`], the entry point the Node binding's `handleNode` uses too: sessions,
//! SSE streams, the Host/Origin checks and bearer tokens stay in the engine; this module only
//! converts the request's and the response's values.

use crate::runtime::{future_into_py, Out};
use ferromcp_embed::{EmbeddedHttpHandler, EmbeddedHttpResponse, HttpRequestParts};
use futures_util::FutureExt;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::sync::Arc;

/// Streamable HTTP for a Python host that owns the listener (made by
/// `NativeServer.http_handler`).
#[pyclass(frozen, name = "NativeHttpHandler")]
pub struct NativeHttpHandler {
    pub(crate) handler: EmbeddedHttpHandler,
}

/// Header fields an ASGI server writes itself (framing and connection management).
fn hop_by_hop(name: &str) -> bool {
    matches!(
        name,
        "connection" | "transfer-encoding" | "keep-alive" | "content-length"
    )
}

#[pymethods]
impl NativeHttpHandler {
    /// Answers one request (awaitable of `NativeHttpResponse`). `headers` is the ASGI scope's
    /// list of `(name, value)` byte pairs; `target` the path (within the app) and query.
    /// A response that is not an SSE stream is read whole before it is returned (its `body`);
    /// an SSE stream is returned at once and read with `next_chunk()`.
    fn handle<'py>(
        &self,
        py: Python<'py>,
        method: String,
        target: String,
        headers: &Bound<'py, PyAny>,
        body: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut fields = Vec::new();
        for pair in headers.try_iter()? {
            let pair = pair?;
            let name = pair.get_item(0)?;
            let value = pair.get_item(1)?;
            let text = |o: &Bound<'py, PyAny>| -> PyResult<String> {
                Ok(match o.downcast::<PyBytes>() {
                    Ok(b) => String::from_utf8_lossy(b.as_bytes()).into_owned(),
                    Err(_) => o.extract::<String>()?,
                })
            };
            fields.push((text(&name)?, text(&value)?));
        }
        let req = HttpRequestParts {
            method,
            uri: target,
            headers: fields,
            body: body.as_bytes().to_vec(),
        };
        let handler = self.handler.clone();
        future_into_py(py, async move {
            let response = handler.handle(req).await?;
            let streaming = response.headers.iter().any(|(k, v)| {
                k.eq_ignore_ascii_case("content-type") && v.starts_with("text/event-stream")
            });
            let mut whole = Vec::new();
            if !streaming {
                while let Some(chunk) = response.next_chunk().await? {
                    whole.extend_from_slice(&chunk);
                }
            }
            Ok(Out::Obj(Box::new(move |py| {
                let mut headers: Vec<Bound<'_, PyTuple>> = Vec::new();
                for (k, v) in &response.headers {
                    if hop_by_hop(k) {
                        continue;
                    }
                    let pair = [
                        PyBytes::new(py, k.as_bytes()),
                        PyBytes::new(py, v.as_bytes()),
                    ];
                    headers.push(PyTuple::new(py, pair)?);
                }
                let no_body = response.status == 204 || response.status == 304;
                if !streaming && !no_body {
                    let len = whole.len().to_string();
                    let pair = [
                        PyBytes::new(py, b"content-length"),
                        PyBytes::new(py, len.as_bytes()),
                    ];
                    headers.push(PyTuple::new(py, pair)?);
                }
                let out = NativeHttpResponse {
                    status: response.status,
                    headers: PyList::new(py, headers)?.unbind(),
                    body: PyBytes::new(py, &whole).unbind(),
                    streaming,
                    response: Arc::new(response),
                };
                Ok(Py::new(py, out)?.into_any())
            })))
        })
    }
}

/// The answer to one request: status, headers and (not streaming) the whole body; an SSE
/// stream's body comes from `next_chunk()`.
#[pyclass(frozen, name = "NativeHttpResponse")]
pub struct NativeHttpResponse {
    status: u16,
    headers: Py<PyList>,
    body: Py<PyBytes>,
    streaming: bool,
    response: Arc<EmbeddedHttpResponse>,
}

#[pymethods]
impl NativeHttpResponse {
    /// The status code.
    #[getter]
    fn status(&self) -> u16 {
        self.status
    }

    /// The header fields as ASGI wants them: a list of `(name, value)` byte pairs (framing
    /// fields left to the ASGI server; `content-length` set for a whole body).
    #[getter]
    fn headers(&self, py: Python<'_>) -> Py<PyList> {
        self.headers.clone_ref(py)
    }

    /// The whole body when not [`Self::streaming`] (empty otherwise).
    #[getter]
    fn body(&self, py: Python<'_>) -> Py<PyBytes> {
        self.body.clone_ref(py)
    }

    /// Whether the body is an SSE stream, read with [`Self::next_chunk`].
    #[getter]
    fn streaming(&self) -> bool {
        self.streaming
    }

    /// Awaitable of `(data, more)`: the stream's next bytes (every chunk ready at once, joined)
    /// and whether more may follow (`False` at the end, after `cancel()` too).
    fn next_chunk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let response = self.response.clone();
        future_into_py(py, async move {
            let mut data = Vec::new();
            let mut more = match response.next_chunk().await? {
                Some(chunk) => {
                    data = chunk;
                    true
                }
                None => false,
            };
            // Whatever else is ready now goes in the same answer (one trip to Python fewer;
            // often the stream's end right after a request's response event).
            while more {
                match response.next_chunk().now_or_never() {
                    Some(Ok(Some(chunk))) => data.extend_from_slice(&chunk),
                    Some(Ok(None)) => more = false,
                    Some(Err(e)) => return Err(e),
                    None => break,
                }
            }
            Ok(Out::Obj(Box::new(move |py| {
                let data = PyBytes::new(py, &data);
                let more = pyo3::types::PyBool::new(py, more).to_owned().into_any();
                Ok(PyTuple::new(py, [data.into_any(), more])?
                    .into_any()
                    .unbind())
            })))
        })
    }

    /// Drops the rest of the body (the client went away): an SSE stream is closed as if its
    /// connection had ended, and a pending `next_chunk()` answers `(b"", False)`.
    fn cancel(&self) {
        self.response.cancel()
    }
}
