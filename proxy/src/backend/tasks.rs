//! Tools that may run as tasks (`execution.taskSupport` `optional` or `required`) through the
//! proxy.
//!
//! The proxy's server declares tasks to its clients in both eras (the 2025-11-25 `tasks`
//! capability to handshake clients, the tasks extension `io.modelcontextprotocol/tasks` to
//! 2026-07-28 ones), so a task-augmented call makes a task of the proxy's own, whose handler is
//! [`Backend::call_task_tool`]: it runs the tool at the backend as a task there and waits for
//! that task's end. `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` are answered
//! by the proxy's engine for its own tasks, bound to the client session that made them (no
//! client sees another's, although the backend connection is shared); each proxy task maps to
//! its backend and that backend's task through the handler that drives it, and cancelling the
//! proxy's task (`tasks/cancel`, or the client's session closing) cancels the backend's. The
//! proxy's engine sends the task status notifications of its tasks.
//!
//! At the backend, the task is made as the backend connection's era says:
//! - a handshake connection (2025-11-25): a task-augmented `tools/call` (`params.task`), then
//!   `tasks/result` (which waits), and `tasks/cancel` when the proxy's task is cancelled; the
//!   backend's requests while its task runs (elicitation, sampling) go to the proxy task's
//!   client as during any call;
//! - a 2026-07-28 connection, for a 2026-07-28 client declaring the extension: the client's
//!   call passes through, and the backend's first answer decides
//!   ([`Backend::through_backend_task`]): an `input_required` round before any task stays the
//!   client's round (the proxy's engine waits for that first answer, `first_answer_wait`; a
//!   round that comes later, the proxy's task made, is that task's input and the call is
//!   retried with the answers), a task handle makes the proxy's task, which follows the
//!   backend's;
//! - a 2026-07-28 connection, for a handshake client's 2025-11-25 task: a `tools/call` with
//!   the real client's capabilities and the tasks extension declared
//!   ([`era::bridged_task_meta`]), through [`Backend::through_backend_task`] as well: an
//!   `input_required` round before any task is answered by the proxy (each input request sent
//!   to the client, the proxy's task `input_required` meanwhile) and retried; a task handle is
//!   followed by the proxy ([`follow_task`]), so the backend task's states are the proxy
//!   task's, its `inputRequests` are sent to the client as requests and answered with
//!   `tasks/update`, and cancelling the proxy's task cancels the backend's. (A call that is
//!   no task at the proxy, a client of an older revision, is one `tools/call` whose task
//!   handle the engine's client follows to its end.)
//!
//! A tool whose `taskSupport` is `optional` is called plainly on a handshake connection (the
//! backend answers in the call, however long it takes); one that is `required` always as a
//! task. Progress a backend reports on a 2025-11-25 task after its handle reaches the client
//! under the client's token (the call carries a token of the proxy's own,
//! [`Backend::progress_route`]).
//!
//! What the backend's task says of itself (its status and `statusMessage` while it runs, its
//! final message, `cancelled`) becomes the proxy task's ([`report`], with the engine's
//! [`RequestContext::report_task_status`]): read with `tasks/get`, beside `tasks/result` at the
//! backend's poll interval on a handshake connection, at each poll of [`follow_task`] with
//! the extension (for clients of both eras). A backend that declares no tasks has its tools
//! registered without `taskSupport` (`crate::surface`), so none of them reaches this module.

use super::Backend;
use crate::era::{self, Route};
use ferromcp::client::Client;
use ferromcp::protocol::{TaskStatus, TaskSupport, RELATED_TASK_META_KEY};
use ferromcp::session::{RequestContext, RequestOptions};
use ferromcp::McpError;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

