//! [`serve_http`]: binds a port and serves the endpoints on ferromcp's own HTTP/1.1 layer (the
//! accept loop, routing by path, graceful shutdown), and the [`HttpServerHandle`] it returns.

use super::super::gauges::{Gauges, HttpServerStats};
use super::super::h1;
use super::super::request::HttpRequest;
use super::super::HttpServerOptions;
use super::app::App;
use super::client_cert::ClientIdentity;
use super::headers::SESSION_ID_NAME;
use super::legacy::{legacy_post, legacy_sse};
use super::protect::metadata_response;
use super::responses::{allow_only, refusal, status_only};
use super::streamable::handle;
use super::tls::ServerTls;
use crate::server::Server;
use crate::session::{AuthInfo, AUTH_INFO};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub(super) mod board;

/// A running HTTP server started by [`serve_http`].
#[derive(Debug)]
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    gauges: Arc<Gauges>,
    tls: bool,
}

impl HttpServerHandle {
    /// The address the server is listening on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The server's base URL with the MCP path, e.g. `http://127.0.0.1:3000/mcp` (`https://`
    /// when it serves TLS).
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}{}", self.local_addr, path)
    }

    /// Stops accepting connections, ends open GET streams, lets in-flight requests finish, then
    /// closes every session.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shutdown.cancel();
        self.task.await.map_err(std::io::Error::other)?
    }

    /// Runs until the server stops (for example after a shutdown from another task).
    pub async fn wait(self) -> std::io::Result<()> {
        self.task.await.map_err(std::io::Error::other)?
    }

    /// Counters of the connection layer: open connections, buffered bytes, bytes scanned.
    pub fn stats(&self) -> HttpServerStats {
        self.gauges.snapshot()
    }

    /// A function reading [`Self::stats`] that outlives the handle (for metrics callbacks,
    /// e.g. `Telemetry::observe_http_server`).
    pub fn stats_reader(&self) -> impl Fn() -> HttpServerStats + Send + Sync + 'static {
        let gauges = self.gauges.clone();
        move || gauges.snapshot()
    }

    /// Installs the hook told, when a session with an id ends, how long it lived and its
    /// negotiated revision (the OpenTelemetry layer's `mcp.server.session.duration`). Sessions
    /// made before it was installed are not reported. False if a hook was installed before.
    #[cfg(feature = "otel")]
    pub(crate) fn on_session_end(
        &self,
        hook: impl Fn(std::time::Duration, Option<crate::protocol::ProtocolVersion>)
            + Send
            + Sync
            + 'static,
    ) -> bool {
        self.gauges.on_session_end(Box::new(hook))
    }

    /// A token that stops the server when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }
}

/// The counters of an endpoint served by a [`super::router_with_gauges`] router in an app of
/// the user's own: its live sessions and open SSE streams (its connections are the app's
/// server's, not counted here), as [`HttpServerHandle::stats`] gives a listening server's.
#[derive(Clone, Debug)]
pub struct HttpEndpointGauges(pub(super) Arc<Gauges>);

impl HttpEndpointGauges {
    /// The current values (`open_connections` stays 0: the app's server owns the connections).
    pub fn stats(&self) -> HttpServerStats {
        self.0.snapshot()
    }

    /// A function reading [`Self::stats`] (for metrics callbacks).
    pub fn stats_reader(&self) -> impl Fn() -> HttpServerStats + Send + Sync + 'static {
        let gauges = self.0.clone();
        move || gauges.snapshot()
    }

    /// As [`HttpServerHandle::on_session_end`].
    #[cfg(feature = "otel")]
    pub(crate) fn on_session_end(
        &self,
        hook: impl Fn(std::time::Duration, Option<crate::protocol::ProtocolVersion>)
            + Send
            + Sync
            + 'static,
    ) -> bool {
        self.0.on_session_end(Box::new(hook))
    }
}

