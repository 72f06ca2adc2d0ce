//! The legacy HTTP+SSE endpoints (2024-11-05): the SSE stream that opens a session and names its
//! message endpoint, and the POST endpoint that takes the session's messages. A server of the
//! per-request era only does not serve them (404, as an unknown path): their sessions begin
//! with `initialize`, which it refuses.

use super::super::gauges::StreamKind;
use super::super::request::HttpRequest;
use super::super::sse::encode;
use super::app::{new_session_id, App};
use super::checks::check_content_type;
use super::frames::{frame_queue, offer, Frame};
use super::protect::guarded;
use super::responses::{rpc_error, shutting_down, sse_response, status_only};
use super::sse_body::standalone_sse_body;
use crate::jsonrpc::ErrorResponse;
use crate::session::inbound::{self, Inbound};
use crate::session::Incoming;
use crate::McpError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::future::join_all;
use std::sync::Arc;

/// What the legacy endpoints answer on a server without a handshake-era revision.
fn not_served() -> Response {
    status_only(StatusCode::NOT_FOUND)
}

/// GET on the legacy SSE endpoint: opens a session whose stream first names its message endpoint.
pub(super) async fn legacy_sse(app: Arc<App>, req: HttpRequest) -> Response {
    if !app.speaks_handshake() {
        return not_served();
    }
    if app.shutdown.is_cancelled() {
        // Before the token is checked, as on the Streamable HTTP endpoint.
        return shutting_down(None);
    }
    if app.options.auth.is_none() {
        return legacy_sse_stream(app, req).await;
    }
    let (a, fields) = (app.clone(), req.headers.clone());
    guarded(&a, &fields, legacy_sse_stream(app, req)).await
}

async fn legacy_sse_stream(app: Arc<App>, req: HttpRequest) -> Response {
    if app.shutdown.is_cancelled() {
        return shutting_down(None);
    }
    app.start_reaper();
    if let Err(r) = app.check_origin(&req) {
        return r;
    }
    let id = new_session_id();
    let http = app.new_session(Some(id.clone()), true, true);
    let http = match app.admit(id.clone(), http, None) {
        Ok(h) => h,
        Err(r) => return r,
    };
    let (tx, rx) = frame_queue(
        app.options.stream_queue_capacity.max(1),
        app.options.max_stream_buffered_bytes,
        http.stream_budget(app.options.max_session_buffered_bytes),
    );
    let endpoint = format!("{}?sessionId={}", app.options.legacy_messages_path, id);
    offer(
        &tx,
        Frame::Sse(encode(None, Some("endpoint"), &endpoint, None)),
    );
    http.routes.lock().unwrap().get = Some(tx);
    let weak_app = Arc::downgrade(&app);
    let on_drop: Box<dyn FnOnce() + Send> = Box::new(move || {
        if let Some(app) = weak_app.upgrade() {
            app.remove_legacy(&id);
        }
    });
    sse_response(
        None,
        standalone_sse_body(
            rx,
            Some(app.shutdown.clone()),
            Some(on_drop),
            app.options.sse_keep_alive,
            app.options.sse_idle_timeout,
            &http,
            app.gauges.stream(StreamKind::Legacy),
        ),
    )
}

/// [`legacy_post_request`] with the request's headers available to the contexts of the requests
/// it carries.
pub(super) async fn legacy_post(app: Arc<App>, req: HttpRequest) -> Response {
    if !app.speaks_handshake() {
        return not_served();
    }
    if app.shutdown.is_cancelled() {
        return shutting_down(crate::jsonrpc::scan_envelope(&req.body).request_id());
    }
    let headers = req.headers.shared();
    let fields = app.options.auth.is_some().then(|| req.headers.clone());
    let post = crate::session::HTTP_HEADERS.scope(headers, legacy_post_request(app.clone(), req));
    match fields {
        None => post.await,
        Some(fields) => guarded(&app, &fields, post).await,
    }
}

async fn legacy_post_request(app: Arc<App>, req: HttpRequest) -> Response {
    if app.shutdown.is_cancelled() {
        return shutting_down(crate::jsonrpc::scan_envelope(&req.body).request_id());
    }
    if let Err(r) = app.check_origin(&req) {
        return r;
    }
    let sid = req.query().and_then(|q| {
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == "sessionId" || *k == "session_id")
            .map(|(_, v)| v.to_string())
    });
    let Some(sid) = sid else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            McpError::invalid_request("sessionId query parameter is required"),
        );
    };
    let http = match app.live_get(&sid) {
        Some(s) if s.legacy && !s.session.is_closed() => s,
        _ => {
            return rpc_error(
                StatusCode::NOT_FOUND,
                None,
                McpError::invalid_request("session not found"),
            )
        }
    };
    let HttpRequest { headers, body, .. } = req;
    if let Err(r) = check_content_type(&headers) {
        return r;
    }
    http.touch();
    // What the body is, and whether a batch is served, as over any transport
    // (`session::inbound`); a single message's answer goes out alone on the session's stream,
    // a batch's answers together as one array once all are there.
    match inbound::read(&body, false) {
        Err(ErrorResponse { id, error }) => {
            return rpc_error(StatusCode::BAD_REQUEST, id, error);
        }
        Ok(Inbound::One(m)) => match http.session.handle_incoming(m) {
            Incoming::Nothing => {}
            Incoming::Reply(reply) => http.route(reply, None),
            Incoming::Pending(fut) => {
                let h = http.clone();
                app.tasks.spawn(async move {
                    if let Some(reply) = fut.await {
                        h.route(reply, None);
                    }
                });
            }
        },
        Ok(Inbound::Batch(items)) => {
            let scope = http.session.batch_scope(&items);
            if let Err(e) = inbound::check_batch(scope, inbound::carries_initialize(&items)) {
                return rpc_error(StatusCode::BAD_REQUEST, None, e);
            }
            let (mut ready, messages) = inbound::split_batch(items);
            let mut waiting = Vec::new();
            for m in messages {
                match http.session.handle_incoming(m) {
                    Incoming::Nothing => {}
                    Incoming::Reply(reply) => ready.push(reply),
                    Incoming::Pending(fut) => waiting.push(fut),
                }
            }
            if waiting.is_empty() {
                http.route_legacy_batch(ready);
            } else {
                let h = http.clone();
                app.tasks.spawn(async move {
                    ready.extend(join_all(waiting).await.into_iter().flatten());
                    h.route_legacy_batch(ready);
                });
            }
        }
        Ok(Inbound::Call(..)) => unreachable!("the lane is not read here"),
    }
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(Body::from("Accepted"))
        .expect("valid response")
}
