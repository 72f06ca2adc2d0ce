//! OAuth for Node: [`NativeOAuth`] (the client side of `Client.http(url, { auth })`) and
//! [`NativeProtection`] (the server side of `listen({ auth })` and `createHttpHandler({ auth })`).
//! The options are the engine's [`OAuthSettings`] / [`ProtectionSettings`]; this module only
//! turns the facade's JavaScript functions into the engine's callbacks:
//! - the redirect step and `verify(token)` return promises (the facade wraps sync functions),
//!   awaited on the engine's side;
//! - the token store is one synchronous function `store(op, key, value)` (the facade adapts a
//!   `{ load, save, remove }` object); the engine's store calls are synchronous, so the worker
//!   waits for the JavaScript thread's answer (bounded, outside the runtime's scheduling).

use crate::error::to_napi;
use ferromcp::auth::{AuthInfo, OAuthClient, ResourceAuth};
use ferromcp_embed::{
    auth_info_from_json, foreign_token_store, ForeignOpener, ForeignRedirect, ForeignTokenStore,
    OAuthSettings, ProtectionSettings,
};
use futures_util::future::BoxFuture;
use napi::bindgen_prelude::{FnArgs, Function, Promise};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

type PromiseFn<R> = ThreadsafeFunction<String, Promise<R>, String, Status, false, true>;
type OpenFn = ThreadsafeFunction<String, (), String, Status, false, true>;
type StoreArgs = FnArgs<(String, String, Value)>;
type StoreFn = ThreadsafeFunction<(String, String, Value), Value, StoreArgs, Status, false, true>;

/// How long the engine waits for a JavaScript token store to answer.
const STORE_TIMEOUT: Duration = Duration::from_secs(30);

fn promise_fn<R: napi::bindgen_prelude::FromNapiValue + 'static>(
    f: Function<'_, String, Promise<R>>,
) -> napi::Result<Arc<PromiseFn<R>>> {
    Ok(Arc::new(
        f.build_threadsafe_function::<String>()
            .weak::<true>()
            .callee_handled::<false>()
            .build()?,
    ))
}

/// A token store backed by the facade's `store(op, key, value)` function.
struct JsTokenStore {
    f: StoreFn,
}

impl JsTokenStore {
    /// Calls `store(op, key, value)` on the JavaScript thread and waits for its answer.
    fn call(&self, op: &str, key: &str, value: Value) -> Result<Value, String> {
        let (tx, rx) = std::sync::mpsc::channel();
        let status = self.f.call_with_return_value(
            (op.to_string(), key.to_string(), value),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |r: napi::Result<Value>, _env| {
                let _ = tx.send(r.map_err(|e| e.reason));
                Ok(())
            },
        );
        if status != Status::Ok {
            return Err(format!("the JavaScript event loop is gone ({status})"));
        }
        let wait = || rx.recv_timeout(STORE_TIMEOUT);
        let answer = match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
            _ => wait(),
        };
        answer.unwrap_or_else(|_| {
            Err(format!(
                "did not answer within {} s",
                STORE_TIMEOUT.as_secs()
            ))
        })
    }
}

/// The embed adapter ([`foreign_token_store`]) decodes what the store answers and words its
/// errors; this only moves JSON to and from JavaScript.
impl ForeignTokenStore for JsTokenStore {
    fn load(&self, key: &str) -> Result<Value, String> {
        self.call("load", key, Value::Null)
    }
    fn save(&self, key: &str, value: Value) -> Result<(), String> {
        self.call("save", key, value).map(|_| ())
    }
    fn remove(&self, key: &str) -> Result<(), String> {
        self.call("remove", key, Value::Null).map(|_| ())
    }
}

/// A client's OAuth configuration, handed to `NativeClient.connectHttpAuth`.
#[napi]
pub struct NativeOAuth {
    pub(crate) client: Arc<OAuthClient>,
}

