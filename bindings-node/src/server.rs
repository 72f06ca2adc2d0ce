//! `NativeServer`: the JavaScript face of [`EmbeddedServer`]. The facade's `McpServer` builds
//! the JSON definitions, keeps the handler functions by id, and registers them here.

use crate::error::{napi_result, to_napi};
use crate::handler::{JsHandler, NativeDispatcher};
use ferromcp_embed::{
    EmbeddedHttpHandler, EmbeddedHttpResponse, EmbeddedHttpServer, EmbeddedServer, HttpConfig,
    HttpRequestParts, ServerConfig,
};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

/// A server whose handlers are JavaScript functions.
#[napi]
pub struct NativeServer {
    server: EmbeddedServer,
    dispatcher: Arc<crate::handler::Dispatch>,
}

#[napi]
impl NativeServer {
    /// A server from its config (`ServerConfig`: `name`, `version`, `title`, `instructions`, ...)
    /// whose handlers are called through `dispatcher`.
    #[napi(constructor)]
    pub fn new(config: Value, dispatcher: &NativeDispatcher) -> napi::Result<Self> {
        let server =
            crate::runtime::enter(|| EmbeddedServer::from_json(config)).map_err(to_napi)?;
        Ok(Self {
            server,
            dispatcher: dispatcher.inner.clone(),
        })
    }

    pub(crate) fn embedded(&self) -> &EmbeddedServer {
        &self.server
    }

    pub(crate) fn dispatch(&self) -> &Arc<crate::handler::Dispatch> {
        &self.dispatcher
    }

    fn handler(&self, id: u32) -> Arc<JsHandler> {
        JsHandler::from_dispatch(self.dispatcher.clone(), id)
    }

    /// Registers (or replaces) a tool: `definition` is the MCP `Tool` object.
    #[napi]
    pub fn add_tool(&self, definition: Value, handler_id: u32) -> napi::Result<()> {
        napi_result(
            self.server
                .add_tool_json(definition, self.handler(handler_id)),
        )
    }

    /// The `openTelemetry` layer's metrics as Prometheus text (`null` without the layer or its
    /// `prometheus` option), for a host framework's route.
    #[napi]
    pub fn prometheus_text(&self) -> Option<String> {
        self.server.prometheus_text()
    }

    /// Removes a tool; returns whether it existed.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.server.remove_tool(&name)
    }

    /// Registers (or replaces) a static resource (MCP `Resource` object).
    #[napi]
    pub fn add_resource(&self, definition: Value, handler_id: u32) -> napi::Result<()> {
        napi_result(
            self.server
                .add_resource_json(definition, self.handler(handler_id)),
        )
    }

    /// Registers (or replaces) a resource template (MCP `ResourceTemplate` object).
    #[napi]
    pub fn add_resource_template(&self, definition: Value, handler_id: u32) -> napi::Result<()> {
        napi_result(
            self.server
                .add_resource_template_json(definition, self.handler(handler_id)),
        )
    }

    /// Removes a static resource; returns whether it existed.
    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.server.remove_resource(&uri)
    }

    /// Registers (or replaces) a prompt (MCP `Prompt` object).
    #[napi]
    pub fn add_prompt(&self, definition: Value, handler_id: u32) -> napi::Result<()> {
        napi_result(
            self.server
                .add_prompt_json(definition, self.handler(handler_id)),
        )
    }

    /// Removes a prompt; returns whether it existed.
    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.server.remove_prompt(&name)
    }

    /// Registers a completion handler for `argument` of `reference` (`{type: "ref/prompt",
    /// name}` or `{type: "ref/resource", uri}`); a null reference sets the fallback.
    #[napi]
    pub fn add_completion(
        &self,
        reference: Option<Value>,
        argument: Option<String>,
        handler_id: u32,
    ) -> napi::Result<()> {
        napi_result(self.server.add_completion_json(
            reference.unwrap_or(Value::Null),
            argument,
            self.handler(handler_id),
        ))
    }

    /// Tells subscribed sessions that a resource changed.
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        crate::runtime::enter(|| self.server.notify_resource_updated(&uri))
    }

    /// Sends a log message to every live session (each session's level applies), or with
    /// `session_id` only to that session; resolves with whether a session was there to send to
    /// (always true without `session_id`).
    #[napi]
    pub async fn log(
        &self,
        level: String,
        data: Value,
        logger: Option<String>,
        session_id: Option<String>,
    ) -> napi::Result<bool> {
        match session_id {
            Some(id) => Ok(self.server.log_to_session(&id, &level, logger, data).await),
            None => {
                self.server.log(&level, logger, data).await;
                Ok(true)
            }
        }
    }

    /// Serves one client over this process's stdin/stdout; resolves when stdin closes or
    /// after `stopStdio()`, once wound down (an open `subscriptions/listen` answered, requests
    /// being served answered).
    #[napi]
    pub async fn serve_stdio(&self) -> napi::Result<()> {
        napi_result(self.server.serve_stdio().await)
    }

    /// Ends `serveStdio()` gracefully (`EmbeddedServer::stop_stdio`); does not wait.
    #[napi]
    pub fn stop_stdio(&self) {
        self.server.stop_stdio();
    }

    /// Binds `host:port` (0: any free port) and serves Streamable HTTP; resolves once listening.
    /// `options` is an `HttpConfig` (camelCase keys; unknown keys are an error).
    #[napi]
    pub async fn serve_http(
        &self,
        host: String,
        port: u32,
        options: Option<Value>,
    ) -> napi::Result<NativeHttpServer> {
        let config = HttpConfig::from_json(options.unwrap_or(Value::Null)).map_err(to_napi)?;
        let port = u16::try_from(port)
            .map_err(|_| to_napi(ferromcp::McpError::invalid_params("port must be 0-65535")))?;
        let http = napi_result(self.server.serve_http(&host, port, &config).await)?;
        Ok(NativeHttpServer { http })
    }

    /// [`Self::serve_http`] protected by bearer tokens (`protection`): requests without a valid
    /// token are answered 401/403 with `WWW-Authenticate`, and the Protected Resource Metadata
    /// is served at its well-known path.
    #[napi]
    pub async fn serve_http_auth(
        &self,
        host: String,
        port: u32,
        options: Option<Value>,
        protection: &crate::auth::NativeProtection,
    ) -> napi::Result<NativeHttpServer> {
        let config = HttpConfig::from_json(options.unwrap_or(Value::Null)).map_err(to_napi)?;
        let port = u16::try_from(port)
            .map_err(|_| to_napi(ferromcp::McpError::invalid_params("port must be 0-65535")))?;
        let auth = Some(protection.auth.clone());
        let http = napi_result(
            self.server
                .serve_http_auth(&host, port, &config, auth)
                .await,
        )?;
        Ok(NativeHttpServer { http })
    }
}

