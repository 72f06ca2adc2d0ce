//! Streamable HTTP for foreign callers: [`EmbeddedServer::serve_http`] binds a port and serves
//! with an [`HttpConfig`]; [`EmbeddedServer::http_handler`] answers requests one at a time for a
//! host framework that owns the listener (plain request and response values, no axum types);
//! [`EmbeddedClient::connect_http`] connects a client to a URL.

use super::{ClientConfig, EmbeddedClient, EmbeddedServer, ForeignClientHandler, HttpConfig};
use ferromcp::transport::http::{HttpClientOptions, HttpServerHandle};
use ferromcp::McpError;
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
        self.serve_http_auth(host, port, config, None).await
    }

    /// [`Self::serve_http`] protected by OAuth bearer tokens (see [`ferromcp::auth::ResourceAuth`];
    /// the bindings build it around their own verifier function). With `oauthProxy` in the
    /// configuration, the proxy is built first (an `oidc` preset reads the provider's discovery
    /// document; bad settings are an invalid-params error before anything listens), its
    /// endpoints are served beside the MCP endpoint, and without `auth` the MCP endpoint is
    /// protected by the proxy's own tokens ([`crate::EmbeddedOAuthProxy::protection`]).
    pub async fn serve_http_auth(
        &self,
        host: &str,
        port: u16,
        config: &HttpConfig,
        auth: Option<Arc<ferromcp::auth::ResourceAuth>>,
    ) -> Result<Arc<EmbeddedHttpServer>, McpError> {
        let mut o = config.options();
        o.auth = auth;
        if let Some(settings) = &config.oauth_proxy {
            let proxy =
                crate::EmbeddedOAuthProxy::from_settings(settings, config.redis_url.as_deref())
                    .await?;
            if o.auth.is_none() {
                o.auth = Some(proxy.protection());
            }
            o.oauth_proxy = Some(proxy.proxy().clone());
        }
        // The `openTelemetry` layer's telemetry, wired as a Rust server wires it: its
        // Prometheus endpoint beside the MCP endpoint and its gauges read from this listener.
        #[cfg(feature = "otel")]
        let telemetry = self.telemetry.get();
        #[cfg(feature = "otel")]
        if let Some((t, Some(metrics_path))) = &telemetry {
            o.metrics = Some(t.metrics_endpoint(metrics_path.clone()));
        }
        let path = o.path.clone();
        let handle = ferromcp::transport::http::serve_http(self.server().clone(), (host, port), o)
            .await
            .map_err(|e| {
                // Options refused before binding (TLS files, the Redis URL) say so; only a
                // failure to bind names the address.
                if e.kind() == std::io::ErrorKind::InvalidInput {
                    McpError::internal(format!("HTTP options refused: {e}"))
                } else {
                    McpError::internal(format!("cannot listen on {host}:{port}: {e}"))
                }
            })?;
        #[cfg(feature = "otel")]
        if let Some((t, _)) = &telemetry {
            t.observe_http_server(&handle);
        }
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
        Self::connect_http_auth(url, headers, legacy_fallback, None, config, handler).await
    }

    /// [`Self::connect_http_auth`] with every HTTP option (extra trusted root certificates for
    /// `https://` too).
    pub async fn connect_http_with(
        url: &str,
        options: HttpConnectOptions,
        auth: Option<Arc<ferromcp::auth::OAuthClient>>,
        config: &ClientConfig,
        handler: Option<Arc<dyn ForeignClientHandler>>,
    ) -> Result<Self, McpError> {
        let session = ferromcp::transport::http::SessionIdCell::default();
        let http = HttpClientOptions::default()
            .with_headers(options.headers)
            .with_legacy_fallback(options.legacy_fallback)
            .with_extra_root_certificates(options.extra_root_certificates)
            .with_auth(auth)
            .with_session_id(session.clone());
        let options = config.options()?;
        let owned = Self::owned_telemetry(&options);
        let client =
            ferromcp::client::http::connect(url, options, config.handlers(handler), http).await?;
        let mut client = Self::from_client(client).owning(owned);
        client.session = Some(session);
        Ok(client)
    }

    /// [`Self::connect_http`] with OAuth 2.1 authorization (see [`ferromcp::auth`]): the bindings
    /// build the [`ferromcp::auth::OAuthClient`] from their own callbacks and stores.
    pub async fn connect_http_auth(
        url: &str,
        headers: Vec<(String, String)>,
        legacy_fallback: bool,
        auth: Option<Arc<ferromcp::auth::OAuthClient>>,
        config: &ClientConfig,
        handler: Option<Arc<dyn ForeignClientHandler>>,
    ) -> Result<Self, McpError> {
        let options = HttpConnectOptions {
            headers,
            legacy_fallback,
            extra_root_certificates: Vec::new(),
        };
        Self::connect_http_with(url, options, auth, config, handler).await
    }
}