#[napi]
impl NativeOAuth {
    /// `options`: the engine's OAuth settings (camelCase). `onRedirect(url) -> Promise<string>`
    /// is the redirect step (else a loopback listener is bound now and `openBrowser(url)` shows
    /// the URL); `store(op, key, value)` is a synchronous token store (`op`: load, save, remove).
    #[napi(
        constructor,
        ts_args_type = "options: any, onRedirect?: ((url: string) => Promise<string>) | undefined | null, openBrowser?: ((url: string) => void) | undefined | null, store?: ((op: string, key: string, value: any) => any) | undefined | null"
    )]
    pub fn new(
        options: Value,
        on_redirect: Option<Function<'_, String, Promise<String>>>,
        open_browser: Option<Function<'_, String, ()>>,
        store: Option<Function<'_, StoreArgs, Value>>,
    ) -> napi::Result<Self> {
        let settings = OAuthSettings::from_json(options).map_err(to_napi)?;
        let redirect: Option<ForeignRedirect> = match on_redirect {
            Some(f) => {
                let tsfn = promise_fn(f)?;
                Some(Arc::new(move |url: String| {
                    let tsfn = tsfn.clone();
                    Box::pin(async move {
                        let promise = tsfn.call_async(url).await.map_err(|e| e.reason)?;
                        promise
                            .await
                            .map_err(|e| format!("onRedirect failed: {}", e.reason))
                    }) as BoxFuture<'static, _>
                }))
            }
            None => None,
        };
        let open: Option<ForeignOpener> = match open_browser {
            Some(f) => {
                let tsfn: OpenFn = f
                    .build_threadsafe_function::<String>()
                    .weak::<true>()
                    .callee_handled::<false>()
                    .build()?;
                Some(Arc::new(move |url: &str| {
                    match tsfn.call(url.to_string(), ThreadsafeFunctionCallMode::NonBlocking) {
                        Status::Ok => Ok(()),
                        s => Err(format!(
                            "openBrowser: the JavaScript event loop is gone ({s})"
                        )),
                    }
                }))
            }
            None => None,
        };
        let store = match store {
            Some(f) => Some(foreign_token_store(
                "tokenStore",
                JsTokenStore {
                    f: f.build_threadsafe_function::<(String, String, Value)>()
                        .weak::<true>()
                        .callee_handled::<false>()
                        .build_callback(|cx| Ok(FnArgs::from(cx.value)))?,
                },
            )),
            None => None,
        };
        let client =
            crate::runtime::enter(|| settings.build(redirect, open, store)).map_err(to_napi)?;
        Ok(Self { client })
    }
}

/// A server's bearer-token protection, handed to `serveHttpAuth` / `httpHandlerAuth`.
#[napi]
pub struct NativeProtection {
    pub(crate) auth: Arc<ResourceAuth>,
}

#[napi]
impl NativeProtection {
    /// `options`: the engine's `ProtectionSettings` (camelCase: `resource`,
    /// `authorizationServers`, `requiredScopes`, `scopesSupported`, `checkAudience`, and a
    /// built-in `jwt` or `introspection` verifier, or neither when `verify` is given).
    /// `verify(token)` resolves with the identity object or null (refused); a rejection's
    /// message becomes the `error_description`.
    #[napi(
        constructor,
        ts_args_type = "options: any, verify?: ((token: string) => Promise<any>) | undefined | null"
    )]
    pub fn new(
        options: Value,
        verify: Option<Function<'_, String, Promise<Value>>>,
    ) -> napi::Result<Self> {
        let settings = ProtectionSettings::from_json(options).map_err(to_napi)?;
        let verifier = match verify {
            None => None,
            Some(verify) => {
                let tsfn = promise_fn(verify)?;
                let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
                    let tsfn = tsfn.clone();
                    let token = token.to_string();
                    Box::pin(async move {
                        let promise = tsfn.call_async(token).await.map_err(|e| e.reason)?;
                        let v = promise.await.map_err(|e| e.reason)?;
                        auth_info_from_json(v)
                    })
                };
                Some(Arc::new(verifier) as Arc<dyn ferromcp::auth::TokenVerifier>)
            }
        };
        Ok(Self {
            auth: settings.build(verifier).map_err(to_napi)?,
        })
    }
}

#[napi]
impl NativeProtection {
    /// The path the Protected Resource Metadata is served at.
    #[napi(getter)]
    pub fn metadata_path(&self) -> String {
        self.auth.metadata_path()
    }
}