/// Binds `addr` and serves `server` over HTTP on a spawned task.
///
/// Connections are served by ferromcp's own HTTP/1.1 layer (see the `h1` module): keep-alive,
/// pipelining, chunked bodies, `Expect: 100-continue`, and the limits of [`HttpServerOptions`]:
/// head and body size, connections at once, time for a new connection's first head, for a
/// request to arrive, for an idle kept-alive connection and for a write to make progress, and
/// the memory all connections may buffer together. [`HttpServerHandle::stats`] shows the
/// connection layer's counters. Use [`super::router`] to mount the endpoint in an axum app
/// instead.
///
/// Serving runs on the caller's tokio runtime, each connection a task of its own whose
/// handlers get their first poll inline, so a request is read, answered and written by one
/// worker whichever runtime the caller picked. The benchmark measures both a `#[tokio::main]`
/// server and a current-thread one (`bench/servers`, the two "ferromcp (Rust handler)" rows).
///
/// ```
/// use ferromcp::client::{http::connect, ClientHandlers, ClientOptions};
/// use ferromcp::server::Server;
/// use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
/// use serde_json::{json, Value};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::builder("hello", "1.0")
///     .tool("greet", "Says hello", |_: Value, _ctx| async { "Hello!" })
///     .build()?;
/// // Port 0: any free port; the handle says which.
/// let handle = serve_http(server, "127.0.0.1:0", HttpServerOptions::default()).await?;
/// let url = handle.url("/mcp");
///
/// let client = connect(&url, ClientOptions::new("c", "1"), ClientHandlers::default(), HttpClientOptions::default()).await?;
/// let result = client.call_tool("greet", json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("Hello!"));
/// client.close().await;
/// handle.shutdown().await?;
/// # Ok(())
/// # }
/// ```
pub async fn serve_http(
    server: Server,
    addr: impl tokio::net::ToSocketAddrs,
    mut options: HttpServerOptions,
) -> std::io::Result<HttpServerHandle> {
    let check = super::super::store::apply_redis_url(&mut options)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    if let Some(check) = check {
        check.await.map_err(std::io::Error::other)?;
    }
    let tls = match &options.tls {
        Some(t) => Some(
            ServerTls::new(t)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?,
        ),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let app = App::new(server, options, Some(local_addr));
    let shutdown = app.shutdown.clone();
    let gauges = app.gauges.clone();
    if let Some(t) = &tls {
        t.spawn_reload(shutdown.clone());
    }
    let is_tls = tls.is_some();
    let task = tokio::spawn(accept_loop(listener, app, gauges.clone(), tls));
    Ok(HttpServerHandle {
        local_addr,
        shutdown,
        task,
        gauges,
        tls: is_tls,
    })
}

/// Accepts connections until shutdown, then lets them finish and closes every session.
async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    gauges: Arc<Gauges>,
    tls: Option<ServerTls>,
) -> std::io::Result<()> {
    let o = &app.options;
    let limits = h1::Limits {
        max_head: o.max_head_size,
        max_body: o.max_body_size,
        request_timeout: o.request_timeout,
        idle_timeout: o.keep_alive_timeout,
        header_read_timeout: o.header_read_timeout,
        write_timeout: o.write_timeout,
        gauges,
        // Set per connection below (it knows the peer's address).
        before_body: None,
    };
    let connections = TaskTracker::new();
    // One permit per connection served. At the cap, a new connection closes the longest idle
    // one (without a session first) and waits for its permit; when every connection is busy,
    // it waits until one closes (and newer ones wait in the listen backlog).
    let slots = Arc::new(tokio::sync::Semaphore::new(o.max_connections.max(1)));
    let clients = ClientConnections::new(o.max_connections_per_client);
    let board = board::Board::new(o.max_connections, o.connections_kept_for_sessions);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = app.shutdown.cancelled() => break,
            r = listener.accept() => r,
        };
        let (tcp, client) = match accepted {
            Ok((tcp, peer)) => (tcp, peer.ip()),
            Err(e) => {
                use std::io::ErrorKind::*;
                // A connection that failed before it was accepted concerns only that peer;
                // anything else (out of file descriptors, say) is worth a pause.
                if !matches!(
                    e.kind(),
                    ConnectionRefused | ConnectionAborted | ConnectionReset
                ) {
                    tracing::warn!(error = %e, "accept failed; retrying in 1 s");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                continue;
            }
        };
        // Answers are small writes (an SSE event, then the stream's end): without TCP_NODELAY,
        // Nagle's algorithm and delayed ACKs add ~40 ms to every request.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY failed");
        }
        let Some(per_client) = clients.admit(client) else {
            // Over this client's share: told so without reading anything, and closed (over
            // TLS, closed only: plain text would mean nothing to a TLS client).
            if tls.is_none() {
                let _ = tcp.try_write(TOO_MANY_FROM_CLIENT);
            }
            tracing::debug!(%client, "connection refused: the client's connection limit is reached");
            continue;
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                // Every connection busy: look again every 25 ms for one gone idle.
                let mut evicted = board.evict(true, None);
                let wait = loop {
                    tokio::select! {
                        biased;
                        _ = app.shutdown.cancelled() => break None,
                        p = slots.clone().acquire_owned() => {
                            break Some(p.expect("the semaphore is never closed"))
                        }
                        _ = tokio::time::sleep(Duration::from_millis(25)), if !evicted => {
                            evicted = board.evict(true, None);
                        }
                    }
                };
                match wait {
                    Some(p) => p,
                    None => break,
                }
            }
        };
        let seat = Arc::new(board.register());
        let watched = h1::Watched {
            watch: seat.state.clone(),
            evict: seat.state.evict_token(),
        };
        let app = app.clone();
        let token = app.shutdown.clone();
        let on_board = seat.clone();
        let mut limits = limits.clone();
        limits.before_body = Some(super::address_limit::before_body(app.clone(), client));
        let acceptor = tls.as_ref().map(|t| t.acceptor.clone());
        connections.spawn(async move {
            match acceptor {
                None => {
                    let socket = h1::socket_of(&tcp);
                    let service = |req| serve_one(app.clone(), on_board.clone(), client, None, req);
                    h1::serve_watched(tcp, socket, limits, refusal, token, Some(watched), service)
                        .await
                }
                Some(acceptor) => {
                    // The handshake has the time a new connection has for its first head; a
                    // failed or late one closes this connection only. The h1 layer then reads
                    // the TLS stream through tokio (no socket to wait on directly: the bytes
                    // on the socket are records, not requests).
                    let handshake = tokio::select! {
                        biased;
                        _ = token.cancelled() => None,
                        r = tokio::time::timeout(limits.header_read_timeout, acceptor.accept(tcp)) => Some(r),
                    };
                    match handshake {
                        Some(Ok(Ok(mut stream))) => {
                            let cert = peer_identity(&stream);
                            let service =
                                |req| {
                                    serve_one(app.clone(), on_board.clone(), client, cert.clone(), req)
                                };
                            let write_timeout = limits.write_timeout;
                            h1::serve_watched(
                                &mut stream,
                                None,
                                limits,
                                refusal,
                                token,
                                Some(watched),
                                service,
                            )
                            .await;
                            // Closed as TLS says, with a close_notify alert: without it a
                            // client cannot tell the end of a close-delimited answer from a
                            // cut connection (rustls reports it as an unexpected EOF).
                            let _ = tokio::time::timeout(write_timeout, stream.shutdown()).await;
                        }
                        Some(Ok(Err(e))) => {
                            tracing::debug!(%client, error = %e, "TLS handshake failed");
                        }
                        Some(Err(_)) => {
                            tracing::debug!(%client, "TLS handshake timed out");
                        }
                        None => {}
                    }
                }
            }
            drop(seat);
            drop(per_client);
            drop(slot);
        });
    }
    drop(listener);
    connections.close();
    connections.wait().await;
    app.tasks.close();
    let _ = tokio::time::timeout(Duration::from_secs(30), app.tasks.wait()).await;
    app.close_all();
    Ok(())
}