/// Checks a server config without creating a server (used by the facade's tests).
#[napi]
pub fn check_server_config(config: Value) -> napi::Result<()> {
    ServerConfig::from_json(config).map(|_| ()).map_err(to_napi)
}

/// A running Streamable HTTP server.
#[napi]
pub struct NativeHttpServer {
    http: Arc<EmbeddedHttpServer>,
}

#[napi]
impl NativeHttpServer {
    /// The endpoint URL (`http://HOST:PORT/PATH`).
    #[napi(getter)]
    pub fn url(&self) -> String {
        self.http.url().to_string()
    }

    /// The bound port.
    #[napi(getter)]
    pub fn port(&self) -> u32 {
        u32::from(self.http.port())
    }

    /// Stops the server: no new connections, in-flight requests finish, sessions close.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        napi_result(self.http.close().await)
    }

    /// Resolves when the server has stopped. A pending `wait()` keeps the process alive, which
    /// is how the facade's `listen()` keeps a serving process running.
    #[napi]
    pub async fn wait(&self) -> napi::Result<()> {
        self.http.wait().await;
        Ok(())
    }
}

/// Streamable HTTP one request at a time, for a JavaScript framework that owns the listener
/// (Node's `http`, Express, fetch-style handlers). The facade reads the request body and
/// streams the response body.
#[napi]
pub struct NativeHttpHandler {
    handler: EmbeddedHttpHandler,
}

#[napi]
impl NativeServer {
    /// A request-level handler with these HTTP options (`HttpConfig`; unknown keys are an error).
    #[napi]
    pub fn http_handler(&self, options: Option<Value>) -> napi::Result<NativeHttpHandler> {
        let config = HttpConfig::from_json(options.unwrap_or(Value::Null)).map_err(to_napi)?;
        let handler =
            crate::runtime::enter(|| self.server.http_handler(&config)).map_err(to_napi)?;
        Ok(NativeHttpHandler { handler })
    }

    /// [`Self::http_handler`] protected by bearer tokens (`protection`); the handler also
    /// answers the Protected Resource Metadata's well-known path.
    #[napi]
    pub fn http_handler_auth(
        &self,
        options: Option<Value>,
        protection: &crate::auth::NativeProtection,
    ) -> napi::Result<NativeHttpHandler> {
        let config = HttpConfig::from_json(options.unwrap_or(Value::Null)).map_err(to_napi)?;
        let auth = Some(protection.auth.clone());
        let handler = crate::runtime::enter(|| self.server.http_handler_auth(&config, auth))
            .map_err(to_napi)?;
        Ok(NativeHttpHandler { handler })
    }
}

#[napi]
impl NativeHttpHandler {
    /// Answers one request. `rawHeaders` is Node's flat `[name, value, name, value, ...]` list.
    /// With `sessionId`, a session the request opens (an `initialize`, the legacy SSE stream)
    /// gets that id instead of a random one (the TypeScript SDK's `sessionIdGenerator`).
    #[napi]
    pub async fn handle(
        &self,
        method: String,
        uri: String,
        raw_headers: Vec<String>,
        body: Buffer,
        session_id: Option<String>,
    ) -> napi::Result<NativeHttpResponse> {
        let headers = raw_headers
            .chunks(2)
            .filter(|p| p.len() == 2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        let req = HttpRequestParts {
            method,
            uri,
            headers,
            body: body.to_vec(),
        };
        let response = match session_id {
            Some(id) => self.handler.handle_with_session_id(req, &id).await,
            None => self.handler.handle(req).await,
        };
        let response = napi_result(response)?;
        Ok(NativeHttpResponse {
            response: Arc::new(response),
        })
    }
}

/// The answer to one request: status and headers, then the body chunk by chunk.
#[napi]
pub struct NativeHttpResponse {
    response: Arc<EmbeddedHttpResponse>,
}

#[napi]
impl NativeHttpResponse {
    /// The status code.
    #[napi(getter)]
    pub fn status(&self) -> u32 {
        u32::from(self.response.status)
    }

    /// The headers as a flat `[name, value, ...]` list.
    #[napi(getter)]
    pub fn raw_headers(&self) -> Vec<String> {
        self.response
            .headers
            .iter()
            .flat_map(|(k, v)| [k.clone(), v.clone()])
            .collect()
    }

    /// The next body chunk, or null at the end.
    #[napi]
    pub async fn next_chunk(&self) -> napi::Result<Option<Buffer>> {
        Ok(napi_result(self.response.next_chunk().await)?.map(Buffer::from))
    }

    /// Drops the rest of the body (the client went away): an SSE stream is closed.
    #[napi]
    pub fn cancel(&self) {
        self.response.cancel()
    }
}
