//! Streamable HTTP for foreign callers: [`EmbeddedServer::serve_http`] binds a port and serves
//! with an [`HttpConfig`], [`EmbeddedClient::connect_http`] connects a client to a URL.

use super::{ClientConfig, EmbeddedClient, EmbeddedServer, ForeignClientHandler, HttpConfig};
use crate::transport::http::{HttpClientOptions, HttpServerHandle};
use crate::McpError;
use std::sync::{Arc, Mutex};

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
    pub async fn serve_http(
        &self,
        host: &str,
        port: u16,
        config: &HttpConfig,
    ) -> Result<Arc<EmbeddedHttpServer>, McpError> {
        let o = config.options();
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
}

impl EmbeddedClient {
    /// Connects to a Streamable HTTP endpoint; `headers` go with every request (e.g.
    /// `Authorization`). `legacy_fallback` retries with the 2024-11-05 HTTP+SSE transport when
    /// the server refuses the Streamable HTTP initialize with a 4xx.
    pub async fn connect_http(
        url: &str,
        headers: Vec<(String, String)>,
        legacy_fallback: bool,
        config: &ClientConfig,
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
