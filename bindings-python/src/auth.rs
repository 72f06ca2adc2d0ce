//! OAuth for `Client.http(..., auth=OAuth(...))`: builds the engine's [`OAuthClient`] from the
//! dict `ferromcp.OAuth` packs: the redirect callback (a Python function, or the loopback
//! helper with a Python `open`), the token store (memory, a file, or a Python object with
//! `load` / `save` / `remove`) and the client identity; and the server side, [`ResourceAuth`]
//! from the engine's `ProtectionSettings` around a Python `verify(token)` function or a built-in
//! JWT / introspection verifier (`serve_http(auth=ProtectedResource(...))`).

use crate::convert::{py_to_value, value_to_py};
use crate::handler::{LoopCell, PyHandler};
use ferromcp::auth::{
    AuthError, AuthInfo, FileTokenStore, FnRedirect, LoopbackRedirect, MemoryTokenStore,
    OAuthClient, OAuthConfig, RedirectHandler, ResourceAuth, StoredAuth, TokenStore, TokenVerifier,
};
use ferromcp::embed::{auth_info_from_json, ProtectionSettings};
use futures_util::future::BoxFuture;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// A token store backed by a Python object's `load(key)`, `save(key, dict)`, `remove(key)`.
struct PyTokenStore {
    obj: Py<PyAny>,
}

impl PyTokenStore {
    fn call(&self, method: &str, args: Vec<Py<PyAny>>) -> Result<serde_json::Value, AuthError> {
        Python::with_gil(|py| {
            let args = pyo3::types::PyTuple::new(py, args).map_err(|e| e.to_string())?;
            let out = self
                .obj
                .bind(py)
                .call_method1(method, args)
                .map_err(|e| e.to_string())?;
            py_to_value(&out).map_err(|e| e.to_string())
        })
        .map_err(|e: String| AuthError::Store(format!("token_store.{method}: {e}")))
    }
}

fn key_arg(key: &str) -> Vec<Py<PyAny>> {
    Python::with_gil(|py| {
        vec![key
            .into_pyobject(py)
            .expect("str converts")
            .into_any()
            .unbind()]
    })
}

impl TokenStore for PyTokenStore {
    fn load(&self, key: &str) -> Result<Option<StoredAuth>, AuthError> {
        match self.call("load", key_arg(key))? {
            serde_json::Value::Null => Ok(None),
            v => serde_json::from_value(v)
                .map(Some)
                .map_err(|e| AuthError::Store(format!("token_store.load returned {e}"))),
        }
    }
    fn save(&self, key: &str, value: &StoredAuth) -> Result<(), AuthError> {
        let v = serde_json::to_value(value).expect("serializes");
        let mut args = key_arg(key);
        Python::with_gil(|py| value_to_py(py, &v).map(|p| args.push(p)))
            .map_err(|e| AuthError::Store(e.to_string()))?;
        self.call("save", args).map(|_| ())
    }
    fn remove(&self, key: &str) -> Result<(), AuthError> {
        self.call("remove", key_arg(key)).map(|_| ())
    }
}

fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => Ok(Some(v.extract()?)),
        _ => Ok(None),
    }
}