/// How an embedded client connects over HTTP: plain values, so every binding can fill them.
#[derive(Clone, Debug, Default)]
pub struct HttpConnectOptions {
    /// Headers sent with every request (e.g. `Authorization`).
    pub headers: Vec<(String, String)>,
    /// Retry with the 2024-11-05 HTTP+SSE transport when the server refuses the Streamable
    /// HTTP initialize with a 4xx.
    pub legacy_fallback: bool,
    /// Extra trusted root certificates for `https://` (PEM text each), e.g. a private CA's;
    /// Mozilla's roots are always trusted and verification is always on.
    pub extra_root_certificates: Vec<String>,
}

/// One HTTP request handed over by a host framework (Node's `http`, Express, a fetch-style
/// handler, ASGI): plain values, so it crosses any FFI.
#[derive(Clone, Debug, Default)]
pub struct HttpRequestParts {
    /// The method (`GET`, `POST`, `DELETE`, ...).
    pub method: String,
    /// The request target: path and query (`/mcp?x=1`), or an absolute URL.
    pub uri: String,
    /// The header fields in order (repeated names allowed).
    pub headers: Vec<(String, String)>,
    /// The whole body (the host reads it; `maxBodySize` applies).
    pub body: Vec<u8>,
}

/// The answer to an [`HttpRequestParts`]: status and headers at once, then the body in chunks
/// ([`Self::next_chunk`]); an SSE stream stays open until the engine ends it or the host calls
/// [`Self::cancel`] (its client went away).
#[derive(Debug)]
pub struct EmbeddedHttpResponse {
    /// The status code.
    pub status: u16,
    /// The header fields.
    pub headers: Vec<(String, String)>,
    body: tokio::sync::Mutex<Option<axum::body::BodyDataStream>>,
    cancelled: tokio_util::sync::CancellationToken,
}

impl EmbeddedHttpResponse {
    /// The next chunk of the body; `None` at its end (or after [`Self::cancel`]).
    pub async fn next_chunk(&self) -> Result<Option<Vec<u8>>, McpError> {
        use futures_util::StreamExt;
        let mut body = self.body.lock().await;
        let Some(stream) = body.as_mut() else {
            return Ok(None);
        };
        let next = tokio::select! {
            n = stream.next() => n,
            _ = self.cancelled.cancelled() => None,
        };
        match next {
            Some(Ok(bytes)) => Ok(Some(bytes.to_vec())),
            Some(Err(e)) => {
                *body = None;
                Err(McpError::new(
                    ferromcp::error::codes::TRANSPORT_ERROR,
                    format!("response body failed: {e}"),
                ))
            }
            None => {
                *body = None;
                Ok(None)
            }
        }
    }

    /// Drops the rest of the body (the host's client disconnected): an SSE stream is closed
    /// as if its connection had ended, so the engine stops writing to it.
    pub fn cancel(&self) {
        self.cancelled.cancel();
        if let Ok(mut body) = self.body.try_lock() {
            *body = None;
        }
    }
}

/// Serves Streamable HTTP (and the legacy HTTP+SSE endpoints) one request at a time for a host
/// framework that owns the listener. Cheap to clone. Host/Origin checks apply as configured;
/// with no bound address known, the automatic choice is "on, loopback names with any port", so
/// an app served under another name lists it in `allowedHosts`.
#[derive(Clone, Debug)]
pub struct EmbeddedHttpHandler {
    router: axum::Router,
}

