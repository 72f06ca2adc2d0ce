//! [`router`]: the endpoints as an axum router, for mounting in an existing app; buffers each
//! body (within the size limit) and hands the request to the same handlers as the own listener.

use super::super::request::{Fields, HttpRequest};
use super::super::HttpServerOptions;
use super::app::App;
use super::fair_listener::{seat_of, tracked};
use super::legacy::{legacy_post, legacy_sse};
use super::listener::HttpEndpointGauges;
use super::oauth_proxy_routes;
use super::protect::{metadata_path, metadata_response};
use super::responses::rpc_error;
use super::streamable::handle;
use crate::server::Server;
use crate::McpError;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Reads an axum request's body whole, within [`HttpServerOptions::max_body_size`] (413 beyond).
pub(super) async fn buffered(app: &App, req: Request) -> Result<HttpRequest, Response> {
    let (parts, body) = req.into_parts();
    let body = read_body(app, &parts.headers, body).await?;
    Ok(from_axum(parts, body))
}

/// The endpoint's view of an axum request's head, with `body`.
fn from_axum(parts: axum::http::request::Parts, body: Bytes) -> HttpRequest {
    // An absolute-form target (or HTTP/2's `:authority`) stays whole: its authority is the
    // request's host.
    let target = match (parts.uri.scheme(), parts.uri.authority()) {
        (Some(_), Some(_)) => Bytes::from(parts.uri.to_string()),
        _ => parts.uri.path_and_query().map_or_else(
            || Bytes::from_static(b"/"),
            |pq| Bytes::copy_from_slice(pq.as_str().as_bytes()),
        ),
    };
    HttpRequest {
        method: parts.method,
        target,
        headers: Fields::from_map(&parts.headers),
        body,
    }
}

/// The IP address of an axum request's peer, from its `ConnectInfo`: a
/// [`FairListener`](super::FairListener)'s [`ConnectionSeat`](super::ConnectionSeat) or a
/// `SocketAddr` (`into_make_service_with_connect_info::<SocketAddr>()`); `None` when the app was
/// served without connect info.
fn peer_of(req: &Request, seat: Option<&super::ConnectionSeat>) -> Option<IpAddr> {
    if let Some(seat) = seat {
        return Some(seat.remote_addr().ip());
    }
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
}

/// [`handle`] for axum's router (on a [`FairListener`](super::FairListener) connection, its
/// place in the connection budget kept up to date: [`tracked`]).
async fn handle_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    let (seat, named) = (seat_of(&req), names_session(&req));
    let peer = peer_of(&req, seat.as_ref());
    tracked(seat, named, async move {
        let early = super::address_limit::before_body_axum(&app, req.method(), req.headers(), peer);
        if let Some(r) = early.await {
            return r;
        }
        match buffered(&app, req).await {
            Ok(mut req) => {
                req.headers.set_peer(peer);
                handle(app, req).await
            }
            Err(r) => r,
        }
    })
    .await
}

/// Whether a request names a session (as `serve_http` tells it): the `Mcp-Session-Id` header,
/// or the legacy message endpoint's `sessionId` query parameter.
fn names_session(req: &Request) -> bool {
    req.headers()
        .contains_key(super::headers::SESSION_ID_HEADER)
        || req.uri().query().is_some_and(|q| q.contains("sessionId="))
}

/// The Protected Resource Metadata for axum's router.
async fn metadata_axum(State(app): State<Arc<App>>) -> Response {
    match &app.options.auth {
        Some(auth) => metadata_response(auth),
        None => Response::default(),
    }
}

/// The readiness endpoint for axum's router.
async fn health_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    if let Err(r) = app.check_origin(&from_axum(parts, Bytes::new())) {
        return r;
    }
    app.health().await
}

/// [`legacy_sse`] for axum's router.
async fn legacy_sse_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    let seat = seat_of(&req);
    let (parts, _) = req.into_parts();
    tracked(seat, false, legacy_sse(app, from_axum(parts, Bytes::new()))).await
}

/// [`legacy_post`] for axum's router.
async fn legacy_post_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    let (seat, named) = (seat_of(&req), names_session(&req));
    let peer = peer_of(&req, seat.as_ref());
    tracked(seat, named, async move {
        let early = super::address_limit::before_body_axum(&app, req.method(), req.headers(), peer);
        if let Some(r) = early.await {
            return r;
        }
        match buffered(&app, req).await {
            Ok(mut req) => {
                req.headers.set_peer(peer);
                legacy_post(app, req).await
            }
            Err(r) => r,
        }
    })
    .await
}