/// Serves one request of a connection: as the connection's client certificate's identity when
/// it presented one (mutual TLS), and marks the connection as carrying a session when the
/// request names a live one or opens one. `client` (the peer's IP address) travels with the
/// request's header fields to the request contexts'
/// [`client_address`](crate::session::RequestContext::client_address).
async fn serve_one(
    app: Arc<App>,
    seat: Arc<board::Registered>,
    client: IpAddr,
    cert: Option<Arc<AuthInfo>>,
    mut req: HttpRequest,
) -> Response {
    let named = names_session(&req);
    req.headers.set_peer(Some(client));
    let r = match cert {
        Some(info) => AUTH_INFO.scope(info, endpoint(app, req)).await,
        None => endpoint(app, req).await,
    };
    if r.status().is_success() && (named || r.headers().contains_key(SESSION_ID_NAME)) {
        seat.proven();
    }
    r
}

/// The identity of the verified client certificate a TLS connection presented, if any.
fn peer_identity<IO>(stream: &tokio_rustls::server::TlsStream<IO>) -> Option<Arc<AuthInfo>> {
    let leaf = stream.get_ref().1.peer_certificates()?.first()?;
    match ClientIdentity::from_der(leaf) {
        Some(id) => Some(Arc::new(id.auth_info())),
        None => {
            tracing::warn!(
                "a verified client certificate could not be read; served without its identity"
            );
            None
        }
    }
}

