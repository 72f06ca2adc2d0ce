//! OAuth for `Client.http(..., auth=OAuth(...))`: builds the engine's [`OAuthClient`] from the
//! engine's shared `OAuthSettings` (the same keys as Node and Swift) and the Python callables
//! `ferromcp.OAuth` packs beside them: the redirect callback (or the loopback helper with a
//! Python `open`) and a token store object with `load` / `save` / `remove`; and the server side, [`ResourceAuth`]
//! from the engine's `ProtectionSettings` around a Python `verify(token)` function or a built-in
//! JWT / introspection verifier (`serve_http(auth=ProtectedResource(...))`).

use crate::convert::{py_to_value, value_to_py};
use crate::handler::{LoopCell, PyHandler};
use ferromcp::auth::{AuthInfo, OAuthClient, ResourceAuth, TokenVerifier};
use ferromcp_embed::{
    auth_info_from_json, foreign_token_store, ForeignOpener, ForeignRedirect, ForeignTokenStore,
    OAuthSettings, ProtectionSettings,
};
use futures_util::future::BoxFuture;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use std::sync::Arc;

/// A token store backed by a Python object's `load(key)`, `save(key, dict)`, `remove(key)`;
/// the embed adapter ([`foreign_token_store`]) decodes what it answers and words its errors.
struct PyTokenStore {
    obj: Py<PyAny>,
}

impl PyTokenStore {
    fn call(&self, method: &str, key: &str, value: Option<&Value>) -> Result<Value, String> {
        Python::with_gil(|py| {
            let obj = self.obj.bind(py);
            let out = match value {
                None => obj.call_method1(method, (key,)),
                Some(v) => obj.call_method1(method, (key, value_to_py(py, v)?)),
            }?;
            py_to_value(&out)
        })
        .map_err(|e: PyErr| e.to_string())
    }
}

impl ForeignTokenStore for PyTokenStore {
    fn load(&self, key: &str) -> Result<Value, String> {
        self.call("load", key, None)
    }
    fn save(&self, key: &str, value: Value) -> Result<(), String> {
        self.call("save", key, Some(&value)).map(|_| ())
    }
    fn remove(&self, key: &str) -> Result<(), String> {
        self.call("remove", key, None).map(|_| ())
    }
}

/// Builds the engine's OAuth client from the dict of `ferromcp.OAuth._native_config()`:
/// `settings` (the engine's `OAuthSettings`, camelCase, as Node and Swift pass them), the
/// redirect callback `on_redirect`, the loopback `open_browser` and a `token_store` object.
pub fn oauth_from_py(d: &Bound<'_, PyDict>, cell: LoopCell) -> PyResult<Arc<OAuthClient>> {
    let settings = d
        .get_item("settings")?
        .ok_or_else(|| PyValueError::new_err("settings are required"))?;
    let settings = OAuthSettings::from_json(py_to_value(&settings)?).map_err(to_py)?;
    let present = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(d.get_item(key)?.filter(|v| !v.is_none()))
    };
    let redirect: Option<ForeignRedirect> = present("on_redirect")?.map(|f| {
        let handler = PyHandler::new(f.unbind(), cell);
        Arc::new(move |url: String| {
            let call = handler.call_values(vec![Value::String(url)]);
            Box::pin(async move {
                match call.await {
                    Ok(Value::String(s)) => Ok(s),
                    Ok(other) => Err(format!(
                        "on_redirect must return the redirect URL (a str), got {other}"
                    )),
                    Err(e) => Err(format!("on_redirect failed: {}", e.message)),
                }
            }) as BoxFuture<'static, _>
        }) as ForeignRedirect
    });
    let open: Option<ForeignOpener> = present("open_browser")?.map(|f| {
        let f = f.unbind();
        Arc::new(move |url: &str| {
            Python::with_gil(|py| f.bind(py).call1((url,)).map(|_| ()))
                .map_err(|e| format!("open_browser failed: {e}"))
        }) as ForeignOpener
    });
    let store = present("token_store")?
        .map(|obj| foreign_token_store("token_store", PyTokenStore { obj: obj.unbind() }));
    settings.build(redirect, open, store).map_err(to_py)
}

/// Builds the engine's [`ResourceAuth`] from the dict of `ferromcp.ProtectedResource`:
/// `settings` (the engine's `ProtectionSettings` as camelCase JSON, with a built-in `jwt` or
/// `introspection` verifier) and `verify` (a Python function, or `None` with a built-in one,
/// or the `NativeOAuthProxy` of `OAuthProxy.protected_resource()`: the proxy's tokens are then
/// checked in the engine, with no call into Python).
pub fn resource_auth_from_py(d: &Bound<'_, PyDict>, cell: LoopCell) -> PyResult<Arc<ResourceAuth>> {
    let settings = d
        .get_item("settings")?
        .ok_or_else(|| PyValueError::new_err("settings are required"))?;
    let settings = ProtectionSettings::from_json(py_to_value(&settings)?).map_err(to_py)?;
    let verifier = match d.get_item("verify")?.filter(|v| !v.is_none()) {
        None => None,
        Some(verify) if verify.is_instance_of::<crate::oauth_proxy::NativeOAuthProxy>() => {
            let native = verify.downcast::<crate::oauth_proxy::NativeOAuthProxy>()?;
            Some(native.get().verifier())
        }
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