impl EmbeddedServer {
    /// A request-level Streamable HTTP handler (see [`EmbeddedHttpHandler`]). A configuration
    /// with `oauthProxy` is refused (invalid params): the proxy is served by the listening
    /// server; in a host framework, mount an [`crate::EmbeddedOAuthProxy`]'s endpoints.
    pub fn http_handler(&self, config: &HttpConfig) -> Result<EmbeddedHttpHandler, McpError> {
        self.http_handler_auth(config, None)
    }

    /// [`Self::http_handler`] protected by OAuth bearer tokens (the Protected Resource Metadata
    /// is answered at its well-known path too, so mount the handler there as well).
    pub fn http_handler_auth(
        &self,
        config: &HttpConfig,
        auth: Option<Arc<ferromcp::auth::ResourceAuth>>,
    ) -> Result<EmbeddedHttpHandler, McpError> {
        if config.oauth_proxy.is_some() {
            return Err(McpError::invalid_params(
                "HTTP options: oauthProxy is served by the listening server (serve_http, \
                 listen, startHTTP); in a host framework, mount the OAuth proxy's endpoints",
            ));
        }
        let mut o = config.options();
        o.auth = auth;
        let (router, _gauges) =
            ferromcp::transport::http::router_with_gauges(self.server().clone(), o);
        // The `openTelemetry` layer's sessions, SSE streams and session durations, as a
        // listening server's (the app's server owns the connections).
        #[cfg(feature = "otel")]
        if let Some((t, _)) = self.telemetry.get() {
            t.observe_http_router(&_gauges);
        }
        Ok(EmbeddedHttpHandler { router })
    }
}

impl EmbeddedHttpHandler {
    /// Answers one request. Malformed parts (a bad method, target or header) are an
    /// invalid-params error; everything the endpoint decides is in the response.
    pub async fn handle(&self, req: HttpRequestParts) -> Result<EmbeddedHttpResponse, McpError> {
        self.serve(req).await
    }

    /// [`Self::handle`], where a session this request opens (a Streamable HTTP `initialize`,
    /// or the legacy SSE stream) gets `session_id` instead of a random id: the TypeScript SDK's
    /// `sessionIdGenerator`, and its `SSEServerTransport`, whose id is known before the stream
    /// opens. The id must be 1-256 visible ASCII characters (the spec's `Mcp-Session-Id`
    /// alphabet), else the request is refused with an invalid-params error; choosing ids that
    /// do not collide with live sessions is the host's part, as with the SDK.
    pub async fn handle_with_session_id(
        &self,
        req: HttpRequestParts,
        session_id: &str,
    ) -> Result<EmbeddedHttpResponse, McpError> {
        let visible = |b: u8| (0x21..=0x7e).contains(&b);
        if session_id.is_empty() || session_id.len() > 256 || !session_id.bytes().all(visible) {
            return Err(McpError::invalid_params(format!(
                "session id {session_id:?}: 1-256 visible ASCII characters (0x21-0x7E) expected"
            )));
        }
        let id: Arc<str> = Arc::from(session_id);
        ferromcp::binding_seam::with_chosen_session_id(id, self.serve(req)).await
    }

    async fn serve(&self, req: HttpRequestParts) -> Result<EmbeddedHttpResponse, McpError> {
        use tower_service::Service;
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            McpError::invalid_params(format!("HTTP request {what}: {e}"))
        };
        let mut builder = axum::http::Request::builder()
            .method(
                axum::http::Method::from_bytes(req.method.as_bytes())
                    .map_err(|e| bad("method", &e))?,
            )
            .uri(req.uri.as_str());
        for (k, v) in &req.headers {
            builder = builder.header(k.as_str(), v.as_str());
        }
        let request = builder
            .body(axum::body::Body::from(req.body))
            .map_err(|e| bad("head", &e))?;
        let mut router = self.router.clone();
        let response = match router.call(request).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        let (parts, body) = response.into_parts();
        let headers = parts
            .headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        Ok(EmbeddedHttpResponse {
            status: parts.status.as_u16(),
            headers,
            body: tokio::sync::Mutex::new(Some(body.into_data_stream())),
            cancelled: Default::default(),
        })
    }
}
