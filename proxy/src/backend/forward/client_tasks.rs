//! A backend's task-augmented `sampling/createMessage` or `elicitation/create` (2025-11-25).
//!
//! The proxy's backend connections run such requests as tasks (the engine's client, with
//! `ClientOptions::tasks` set): the backend gets a task of the proxy's at once, and polls
//! `tasks/get` and `tasks/result` at the proxy. That task's job is the forwarding handler
//! ([`super::handlers`]), which asks the real client:
//! - as a task there too, when that client speaks 2025-11-25 in the handshake era and declared
//!   `tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create`
//!   ([`takes_as_task`]): the request goes with the backend's `task` (its ttl), then the proxy
//!   waits on the client's `tasks/result`, reads `tasks/get` at the client's poll interval
//!   meanwhile (its status and `statusMessage` become the proxy task's, which the backend
//!   reads), and cancels the client's task (`tasks/cancel`, if it declared `tasks.cancel`) when
//!   the backend cancels the proxy's ([`at_client`]);
//! - plainly otherwise (a 2026-07-28 client gets it as an `input_required` round), the proxy
//!   running the task.
//!
//! The client's task id stays behind (its `related-task` `_meta` is taken off the result): the
//! backend's task is the proxy's.

use crate::backend::tasks::{poll_interval, report, STATUS_POLL};
use ferromcp::protocol::RELATED_TASK_META_KEY;
use ferromcp::session::{RequestContext, RequestOptions, Session};
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The real client a backend's request goes to: through the client's call in flight (related
/// to it, so that it travels on that call's stream), or to a client session.
pub(super) enum Asker<'a> {
    Call(&'a RequestContext),
    Session(&'a Arc<Session>),
}

impl Asker<'_> {
    async fn request(
        &self,
        method: &str,
        params: Value,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        match self {
            Asker::Call(ctx) => ctx.request_with(method, Some(params), opts).await,
            Asker::Session(s) => s.peer().request(method, Some(params), opts).await,
        }
    }

    fn session(&self) -> &Arc<Session> {
        match self {
            Asker::Call(ctx) => ctx.session(),
            Asker::Session(s) => s,
        }
    }
}

/// Whether the client of `session` runs `method` as a task: a handshake session of a revision
/// with tasks whose client declared `tasks.requests` for it.
pub(super) fn takes_as_task(session: &Session, method: &str) -> bool {
    let path: &[&str] = match method {
        "sampling/createMessage" => &["tasks", "requests", "sampling", "createMessage"],
        "elicitation/create" => &["tasks", "requests", "elicitation", "create"],
        _ => return false,
    };
    session
        .negotiated()
        .is_some_and(|n| n.version.has_tasks() && !n.version.is_per_request() && n.peer_has(path))
}

/// Sends `method` with `params` and the backend's `task` to the client `to` as a task, for the
/// proxy's task `task_ctx`, and returns the client task's result (see the module's comment).
/// A client that answers in the request (no task made) has its answer returned.
pub(super) async fn at_client(
    to: Asker<'_>,
    method: &str,
    mut params: Value,
    task: Value,
    task_ctx: &RequestContext,
) -> Result<Value, McpError> {
    let cancel = task_ctx.cancellation().clone();
    let opts = || RequestOptions::default().with_cancel(Some(cancel.clone()));
    if let Value::Object(p) = &mut params {
        p.insert("task".into(), task);
    }
    let created = to.request(method, params, opts()).await?;
    let Some(id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
        return Ok(created);
    };
    let id = id.to_string();
    let mut state = created.get("task").cloned().unwrap_or(Value::Null);
    report(task_ctx, &state);
    let waited = {
        let mut result =
            std::pin::pin!(to.request("tasks/result", json!({ "taskId": id }), opts()));
        // A client that does not answer `tasks/get` is not asked again.
        let mut polling = true;
        loop {
            tokio::select! {
                r = &mut result => break r,
                _ = tokio::time::sleep(poll_interval(&state, &STATUS_POLL)), if polling => {
                    match to.request("tasks/get", json!({ "taskId": id }), opts()).await {
                        Ok(s) => {
                            report(task_ctx, &s);
                            state = s;
                        }
                        Err(_) => polling = false,
                    }
                }
            }
        }
    };
    if cancel.is_cancelled() {
        let declared = to
            .session()
            .negotiated()
            .is_some_and(|n| n.peer_has(&["tasks", "cancel"]));
        if declared {
            // On the session, not the call: the call may have ended meanwhile.
            let opts = RequestOptions::default().with_timeout(Some(Duration::from_secs(5)));
            let peer = to.session().peer();
            let params = Some(json!({ "taskId": id }));
            if let Err(e) = peer.request("tasks/cancel", params, opts).await {
                tracing::debug!(task = %id, error = %e, "the client refused to cancel its task");
            }
        }
        return Err(McpError::cancelled(None));
    }
    let mut result = waited?;
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove(RELATED_TASK_META_KEY);
        if meta.is_empty() {
            result.as_object_mut().map(|r| r.remove("_meta"));
        }
    }
    Ok(result)
}
