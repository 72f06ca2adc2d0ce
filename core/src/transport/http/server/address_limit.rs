//! The per-address rate limit over HTTP, before any JSON is read: a POST to the MCP endpoint
//! (or the legacy messages endpoint) from a client address whose bucket is empty is answered
//! `429 Too Many Requests` with `Retry-After` (whole seconds, rounded up) on its head alone; its
//! body is never read. The limit is the server's own [`RateLimit`] layer when it is keyed by
//! the client's address alone (see [`RateLimit::limits_addresses`]): the address is the one the
//! layer keys by (the connection peer's IP address, or the client a forwarding header names on
//! a connection from a trusted proxy, [`RateLimit::address_key`]), and this check only looks at the
//! bucket (`BucketStore::peek`), so a request let through is counted once, by the layer, which
//! still answers `-32004` to a request that empties the bucket inside an admitted POST. Other
//! keys (session, principal, tool) need the body and stay JSON-RPC errors. The 429's body is
//! that same error (`id: null`), for clients that read it.

use super::app::App;
use super::responses::rpc_error;
use crate::server::middleware::{rate_limited, RateLimit};
use crate::transport::http::h1::BeforeBody;
use crate::transport::http::request::HttpRequest;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

/// The address limits of `app`'s server (none unless a layer is one).
fn limits(app: &App) -> impl Iterator<Item = &RateLimit> {
    app.server
        .inner
        .middleware
        .iter()
        .filter_map(|layer| layer.address_limit())
}

/// Whether a request may carry JSON-RPC messages for the server: a POST to the MCP endpoint or
/// the legacy messages endpoint.
fn carries_messages(app: &App, method: &Method, path: &str) -> bool {
    let o = &app.options;
    *method == Method::POST && (path == o.path || (o.legacy_sse && path == o.legacy_messages_path))
}

/// The 429 for an address over a limit of `limit` per `window`, free again in `retry_after`.
fn too_many(retry_after: Duration, limit: u32, window: Duration) -> Response {
    let mut r = rpc_error(
        StatusCode::TOO_MANY_REQUESTS,
        None,
        rate_limited(retry_after, limit, window),
    );
    let seconds = retry_after.as_millis().div_ceil(1000).max(1);
    if let Ok(v) = HeaderValue::from_str(&seconds.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// The answer for a request from an address over a limit, if any: `peer` is the connection
/// peer's IP address (if known) and `header_of` reads a header field of the request's head
/// (every line of it, joined by commas).
async fn refusal(
    app: &App,
    peer: Option<IpAddr>,
    header_of: impl Fn(&str) -> Option<String>,
) -> Option<Response> {
    for limit in limits(app) {
        let refused = limit.refuses_address(peer, |name| header_of(name)).await;
        if let Some((retry_after, size, window)) = refused {
            return Some(too_many(retry_after, size, window));
        }
    }
    None
}

/// The check ferromcp's own listener runs on each request's head ([`h1::Limits::before_body`](crate::transport::http::h1)):
/// nothing (no allocation) unless the request is a POST for the server and the server has an
/// address limit. One per connection: `peer` is the IP address the listener accepted it from.
pub(super) fn before_body(app: Arc<App>, peer: IpAddr) -> BeforeBody {
    BeforeBody(Arc::new(move |req: &HttpRequest| {
        if !carries_messages(&app, req.method(), req.path()) || limits(&app).next().is_none() {
            return None;
        }
        let headers = req.headers().clone();
        let app = app.clone();
        Some(Box::pin(async move {
            refusal(&app, Some(peer), |name| {
                joined(headers.get_all(name).map(String::from_utf8_lossy))
            })
            .await
        }))
    }))
}

/// The same check for axum's router, before it reads the body (its handlers of the MCP and
/// legacy messages routes call it: the route says what the request is, whatever prefix the
/// router is nested under); `peer` is the address from axum's `ConnectInfo`, if it has one.
pub(super) async fn before_body_axum(
    app: &App,
    method: &Method,
    headers: &axum::http::HeaderMap,
    peer: Option<IpAddr>,
) -> Option<Response> {
    if *method != Method::POST || limits(app).next().is_none() {
        return None;
    }
    refusal(app, peer, |name| {
        joined(
            headers
                .get_all(name)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes())),
        )
    })
    .await
}

/// The lines of one header field joined by `, ` (as RFC 9110 reads a field sent on several
/// lines); `None` for no line.
fn joined<S: AsRef<str>>(mut lines: impl Iterator<Item = S>) -> Option<String> {
    let mut all = lines.next()?.as_ref().to_string();
    for line in lines {
        all.push_str(", ");
        all.push_str(line.as_ref());
    }
    Some(all)
}