/// Routes a request to the Streamable HTTP endpoint or the legacy ones (what [`super::router`] does
/// with axum's router).
pub(super) async fn endpoint(app: Arc<App>, req: HttpRequest) -> Response {
    let o = &app.options;
    let path = req.path();
    if let Some(auth) = o.auth.as_ref().filter(|a| a.metadata_path() == path) {
        if *req.method() == Method::GET {
            return metadata_response(auth);
        }
        return allow_only("GET");
    }
    if path == o.path {
        return handle(app, req).await;
    }
    if o.health_path.as_deref() == Some(path) {
        if *req.method() != Method::GET {
            return allow_only("GET");
        }
        if let Err(r) = app.check_origin(&req) {
            return r;
        }
        return app.health().await;
    }
    if let Some(metrics) = o.metrics.as_ref().filter(|m| m.path == path) {
        if *req.method() != Method::GET {
            return allow_only("GET");
        }
        if let Err(r) = app.check_origin(&req) {
            return r;
        }
        let body = axum::body::Body::from(metrics.render());
        return super::responses::response_with(StatusCode::OK, body, metrics.content_type, None);
    }
    if o.legacy_sse && path == o.legacy_sse_path {
        if *req.method() == Method::GET {
            return legacy_sse(app, req).await;
        }
        return allow_only("GET");
    }
    if o.legacy_sse && path == o.legacy_messages_path {
        if *req.method() == Method::POST {
            return legacy_post(app, req).await;
        }
        return allow_only("POST");
    }
    if let Some(proxy) = &o.oauth_proxy {
        if let Some(r) = super::oauth_proxy_routes::serve_listener(proxy, &req).await {
            return r;
        }
    }
    status_only(StatusCode::NOT_FOUND)
}

/// Whether a request names a session: the `Mcp-Session-Id` header, or the legacy message
/// endpoint's `sessionId` query parameter (a success answering it means the session is live).
pub(super) fn names_session(req: &HttpRequest) -> bool {
    req.headers.get(super::headers::SESSION_ID_HEADER).is_some()
        || req.query().is_some_and(|q| q.contains("sessionId="))
}

/// The answer to a connection over its client's share.
pub(super) const TOO_MANY_FROM_CLIENT: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// Open connections per client address ([`HttpServerOptions::max_connections_per_client`]).
pub(super) struct ClientConnections {
    max: usize,
    open: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

/// One connection counted against its client; uncounted when dropped.
pub(super) struct ClientSlot {
    client: std::net::IpAddr,
    open: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

impl ClientConnections {
    pub(super) fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            open: Arc::default(),
        }
    }

    /// Counts a connection from `client`; `None` when it already has its share open.
    pub(super) fn admit(&self, client: std::net::IpAddr) -> Option<ClientSlot> {
        let client = client_key(client);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(client).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(ClientSlot {
            client,
            open: self.open.clone(),
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// What a client address is counted as: IPv4 as is (an IPv4-mapped IPv6 address too), IPv6
/// by its /64 (one host usually holds a whole /64).
fn client_key(ip: std::net::IpAddr) -> std::net::IpAddr {
    match ip {
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => std::net::IpAddr::V4(v4),
            None => {
                let mut seg = v6.segments();
                seg[4..].fill(0);
                std::net::IpAddr::V6(std::net::Ipv6Addr::from(seg))
            }
        },
        v4 => v4,
    }
}