impl Backend {
    /// `tools/call` of the backend's tool `name` (whose `taskSupport` is `support`, not
    /// forbidden) for the client request `ctx`: a task at the backend when the tool requires
    /// one (see the module's comment), with the backend's logs and requests to the client
    /// passed on while it runs and the call or task cancelled with `ctx`.
    pub(crate) async fn call_task_tool(
        self: &Arc<Self>,
        name: String,
        arguments: Map<String, Value>,
        support: TaskSupport,
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        if ctx.in_extension_task() {
            // A 2026-07-28 client declaring the tasks extension: the proxy's engine waits for
            // this handler's first answer before it makes its own task. A backend speaking that
            // era gets the call as the client sent it, and decides (`through_backend_task`).
            let primary = self.client().await?;
            let (client, route) = self.route(primary, ctx).await?;
            if route == Route::PassThrough {
                let mut meta = ctx.meta().cloned().unwrap_or_default();
                meta.remove("progressToken");
                return self
                    .through_backend_task(&client, name, arguments, meta, ctx)
                    .await;
            }
            // Any other backend answers in the call or with a task of its era: no round of the
            // client's comes before the proxy's task, which is made now.
            ctx.start_task();
        }
        let primary = self.client().await?;
        if primary.is_per_request() && ctx.in_task() && !ctx.in_extension_task() {
            // A handshake client's 2025-11-25 task at a 2026-07-28-only backend: the proxy
            // follows the backend's task itself, so that its states are the proxy task's.
            let meta = era::bridged_task_meta(ctx, &primary);
            return self
                .through_backend_task(&primary, name, arguments, meta, ctx)
                .await;
        }
        // The shared connection, or a handshake client's own on a per-client backend. Not the
        // per-request connection a 2026-07-28 client's plain calls may pass through: the task
        // is the proxy's, so the backend's rounds are answered by the proxy.
        let client =
            if !primary.is_per_request() && !era::is_per_request(ctx) && self.spec.per_client {
                Box::pin(self.session_client(ctx.session()))
                    .await
                    .map_err(|e| {
                        McpError::internal(format!(
                            "backend {:?}: no connection for this client session ({})",
                            self.spec.name, e.message
                        ))
                        .with_data(json!({ "backend": self.spec.name, "reason": e.message }))
                    })?
            } else {
                primary
            };
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name));
        params.insert("arguments".into(), Value::Object(arguments));
        let meta = era::outgoing_meta(ctx, Route::Handshake);
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        let as_task = support == TaskSupport::Required && !client.is_per_request();
        let client = &client;
        let result = self
            .passing_on(ctx, |opts| async move {
                if as_task {
                    self.backend_task(client, params, opts, ctx).await
                } else {
                    client
                        .request("tools/call", Some(Value::Object(params)), opts)
                        .await
                }
            })
            .await;
        let mut result = result.map_err(|e| self.call_error("tools/call", e))?;
        // The backend's task id stays behind: the client's task is the proxy's.
        if let Some(Value::Object(meta)) = result.get_mut("_meta") {
            meta.remove(RELATED_TASK_META_KEY);
            if meta.is_empty() {
                result.as_object_mut().map(|r| r.remove("_meta"));
            }
        }
        Ok(result)
    }
}

