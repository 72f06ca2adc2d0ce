//! [`NativeClient`]: a connected MCP client for Swift (stdio child process, Streamable HTTP, or
//! an in-process server), raw JSON requests underneath the facade's typed methods.

use crate::error::{json_text, parse_opt_json, FfiError};
use crate::handler::{ClientHandler, ProgressListener, SwiftClient};
use crate::runtime::run;
use crate::server::NativeServer;
use crate::NameValue;
use ferromcp_embed::{
    CallOptions, CancelHandle, ClientConfig, EmbeddedClient, ForeignClientHandler,
};
use serde_json::Value;
use std::sync::Arc;

/// Cancels an outgoing request: the engine sends `notifications/cancelled` and the request
/// fails with code -32800. The facade calls it when the awaiting Swift task is cancelled.
#[derive(uniffi::Object, Default)]
pub struct NativeCancelHandle {
    pub(crate) inner: CancelHandle,
}

#[uniffi::export]
impl NativeCancelHandle {
    /// A fresh handle.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Cancels the request made with this handle (also if called before it is sent).
    pub fn cancel(&self) {
        self.inner.cancel()
    }

    /// Whether [`Self::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }
}

/// A connected, initialized client.
#[derive(uniffi::Object)]
pub struct NativeClient {
    pub(crate) inner: Arc<EmbeddedClient>,
}

/// The engine's client config from its JSON text (`client_tls.rs` too).
pub(crate) fn client_config(config: Option<String>) -> Result<ClientConfig, FfiError> {
    let v = parse_opt_json("client config", config)?.unwrap_or(Value::Null);
    Ok(ClientConfig::from_json(v)?)
}

/// The Swift client handler as the engine's (`client_tls.rs` too).
pub(crate) fn foreign(
    handler: Option<Arc<dyn ClientHandler>>,
) -> Option<Arc<dyn ForeignClientHandler>> {
    handler.map(|h| Arc::new(SwiftClient(h)) as Arc<dyn ForeignClientHandler>)
}

impl NativeClient {
    /// The engine client (for the other modules' methods, e.g. `listen`).
    pub(crate) fn embedded(&self) -> Arc<EmbeddedClient> {
        self.inner.clone()
    }
}

#[uniffi::export]
impl NativeClient {
    /// Spawns `program arguments...` (with `env` added to this process's environment, in
    /// `cwd`) and connects over its stdin/stdout. `config` is `embed::ClientConfig` JSON.
    #[uniffi::constructor]
    pub async fn stdio(
        program: String,
        arguments: Vec<String>,
        env: Vec<NameValue>,
        cwd: Option<String>,
        config: Option<String>,
        handler: Option<Arc<dyn ClientHandler>>,
    ) -> Result<Arc<Self>, FfiError> {
        let config = client_config(config)?;
        let env = env.into_iter().map(Into::into).collect();
        let handler = foreign(handler);
        let inner = run(async move {
            EmbeddedClient::connect_stdio(program, arguments, env, cwd, &config, handler).await
        })
        .await?;
        Ok(Arc::new(Self {
            inner: Arc::new(inner),
        }))
    }

    /// Connects to a Streamable HTTP endpoint; `headers` go with every request.
    /// `legacy_fallback` retries with the 2024-11-05 HTTP+SSE transport on a 4xx initialize.
    #[uniffi::constructor]
    pub async fn http(
        url: String,
        headers: Vec<NameValue>,
        legacy_fallback: bool,
        config: Option<String>,
        handler: Option<Arc<dyn ClientHandler>>,
    ) -> Result<Arc<Self>, FfiError> {
        let config = client_config(config)?;
        let headers = headers.into_iter().map(Into::into).collect();
        let handler = foreign(handler);
        let inner = run(async move {
            EmbeddedClient::connect_http(&url, headers, legacy_fallback, &config, handler).await
        })
        .await?;
        Ok(Arc::new(Self {
            inner: Arc::new(inner),
        }))
    }

    /// [`Self::http`] with OAuth 2.1 authorization: a 401 from the server runs `auth`'s flow,
    /// later 401s refresh, a 403 `insufficient_scope` steps up.
    #[uniffi::constructor]
    pub async fn http_auth(
        url: String,
        headers: Vec<NameValue>,
        legacy_fallback: bool,
        auth: Arc<crate::auth::NativeOAuth>,
        config: Option<String>,
        handler: Option<Arc<dyn ClientHandler>>,
    ) -> Result<Arc<Self>, FfiError> {
        let config = client_config(config)?;
        let headers = headers.into_iter().map(Into::into).collect();
        let handler = foreign(handler);
        let auth = Some(auth.client.clone());
        let inner = run(async move {
            EmbeddedClient::connect_http_auth(
                &url,
                headers,
                legacy_fallback,
                auth,
                &config,
                handler,
            )
            .await
        })
        .await?;
        Ok(Arc::new(Self {
            inner: Arc::new(inner),
        }))
    }

    /// Connects to a server in this process over an in-memory transport.
    #[uniffi::constructor]
    pub async fn memory(
        server: Arc<NativeServer>,
        config: Option<String>,
        handler: Option<Arc<dyn ClientHandler>>,
    ) -> Result<Arc<Self>, FfiError> {
        let config = client_config(config)?;
        let handler = foreign(handler);
        let server = server.inner.clone();
        let inner =
            run(async move { EmbeddedClient::connect_memory(&server, &config, handler).await })
                .await?;
        Ok(Arc::new(Self {
            inner: Arc::new(inner),
        }))
    }

    /// The server's `initialize` result (JSON text).
    pub fn initialize_result(&self) -> String {
        json_text(&self.inner.initialize_result())
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version()
    }

    /// Sends a request (`params` JSON text) and returns its result as JSON text.
    /// `timeout_ms`: the session default when absent; `progress` receives each
    /// `notifications/progress` (and a progress token is sent); `cancel` cancels it.
    pub async fn request(
        &self,
        method: String,
        params: Option<String>,
        timeout_ms: Option<u64>,
        reset_timeout_on_progress: bool,
        progress: Option<Arc<dyn ProgressListener>>,
        cancel: Option<Arc<NativeCancelHandle>>,
    ) -> Result<String, FfiError> {
        let params = parse_opt_json("request params", params)?;
        let options = CallOptions {
            timeout_ms,
            reset_timeout_on_progress,
            on_progress: progress.map(|p| {
                Arc::new(move |v: Value| p.progress(json_text(&v)))
                    as Arc<dyn Fn(Value) + Send + Sync>
            }),
            cancel: cancel.map(|c| c.inner.clone()),
        };
        let inner = self.inner.clone();
        let v = run(async move { inner.request(&method, params, options).await }).await?;
        Ok(json_text(&v))
    }

    /// Sends a notification (`params` JSON text).
    pub async fn notify(&self, method: String, params: Option<String>) -> Result<(), FfiError> {
        let params = parse_opt_json("notification params", params)?;
        let inner = self.inner.clone();
        Ok(run(async move { inner.notify(&method, params).await }).await?)
    }

    /// Closes the session; a spawned server is shut down (stdin closed, then SIGTERM, SIGKILL).
    pub async fn close(&self) {
        let inner = self.inner.clone();
        let _ = run(async move {
            inner.close().await;
            Ok(())
        })
        .await;
    }
}
