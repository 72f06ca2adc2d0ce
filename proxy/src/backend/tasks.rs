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
//! - a 2026-07-28 connection, for a handshake client: a `tools/call` declaring the tasks
//!   extension, whose task handle the engine's client follows to its end (polling `tasks/get`,
//!   answering the task's `inputRequests` through the proxy's client handlers, which ask the
//!   proxy task's client; cancelling the call cancels the task).
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
//! the extension. A backend that declares no tasks has its tools registered without
//! `taskSupport` (`crate::surface`), so none of them reaches this module.

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
                return self
                    .through_backend_task(&client, name, arguments, ctx)
                    .await;
            }
            // Any other backend answers in the call or with a task of its era: no round of the
            // client's comes before the proxy's task, which is made now.
            ctx.start_task();
        }
        let primary = self.client().await?;
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

    /// A backend task's `tools/call` through a per-request (2026-07-28) connection, for a
    /// client of that era declaring the tasks extension: the call passes through with the
    /// client's envelope (the extension kept) and its input round, as the handler's first
    /// answer:
    /// - `input_required` (the backend gathers input before any task exists): the client's own
    ///   round, no task made ([`era::take_result`]); the retry brings the answers back. When
    ///   the proxy's engine made its task already (the round came after `first_answer_wait`,
    ///   [`RequestContext::task_made`]), the round's input requests are that task's
    ///   ([`RequestContext::input`]) and the call is retried at the backend with the answers
    ///   and its `requestState`;
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
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name));
        params.insert("arguments".into(), Value::Object(arguments));
        let mut meta = ctx.meta().cloned().unwrap_or_default();
        meta.remove("progressToken");
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
            if !(input_round && ctx.task_made()) {
                break answer;
            }
            // The backend's round came after the proxy's engine made its task (past
            // `first_answer_wait`): its input requests become the task's, and the call is
            // retried at the backend with the answers and its state, as a client would.
            let Some(Value::Object(requests)) = answer.get("inputRequests").cloned() else {
                return Err(McpError::internal(format!(
                    "backend {:?} answered input_required without inputRequests",
                    self.spec.name
                )));
            };
            let answers = ctx.input(requests).await?;
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
        follow_task(client, id, &first, ctx)
            .await
            .map_err(|e| self.call_error("tools/call", e))
    }
}

/// The polling interval a task state suggests, bounded (10 to 250 ms, so that the proxy's
/// own client, told 50 ms, does not wait long for what the backend has; 100 ms when none).
fn poll_interval(state: &Value) -> Duration {
    state
        .get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_millis(100))
        .clamp(Duration::from_millis(10), Duration::from_millis(250))
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
    let mut interval = poll_interval(handle);
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
        interval = poll_interval(&state);
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
fn report(ctx: &RequestContext, state: &Value) {
    let Some(status) = state
        .get("status")
        .cloned()
        .and_then(|s| serde_json::from_value::<TaskStatus>(s).ok())
    else {
        return;
    };
    ctx.report_task_status(status, state.get("statusMessage").and_then(Value::as_str));
}

/// How often the proxy reads a 2025-11-25 backend task's state while it waits on its
/// `tasks/result`: the backend's `pollInterval`, at least 10 ms and at most 5 s (500 ms when
/// it gives none).
fn status_interval(state: &Value) -> Duration {
    state
        .get("pollInterval")
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_millis(500))
        .clamp(Duration::from_millis(10), Duration::from_secs(5))
}

/// Tells the proxy's task `ctx` the state of the backend's task `id` (2025-11-25) at the
/// backend's poll interval, from `first` (its handle) on; returns when the task has ended or
/// the backend does not answer `tasks/get`.
async fn watch_status(client: &Client, id: &str, first: &Value, ctx: &RequestContext) {
    let mut interval = status_interval(first);
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
        interval = status_interval(&state);
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