impl Backend {
    /// A task-augmented `tools/call` (2025-11-25) on a handshake connection, waited for with
    /// `tasks/result`; when `cancel` fires, the backend's task is cancelled too. The call
    /// carries a progress token of the proxy's own (not the request's id, whose answer comes
    /// with the task's handle), so that the backend's progress on its task reaches
    /// `opts.on_progress` until the task ends ([`Backend::progress_route`]). The backend
    /// task's status and message become the proxy task's `ctx` ([`report`]).
    async fn backend_task(
        &self,
        client: &Client,
        mut params: Map<String, Value>,
        mut opts: RequestOptions,
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        params.insert("task".into(), json!({}));
        let _route = opts.on_progress.take().map(|on_progress| {
            let (token, guard) = self.progress_route(on_progress);
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert("progressToken".into(), Value::String(token));
            }
            guard
        });
        backend_task(client, params, opts, ctx).await
    }

    /// A backend task's `tools/call` through a per-request (2026-07-28) connection, with
    /// `meta` as its `_meta`:
    /// - for a client of that era declaring the tasks extension, the client's envelope (the
    ///   extension kept): the call passes through with it and its input round, as the
    ///   handler's first answer;
    /// - for a handshake client's 2025-11-25 task, [`era::bridged_task_meta`]: the proxy
    ///   answers the backend's input rounds itself (each input request sent to the client,
    ///   the proxy's task `input_required` meanwhile) and follows the backend's task as
    ///   below, so that the backend task's states, input and result are the proxy task's.
    ///
    /// The backend's first answer:
    /// - `input_required` (the backend gathers input before any task exists): for an
    ///   extension client, its own round, no task made ([`era::take_result`]); the retry
    ///   brings the answers back. When the proxy's engine made its task already (the round
    ///   came after `first_answer_wait`, [`RequestContext::task_made`]), or for a 2025-11-25
    ///   task, the round's input requests are the task's ([`RequestContext::input`]) and the
    ///   call is retried at the backend with the answers and its `requestState`;
    /// - a complete result: the call's result (the proxy's engine makes a finished task of it);
    /// - a task handle: the proxy's task is made now ([`RequestContext::start_task`]) and
    ///   follows the backend's to its end: `tasks/get` polled; the backend task's
    ///   `inputRequests` become the proxy task's under the same keys, each answer sent on with
    ///   `tasks/update` as it comes (so a client may answer a subset at a time); cancelling
    ///   the proxy's task cancels the backend's.
    async fn through_backend_task(
        self: &Arc<Self>,
        client: &Arc<Client>,
        name: String,
        arguments: Map<String, Value>,
        meta: Map<String, Value>,
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        // A 2025-11-25 task's every round is the proxy's to answer; an extension client's only
        // once the proxy's task exists.
        let handshake_task = !ctx.in_extension_task();
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name));
        params.insert("arguments".into(), Value::Object(arguments));
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        era::add_retry_input(ctx, &mut params);
        let first = loop {
            let sent = Some(Value::Object(params.clone()));
            let answer = self
                .passing_on(ctx, |opts| async move {
                    client.peer().request("tools/call", sent, opts).await
                })
                .await
                .map_err(|e| self.call_error("tools/call", e))?;
            let input_round =
                answer.get("resultType").and_then(Value::as_str) == Some("input_required");
            if !(input_round && (handshake_task || ctx.task_made())) {
                break answer;
            }
            // The backend's round came after the proxy's engine made its task (past
            // `first_answer_wait`), or is a 2025-11-25 task's: its input requests become the
            // task's, and the call is retried at the backend with the answers and its state,
            // as a client would.
            let Some(Value::Object(requests)) = answer.get("inputRequests").cloned() else {
                return Err(McpError::internal(format!(
                    "backend {:?} answered input_required without inputRequests",
                    self.spec.name
                )));
            };
            let answers = if handshake_task {
                // Sent to the client as requests (2025-11-25), the task waiting for them.
                ctx.report_task_status(TaskStatus::InputRequired, None);
                let answers = ctx.input(requests).await;
                ctx.report_task_status(TaskStatus::Working, None);
                answers?
            } else {
                ctx.input(requests).await?
            };
            params.insert("inputResponses".into(), Value::Object(answers));
            match answer.get("requestState") {
                Some(state) => params.insert("requestState".into(), state.clone()),
                None => params.remove("requestState"),
            };
        };
        if first.get("resultType").and_then(Value::as_str) != Some("task") {
            return era::take_result(first);
        }
        let Some(id) = first.get("taskId").and_then(Value::as_str) else {
            return Err(McpError::internal(format!(
                "backend {:?} answered a task handle without taskId",
                self.spec.name
            )));
        };
        ctx.start_task();
        report(ctx, &first);
        follow_task(client, id, &first, ctx)
            .await
            .map_err(|e| self.call_error("tools/call", e))
    }
}

/// How the proxy reads the polling interval a backend task's state suggests: the field (in
/// milliseconds), the interval when the state gives none, and the bounds it is clamped to.
pub(super) struct PollReading {
    key: &'static str,
    default: Duration,
    min: Duration,
    max: Duration,
}

/// A task of the tasks extension (`pollIntervalMs`): 10 to 250 ms, so that the proxy's own
/// client, told 50 ms, does not wait long for what the backend has; 100 ms when none.
const EXTENSION_POLL: PollReading = PollReading {
    key: "pollIntervalMs",
    default: Duration::from_millis(100),
    min: Duration::from_millis(10),
    max: Duration::from_millis(250),
};

/// A 2025-11-25 task whose state the proxy reads while it waits on its `tasks/result`
/// (`pollInterval`): 10 ms to 5 s, 500 ms when none.
pub(super) const STATUS_POLL: PollReading = PollReading {
    key: "pollInterval",
    default: Duration::from_millis(500),
    min: Duration::from_millis(10),
    max: Duration::from_secs(5),
};

/// The polling interval `state` suggests, read and bounded as `reading` says.
pub(super) fn poll_interval(state: &Value, reading: &PollReading) -> Duration {
    state
        .get(reading.key)
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
        .unwrap_or(reading.default)
        .clamp(reading.min, reading.max)
}