/// Reads a body within the size limit. A body over it is read on (to the same caps as the own
/// listener's, not kept) and scanned for its JSON-RPC id, so the 413 can carry it wherever the
/// body writes it (the TypeScript SDK writes the id after `params`).
async fn read_body(app: &App, headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    use super::super::h1::{REFUSED_SCAN_BYTES, REFUSED_SCAN_TIME};
    use crate::jsonrpc::envelope_scan::EnvelopeScan;
    use http_body_util::BodyExt;
    let limit = app.options.max_body_size;
    let too_large = |id| {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            id,
            McpError::invalid_request(format!("request body exceeds {limit} bytes")),
        )
    };
    let declared =
        (headers.get(header::CONTENT_LENGTH)).and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    let mut over = declared
        .is_some_and(|n| n > limit)
        .then(EnvelopeScan::default);
    let mut kept = bytes::BytesMut::new();
    let mut body = body;
    let deadline = tokio::time::Instant::now() + REFUSED_SCAN_TIME;
    let mut scanned = 0usize;
    loop {
        let frame = match &over {
            // Over the limit: read on only while the caps allow.
            Some(scan) if scan.settled() || scanned >= REFUSED_SCAN_BYTES => break,
            Some(_) => match tokio::time::timeout_at(deadline, body.frame()).await {
                Ok(f) => f,
                Err(_) => break,
            },
            None => body.frame().await,
        };
        let data = match frame {
            None => break,
            Some(Err(_)) if over.is_some() => break,
            Some(Err(_)) => return Err(too_large(None)),
            Some(Ok(f)) => match f.into_data() {
                Ok(d) => d,
                Err(_) => continue,
            },
        };
        match &mut over {
            Some(scan) => {
                scan.feed(&data);
                scanned += data.len();
            }
            None if kept.len() + data.len() > limit => {
                let mut scan = EnvelopeScan::default();
                scan.feed(&kept);
                scan.feed(&data);
                scanned = kept.len() + data.len();
                kept = bytes::BytesMut::new();
                over = Some(scan);
            }
            None => kept.extend_from_slice(&data),
        }
    }
    match over {
        Some(scan) => Err(too_large(scan.finish().request_id())),
        None => Ok(kept.freeze()),
    }
}

fn build(
    server: Server,
    options: HttpServerOptions,
    bound: Option<SocketAddr>,
) -> (Router, Arc<App>) {
    let app = App::new(server, options, bound);
    let o = &app.options;
    let mut router = Router::new().route(&o.path, axum::routing::any(handle_axum));
    if let Some(path) = metadata_path(&app) {
        router = router.route(&path, axum::routing::get(metadata_axum));
    }
    if let Some(path) = &o.health_path {
        router = router.route(path, axum::routing::get(health_axum));
    }
    if let Some(proxy) = &o.oauth_proxy {
        // A path routed above stays as it is (the listener checks them in the same order): the
        // protected resource metadata of `auth` is the same document as the proxy's.
        let taken = [
            Some(o.path.clone()),
            metadata_path(&app),
            o.health_path.clone(),
        ];
        for path in proxy.endpoint_paths() {
            if !taken.contains(&Some(path.clone())) {
                router = router.route(&path, axum::routing::any(oauth_proxy_routes::serve_axum));
            }
        }
    }
    if o.legacy_sse {
        router = router
            .route(&o.legacy_sse_path, axum::routing::get(legacy_sse_axum))
            .route(
                &o.legacy_messages_path,
                axum::routing::post(legacy_post_axum),
            );
    }
    (router.with_state(app.clone()), app)
}

/// An axum [`Router`] serving `server` over Streamable HTTP at `options.path` (and, when
/// `options.legacy_sse` is set, the 2024-11-05 endpoints). Merge or nest it into your own app.
///
/// The connection limits of [`HttpServerOptions`] (`max_connections`,
/// `max_connections_per_client`, `connections_kept_for_sessions`) are [`super::serve_http`]'s
/// own listener's: the app's server accepts and keeps the connections here. To have them, serve
/// the app through a [`FairListener`](super::FairListener) with
/// `into_make_service_with_connect_info::<ConnectionSeat>()` (see there).
///
/// With [`HttpServerOptions::redis_url`] the store connects on first use.
///
/// # Panics
/// When `redis_url` is not a valid Redis URL, or is set in a build without the `redis` feature.
///
/// ```
/// use ferromcp::client::{http::connect, ClientHandlers, ClientOptions};
/// use ferromcp::server::Server;
/// use ferromcp::transport::http::{router, HttpClientOptions, HttpServerOptions};
/// use serde_json::{json, Value};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::builder("hello", "1.0")
///     .tool("greet", "Says hello", |_: Value, _ctx| async { "Hello!" })
///     .build()?;
/// // The MCP endpoint beside the app's own routes.
/// let app = axum::Router::new()
///     .route("/", axum::routing::get(|| async { "the app" }))
///     .merge(router(server, HttpServerOptions::default()));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let url = format!("http://{}/mcp", listener.local_addr()?);
/// tokio::spawn(async move { axum::serve(listener, app).await });
///
/// let client = connect(&url, ClientOptions::new("c", "1"), ClientHandlers::default(), HttpClientOptions::default()).await?;
/// assert_eq!(client.call_tool("greet", json!({})).await?.content[0].as_text(), Some("Hello!"));
/// client.close().await;
/// # Ok(())
/// # }
/// ```
pub fn router(server: Server, options: HttpServerOptions) -> Router {
    router_with_gauges(server, options).0
}

/// [`router`], with the counters of the endpoint it serves ([`HttpEndpointGauges`]: live
/// sessions and open SSE streams), for an app of the user's own that serves it and has no
/// [`super::HttpServerHandle`] to read them from (`Telemetry::observe_http_router`).
///
/// # Panics
/// As [`router`].
pub fn router_with_gauges(
    server: Server,
    mut options: HttpServerOptions,
) -> (Router, HttpEndpointGauges) {
    if let Err(e) = super::super::store::apply_redis_url(&mut options) {
        panic!("ferromcp router: {e}");
    }
    let (router, app) = build(server, options, None);
    let gauges = HttpEndpointGauges(app.gauges.clone());
    (router, gauges)
}
