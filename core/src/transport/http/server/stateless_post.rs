//! A stateless-mode POST answered with one JSON body (`stateless` and `json_response` both set):
//! one request that is not `initialize`, served on a bare engine session.
//!
//! Such a request's answer is its only message: in stateless JSON mode every other message a
//! handler sends (progress, logs, server-to-client requests) is dropped, as the general path's
//! routing drops them for want of a GET stream. So it needs no [`super::HttpSession`], no
//! routing table and no stream queue, which the general path ([`super::post`]) builds and tears
//! down for every such call. Everything the client sees is as on the general path: the session
//! is negotiated the same way ([`App::begin_stateless`]), the answer is the same body with 200
//! (202 when the handler ends without one), and a handler still running after its first poll goes
//! on a task of the endpoint's tracker, so it finishes even if the client disconnects and a
//! graceful shutdown waits for it.

use super::app::App;
use super::frames::Out;
use super::per_request_post::Lone;
use super::responses::{response_with, status_only};
use crate::jsonrpc::Message;
use crate::protocol::ProtocolVersion;
use crate::session::{Incoming, LaneAnswer};
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;

/// Serves `lone` under `version` (the `MCP-Protocol-Version` header's, or the latest) and
/// answers with its JSON body, or 202 when the handler ended without an answer.
pub(super) async fn answer(app: &App, version: ProtocolVersion, lone: Lone<'_>) -> Response {
    // Counted as a live session while it runs, as the general path's throwaway session is
    // (until its handler ends, when that outlives the POST).
    let live = app.gauges.session();
    let session = app.bare_session();
    app.begin_stateless(&session, version);
    let started: Result<BoxFuture<'static, Option<Out>>, Option<Out>> = match lone {
        Lone::Call(id, params) => {
            let into = |a: Option<LaneAnswer>| a.map(Out::from);
            session.start_tool_call(&app.server, id, params, into)
        }
        Lone::Request(r) => match session.handle_incoming(Message::Request(r)) {
            Incoming::Nothing => Err(None),
            Incoming::Reply(m) => Err(Some(Out::Msg(m))),
            Incoming::Pending(fut) => Ok(fut.map(|o| o.map(Out::Msg)).boxed()),
        },
    };
    let out = match started {
        Err(out) => out,
        Ok(mut fut) => match poll_once(&mut fut) {
            std::task::Poll::Ready(out) => out,
            std::task::Poll::Pending => {
                let (tx, rx) = tokio::sync::oneshot::channel();
                let running = session.clone();
                app.tasks.spawn(async move {
                    let _live = live;
                    let out = fut.await;
                    running.close();
                    let _ = tx.send(out);
                });
                rx.await.ok().flatten()
            }
        },
    };
    session.close();
    respond(out)
}

/// Polls `fut` once. The first poll needs no waker: a future still pending is polled again by
/// its own task.
fn poll_once<T>(fut: &mut BoxFuture<'static, T>) -> std::task::Poll<T> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    fut.as_mut().poll(&mut cx)
}

/// The response for `out`: its JSON body with 200, or 202 without one.
fn respond(out: Option<Out>) -> Response {
    match out {
        None => status_only(StatusCode::ACCEPTED),
        Some(out) => response_with(
            StatusCode::OK,
            Body::from(out.into_bytes()),
            "application/json",
            None,
        ),
    }
}

/// Whether a stateless POST's one request can take [`answer`]: not `initialize` (which the
/// general path answers with the session's own negotiation) and not a subscription (a stream).
pub(super) fn takes(method: &str) -> bool {
    method != "initialize" && method != "subscriptions/listen"
}
