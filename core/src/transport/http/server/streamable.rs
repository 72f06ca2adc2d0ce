//! The Streamable HTTP endpoint: dispatch by method, the GET (server-to-client, resumable) stream
//! and DELETE; POST is in [`super::post`]. A server of the per-request era only (no
//! handshake-era revision in its `supported_versions`) has neither: both are 405 with
//! `Allow: POST`, as 2026-07-28 asks of a server without sessions.

use super::super::gauges::StreamKind;
use super::super::request::{Fields, HttpRequest};
use super::super::sse::encode;
use super::super::store::{StoreError, LIVENESS_RENEW};
use super::app::App;
use super::checks::{accepts, check_version_header};
use super::frames::{frame_queue, offer, Frame};
use super::headers::SESSION_ID_HEADER;
use super::post::handle_post;
use super::protect::guarded;
use super::replica::{is_message, parse_event_id, priming_ids, stream_owner, Effects};
use super::responses::{rpc_error, shutting_down, sse_response, status_only};
use super::routes::RemoteStream;
use super::session::HttpSession;
use super::sse_body::{sse_body, standalone_sse_body};
use crate::protocol::ProtocolVersion;
use crate::McpError;
use axum::body::Body;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use std::sync::Arc;

/// The Streamable HTTP endpoint: checks shutdown and Host/Origin, then dispatches by method;
/// the answer is encoded as the request's `Accept-Encoding` allows ([`super::compression`]).
pub(super) async fn handle(app: Arc<App>, req: HttpRequest) -> Response {
    if app.options.compression.is_none() {
        return endpoint(app, req).await;
    }
    let coding = super::compression::response_coding(&app, &req.headers);
    let r = endpoint(app.clone(), req).await;
    super::compression::encode_response(&app, coding, r).await
}

async fn endpoint(app: Arc<App>, req: HttpRequest) -> Response {
    if app.shutdown.is_cancelled() {
        // A POST's request is told so with its id (scanned, not parsed: the refusal is cheap).
        let id = crate::jsonrpc::scan_envelope(&req.body).request_id();
        return shutting_down(id);
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
        Method::GET => handle_get(app, req).await,
        Method::DELETE => handle_delete(app, req).await,
        _ => method_not_allowed(&app),
    }
}

fn method_not_allowed(app: &App) -> Response {
    let allow = if app.options.stateless || !app.speaks_handshake() {
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

async fn session_from_headers(app: &App, h: &Fields) -> Result<Arc<HttpSession>, Response> {
    let Some(sid) = h.get_str(SESSION_ID_HEADER) else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            McpError::invalid_request("Mcp-Session-Id header is required"),
        ));
    };
    match app.session(sid, None).await? {
        Some(s) if !s.session.is_closed() && !s.legacy => Ok(s),
        _ => Err(rpc_error(
            StatusCode::NOT_FOUND,
            None,
            McpError::invalid_request("session not found (unknown, expired or deleted)"),
        )),
    }
}

async fn handle_get(app: Arc<App>, req: HttpRequest) -> Response {
    if app.options.stateless || !app.options.enable_get_stream || !app.speaks_handshake() {
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
    let http = match session_from_headers(&app, h).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    http.touch();
    let cap = app.options.stream_queue_capacity.max(1);
    let sid = http.id.clone();
    if let Some(last) = h.get_str("last-event-id") {
        match resume(&app, &http, last, cap).await {
            Ok(Some(body)) => return sse_response(sid.as_deref(), body),
            Ok(None) => {}
            Err(r) => return r,
        }
    }
    let mut fx = Effects::default();
    let max_bytes = app.options.max_stream_buffered_bytes;
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
        let (tx, rx) = frame_queue(
            cap + r.backlog.len() + 1,
            max_bytes,
            http.stream_budget(app.options.max_session_buffered_bytes),
        );
        // A fresh GET stream gets a key of its own: this replica alone writes it.
        r.get_streams += 1;
        r.get_key = format!("{}g{}-{}", http.key(), app.replica.name, r.get_streams);
        r.get_seq = 0;
        if version >= ProtocolVersion::V2025_11_25 {
            let eid = http.record(&mut fx, r.get_key.clone(), 0, "");
            r.get_seq = 1;
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, "", retry)));
        }
        while let Some(m) = r.backlog.pop_front() {
            let data = serde_json::to_string(&m).expect("serializes");
            let seq = r.get_seq;
            r.get_seq += 1;
            let eid = http.record(&mut fx, r.get_key.clone(), seq, &data);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, &data, None)));
        }
        r.get = Some(tx);
        rx
    };
    http.apply(fx);
    sse_response(
        sid.as_deref(),
        standalone_sse_body(
            rx,
            Some(app.shutdown.clone()),
            None,
            app.options.sse_keep_alive,
            app.options.sse_idle_timeout,
            &http,
            app.gauges.stream(StreamKind::Get),
        ),
    )
}

