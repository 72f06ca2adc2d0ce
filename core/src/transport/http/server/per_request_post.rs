//! A per-request-era (2026-07-28) POST answered with one JSON body: the lightest path of the
//! endpoint.
//!
//! Such a request holds no session, asks for no message besides its answer (no progress token,
//! no log level) and is not a subscription, so nothing of it outlives the POST. It is served on a
//! bare engine session ([`super::app::App::bare_session`]: the handlers see the same
//! [`crate::session::RequestContext`] as everywhere) with no [`super::HttpSession`], no routing
//! table and no stream queue: the handler runs inside the POST's own future and its answer is
//! written straight into the response body. A client that disconnects drops that future, which
//! closes the session and so cancels the handler. Requests that want a stream (progress, logs,
//! `subscriptions/listen`) take [`super::post`]'s general path.
//!
//! Such a session serves its request alone ([`Session::serve_alone`]: the request's cancellation
//! is the session's own) and is closed when the POST ends. (Keeping it for the next call with
//! the same `_meta` saved ~1.3k of ~26k instructions per call, below the 10 % a second path
//! must show in a timed benchmark to be kept: every call opens its own.)
//!
//! A twin of the general path (issue 35, "one path per decision"), not yet merged into it.
//! Pinned: `core/tests/integration/http_post_parity.rs` compares its body with the answer
//! event the general path streams for the same call (a progress token on an SSE server), and
//! the refusals every mode shares. Timed (`mcp-bench`, release, 2026-11-29, 8 interleaved
//! repetitions, loadavg 7-11, `bench/results/fast-path-twins.md`): against the general path
//! answering the same POST with JSON on an HTTP session, server CPU per call 12.5 against
//! 12.9 µs at 1 client and 11.8 against 12.1 µs at 32 clients (-3 %), calls/s within the
//! noise: under the 10 % that keeps a second path. What keeps it for now is behaviour the
//! general path's JSON answer lacks: the client's disconnect cancels the call (the session is
//! closed with the POST) and no HTTP session is counted while it runs
//! (`per_request_no_session.rs`). Merging it means giving the general path those two, with the
//! era as data.

use super::super::per_request;
use super::app::App;
use super::frames::Out;
use super::responses::{response_with, status_only};
use crate::jsonrpc::{Message, Request, RequestId};
use crate::session::ToolCallParams;
use crate::session::{Incoming, LaneAnswer, RequestMeta, Session};
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;

/// The one request of the POST: a `tools/call` read on the typed lane, or any other request.
pub(super) enum Lone<'a> {
    Call(RequestId, ToolCallParams<'a>),
    Request(Request),
}

/// Closes the session when the POST ends, answered or dropped (the client went away): closing
/// cancels a handler still running and anything it left behind.
struct CloseOnDrop(Arc<Session>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Serves `lone`, whose headers and `_meta` ([`RequestMeta`]) were checked, and answers with its
/// JSON body (status as [`per_request::error_status`] says for an error), or 202 when the
/// handler ended without an answer.
pub(super) async fn answer(app: &App, meta: RequestMeta, lone: Lone<'_>) -> Response {
    let caps = app.server.capabilities_shared(meta.version);
    let session = app.bare_session();
    session.serve_alone();
    session.begin_per_request(meta, caps);
    let close = CloseOnDrop(session);
    let session = &close.0;
    let out = match lone {
        Lone::Call(id, params) => {
            let into = |a: Option<LaneAnswer>| a.map(Out::from);
            match session.start_tool_call(&app.server, id, params, into) {
                Ok(fut) => fut.await,
                Err(refused) => refused,
            }
        }
        Lone::Request(r) => match session.handle_incoming(Message::Request(r)) {
            Incoming::Nothing => None,
            Incoming::Reply(m) => Some(Out::Msg(m)),
            Incoming::Pending(fut) => fut.await.map(Out::Msg),
        },
    };
    drop(close);
    let Some(out) = out else {
        return status_only(StatusCode::ACCEPTED);
    };
    let status = match &out {
        Out::Msg(Message::Error(e)) => per_request::error_status(e.error.code),
        _ => StatusCode::OK,
    };
    response_with(
        status,
        Body::from(out.into_bytes()),
        "application/json",
        None,
    )
}