/// Follows the backend's task `id` (tasks extension, on a per-request connection) to its end
/// for the proxy's task `ctx`; see [`Backend::through_backend_task`].
async fn follow_task(
    client: &Client,
    id: &str,
    handle: &Value,
    ctx: &RequestContext,
) -> Result<Value, McpError> {
    let cancel = ctx.cancellation();
    let mut interval = poll_interval(handle, &EXTENSION_POLL);
    // A task that is not working (it ended, or waits for input) is read at once.
    let mut wait = handle.get("status").and_then(Value::as_str) == Some("working");
    // Input requests of the backend's task being asked of the client now, by key.
    let mut asking: HashSet<String> = HashSet::new();
    let mut answers = FuturesUnordered::new();
    loop {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => break,
            Some((key, answer)) = answers.next() => {
                asking.remove(&key);
                let mut answer: Map<String, Value> = answer?;
                let mut responses = Map::new();
                if let Some(a) = answer.remove(&key) {
                    responses.insert(key, a);
                }
                client
                    .request(
                        "tasks/update",
                        Some(json!({ "taskId": id, "inputResponses": responses })),
                        RequestOptions::default(),
                    )
                    .await?;
            }
            _ = tokio::time::sleep(interval), if wait => {}
            _ = std::future::ready(()), if !wait => {}
        }
        wait = true;
        let state = client
            .request(
                "tasks/get",
                Some(json!({ "taskId": id })),
                RequestOptions::default().with_cancel(Some(cancel.clone())),
            )
            .await;
        let state = match state {
            Err(_) if cancel.is_cancelled() => break,
            other => other?,
        };
        interval = poll_interval(&state, &EXTENSION_POLL);
        report(ctx, &state);
        match state.get("status").and_then(Value::as_str).unwrap_or("") {
            "completed" => {
                return match state.get("result") {
                    Some(r) if r.is_object() => Ok(r.clone()),
                    _ => Err(McpError::internal(
                        "the backend's task completed without a result",
                    )),
                }
            }
            "failed" => {
                return Err(state
                    .get("error")
                    .cloned()
                    .and_then(|e| serde_json::from_value::<McpError>(e).ok())
                    .unwrap_or_else(|| {
                        McpError::internal(format!(
                            "the backend's task failed: {}",
                            state
                                .get("statusMessage")
                                .and_then(Value::as_str)
                                .unwrap_or("no error given")
                        ))
                    }))
            }
            "cancelled" => return Err(McpError::cancelled(None)),
            "input_required" => {
                let requests = state.get("inputRequests").and_then(Value::as_object);
                for (key, request) in requests.into_iter().flatten() {
                    if !asking.insert(key.clone()) {
                        continue;
                    }
                    let mut one = Map::new();
                    one.insert(key.clone(), request.clone());
                    let key = key.clone();
                    answers.push(async move { (key, ctx.input(one).await) });
                }
            }
            _ => {}
        }
    }
    // The proxy's task was cancelled: so is the backend's (best effort).
    let cancelled = client
        .request(
            "tasks/cancel",
            Some(json!({ "taskId": id })),
            RequestOptions::default().with_timeout(Some(Duration::from_secs(5))),
        )
        .await;
    if let Err(e) = cancelled {
        tracing::debug!(task = %id, error = %e, "the backend refused to cancel its task");
    }
    Err(McpError::cancelled(None))
}

/// A backend task's state (`tasks/get`'s answer or a task handle, either era) told to the
/// proxy's task `ctx` as its own ([`RequestContext::report_task_status`]): its status and
/// `statusMessage` while it runs, and how it ended (its message; `cancelled` ends the
/// proxy's task cancelled).
pub(super) fn report(ctx: &RequestContext, state: &Value) {
    let Some(status) = state
        .get("status")
        .cloned()
        .and_then(|s| serde_json::from_value::<TaskStatus>(s).ok())
    else {
        return;
    };
    ctx.report_task_status(status, state.get("statusMessage").and_then(Value::as_str));
}

