//! [`EmbeddedClient`]: an MCP client for foreign callers, JSON in and out.

use super::{decode_result, ClientConfig, EmbeddedServer, ForeignContext};
use ferromcp::client::{Client, ClientHandlers};
use ferromcp::protocol::{CreateMessageResult, ElicitResult, Root};
use ferromcp::session::{RequestContext, RequestOptions};
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What a foreign client answers when its server asks (`sampling/createMessage`,
/// `elicitation/create`, `roots/list`) and where server notifications go.
pub trait ForeignClientHandler: Send + Sync + 'static {
    /// Answers a server-to-client request with its JSON result.
    fn request(
        &self,
        method: String,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;

    /// Receives a server notification (progress for our own requests goes to the request's
    /// progress callback instead). Must not block.
    fn notification(&self, method: String, params: Value);
}

impl ClientConfig {
    /// The engine's handlers routing what this configuration offers to `handler`.
    pub(crate) fn handlers(
        &self,
        handler: Option<Arc<dyn ForeignClientHandler>>,
    ) -> ClientHandlers {
        let mut h = ClientHandlers::default();
        h.extra_capabilities = self.capabilities.clone();
        let Some(f) = handler else { return h };
        let call = |f: Arc<dyn ForeignClientHandler>, method: &'static str| {
            move |params: Value, ctx: RequestContext| {
                f.request(method.to_string(), params, ForeignContext::new(ctx))
            }
        };
        if self.roots {
            let c = call(f.clone(), "roots/list");
            h.roots = Some(Arc::new(move |ctx| {
                let fut = c(json!({}), ctx);
                Box::pin(async move {
                    let v = match fut.await? {
                        Value::Object(mut m) => m.remove("roots").unwrap_or_default(),
                        v => v,
                    };
                    decode_result::<Vec<Root>>("roots", v)
                })
            }));
        }
        if self.sampling {
            let c = call(f.clone(), "sampling/createMessage");
            h.sampling = Some(Arc::new(move |p, ctx| {
                let fut = c(serde_json::to_value(p).unwrap_or_default(), ctx);
                Box::pin(async move {
                    decode_result::<CreateMessageResult>("CreateMessageResult", fut.await?)
                })
            }));
            h.sampling_tools = self.sampling_tools;
        }
        if self.elicitation {
            let c = call(f.clone(), "elicitation/create");
            h.elicitation = Some(Arc::new(move |p, ctx| {
                let fut = c(serde_json::to_value(p).unwrap_or_default(), ctx);
                Box::pin(async move { decode_result::<ElicitResult>("ElicitResult", fut.await?) })
            }));
            h.elicitation_url = self.elicitation_url;
        }
        h.on_notification = Some(Arc::new(move |n| {
            f.notification(n.method, n.params.unwrap_or(Value::Null))
        }));
        h
    }
}

/// Cancels an outgoing request when [`CancelHandle::cancel`] is called (the engine sends
/// `notifications/cancelled` and the request fails with code -32800). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle {
    token: CancellationToken,
}

impl CancelHandle {
    /// A fresh handle.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the request(s) made with this handle.
    pub fn cancel(&self) {
        self.token.cancel()
    }

    /// Whether [`Self::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }

    /// The engine's token behind this handle.
    pub(crate) fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

/// Options of one outgoing request.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Timeout in milliseconds (the session default when `None`).
    pub timeout_ms: Option<u64>,
    /// Whether progress notifications restart the timeout.
    pub reset_timeout_on_progress: bool,
    /// Receives the params of each `notifications/progress` for this request.
    pub on_progress: Option<Arc<dyn Fn(Value) + Send + Sync>>,
    /// Explicit cancellation.
    pub cancel: Option<CancelHandle>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout_ms", &self.timeout_ms)
            .field("on_progress", &self.on_progress.is_some())
            .finish_non_exhaustive()
    }
}

/// A connected, initialized client. Requests are raw JSON (`method`, `params`) so every binding
/// can offer its own typed layer on top.
#[derive(Debug)]
pub struct EmbeddedClient {
    client: Client,
    /// The Streamable HTTP session id, for a client connected over HTTP.
    pub(super) session: Option<ferromcp::transport::http::SessionIdCell>,
    /// The telemetry its config's `openTelemetry` started, which this client owns: [`Self::close`]
    /// flushes and stops its exporters.
    #[cfg(feature = "otel")]
    telemetry: Option<ferromcp::telemetry::Telemetry>,
}

