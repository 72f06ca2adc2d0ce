//! [`NativeServer`] (an `EmbeddedServer` with Swift handlers) and [`NativeHttpServer`] (a
//! running Streamable HTTP endpoint).

use crate::error::{parse_json, parse_opt_json, FfiError};
use crate::handler::{
    CompletionHandler, PromptHandler, ResourceHandler, SwiftHandler, ToolHandler,
};
use crate::runtime::{enter, run};
use ferromcp_embed::{EmbeddedHttpServer, EmbeddedServer, HttpConfig, ServerConfig};
use serde_json::Value;
use std::sync::Arc;

/// A server whose features are JSON definitions with Swift handlers. Definitions are the MCP
/// wire shapes (`Tool`, `Resource`, `ResourceTemplate`, `Prompt`) as JSON text.
#[derive(uniffi::Object)]
pub struct NativeServer {
    pub(crate) inner: EmbeddedServer,
}

#[uniffi::export]
impl NativeServer {
    /// Creates a server from `embed::ServerConfig` JSON (`{"name": ..., "version": ...}`;
    /// unknown keys are an error).
    #[uniffi::constructor]
    pub fn new(config: String) -> Result<Arc<Self>, FfiError> {
        let config = ServerConfig::from_json(parse_json("server config", &config)?)?;
        let inner = enter(|| EmbeddedServer::new(&config))?;
        Ok(Arc::new(Self { inner }))
    }

    /// Registers (or replaces) a tool. Its schemas are compiled here; a bad one is an error.
    pub fn add_tool(
        &self,
        definition: String,
        handler: Arc<dyn ToolHandler>,
    ) -> Result<(), FfiError> {
        let def = parse_json("tool definition", &definition)?;
        Ok(enter(|| {
            self.inner
                .add_tool_json(def, Arc::new(SwiftHandler::Tool(handler)))
        })?)
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: String) -> bool {
        enter(|| self.inner.remove_tool(&name))
    }

    /// The `openTelemetry` layer's metrics as Prometheus text (nil without the layer or its
    /// `prometheus` option), for a host framework's route.
    pub fn prometheus_text(&self) -> Option<String> {
        self.inner.prometheus_text()
    }

    /// Registers (or replaces) a static resource.
    pub fn add_resource(
        &self,
        definition: String,
        handler: Arc<dyn ResourceHandler>,
    ) -> Result<(), FfiError> {
        let def = parse_json("resource definition", &definition)?;
        Ok(enter(|| {
            self.inner
                .add_resource_json(def, Arc::new(SwiftHandler::Resource(handler)))
        })?)
    }

    /// Registers (or replaces) a resource template (RFC 6570 `uriTemplate`).
    pub fn add_resource_template(
        &self,
        definition: String,
        handler: Arc<dyn ResourceHandler>,
    ) -> Result<(), FfiError> {
        let def = parse_json("resource template definition", &definition)?;
        Ok(enter(|| {
            self.inner
                .add_resource_template_json(def, Arc::new(SwiftHandler::Resource(handler)))
        })?)
    }

    /// Removes a static resource; returns whether it existed.
    pub fn remove_resource(&self, uri: String) -> bool {
        enter(|| self.inner.remove_resource(&uri))
    }

    /// Registers (or replaces) a prompt.
    pub fn add_prompt(
        &self,
        definition: String,
        handler: Arc<dyn PromptHandler>,
    ) -> Result<(), FfiError> {
        let def = parse_json("prompt definition", &definition)?;
        Ok(enter(|| {
            self.inner
                .add_prompt_json(def, Arc::new(SwiftHandler::Prompt(handler)))
        })?)
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: String) -> bool {
        enter(|| self.inner.remove_prompt(&name))
    }

