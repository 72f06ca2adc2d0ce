//! `NativeClient`: the JavaScript face of [`EmbeddedClient`]. The facade's `Client` gives the
//! typed calls (`callTool`, `readResource`, ...) on top of [`NativeClient::request`].

use crate::convert::{opt, pairs};
use crate::error::{napi_result, to_napi};
use crate::handler::{JsHandler, NativeDispatcher};
use crate::server::NativeServer;
use ferromcp_embed::{
    CallOptions, CancelHandle, ClientConfig, EmbeddedClient, ForeignClientHandler,
};
use napi::bindgen_prelude::{Function, PromiseRaw};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The id the facade registers a client's request handler under.
const CLIENT_HANDLER: u32 = 0;

/// The engine's client config and the facade's handler for a new client (`client_tls.rs` too).
pub(crate) fn client_setup(
    config: Value,
    dispatcher: Option<&NativeDispatcher>,
) -> napi::Result<(ClientConfig, Option<Arc<dyn ForeignClientHandler>>)> {
    let config = ClientConfig::from_json(config).map_err(to_napi)?;
    let handler =
        dispatcher.map(|d| JsHandler::new(d, CLIENT_HANDLER) as Arc<dyn ForeignClientHandler>);
    Ok((config, handler))
}

/// An explicit cancel handle for one outgoing request (the facade wires an `AbortSignal` to it).
#[napi]
pub struct NativeCancel {
    pub(crate) handle: CancelHandle,
}

#[napi]
impl NativeCancel {
    /// A fresh handle.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self {
            handle: CancelHandle::new(),
        }
    }

    /// Cancels the request(s) made with this handle (`notifications/cancelled` is sent).
    #[napi]
    pub fn cancel(&self) {
        self.handle.cancel()
    }
}

/// Options of one outgoing request.
#[napi(object)]
pub struct NativeCallOptions {
    /// Timeout in milliseconds (the session default when absent).
    pub timeout_ms: Option<u32>,
    /// Whether each progress notification restarts the timeout.
    pub reset_timeout_on_progress: Option<bool>,
}

/// A connected, initialized client.
#[napi]
pub struct NativeClient {
    pub(crate) client: Arc<EmbeddedClient>,
}