impl EmbeddedClient {
    /// Spawns `program args...` and connects to it over its stdio.
    pub async fn connect_stdio(
        program: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<String>,
        config: &ClientConfig,
        handler: Option<Arc<dyn ForeignClientHandler>>,
    ) -> Result<Self, McpError> {
        let mut process = ferromcp::transport::ChildProcessOptions::new(program)
            .args(args)
            .envs(env);
        if let Some(dir) = cwd {
            process = process.cwd(dir);
        }
        let options = config.options()?;
        let owned = Self::owned_telemetry(&options);
        let client = Client::spawn(process, options, config.handlers(handler)).await?;
        Ok(Self::from_client(client).owning(owned))
    }

    /// Connects to an [`EmbeddedServer`] in the same process over an in-memory transport.
    pub async fn connect_memory(
        server: &EmbeddedServer,
        config: &ClientConfig,
        handler: Option<Arc<dyn ForeignClientHandler>>,
    ) -> Result<Self, McpError> {
        let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(64);
        let srv = server.server().clone();
        tokio::spawn(async move {
            let _ = srv.serve(sr, sw).await;
        });
        let options = config.options()?;
        let owned = Self::owned_telemetry(&options);
        let client = Client::connect(options, config.handlers(handler), cr, cw).await?;
        Ok(Self::from_client(client).owning(owned))
    }

    /// Wraps a connected engine client (its telemetry, if any, stays the caller's).
    pub fn from_client(client: Client) -> Self {
        Self {
            client,
            session: None,
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }

    /// The telemetry `options` carry, which the client made from them will own.
    #[cfg(feature = "otel")]
    pub(crate) fn owned_telemetry(
        options: &ferromcp::client::ClientOptions,
    ) -> Option<ferromcp::telemetry::Telemetry> {
        options.telemetry.clone()
    }

    /// Without the `otel` feature there is no telemetry to own.
    #[cfg(not(feature = "otel"))]
    pub(crate) fn owned_telemetry(_: &ferromcp::client::ClientOptions) -> Option<()> {
        None
    }

    /// This client, owning `telemetry` (closed with it).
    #[cfg(feature = "otel")]
    pub(crate) fn owning(mut self, telemetry: Option<ferromcp::telemetry::Telemetry>) -> Self {
        self.telemetry = telemetry;
        self
    }

    /// Without the `otel` feature: the client as it is.
    #[cfg(not(feature = "otel"))]
    pub(crate) fn owning(self, _: Option<()>) -> Self {
        self
    }

    /// The Streamable HTTP session id the server assigned (the TypeScript SDK's
    /// `transport.sessionId`); `None` over stdio and in memory, on a stateless server, and over
    /// the legacy HTTP+SSE transport. A new session replacing an expired one shows its new id.
    pub fn session_id(&self) -> Option<String> {
        self.session.as_ref().and_then(|s| s.get())
    }

    /// The engine client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The server's `initialize` result.
    pub fn initialize_result(&self) -> Value {
        self.client.initialize_result().clone()
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> String {
        self.client.protocol_version().as_str().to_string()
    }

    /// Sends a request and returns its JSON result.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        options: CallOptions,
    ) -> Result<Value, McpError> {
        let opts = RequestOptions::default()
            .with_timeout(options.timeout_ms.map(Duration::from_millis))
            .with_reset_timeout_on_progress(options.reset_timeout_on_progress)
            .with_on_progress(options.on_progress)
            .with_cancel(options.cancel.map(|c| c.token));
        self.client.request(method, params, opts).await
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        self.client.peer().notify(method, params).await
    }

    /// Closes the session (and shuts a spawned server down). A telemetry the config's
    /// `openTelemetry` started is then flushed and stopped, off the caller's thread (its OTLP
    /// collector may be served by the thread that awaits this, in Node or Python).
    pub async fn close(&self) {
        self.client.close().await;
        #[cfg(feature = "otel")]
        if let Some(t) = self.telemetry.clone() {
            let _ = tokio::task::spawn_blocking(move || t.shutdown()).await;
        }
    }
}