/// Tells the proxy's task `ctx` the state of the backend's task `id` (2025-11-25) at the
/// backend's poll interval, from `first` (its handle) on; returns when the task has ended or
/// the backend does not answer `tasks/get`.
async fn watch_status(client: &Client, id: &str, first: &Value, ctx: &RequestContext) {
    let mut interval = poll_interval(first, &STATUS_POLL);
    loop {
        tokio::time::sleep(interval).await;
        let Ok(state) = client
            .request(
                "tasks/get",
                Some(json!({ "taskId": id })),
                RequestOptions::default(),
            )
            .await
        else {
            return;
        };
        interval = poll_interval(&state, &STATUS_POLL);
        report(ctx, &state);
        if matches!(
            state.get("status").and_then(Value::as_str),
            Some("completed" | "failed" | "cancelled")
        ) {
            return;
        }
    }
}

/// A task-augmented `tools/call` (2025-11-25) on a handshake connection, waited for with
/// `tasks/result`; when the proxy's task `ctx` is cancelled, the backend's task is cancelled
/// too. When `ctx` is a task, the backend task's state is read at its poll interval meanwhile
/// and once more after its end, and told to `ctx` ([`report`]).
async fn backend_task(
    client: &Client,
    mut params: Map<String, Value>,
    opts: RequestOptions,
    ctx: &RequestContext,
) -> Result<Value, McpError> {
    let cancel = ctx.cancellation();
    params.insert("task".into(), json!({}));
    let created = client
        .request("tools/call", Some(Value::Object(params)), opts)
        .await?;
    let Some(id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
        // A backend of an older revision ignores `task` and answers the call itself.
        return Ok(created);
    };
    let id = id.to_string();
    let handle = created.get("task").cloned().unwrap_or(Value::Null);
    let watching = ctx.in_task();
    if watching {
        report(ctx, &handle);
    }
    let mut result = std::pin::pin!(client.request(
        "tasks/result",
        Some(json!({ "taskId": id })),
        RequestOptions::default().with_cancel(Some(cancel.clone())),
    ));
    let mut watch = std::pin::pin!(watch_status(client, &id, &handle, ctx));
    let mut watch_on = watching;
    let waited = loop {
        tokio::select! {
            r = &mut result => break r,
            _ = &mut watch, if watch_on => watch_on = false,
        }
    };
    if cancel.is_cancelled() {
        // Only to a backend that declares `tasks.cancel`; another one's task runs to its end.
        if crate::surface::declares(client, "/tasks/cancel") {
            let cancelled = client
                .request(
                    "tasks/cancel",
                    Some(json!({ "taskId": id })),
                    RequestOptions::default(),
                )
                .await;
            if let Err(e) = cancelled {
                tracing::debug!(task = %id, error = %e, "the backend refused to cancel its task");
            }
        }
        return Err(McpError::cancelled(None));
    }
    if watching {
        // How it ended (its message; cancelled by the backend): one read after the result.
        if let Ok(state) = client
            .request(
                "tasks/get",
                Some(json!({ "taskId": id })),
                RequestOptions::default(),
            )
            .await
        {
            report(ctx, &state);
        }
    }
    waited
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Both readings: each its own field (the other one's is not read), its default when the
    /// state has none (or not a number), its bounds, and a value within them as it is.
    #[test]
    fn poll_intervals_are_read_from_their_field_and_bounded() {
        let extension = |v: Value| poll_interval(&v, &EXTENSION_POLL);
        assert_eq!(extension(json!({ "pollIntervalMs": 40 })), ms(40));
        assert_eq!(extension(json!({})), ms(100));
        assert_eq!(extension(json!({ "pollIntervalMs": "40" })), ms(100));
        assert_eq!(extension(json!({ "pollInterval": 40 })), ms(100));
        assert_eq!(extension(json!({ "pollIntervalMs": 0 })), ms(10));
        assert_eq!(extension(json!({ "pollIntervalMs": 5_000 })), ms(250));

        let status = |v: Value| poll_interval(&v, &STATUS_POLL);
        assert_eq!(status(json!({ "pollInterval": 40 })), ms(40));
        assert_eq!(status(json!({ "pollInterval": 2_000 })), ms(2_000));
        assert_eq!(status(json!({})), ms(500));
        assert_eq!(status(json!({ "pollIntervalMs": 40 })), ms(500));
        assert_eq!(status(json!({ "pollInterval": 3 })), ms(10));
        assert_eq!(status(json!({ "pollInterval": 60_000 })), ms(5_000));
    }
}