/// Resumes the stream `last` (a `Last-Event-ID`) belongs to, on this replica whichever wrote
/// it: the body replaying what followed and carrying what comes next. `Ok(None)`: the id names
/// no stream of this session (a fresh GET stream opens instead).
async fn resume(
    app: &Arc<App>,
    http: &Arc<HttpSession>,
    last: &str,
    cap: usize,
) -> Result<Option<Body>, Response> {
    let max_bytes = app.options.max_stream_buffered_bytes;
    let Some((stream, seq)) = parse_event_id(last) else {
        return Ok(None);
    };
    if !stream.starts_with(http.key().as_str()) {
        return Ok(None);
    }
    let stream = stream.to_string();
    let events = &app.replica.events;
    let replay = |after: u64| {
        let f = events.replay_after(stream.clone(), after);
        async move { f.await.map_err(|e| store_error(&e)) }
    };
    let body = |rx| {
        sse_body(
            rx,
            Some(app.shutdown.clone()),
            None,
            app.options.sse_keep_alive,
            app.gauges.stream(StreamKind::Post),
        )
    };
    if http.is_get_key(&stream) {
        let Some(evs) = replay(seq).await? else {
            return Ok(None);
        };
        let (tx, rx) = frame_queue(
            cap + evs.len(),
            max_bytes.saturating_add(replayed(&evs)),
            None,
        );
        let mut next = seq + 1;
        for (s, data) in &evs {
            if is_message(data) {
                offer(
                    &tx,
                    Frame::Sse(encode(Some(&format!("{stream}:{s}")), None, data, None)),
                );
            }
            next = s + 1;
        }
        let mut r = http.routes.lock().unwrap();
        if r.get_key == stream {
            next = next.max(r.get_seq);
        }
        r.get = Some(tx);
        r.get_key = stream;
        r.get_seq = next;
        drop(r);
        return Ok(Some(standalone_sse_body(
            rx,
            Some(app.shutdown.clone()),
            None,
            app.options.sse_keep_alive,
            app.options.sse_idle_timeout,
            http,
            app.gauges.stream(StreamKind::Get),
        )));
    }
    if let Some(slot) = http.own_slot(&stream) {
        // This replica's request stream: replay, then attach once nothing newer is missing.
        let mut frames: Vec<(u64, String)> = Vec::new();
        let mut after = seq;
        for round in 0.. {
            let Some(evs) = replay(after).await? else {
                if round == 0 && http.is_finished_only_event(last) {
                    // Not kept: nothing follows it, so the resumed stream ends at once, as it
                    // would have after replaying nothing.
                    return Ok(Some(Body::empty()));
                }
                if round == 0 {
                    return Ok(None);
                }
                break;
            };
            for (s, d) in evs {
                if s > after {
                    after = s;
                    frames.push((s, d));
                }
            }
            let (tx, rx) = frame_queue(
                cap + frames.len(),
                max_bytes.saturating_add(replayed(&frames)),
                None,
            );
            for (s, data) in &frames {
                if is_message(data) {
                    offer(
                        &tx,
                        Frame::Sse(encode(Some(&format!("{stream}:{s}")), None, data, None)),
                    );
                }
            }
            let attached = {
                let mut r = http.routes.lock().unwrap();
                match r.stream(slot) {
                    // Finished: everything it sent is in the store.
                    None => Some(None),
                    Some(route) if route.next_seq <= after + 1 || round >= 50 => {
                        route.tx = Some(tx);
                        route.generation += 1;
                        Some(Some(route.generation))
                    }
                    // Events were routed since the replay was read (their writes may still be
                    // on their way to a remote store): read again.
                    Some(_) => None,
                }
            };
            match attached {
                Some(generation) => {
                    if let Some(generation) = generation {
                        http.schedule_close(app.options.close_streams_after, slot, generation);
                    }
                    return Ok(Some(body(rx)));
                }
                None if round > 0 => {
                    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                }
                None => {}
            }
        }
        return Ok(Some(Body::empty()));
    }
    // Another replica's request stream: what it sends next arrives on the bus (and if that
    // replica dies first, an error for each of its requests comes from here).
    let (tx, rx) = frame_queue(cap + 256, max_bytes, None);
    watch_owner(app, http, &stream);
    http.routes.lock().unwrap().remote.push(RemoteStream {
        key: stream.clone(),
        tx,
        next: seq + 1,
        held: Some(Vec::new()),
    });
    let evs = match replay(seq).await {
        Ok(Some(evs)) => evs,
        other => {
            http.routes
                .lock()
                .unwrap()
                .remote
                .retain(|s| s.key != stream);
            return match other {
                Err(r) => Err(r),
                // Its only event, never stored: nothing follows it.
                _ if seq == 0 => Ok(Some(Body::empty())),
                _ => Ok(None),
            };
        }
    };
    let mut r = http.routes.lock().unwrap();
    let Some(i) = r.remote.iter().position(|s| s.key == stream) else {
        return Ok(Some(body(rx)));
    };
    let rs = &mut r.remote[i];
    let held = rs.held.take().unwrap_or_default();
    let mut ended = false;
    let mut all: Vec<(u64, String, bool)> = evs
        .into_iter()
        .map(|(s, d)| {
            let end = s > 0 && d.is_empty();
            (s, d, end)
        })
        .chain(held)
        .collect();
    all.sort_by_key(|e| e.0);
    for (s, data, end) in all {
        if s < rs.next {
            continue;
        }
        rs.next = s + 1;
        if is_message(&data)
            && !offer(
                &rs.tx,
                Frame::Sse(encode(Some(&format!("{stream}:{s}")), None, &data, None)),
            )
        {
            // Over the stream's budget: it ends here and the client resumes from what it got.
            ended = true;
            break;
        }
        if end {
            ended = true;
            break;
        }
    }
    if ended {
        r.remote.swap_remove(i);
    }
    Ok(Some(body(rx)))
}