#[napi]
impl NativeClient {
    /// Spawns `command args...` (with `env` added to this process's environment, in `cwd`) and
    /// connects over its stdio.
    #[napi(ts_return_type = "Promise<NativeClient>")]
    pub fn connect_stdio<'env>(
        env: &'env Env,
        command: String,
        args: Vec<String>,
        environment: Option<HashMap<String, String>>,
        cwd: Option<String>,
        config: Value,
        dispatcher: Option<&NativeDispatcher>,
    ) -> napi::Result<PromiseRaw<'env, NativeClient>> {
        let (config, handler) = client_setup(config, dispatcher)?;
        let envs = pairs(environment);
        env.spawn_future(async move {
            let c = EmbeddedClient::connect_stdio(command, args, envs, cwd, &config, handler).await;
            napi_result(c).map(|c| NativeClient {
                client: Arc::new(c),
            })
        })
    }

    /// Connects to a Streamable HTTP endpoint; `headers` go with every request.
    /// `legacyFallback` retries with the 2024-11-05 HTTP+SSE transport on a 4xx.
    #[napi(ts_return_type = "Promise<NativeClient>")]
    pub fn connect_http<'env>(
        env: &'env Env,
        url: String,
        headers: Option<HashMap<String, String>>,
        legacy_fallback: bool,
        config: Value,
        dispatcher: Option<&NativeDispatcher>,
    ) -> napi::Result<PromiseRaw<'env, NativeClient>> {
        let (config, handler) = client_setup(config, dispatcher)?;
        let headers = pairs(headers);
        env.spawn_future(async move {
            let c = EmbeddedClient::connect_http(&url, headers, legacy_fallback, &config, handler)
                .await;
            napi_result(c).map(|c| NativeClient {
                client: Arc::new(c),
            })
        })
    }

    /// [`Self::connect_http`] with OAuth 2.1 authorization: a 401 from the server runs `auth`'s
    /// flow, later 401s refresh, a 403 `insufficient_scope` steps up.
    #[napi(ts_return_type = "Promise<NativeClient>")]
    pub fn connect_http_auth<'env>(
        env: &'env Env,
        url: String,
        headers: Option<HashMap<String, String>>,
        legacy_fallback: bool,
        auth: &crate::auth::NativeOAuth,
        config: Value,
        dispatcher: Option<&NativeDispatcher>,
    ) -> napi::Result<PromiseRaw<'env, NativeClient>> {
        let (config, handler) = client_setup(config, dispatcher)?;
        let headers = pairs(headers);
        let auth = Some(auth.client.clone());
        env.spawn_future(async move {
            let c = EmbeddedClient::connect_http_auth(
                &url,
                headers,
                legacy_fallback,
                auth,
                &config,
                handler,
            )
            .await;
            napi_result(c).map(|c| NativeClient {
                client: Arc::new(c),
            })
        })
    }

    /// Connects to a server in this process over an in-memory transport.
    #[napi(ts_return_type = "Promise<NativeClient>")]
    pub fn connect_memory<'env>(
        env: &'env Env,
        server: &NativeServer,
        config: Value,
        dispatcher: Option<&NativeDispatcher>,
    ) -> napi::Result<PromiseRaw<'env, NativeClient>> {
        let (config, handler) = client_setup(config, dispatcher)?;
        let server = server.embedded().clone();
        env.spawn_future(async move {
            let c = EmbeddedClient::connect_memory(&server, &config, handler).await;
            napi_result(c).map(|c| NativeClient {
                client: Arc::new(c),
            })
        })
    }

    /// The engine client (for the other modules' methods, e.g. `listen`).
    pub(crate) fn embedded(&self) -> Arc<EmbeddedClient> {
        self.client.clone()
    }

    /// The server's `initialize` result.
    #[napi(getter)]
    pub fn initialize_result(&self) -> Value {
        self.client.initialize_result()
    }

    /// The negotiated protocol revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> String {
        self.client.protocol_version()
    }

    /// The Streamable HTTP session id the server assigned (null over stdio, on a stateless
    /// server, over the legacy HTTP+SSE transport).
    #[napi(getter)]
    pub fn session_id(&self) -> Option<String> {
        self.client.session_id()
    }

    /// Sends a request and resolves with its result. `onProgress` receives the params of each
    /// `notifications/progress` for it; `cancel` cancels it.
    #[napi(ts_return_type = "Promise<any>")]
    pub fn request<'env>(
        &self,
        env: &'env Env,
        method: String,
        params: Option<Value>,
        options: Option<NativeCallOptions>,
        on_progress: Option<Function<'_, Value, ()>>,
        cancel: Option<&NativeCancel>,
    ) -> napi::Result<PromiseRaw<'env, Value>> {
        let mut call = CallOptions {
            cancel: cancel.map(|c| c.handle.clone()),
            ..Default::default()
        };
        if let Some(o) = options {
            call.timeout_ms = o.timeout_ms.map(u64::from);
            call.reset_timeout_on_progress = o.reset_timeout_on_progress.unwrap_or(false);
        }
        if let Some(f) = on_progress {
            let tsfn = f
                .build_threadsafe_function::<Value>()
                .weak::<true>()
                .callee_handled::<false>()
                .build()?;
            call.on_progress = Some(Arc::new(move |p: Value| {
                tsfn.call(p, ThreadsafeFunctionCallMode::NonBlocking);
            }));
        }
        let client = self.client.clone();
        let params = opt(params);
        env.spawn_future(async move { napi_result(client.request(&method, params, call).await) })
    }

    /// Sends a notification.
    #[napi]
    pub async fn notify(&self, method: String, params: Option<Value>) -> napi::Result<()> {
        napi_result(self.client.notify(&method, opt(params)).await)
    }

    /// Closes the session; a spawned server is shut down (its process tree ends).
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        self.client.close().await;
        Ok(())
    }
}
