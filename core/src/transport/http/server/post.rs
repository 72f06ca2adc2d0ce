//! POST on the Streamable HTTP endpoint: parses the body, finds or creates the session (per
//! session, stateless or per-request era), starts each request and answers with JSON or an SSE
//! stream.
//!
//! Every POST takes this one path; the era is data. A per-request-era (2026-07-28) request
//! answered with one JSON body (no progress token, no log level, not a subscription) differs
//! only in what serves it: nothing of it outlives the POST, so it holds no HTTP session (no
//! routing table, no stream queue) but an engine session of its own
//! ([`App::per_request_session`]), and its handler runs inside the POST's future, so a client
//! that disconnects drops that future, which closes the session and cancels the handler. It
//! starts ([`start`]) and is answered ([`json_answer`]) as every other request is. (Until
//! 2026-11-30 it had a module of its own, `per_request_post.rs`: a twin of this path, worth 3 %
//! of the server CPU per call in a timed benchmark, `bench/results/fast-path-twins.md`.)

use super::super::gauges::StreamKind;
use super::super::per_request;
use super::super::request::{HttpRequest, Mcp};
use super::super::sse::encode;
use super::super::store::BusMessage;
use super::app::{consumes, new_session_id, App};
use super::checks::{accepts, check_content_type, check_version_value};
use super::frames::{frame_queue, json_body, offer, Frame, Out};
use super::replica::Effects;
use super::responses::{response_with, rpc_error, sse_response, status_only};
use super::routes::{SmallIds, StreamRoute};
use super::session::HttpSession;
use super::sse_body::{join_sse, listen_sse_body, sse_body};
use crate::jsonrpc::{ErrorResponse, Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::session::inbound::{self, BatchScope, Inbound};
use crate::session::{Incoming, LaneAnswer, Session, SharedMeta, ToolCallParams};
use crate::McpError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::future::BoxFuture;
use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;

/// How long a POST answered with an SSE stream waits for a still-running handler's answer (or
/// any new event) before sending the response head on its own (see the end of
/// [`handle_post_request`]).
const FIRST_EVENT_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// How long such a POST then waits for the end of a stream whose answer has come (see
/// [`handle_post_request`]): the answering thread closes it right after queuing the answer.
const STREAM_END_WAIT: std::time::Duration = std::time::Duration::from_millis(1);

/// The requests that change a session's stored state ([`super::super::SessionState`]).
const STATE_METHODS: [&str; 3] = [
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// [`handle_post_request`] with the request's headers available to the contexts of the
/// requests it carries ([`crate::session::RequestContext::http_headers`]).
pub(super) async fn handle_post(app: Arc<App>, mut req: HttpRequest) -> Response {
    // A body in a content coding is decoded first; its charge on the server's memory budget
    // lasts until the POST is answered.
    let _decoded = match super::compression::decode_request(&app, &mut req) {
        Ok(charge) => charge,
        Err(r) => return r,
    };
    let headers = req.headers.shared();
    crate::session::HTTP_HEADERS
        .scope(headers, handle_post_request(app, req))
        .await
}

async fn handle_post_request(app: Arc<App>, req: HttpRequest) -> Response {
    let HttpRequest { headers, body, .. } = req;
    let headers = &headers;
    if let Err(r) = check_content_type(headers) {
        return r;
    }
    let (json_ok, sse_ok) = accepts(headers);
    if !json_ok || (!app.options.json_response && !sse_ok) {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            McpError::invalid_request(
                "Accept must list both application/json and text/event-stream",
            ),
        );
    }
    // A server of the per-request era only has no sessions: it ignores an `Mcp-Session-Id`
    // (2026-07-28, Streamable HTTP, "Backward Compatibility").
    let sid = headers
        .get_mcp(Mcp::SessionId)
        .and_then(super::super::request::visible_str)
        .filter(|_| app.speaks_handshake());
    // 2026-07-28 and later: no session, the version in every request (see `per_request`).
    // The version header is looked up and parsed once for every check below.
    let version_raw = headers.get_mcp(Mcp::Version);
    let version_header = version_raw.map(|raw| (raw, per_request::parse_version_header(raw)));
    let modern =
        sid.is_none() && per_request::is_per_request_version(version_header.map(|(_, v)| v));
    let header_version = match check_version_value(app.supported_versions(), version_header) {
        Ok(v) => v,
        Err(_) if modern => None,
        Err(r) => return r,
    };
    // Per-request era: a `tools/call` on the lane checked from the members it was read into.
    let check_call = |p: &ToolCallParams<'_>| {
        per_request::check_tool_call(
            headers,
            version_raw,
            &app.server,
            Some(&p.name),
            p.meta.as_deref(),
            p.arguments.as_ref(),
        )
    };
    // What the body is (and which lane a call takes) is the session engine's decision, the
    // same for every transport (`session::inbound`).
    let (mut items, batch) = match inbound::read(&body, true) {
        Err(ErrorResponse { id, error }) => {
            return rpc_error(StatusCode::BAD_REQUEST, id, error);
        }
        Ok(Inbound::Call(id, params)) => (vec![Ok(Item::Call(id, params))], false),
        Ok(Inbound::One(m)) => (vec![Ok(Item::Msg(m))], false),
        Ok(Inbound::Batch(items)) => (items.into_iter().map(|m| m.map(Item::Msg)).collect(), true),
    };
    let is_init = items
        .iter()
        .any(|m| matches!(m, Ok(Item::Msg(Message::Request(r))) if r.method == "initialize"));
    // The first request's id (a lone request's own): what an error about the whole POST (503
    // when the session store fails or the session table is full) answers.
    let first_id = items.iter().find_map(|m| match m {
        Ok(Item::Msg(Message::Request(r))) => Some(r.id.clone()),
        Ok(Item::Call(id, _)) => Some(id.clone()),
        _ => None,
    });
    // A batch is refused as a whole under a revision without batches (`session::inbound`).
    let refuse_batch = |scope: BatchScope<'_>, initialize: bool| {
        inbound::check_batch(scope, initialize)
            .err()
            .map(|e| rpc_error(StatusCode::BAD_REQUEST, None, e))
    };
    let mut new_session = false;
    // Per-request era: whether the request is a subscription (always a stream, which the
    // server's shutdown ends: it has no end of its own).
    let mut listen: Option<RequestId> = None;
    let http = if modern {
        if batch {
            let named = version_raw
                .and_then(super::super::request::visible_str)
                .unwrap_or_default();
            if let Some(r) = refuse_batch(BatchScope::PerRequest(named), is_init) {
                return r;
            }
        }
        let (id, streams, checked) = match items.as_slice() {
            // A `tools/call` on the lane: checked from the members it was read into.
            [Ok(Item::Call(id, p))] => {
                let checked = check_call(p);
                let streams = p.meta.as_deref().is_some_and(SharedMeta::wants_stream);
                (id, streams, checked)
            }
            [Ok(Item::Msg(Message::Request(r)))] => {
                let method = r.method.as_str();
                if method == "subscriptions/listen" {
                    listen = Some(r.id.clone());
                }
                let meta = r.params.as_ref().and_then(|p| p.get("_meta"));
                let checked = per_request::check(
                    headers,
                    version_raw,
                    &app.server,
                    method,
                    r.params.as_ref(),
                );
                (&r.id, per_request::wants_stream(meta), checked)
            }
            // A notification or a response: accepted, nothing to serve.
            _ => return status_only(StatusCode::ACCEPTED),
        };
        let meta_read = match checked {
            Ok(m) => m,
            Err(e) => return rpc_error(StatusCode::BAD_REQUEST, Some(id.clone()), e),
        };
        // JSON unless the request asked for progress or logs (the server's JSON choice still
        // holds then) or is a subscription.
        if listen.is_none() && (app.options.json_response || !streams) {
            // Answered with one JSON body: nothing of it outlives the POST, so it holds no
            // HTTP session; it runs here, in the POST's future, on an engine session closed
            // when the POST ends (answered, or dropped by a client that went away: closing
            // cancels the handler).
            let session = app.per_request_session(meta_read);
            let out = match items.pop() {
                Some(Ok(item)) => match start(&session, &app, item) {
                    Started::Nothing => None,
                    Started::Reply(out) => Some(out),
                    Started::Msg(fut) => fut.await.map(Out::Msg),
                    Started::Call(fut) => fut.await,
                },
                _ => None,
            };
            drop(session);
            return json_answer(out.into_iter().collect(), false, true, None);
        }
        let h = app.new_session(None, false, false);
        let caps = app.server.capabilities_shared(meta_read.version);
        h.session.begin_per_request(meta_read, caps);
        h
    } else if app.options.stateless {
        let version = header_version.unwrap_or(ProtocolVersion::LATEST);
        // Stateless: a throwaway session with no id, no event store and no stream keys.
        let h = app.new_session(None, false, false);
        if !is_init {
            app.begin_stateless(&h.session, version);
        }
        h
    } else if let Some(sid) = sid {
        match app.session(sid, first_id.as_ref()).await {
            Err(r) => return r,
            Ok(Some(h)) if !h.session.is_closed() && !h.legacy => h,
            _ => {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    None,
                    McpError::invalid_request("session not found (unknown, expired or deleted)"),
                )
            }
        }
    } else if is_init {
        if batch {
            if let Some(r) = refuse_batch(BatchScope::Unsettled, is_init) {
                return r;
            }
        }
        let id = new_session_id();
        let h = app.new_session(Some(id.clone()), true, false);
        let h = match app.admit(id, h, first_id.clone()) {
            Ok(h) => h,
            Err(r) => return r,
        };
        new_session = true;
        h
    } else {
        // A per-request-era request that left out its version header.
        let modern_body = items.iter().any(|m| match m {
            Ok(Item::Msg(Message::Request(r))) => {
                per_request::names_meta_version(r.params.as_ref())
            }
            Ok(Item::Call(_, p)) => {
                let meta = p.meta.as_deref().map(SharedMeta::value);
                per_request::names_meta_version(Some(&json!({ "_meta": meta })))
            }
            _ => false,
        });
        let error = if modern_body {
            crate::session::per_request::header_mismatch(
                "the MCP-Protocol-Version header is required",
            )
        } else {
            McpError::invalid_request("Mcp-Session-Id header is required")
        };
        return rpc_error(StatusCode::BAD_REQUEST, None, error);
    };
    if !app.options.stateless && !modern {
        http.touch();
    }
    if batch {
        // (An HTTP session never serves per-request-era children: its elements do not count.)
        if let Some(r) = refuse_batch(http.session.batch_scope(&[]), is_init) {
            return r;
        }
    }
    let mut request_ids = items.iter().filter_map(|m| match m {
        Ok(Item::Msg(Message::Request(r))) => Some(&r.id),
        Ok(Item::Call(id, _)) => Some(id),
        _ => None,
    });
    let pending = match (request_ids.next(), request_ids.next()) {
        (None, _) => SmallIds::Empty,
        (Some(a), None) => SmallIds::One(a.clone()),
        (Some(a), Some(b)) => {
            let mut set: HashSet<RequestId> = [a.clone(), b.clone()].into_iter().collect();
            set.extend(request_ids.cloned());
            SmallIds::Many(set)
        }
    };
    // Whether the client changes the session's stored state (saved before answering, so the
    // client's next request finds it on any replica).
    let changes_state = !new_session
        && !modern
        && !app.options.stateless
        && items.iter().any(|m| match m {
            Ok(Item::Msg(Message::Request(r))) => STATE_METHODS.contains(&r.method.as_str()),
            Ok(Item::Msg(Message::Notification(n))) => n.method == "notifications/initialized",
            _ => false,
        });
    if pending.is_empty() {
        // No requests: every item is a message (a `tools/call` request has an id), or an
        // element of a batch that is none, answered as over any transport.
        let errors: Vec<Out> = items
            .iter()
            .filter_map(|m| m.as_ref().err())
            .map(|e| Out::Msg(Message::error(e.id.clone(), e.error.clone())))
            .collect();
        let shared = http.id.is_some() && app.replica.has_peers();
        for m in items.into_iter().flatten() {
            if let Item::Msg(m) = m {
                if shared && !consumes(&http, &m) {
                    // An answer to (or a cancellation of) what another replica runs.
                    app.replica.publish(BusMessage::FromClient {
                        session: http.id.as_deref().unwrap_or_default().to_string(),
                        message: serde_json::to_string(&m).expect("messages serialize"),
                    });
                    continue;
                }
                let _ = http.session.handle_incoming(m);
            }
        }
        if app.options.stateless {
            http.session.close();
        }
        if changes_state {
            if let Err(r) = app.save(&http, None).await {
                return r;
            }
        }
        if !errors.is_empty() {
            let body = Body::from(json_body(&errors, batch));
            return response_with(StatusCode::BAD_REQUEST, body, "application/json", None);
        }
        return status_only(StatusCode::ACCEPTED);
    }
    // A per-request-era request here wants a stream (progress, logs or a subscription): those
    // answered with JSON were answered above.
    let json_mode = !modern && (app.options.json_response || new_session);
    let (tx, rx) = frame_queue(
        app.options.stream_queue_capacity.max(items.len() + 2),
        app.options.max_stream_buffered_bytes,
        http.stream_budget(app.options.max_session_buffered_bytes),
    );
    // Whether the client can take a priming event (empty data) is what it negotiated at
    // initialize; a request's version header may name an older supported revision (the
    // conformance suite sends 2025-03-26 on a 2025-11-25 session), which changes nothing here.
    let version = http
        .session
        .protocol_version()
        .or(header_version)
        .unwrap_or(ProtocolVersion::V2025_03_26);
    // Resumable (primed) streams need the event store: none in stateless mode.
    let polling = !json_mode && version >= ProtocolVersion::V2025_11_25 && http.replica.is_some();
    let mut fx = Effects::default();
    let slot = {
        let mut r = http.routes.lock().unwrap();
        let slot = r.next_stream;
        r.next_stream += 1;
        if polling {
            // The stored priming event names the stream's requests, for a replica that takes
            // the stream over if this one dies before answering ([`super::replica`]).
            let held = match &pending {
                SmallIds::One(id) => vec![id],
                SmallIds::Many(set) => set.iter().collect(),
                SmallIds::Empty => Vec::new(),
            };
            let priming = match http.replica.as_ref().is_some_and(|r| r.has_peers()) {
                true => super::replica::priming_record(&held),
                false => String::new(),
            };
            let eid = http.record(&mut fx, http.stream_key(slot), 0, &priming);
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, "", retry)));
        }
        for e in items.iter().filter_map(|m| m.as_ref().err()) {
            let m = Message::error(e.id.clone(), e.error.clone());
            let frame = if json_mode {
                Frame::Msg(Out::Msg(m))
            } else {
                Frame::Sse(encode(
                    None,
                    None,
                    &serde_json::to_string(&m).expect("serializes"),
                    None,
                ))
            };
            offer(&tx, frame);
        }
        let ids: Vec<&RequestId> = match &pending {
            SmallIds::One(id) => vec![id],
            SmallIds::Many(set) => set.iter().collect(),
            SmallIds::Empty => Vec::new(),
        };
        for id in ids {
            r.requests.insert(id.clone(), slot);
        }
        r.streams.push(StreamRoute {
            slot,
            tx: Some(tx),
            pending,
            json: json_mode,
            primed: polling,
            generation: 0,
            recorded: polling,
            next_seq: u64::from(polling),
        });
        slot
    };
    fx.run(http.replica.as_deref());
    if polling {
        http.schedule_close(app.options.close_streams_after, slot, 0);
    }
    for m in items.into_iter().flatten() {
        let rid = match &m {
            Item::Msg(Message::Request(r)) => Some(r.id.clone()),
            Item::Call(id, _) => Some(id.clone()),
            Item::Msg(_) => None,
        };
        match start(&http.session, &app, m) {
            Started::Nothing => {
                if let Some(id) = rid {
                    http.finish_silently(&id);
                }
            }
            Started::Reply(reply) => http.route_out(reply, rid),
            Started::Msg(fut) => drive(&app, &http, fut, rid, Out::Msg),
            Started::Call(fut) => drive(&app, &http, fut, rid, |o| o),
        }
    }
    if changes_state {
        // The built-in handlers that change it answer at once (on their first poll).
        if let Err(r) = app.save(&http, first_id.as_ref()).await {
            return r;
        }
    }
    let sid_out = http.id.clone();
    if json_mode {
        let mut out: Vec<Out> = Vec::new();
        match rx.take_finished() {
            Some(frames) => out.extend(frames.into_iter().filter_map(|f| match f {
                Frame::Msg(m) => Some(m),
                Frame::Sse(_) => None,
            })),
            None => {
                while let Some(f) = rx.recv().await {
                    if let Frame::Msg(m) = f {
                        out.push(m);
                    }
                }
            }
        }
        if new_session {
            let failed = out.is_empty() || matches!(out[0], Out::Msg(Message::Error(_)));
            let saved = match failed {
                true => Ok(()),
                false => app.save(&http, first_id.as_ref()).await,
            };
            if failed || saved.is_err() {
                if let Some(id) = &sid_out {
                    app.discard_new_session(id);
                }
                http.close();
                if let Err(r) = saved {
                    return r;
                }
                let body = if out.is_empty() {
                    b"null".to_vec()
                } else {
                    json_body(&out, false)
                };
                // A server of the per-request era only refuses `initialize` with `-32022`,
                // a modern error: `400`, as the spec's Streamable HTTP validation has it.
                let status = match out.first() {
                    Some(Out::Msg(Message::Error(e)))
                        if e.error.code == crate::error::codes::UNSUPPORTED_PROTOCOL_VERSION =>
                    {
                        StatusCode::BAD_REQUEST
                    }
                    _ => StatusCode::OK,
                };
                return response_with(status, Body::from(body), "application/json", None);
            }
        }
        return json_answer(out, batch, modern, sid_out.as_deref());
    }
    let mut finished = rx.take_finished();
    if finished.is_none() {
        // A handler is still running, typically in another language on another thread, and its
        // answer is usually microseconds away. Wait briefly for it (or for any new event)
        // before the head goes out, so that head, priming event and answer leave in one write:
        // otherwise the head goes now and the answer later as a chunk, a second write and a
        // second wake-up of the client per call. Bounded and short, so a slow tool's client
        // gets its head and priming event (its resumption point) at once all the same.
        let queued = rx.len();
        if tokio::time::timeout(FIRST_EVENT_WAIT, rx.grown_past(queued))
            .await
            .is_ok()
        {
            finished = rx.take_finished();
            if finished.is_none() {
                // The answer's sender may be ending the stream on another worker right now: the
                // answer is queued a moment before its stream is closed, and a busy machine can
                // preempt that thread in between. Wait (briefly) for the end or the next event,
                // so that a complete answer goes out whole, not as a stream (one more write, and
                // a compressor made for it when the client accepts a coding).
                let queued = rx.len();
                let _ = tokio::time::timeout(STREAM_END_WAIT, rx.grown_past(queued)).await;
                finished = rx.take_finished();
            }
        }
    }
    // Every answer is already there: send the whole stream at once (one write, with a length).
    if let Some(frames) = finished {
        let body = join_sse(frames).unwrap_or_default();
        return sse_response(sid_out.as_deref(), Body::from(body));
    }
    // The body keeps the session alive until the stream ends (stateless sessions have no other owner).
    // Per-request era: a closed response stream cancels its request (and ends a subscription).
    let keep: Box<dyn FnOnce() + Send> = if modern {
        Box::new(move || http.session.close())
    } else {
        Box::new(move || drop(http))
    };
    // Other streams carry calls, which a graceful shutdown lets finish.
    let body = match listen {
        Some(id) => listen_sse_body(
            rx,
            app.shutdown.clone(),
            listen_farewell(&id),
            Some(keep),
            app.options.sse_keep_alive,
            app.gauges.stream(StreamKind::Listen),
        ),
        None => sse_body(
            rx,
            None,
            Some(keep),
            app.options.sse_keep_alive,
            app.gauges.stream(StreamKind::Post),
        ),
    };
    sse_response(sid_out.as_deref(), body)
}

