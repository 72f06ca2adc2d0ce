//! The OAuth proxy for Python (`ferromcp.oauth_proxy.OAuthProxy`): the engine's
//! [`EmbeddedOAuthProxy`] behind a class whose `handle` takes a request as method, target,
//! the ASGI scope's header pairs and the body, and answers status, header pairs and body (or
//! `None` for a path that is not the proxy's). Every rule of the endpoints is the engine's (the
//! same as Node's `ferromcp/server/auth/oauthProxy.js`); the Python facade only adapts ASGI.

use crate::convert::py_to_value;
use crate::runtime::{future_into_py, Out};
use ferromcp_embed::{EmbeddedOAuthProxy, HttpRequestParts};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// An OAuth proxy (made by `create_oauth_proxy`).
#[pyclass(frozen, name = "NativeOAuthProxy")]
pub struct NativeOAuthProxy {
    proxy: EmbeddedOAuthProxy,
}

/// Makes an OAuth proxy from the engine's `OAuthProxySettings` (camelCase JSON); an awaitable
/// that raises `InvalidParams` for bad options or a failed OpenID discovery.
#[pyfunction]
pub fn create_oauth_proxy<'py>(
    py: Python<'py>,
    options: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = py_to_value(options)?;
    future_into_py(py, async move {
        let proxy = EmbeddedOAuthProxy::new(options).await?;
        Ok(Out::Obj(Box::new(move |py| {
            Ok(Py::new(py, NativeOAuthProxy { proxy })?.into_any())
        })))
    })
}

impl NativeOAuthProxy {
    /// The proxy as the engine's verifier: a `ProtectedResource` made by
    /// `OAuthProxy.protected_resource()` carries this object, so that the engine checks the
    /// proxy's tokens itself, with no call into Python per request (`auth::resource_auth_from_py`).
    pub fn verifier(&self) -> std::sync::Arc<dyn ferromcp::auth::TokenVerifier> {
        self.proxy.verifier()
    }
}

/// A header name or value given as `bytes` (ASGI) or `str`.
fn text(o: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(match o.downcast::<PyBytes>() {
        Ok(b) => String::from_utf8_lossy(b.as_bytes()).into_owned(),
        Err(_) => o.extract::<String>()?,
    })
}

#[pymethods]
impl NativeOAuthProxy {
    /// The authorization server metadata (RFC 8414).
    fn metadata(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::convert::value_to_py(py, &self.proxy.metadata())
    }

    /// The redirect URI to register at the upstream identity provider.
    #[getter]
    fn callback_url(&self) -> String {
        self.proxy.callback_url()
    }

    /// Whether `path` is one of the proxy's endpoints.
    fn serves(&self, path: &str) -> bool {
        self.proxy.serves(path)
    }

    /// Answers one request (awaitable of `(status, [(name, value)], body)` with byte strings,
    /// or `None` when the path is not one of the proxy's endpoints). `headers`: `(name, value)`
    /// pairs of bytes or str; `target`: the path and query.
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
            fields.push((text(&pair.get_item(0)?)?, text(&pair.get_item(1)?)?));
        }
        let req = HttpRequestParts {
            method,
            uri: target,
            headers: fields,
            body: body.as_bytes().to_vec(),
        };
        let proxy = self.proxy.clone();
        future_into_py(py, async move {
            let Some(r) = proxy.handle(req).await else {
                return Ok(Out::None);
            };
            Ok(Out::Obj(Box::new(move |py| {
                let mut headers: Vec<Bound<'_, PyTuple>> = Vec::new();
                for (k, v) in &r.headers {
                    let pair = [
                        PyBytes::new(py, k.as_bytes()),
                        PyBytes::new(py, v.as_bytes()),
                    ];
                    headers.push(PyTuple::new(py, pair)?);
                }
                let out = (
                    r.status,
                    PyList::new(py, headers)?,
                    PyBytes::new(py, &r.body),
                );
                Ok(out.into_pyobject(py)?.into_any().unbind())
            })))
        })
    }

    /// Verifies a token the proxy issued: an awaitable of the identity (`token`, `subject`,
    /// `clientId`, `scopes`, `audience`, `expiresAt`, `claims`) or `None` when it is refused.
    fn verify<'py>(&self, py: Python<'py>, token: String) -> PyResult<Bound<'py, PyAny>> {
        let proxy = self.proxy.clone();
        future_into_py(py, async move {
            Ok(match proxy.verify(&token).await {
                Ok(v) => Out::Json(v),
                Err(_) => Out::None,
            })
        })
    }
}
