//! Ready-made HTTP responses: JSON-RPC errors, JSON and SSE heads, and the refusals of the
//! connection layer and of the endpoints (shutdown, wrong method).

use super::headers::SESSION_ID_NAME;
use crate::jsonrpc::{Message, RequestId};
use crate::McpError;
use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;

/// A JSON-RPC error response with HTTP status `status`.
pub(super) fn rpc_error(status: StatusCode, id: Option<RequestId>, error: McpError) -> Response {
    json_response(status, &Message::error(id, error), None)
}

/// A response with `status`, `body`, a static `Content-Type` and the session id, if any (headers
/// inserted directly: no builder, no parsing of names or static values).
pub(super) fn response_with(
    status: StatusCode,
    body: Body,
    content_type: &'static str,
    sid: Option<&str>,
) -> Response {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(v) = sid.and_then(|s| HeaderValue::from_str(s).ok()) {
        h.insert(SESSION_ID_NAME, v);
    }
    r
}

/// A JSON response with `body` serialized.
pub(super) fn json_response(
    status: StatusCode,
    body: &impl serde::Serialize,
    sid: Option<&str>,
) -> Response {
    let body = Body::from(serde_json::to_vec(body).expect("serializes"));
    response_with(status, body, "application/json", sid)
}

/// A response with `status` and an empty body.
pub(super) fn status_only(status: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = status;
    r
}

/// An SSE response (200, `text/event-stream`, not cached nor buffered by proxies) with `body`.
pub(super) fn sse_response(sid: Option<&str>, body: Body) -> Response {
    const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");
    let mut r = response_with(StatusCode::OK, body, "text/event-stream", sid);
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    r
}

/// 503 for requests arriving while the server shuts down (in-flight ones still finish), with
/// the request's id when it has one (a GET has none); `Retry-After: 1`, as another replica
/// behind the same address may take it, and `Connection: close`. The same answer on every
/// endpoint (Streamable HTTP, legacy SSE and messages).
pub(super) fn shutting_down(id: Option<crate::jsonrpc::RequestId>) -> Response {
    let mut r = unavailable(id, McpError::internal("the server is shutting down"));
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// 503 with a JSON-RPC error (for request `id`, when known) and `Retry-After: 1`: the server
/// cannot take this now, and may soon.
pub(super) fn unavailable(id: Option<crate::jsonrpc::RequestId>, error: McpError) -> Response {
    let mut r = rpc_error(StatusCode::SERVICE_UNAVAILABLE, id, error);
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// The answer to a request the HTTP layer refuses by itself (malformed, too large, too slow):
/// a request over the size limit is answered with its own id when its body names it, so the
/// client can match the error to its request.
pub(super) fn refusal(status: StatusCode, message: String, id: Option<RequestId>) -> Response {
    rpc_error(status, id, McpError::invalid_request(message))
}

/// 405 with the methods a legacy endpoint takes.
pub(super) fn allow_only(methods: &'static str) -> Response {
    let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(methods));
    r
}
