//! The Streamable HTTP endpoint: dispatch by method, the GET (server-to-client, resumable) stream
//! and DELETE; POST is in [`super::post`].

use super::super::queue::stream_queue;
use super::super::request::{Fields, HttpRequest};
use super::super::sse::encode;
use super::app::App;
use super::checks::{accepts, check_version_header};
use super::frames::{offer, Frame};
use super::headers::SESSION_ID_HEADER;
use super::post::handle_post;
use super::protect::guarded;
use super::responses::{rpc_error, shutting_down, sse_response, status_only};
use super::session::HttpSession;
use super::sse_body::sse_body;
use crate::protocol::ProtocolVersion;
use crate::McpError;
use axum::body::Body;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use std::sync::Arc;

/// The Streamable HTTP endpoint: checks shutdown and Host/Origin, then dispatches by method.
pub(super) async fn handle(app: Arc<App>, req: HttpRequest) -> Response {
    if app.shutdown.is_cancelled() {
        return shutting_down();
    }
    app.start_reaper();
    if let Err(r) = app.check_origin(&req) {
        return r;
    }
    if app.options.auth.is_none() {
        return dispatch(app, req).await;
    }
    let (a, fields) = (app.clone(), req.headers.clone());
    guarded(&a, &fields, dispatch(app, req)).await
}

async fn dispatch(app: Arc<App>, req: HttpRequest) -> Response {
    match *req.method() {
        Method::POST => handle_post(app, req).await,
        Method::GET => handle_get(app, req),
        Method::DELETE => handle_delete(app, req),
        _ => method_not_allowed(&app),
    }
}

fn method_not_allowed(app: &App) -> Response {
    let allow = if app.options.stateless {
        "POST"
    } else if app.options.enable_get_stream {
        "GET, POST, DELETE"
    } else {
        "POST, DELETE"
    };
    let mut r = rpc_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        McpError::invalid_request("method not allowed"),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}

fn session_from_headers(app: &App, h: &Fields) -> Result<Arc<HttpSession>, Response> {
    let Some(sid) = h.get_str(SESSION_ID_HEADER) else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            McpError::invalid_request("Mcp-Session-Id header is required"),
        ));
    };
    match app.sessions.get(sid) {
        Some(s) if !s.session.is_closed() && !s.legacy => Ok(s),
        _ => Err(rpc_error(
            StatusCode::NOT_FOUND,
            None,
            McpError::invalid_request("session not found (unknown, expired or deleted)"),
        )),
    }
}

fn handle_get(app: Arc<App>, req: HttpRequest) -> Response {
    if app.options.stateless || !app.options.enable_get_stream {
        return method_not_allowed(&app);
    }
    let h = req.headers();
    if !accepts(h).1 {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            McpError::invalid_request("Accept must include text/event-stream"),
        );
    }
    if let Err(r) = check_version_header(app.supported_versions(), h) {
        return r;
    }
    let http = match session_from_headers(&app, h) {
        Ok(s) => s,
        Err(r) => return r,
    };
    http.touch();
    let cap = app.options.stream_queue_capacity.max(1);
    let sid = http.id.clone();
    let get_key = http.get_key();
    if let Some(last) = h.get_str("last-event-id") {
        if let Some((key, events)) = app.events.replay_after(last) {
            let prefix = http.key();
            if let Some(rest) = key.strip_prefix(&prefix) {
                let (tx, rx) = stream_queue(cap + events.len());
                let mut r = http.routes.lock().unwrap();
                for (eid, data) in &events {
                    if !data.is_empty() {
                        offer(&tx, Frame::Sse(encode(Some(eid), None, data, None)));
                    }
                }
                if key == get_key {
                    r.get = Some(tx);
                } else if let Some(route) = rest.parse::<u64>().ok().and_then(|n| r.stream(n)) {
                    route.tx = Some(tx);
                    route.generation += 1;
                    let (slot, generation) = (route.slot, route.generation);
                    drop(r);
                    http.schedule_close(app.options.close_streams_after, slot, generation);
                }
                return sse_response(
                    sid.as_deref(),
                    sse_body(rx, Some(app.shutdown.clone()), None),
                );
            }
        } else if http.is_finished_only_event(last) {
            // Not kept (`EventStore::append_only_event`): nothing follows it, so the resumed
            // stream ends at once, as it would have after replaying nothing.
            return sse_response(sid.as_deref(), Body::empty());
        }
    }
    let rx = {
        let mut r = http.routes.lock().unwrap();
        if r.get.as_ref().is_some_and(|t| !t.is_closed()) {
            return rpc_error(
                StatusCode::CONFLICT,
                None,
                McpError::invalid_request("a GET stream is already open for this session"),
            );
        }
        let version = http
            .session
            .protocol_version()
            .unwrap_or(ProtocolVersion::V2025_03_26);
        let (tx, rx) = stream_queue(cap + r.backlog.len() + 1);
        if version >= ProtocolVersion::V2025_11_25 {
            let eid = app.events.append(&get_key, "");
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, "", retry)));
        }
        while let Some(m) = r.backlog.pop_front() {
            let data = serde_json::to_string(&m).expect("serializes");
            let eid = app.events.append(&get_key, &data);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, &data, None)));
        }
        r.get = Some(tx);
        rx
    };
    sse_response(
        sid.as_deref(),
        sse_body(rx, Some(app.shutdown.clone()), None),
    )
}

fn handle_delete(app: Arc<App>, req: HttpRequest) -> Response {
    if app.options.stateless {
        return method_not_allowed(&app);
    }
    let http = match session_from_headers(&app, req.headers()) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(id) = &http.id {
        app.sessions.remove(id);
    }
    http.close();
    status_only(StatusCode::OK)
}
