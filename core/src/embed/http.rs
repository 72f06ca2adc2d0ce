//! Streamable HTTP for foreign callers: [`EmbeddedServer::serve_http`] and
//! [`EmbeddedServer::http_router`] take the server options as JSON, [`EmbeddedClient::connect_http`]
//! connects a client to a URL.

use super::{ClientConfig, EmbeddedClient, EmbeddedServer, ForeignClientHandler};
use crate::transport::http::{HttpClientOptions, HttpServerHandle, HttpServerOptions};
use crate::McpError;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Parses the JSON form of [`HttpServerOptions`]; unknown keys are an error (a typo must not be
/// silently ignored). Keys: `path`, `jsonResponse`, `stateless`, `enableGetStream`,
/// `maxSessions`, `sessionIdleTimeoutMs`, `maxBodySize`, `dnsRebindingProtection`,
/// `allowedHosts`, `allowedOrigins`, `retryIntervalMs` (null: no `retry:` hint), `legacySse`,
/// `legacySsePath`, `legacyMessagesPath`.
pub fn http_server_options(v: &Value) -> Result<HttpServerOptions, McpError> {
    let mut o = HttpServerOptions::default();
    let Some(map) = v.as_object() else {
        return if v.is_null() {
            Ok(o)
        } else {
            Err(McpError::invalid_params("HTTP options must be an object"))
        };
    };
    let bad = |k: &str, want: &str| McpError::invalid_params(format!("HTTP option {k}: {want}"));
    let string = |k: &str, v: &Value| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| bad(k, "a string"))
    };
    let boolean = |k: &str, v: &Value| v.as_bool().ok_or_else(|| bad(k, "a boolean"));
    let uint = |k: &str, v: &Value| v.as_u64().ok_or_else(|| bad(k, "a non-negative integer"));
    let strings = |k: &str, v: &Value| -> Result<Vec<String>, McpError> {
        v.as_array()
            .ok_or_else(|| bad(k, "a list of strings"))?
            .iter()
            .map(|s| string(k, s))
            .collect()
    };
    for (k, val) in map {
        if val.is_null() && k != "retryIntervalMs" {
            continue;
        }
        match k.as_str() {
            "path" => o.path = string(k, val)?,
            "jsonResponse" => o.json_response = boolean(k, val)?,
            "stateless" => o.stateless = boolean(k, val)?,
            "enableGetStream" => o.enable_get_stream = boolean(k, val)?,
            "maxSessions" => o.max_sessions = uint(k, val)?.max(1) as usize,
            "sessionIdleTimeoutMs" => {
                o.session_idle_timeout = Duration::from_millis(uint(k, val)?.max(1))
            }
            "maxBodySize" => o.max_body_size = uint(k, val)?.max(1) as usize,
            "dnsRebindingProtection" => o.dns_rebinding_protection = Some(boolean(k, val)?),
            "streamQueueCapacity" => o.stream_queue_capacity = uint(k, val)?.max(1) as usize,
            "closeStreamsAfterMs" => {
                o.close_streams_after = Some(Duration::from_millis(uint(k, val)?.max(1)))
            }
            "allowedHosts" => o.allowed_hosts = strings(k, val)?,
            "allowedOrigins" => o.allowed_origins = strings(k, val)?,
            "retryIntervalMs" => {
                o.retry_interval = if val.is_null() {
                    None
                } else {
                    Some(Duration::from_millis(uint(k, val)?))
                }
            }
            "legacySse" => o.legacy_sse = boolean(k, val)?,
            "legacySsePath" => o.legacy_sse_path = string(k, val)?,
            "legacyMessagesPath" => o.legacy_messages_path = string(k, val)?,
            other => {
                return Err(McpError::invalid_params(format!(
                    "unknown HTTP option {other:?}"
                )))
            }
        }
    }
    Ok(o)
}

/// A running HTTP server started by [`EmbeddedServer::serve_http`].
#[derive(Debug)]
pub struct EmbeddedHttpServer {
    url: String,
    port: u16,
    handle: Mutex<Option<HttpServerHandle>>,
    stopped: tokio_util::sync::CancellationToken,
}

impl EmbeddedHttpServer {
    /// The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server (graceful: in-flight requests finish, sessions close). Idempotent.
    pub async fn close(&self) -> Result<(), McpError> {
        let handle = self.handle.lock().unwrap().take();
        let r = match handle {
            Some(h) => h
                .shutdown()
                .await
                .map_err(|e| McpError::internal(format!("HTTP server failed: {e}"))),
            None => Ok(()),
        };
        self.stopped.cancel();
        r
    }

    /// Resolves when the server has stopped (after [`Self::close`]).
    pub async fn wait(&self) {
        self.stopped.cancelled().await
    }
}

impl EmbeddedServer {
    /// Binds `host:port` (port 0: any free port) and serves Streamable HTTP on a spawned task.
    /// `options` is the JSON form read by [`http_server_options`].
    pub async fn serve_http(
        &self,
        host: &str,
        port: u16,
        options: Value,
    ) -> Result<Arc<EmbeddedHttpServer>, McpError> {
        let o = http_server_options(&options)?;
        let path = o.path.clone();
        let handle = crate::transport::http::serve_http(self.server().clone(), (host, port), o)
            .await
            .map_err(|e| McpError::internal(format!("cannot listen on {host}:{port}: {e}")))?;
        let addr = handle.local_addr();
        Ok(Arc::new(EmbeddedHttpServer {
            url: handle.url(&path),
            port: addr.port(),
            handle: Mutex::new(Some(handle)),
            stopped: Default::default(),
        }))
    }

    /// An axum router serving this server over Streamable HTTP (for bindings that forward
    /// requests from a host framework, e.g. ASGI).
    pub fn http_router(&self, options: Value) -> Result<axum::Router, McpError> {
        let o = http_server_options(&options)?;
        Ok(crate::transport::http::router(self.server().clone(), o))
    }
}

impl EmbeddedClient {
    /// Connects to a Streamable HTTP endpoint; `headers` go with every request (e.g.
    /// `Authorization`). `legacy_fallback` retries with the 2024-11-05 HTTP+SSE transport when
    /// the server refuses the Streamable HTTP initialize with a 4xx.
    pub async fn connect_http(
        url: &str,
        headers: Vec<(String, String)>,
        legacy_fallback: bool,
        config: ClientConfig,
        handler: Option<Arc<dyn ForeignClientHandler>>,
    ) -> Result<Self, McpError> {
        let http = HttpClientOptions {
            headers,
            legacy_fallback,
            ..Default::default()
        };
        let client =
            crate::transport::http::connect(url, config.options()?, config.handlers(handler), http)
                .await?;
        Ok(Self::from_client(client))
    }
}