    /// Registers a completion handler for `reference` (JSON `{"type": "ref/prompt", "name"}` or
    /// `{"type": "ref/resource", "uri"}`) and `argument`; with no reference, the fallback for
    /// every argument without its own handler.
    pub fn add_completion(
        &self,
        reference: Option<String>,
        argument: Option<String>,
        handler: Arc<dyn CompletionHandler>,
    ) -> Result<(), FfiError> {
        let reference = parse_opt_json("completion reference", reference)?.unwrap_or(Value::Null);
        Ok(enter(|| {
            self.inner.add_completion_json(
                reference,
                argument,
                Arc::new(SwiftHandler::Completion(handler)),
            )
        })?)
    }

    /// Tells subscribed sessions that a resource changed.
    pub fn notify_resource_updated(&self, uri: String) {
        enter(|| self.inner.notify_resource_updated(&uri))
    }

    /// Sends a log message (JSON `data`) to every live session, at each session's level.
    pub async fn log(
        &self,
        level: String,
        logger: Option<String>,
        data: String,
    ) -> Result<(), FfiError> {
        let data = parse_json("log data", &data)?;
        let inner = self.inner.clone();
        Ok(run(async move {
            inner.log(&level, logger, data).await;
            Ok(())
        })
        .await?)
    }

    /// Serves one session over this process's stdin/stdout until stdin closes or
    /// [`Self::stop_stdio`], winding down gracefully either way (`EmbeddedServer::serve_stdio`).
    pub async fn serve_stdio(&self) -> Result<(), FfiError> {
        let inner = self.inner.clone();
        Ok(run(async move { inner.serve_stdio().await }).await?)
    }

    /// Ends [`Self::serve_stdio`] gracefully (`EmbeddedServer::stop_stdio`): no further request
    /// is read, an open `subscriptions/listen` is answered with its completion result, requests
    /// being served are answered. Does not wait; final.
    pub fn stop_stdio(&self) {
        self.inner.stop_stdio();
    }

    /// Binds `host:port` (port 0: any free port) and serves Streamable HTTP with
    /// `embed::HttpConfig` JSON (`{"path": "/mcp", "stateless": false, ...}`).
    pub async fn serve_http(
        &self,
        host: String,
        port: u16,
        config: Option<String>,
    ) -> Result<Arc<NativeHttpServer>, FfiError> {
        let config =
            HttpConfig::from_json(parse_opt_json("HTTP config", config)?.unwrap_or(Value::Null))?;
        let inner = self.inner.clone();
        let server = run(async move { inner.serve_http(&host, port, &config).await }).await?;
        Ok(Arc::new(NativeHttpServer { inner: server }))
    }

    /// [`Self::serve_http`] protected by bearer tokens (`protection`): requests without a valid
    /// token are answered 401/403 with `WWW-Authenticate`, and the Protected Resource Metadata
    /// is served at its well-known path.
    pub async fn serve_http_auth(
        &self,
        host: String,
        port: u16,
        config: Option<String>,
        protection: Arc<crate::auth::NativeProtection>,
    ) -> Result<Arc<NativeHttpServer>, FfiError> {
        let config =
            HttpConfig::from_json(parse_opt_json("HTTP config", config)?.unwrap_or(Value::Null))?;
        let inner = self.inner.clone();
        let auth = Some(protection.auth.clone());
        let server =
            run(async move { inner.serve_http_auth(&host, port, &config, auth).await }).await?;
        Ok(Arc::new(NativeHttpServer { inner: server }))
    }
}

/// A running Streamable HTTP endpoint.
#[derive(uniffi::Object)]
pub struct NativeHttpServer {
    inner: Arc<EmbeddedHttpServer>,
}

#[uniffi::export]
impl NativeHttpServer {
    /// The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`.
    pub fn url(&self) -> String {
        self.inner.url().to_string()
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.inner.port()
    }

    /// Stops serving (in-flight requests finish, sessions close). Idempotent.
    pub async fn close(&self) -> Result<(), FfiError> {
        let inner = self.inner.clone();
        Ok(run(async move { inner.close().await }).await?)
    }

    /// Returns when the server has stopped.
    pub async fn wait(&self) {
        self.inner.wait().await
    }
}