/// The bytes of replayed events, which a resumed stream's queue takes on top of its budget
/// (they are sent at once; the budget bounds what comes after them). A resumed stream is not
/// counted in its session's shared budget, so that its replay is never cut by other streams.
fn replayed(evs: &[(u64, String)]) -> usize {
    evs.iter().map(|(_, d)| d.len() + 64).sum()
}

/// Watches the replica writing request stream `stream`, which a client follows here: while
/// the stream is followed, checks every [`LIVENESS_RENEW`] whether that replica still runs,
/// and once it is gone answers each request the stream carries (named by its stored priming
/// event) with an error and ends the stream.
fn watch_owner(app: &Arc<App>, http: &Arc<HttpSession>, stream: &str) {
    let Some(owner) = stream_owner(stream).map(str::to_string) else {
        return;
    };
    let (weak, app) = (Arc::downgrade(http), app.clone());
    let stream = stream.to_string();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(LIVENESS_RENEW) => {}
                _ = app.shutdown.cancelled() => return,
            }
            let Some(http) = weak.upgrade() else { return };
            if !http
                .routes
                .lock()
                .unwrap()
                .remote
                .iter()
                .any(|s| s.key == stream)
            {
                return;
            }
            // Unknown (the bus cannot tell, or Redis is away): keep waiting.
            if !matches!(app.replica.bus.is_alive(&owner).await, Ok(Some(false))) {
                continue;
            }
            let ids = match app.replica.events.first_event(stream.clone()).await {
                Ok(Some((0, data))) => priming_ids(&data),
                _ => Vec::new(),
            };
            tracing::warn!(
                replica = %owner,
                requests = ids.len(),
                "the replica running a resumed request stream is gone: answering its requests with an error"
            );
            let mut r = http.routes.lock().unwrap();
            let Some(i) = r.remote.iter().position(|s| s.key == stream) else {
                return;
            };
            let rs = r.remote.swap_remove(i);
            for id in ids {
                let error = crate::McpError::internal(
                    "the server replica running this request stopped before answering; \
                     send the request again",
                )
                .with_data(serde_json::json!({ "reason": "replicaGone" }));
                let m = crate::jsonrpc::Message::error(Some(id), error);
                let data = serde_json::to_string(&m).expect("messages serialize");
                offer(&rs.tx, Frame::Sse(encode(None, None, &data, None)));
            }
            return;
        }
    });
}

/// The answer when the event store fails.
fn store_error(e: &StoreError) -> Response {
    tracing::warn!(error = %e, "event store failed");
    super::responses::unavailable(
        None,
        McpError::internal(format!(
            "the event store is unavailable ({e}); try again later"
        ))
        .with_data(serde_json::json!({ "unavailable": "event store" })),
    )
}

async fn handle_delete(app: Arc<App>, req: HttpRequest) -> Response {
    if app.options.stateless || !app.speaks_handshake() {
        return method_not_allowed(&app);
    }
    let http = match session_from_headers(&app, req.headers()).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(id) = &http.id {
        app.remove_session(id).await;
    }
    http.close();
    status_only(StatusCode::OK)
}