/// One message of a POST's body: as parsed, or a `tools/call` request on the engine's lane (its
/// params read straight into what the call uses; see `Session::start_tool_call`).
enum Item<'a> {
    Msg(Message),
    Call(RequestId, ToolCallParams<'a>),
}

/// How an item of the body started on its session.
enum Started {
    /// Nothing to send back (a notification or a response, or a call that ends unanswered).
    Nothing,
    /// An immediate answer.
    Reply(Out),
    /// A handler still to finish (or to start, on its first poll); `None`: send nothing.
    Msg(BoxFuture<'static, Option<Message>>),
    /// A `tools/call` on the engine's lane, its answer made routable.
    Call(BoxFuture<'static, Option<Out>>),
}

/// Starts `item` on `session`, for every POST of every era: the session decides what a
/// message is and which lane a `tools/call` takes by its era (`Session::handle_incoming`,
/// `Session::start_tool_call`).
fn start(session: &Arc<Session>, app: &App, item: Item<'_>) -> Started {
    match item {
        Item::Msg(m) => match session.handle_incoming(m) {
            Incoming::Nothing => Started::Nothing,
            Incoming::Reply(reply) => Started::Reply(Out::Msg(reply)),
            Incoming::Pending(fut) => Started::Msg(fut),
        },
        Item::Call(id, params) => {
            let into = |a: Option<LaneAnswer>| a.map(Out::from);
            match session.start_tool_call(&app.server, id, params, into) {
                Ok(fut) => Started::Call(fut),
                Err(Some(reply)) => Started::Reply(reply),
                Err(None) => Started::Nothing,
            }
        }
    }
}

/// A POST answered with JSON: 202 with no answer; else the answer (a batch's as an array),
/// with `200`, or, for a per-request-era error, the status its code calls for
/// ([`per_request::error_status`]).
fn json_answer(out: Vec<Out>, batch: bool, modern: bool, sid: Option<&str>) -> Response {
    if out.is_empty() {
        return status_only(StatusCode::ACCEPTED);
    }
    let status = match out.as_slice() {
        [Out::Msg(Message::Error(e))] if modern => per_request::error_status(e.error.code),
        _ => StatusCode::OK,
    };
    let body = match batch {
        true => json_body(&out, true),
        // One message, taken (a written answer is not copied).
        false => out
            .into_iter()
            .next()
            .map_or_else(Vec::new, Out::into_bytes),
    };
    response_with(status, Body::from(body), "application/json", sid)
}

/// Runs a handler's first poll here, so that most requests are answered from their own POST
/// task; a handler still running goes on a task of its own (it outlives a client that
/// disconnects, so its stream can be resumed). `into` makes the answer routable.
fn drive<T: Send + 'static>(
    app: &App,
    http: &Arc<HttpSession>,
    mut fut: futures_util::future::BoxFuture<'static, Option<T>>,
    rid: Option<RequestId>,
    into: fn(T) -> Out,
) {
    // The first poll needs no waker: a future still pending is polled again by its own task.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(reply) => http.answered(reply.map(into), rid),
        std::task::Poll::Pending => {
            let h = http.clone();
            app.tasks.spawn(async move {
                let reply = fut.await;
                h.answered(reply.map(into), rid);
            });
        }
    }
}

/// The SSE event that ends a `subscriptions/listen` stream when the server shuts down: the
/// request's successful completion result, tagged with the subscription id (2026-07-28,
/// "Graceful Closure"), so the client can tell a graceful end from a dropped connection.
fn listen_farewell(id: &RequestId) -> bytes::Bytes {
    let id = id.to_value();
    let response = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "resultType": "complete",
            "_meta": { crate::session::per_request::META_SUBSCRIPTION_ID: id },
        },
    });
    encode(None, None, &response.to_string(), None)
}
