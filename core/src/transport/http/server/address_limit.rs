//! The per-address rate limit over HTTP, before any JSON is read: a POST to the MCP endpoint
//! (or the legacy messages endpoint) from a client address whose bucket is empty is answered
//! `429 Too Many Requests` with `Retry-After` (whole seconds, rounded up) on its head alone; its
//! body is never read. The limit is the server's own [`RateLimit`] layer when it is keyed by
//! the client's address alone (see [`RateLimit::limits_addresses`]): the address comes from the
//! same header the layer reads (`x-forwarded-for` by default), and this check only looks at the
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

/// The answer for a request whose head names an address over a limit, if any; `header_of`
/// reads a header field of the request's head.
async fn refusal(app: &App, header_of: impl Fn(&str) -> Option<String>) -> Option<Response> {
    for limit in limits(app) {
        let value = header_of(limit.address_header());
        if let Some((retry_after, size, window)) = limit.refuses_address(value.as_deref()).await {
            return Some(too_many(retry_after, size, window));
        }
    }
    None
}

/// The check ferromcp's own listener runs on each request's head ([`h1::Limits::before_body`](crate::transport::http::h1)):
/// nothing (no allocation) unless the request is a POST for the server and the server has an
/// address limit.
pub(super) fn before_body(app: Arc<App>) -> BeforeBody {
    BeforeBody(Arc::new(move |req: &HttpRequest| {
        if !carries_messages(&app, req.method(), req.path()) || limits(&app).next().is_none() {
            return None;
        }
        let headers = req.headers().clone();
        let app = app.clone();
        Some(Box::pin(async move {
            refusal(&app, |name| headers.get_str(name).map(str::to_string)).await
        }))
    }))
}

/// The same check for axum's router, before it reads the body (its handlers of the MCP and
/// legacy messages routes call it: the route says what the request is, whatever prefix the
/// router is nested under).
pub(super) async fn before_body_axum(
    app: &App,
    method: &Method,
    headers: &axum::http::HeaderMap,
) -> Option<Response> {
    if *method != Method::POST || limits(app).next().is_none() {
        return None;
    }
    refusal(app, |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    })
    .await
}