/// Builds the engine's OAuth client from the dict of `ferromcp.OAuth._native_config()`.
pub fn oauth_from_py(d: &Bound<'_, PyDict>, cell: LoopCell) -> PyResult<Arc<OAuthClient>> {
    let client_id: Option<String> = get(d, "client_id")?;
    let client_secret: Option<String> = get(d, "client_secret")?;
    let grant: String = get(d, "grant")?.unwrap_or_else(|| "authorization_code".into());
    let mut config = if grant == "client_credentials" {
        let (Some(id), Some(secret)) = (client_id.clone(), client_secret.clone()) else {
            return Err(PyValueError::new_err(
                "client_credentials needs client_id and client_secret",
            ));
        };
        OAuthConfig::client_credentials(id, secret)
    } else {
        let redirect: Arc<dyn RedirectHandler> = match d.get_item("on_redirect")? {
            Some(f) if !f.is_none() => {
                let uri: String = get(d, "redirect_uri")?
                    .ok_or_else(|| PyValueError::new_err("on_redirect needs redirect_uri"))?;
                let handler = PyHandler::new(f.unbind(), cell);
                Arc::new(FnRedirect::new(uri, move |url: String| {
                    let call = handler.call_values(vec![serde_json::Value::String(url)]);
                    Box::pin(async move {
                        match call.await {
                            Ok(serde_json::Value::String(s)) => Ok(s),
                            Ok(other) => Err(AuthError::Redirect(format!(
                                "on_redirect must return the redirect URL (a str), got {other}"
                            ))),
                            Err(e) => Err(AuthError::Redirect(format!(
                                "on_redirect failed: {}",
                                e.message
                            ))),
                        }
                    }) as futures_util::future::BoxFuture<'static, _>
                }))
            }
            _ => {
                let port: u16 = get(d, "loopback_port")?.unwrap_or(0);
                let open: Option<Py<PyAny>> = get(d, "open_browser")?;
                let open = Arc::new(open);
                let lb = LoopbackRedirect::bind(port, move |url: &str| {
                    let Some(f) = open.as_ref() else {
                        eprintln!("Open this URL to authorize: {url}");
                        return Ok(());
                    };
                    Python::with_gil(|py| f.bind(py).call1((url,)).map(|_| ()))
                        .map_err(|e| format!("open_browser failed: {e}"))
                })
                .map_err(|e| PyValueError::new_err(format!("loopback listener: {e}")))?;
                Arc::new(lb)
            }
        };
        let mut c = OAuthConfig::new(redirect);
        if let Some(id) = client_id {
            c = c.pre_registered(id, client_secret);
        }
        c
    };
    if let Some(name) = get::<String>(d, "client_name")? {
        config = config.client_name(name);
    }
    if let Some(url) = get::<String>(d, "client_metadata_url")? {
        config = config.client_metadata_url(url);
    }
    if let Some(scopes) = get::<Vec<String>>(d, "scopes")? {
        config.default_scopes = scopes;
    }
    if let Some(n) = get::<usize>(d, "max_attempts")? {
        config.max_attempts = n;
    }
    let store: Arc<dyn TokenStore> = if let Some(path) = get::<String>(d, "token_file")? {
        Arc::new(FileTokenStore::new(path))
    } else if let Some(obj) = d.get_item("token_store")?.filter(|o| !o.is_none()) {
        Arc::new(PyTokenStore { obj: obj.unbind() })
    } else {
        Arc::new(MemoryTokenStore::new())
    };
    config = config.store(store);
    Ok(Arc::new(OAuthClient::new(config)))
}

/// Builds the engine's [`ResourceAuth`] from the dict of `ferromcp.ProtectedResource`:
/// `settings` (the engine's `ProtectionSettings` as camelCase JSON, with a built-in `jwt` or
/// `introspection` verifier) and `verify` (a Python function, or `None` with a built-in one).
pub fn resource_auth_from_py(d: &Bound<'_, PyDict>, cell: LoopCell) -> PyResult<Arc<ResourceAuth>> {
    let settings = d
        .get_item("settings")?
        .ok_or_else(|| PyValueError::new_err("settings are required"))?;
    let settings = ProtectionSettings::from_json(py_to_value(&settings)?).map_err(to_py)?;
    let verifier = match d.get_item("verify")?.filter(|v| !v.is_none()) {
        None => None,
        Some(verify) => {
            let handler = PyHandler::new(verify.unbind(), cell);
            let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
                let call = handler.call_values(vec![serde_json::Value::String(token.to_string())]);
                Box::pin(async move {
                    match call.await {
                        Ok(v) => auth_info_from_json(v),
                        Err(e) => Err(e.message),
                    }
                })
            };
            Some(Arc::new(verifier) as Arc<dyn TokenVerifier>)
        }
    };
    settings.build(verifier).map_err(to_py)
}

fn to_py(e: ferromcp::McpError) -> PyErr {
    PyValueError::new_err(e.message)
}
