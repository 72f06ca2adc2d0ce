//! The client side of the tasks extension `io.modelcontextprotocol/tasks` (2026-07-28,
//! SEP-2663), behind the same [`Client`] task calls as the 2025-11-25 tasks.
//!
//! In the per-request era a client declares the extension in every request's capabilities
//! ([`ClientOptions::tasks_extension`](super::ClientOptions::tasks_extension)), and then the
//! server, not the client, decides which `tools/call` becomes a task: it answers with a task
//! handle (`resultType: "task"`, the task's fields at the top level, `ttlMs`,
//! `pollIntervalMs`). There is no `tasks/result`: the client polls `tasks/get`, which inlines
//! the result (or the JSON-RPC error) once the task ended and the outstanding `inputRequests`
//! while it waits for input; the client answers those with its own handlers (the ones it
//! registers for sampling, elicitation and roots) through `tasks/update`. `tasks/cancel` only
//! acknowledges. There is no `tasks/list`.
//!
//! What this module makes of it, so that code written against the 2025-11-25 task calls does
//! not change:
//! - [`Client::call_tool`] drives a handle to its end (polls, answers input, returns the
//!   result; cancelling or timing out the call cancels the task): a plain call stays a plain
//!   call whatever the server chose.
//! - [`Client::call_tool_as_task`] returns the handle as the [`CreateTaskResult`] of
//!   2025-11-25 (`ttlMs` read as `ttl`, `pollIntervalMs` as `pollInterval`). A server may skip
//!   the task for a fast call and answer the result at once: the client then holds that result
//!   as an already completed task of its own (ids starting `ferromcp-local-`), which
//!   [`Client::get_task`] and [`Client::get_task_result`] answer without asking the server.
//! - [`Client::get_task_result`] polls `tasks/get` until the task ends, answering input
//!   requests on the way, as 2025-11-25's blocking `tasks/result` waits.
//! - [`Client::get_task`] answers the input requests it finds (then reads the state again), as
//!   a 2025-11-25 client's handlers are asked while the task waits.
//! - [`Client::cancel_task`] sends `tasks/cancel` and reads the task's state after it.

use super::api::Client;
use super::per_request;
use super::tasks_held::is_task_handle;
use crate::protocol::{CallToolResult, CreateTaskResult, TaskWithMeta};
use crate::session::RequestOptions;
use crate::McpError;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use crate::protocol::TASKS_EXTENSION;

/// Bounds on the polling interval, whatever the server suggests.
const MIN_POLL: Duration = Duration::from_millis(10);
const MAX_POLL: Duration = Duration::from_secs(30);
/// Polling interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

fn malformed(method: &str, why: impl std::fmt::Display) -> McpError {
    McpError::internal(format!("server sent a malformed {method} result: {why}"))
        .with_data(json!({ "method": method }))
}

/// A task on the extension's wire as the protocol's [`TaskWithMeta`]: `ttlMs` becomes `ttl`,
/// `pollIntervalMs` becomes `pollInterval`, `resultType` goes; what [`Task`] does not define
/// (`inputRequests`, `result`, `error`) stays in `task.extra`.
pub(crate) fn task_from_wire(method: &str, v: Value) -> Result<TaskWithMeta, McpError> {
    let Value::Object(mut m) = v else {
        return Err(malformed(method, "not an object"));
    };
    m.remove("resultType");
    if let Some(ttl) = m.remove("ttlMs") {
        m.insert("ttl".into(), ttl);
    }
    if let Some(poll) = m.remove("pollIntervalMs") {
        m.insert("pollInterval".into(), poll);
    }
    m.entry("ttl").or_insert(Value::Null);
    serde_json::from_value(Value::Object(m)).map_err(|e| malformed(method, e))
}

/// The polling interval `task` suggests, bounded.
fn poll_interval(task: &Value) -> Duration {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL)
        .clamp(MIN_POLL, MAX_POLL)
}

/// How [`Client::drive_task`] ends when its caller stops waiting.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnStop {
    /// Cancel the task too (a plain `tools/call` the server made a task of).
    CancelTask,
    /// Leave the task running (waiting for a task's result).
    LeaveTask,
}

impl Client {
    /// A result [`Client::call_tool_as_task`] got from an extension server: the handle as a
    /// [`CreateTaskResult`], or a result answered at once held as a completed task.
    pub(super) fn ext_created(&self, result: Value) -> Result<CreateTaskResult, McpError> {
        if is_task_handle(&result) {
            let t = task_from_wire("tools/call", result)?;
            let mut created = CreateTaskResult::new(t.task);
            created.meta = t.meta;
            return Ok(created);
        }
        serde_json::from_value::<CallToolResult>(result.clone())
            .map_err(|e| malformed("tools/call", e))?;
        Ok(CreateTaskResult::new(self.held.hold(result)))
    }

    /// One raw `tasks/get` of the extension.
    async fn ext_get_raw(&self, task_id: &str) -> Result<Value, McpError> {
        self.request(
            "tasks/get",
            Some(json!({ "taskId": task_id })),
            RequestOptions::default(),
        )
        .await
    }

    /// Answers the `inputRequests` of `state` (a task waiting for input) with this client's
    /// handlers and sends them with `tasks/update`.
    async fn ext_answer(
        &self,
        task_id: &str,
        state: &Value,
        cancel: &CancellationToken,
    ) -> Result<(), McpError> {
        let answers = per_request::answer_inputs(&self.session, state, cancel).await?;
        self.request(
            "tasks/update",
            Some(json!({ "taskId": task_id, "inputResponses": answers })),
            RequestOptions::default(),
        )
        .await
        .map(|_| ())
    }

    /// `tasks/get` of the extension; input the task waits for is answered first (then the
    /// state is read again).
    pub(super) async fn ext_get_task(&self, task_id: &str) -> Result<TaskWithMeta, McpError> {
        if let Some((task, _)) = self.held.get(task_id) {
            return Ok(task.into());
        }
        let mut state = self.ext_get_raw(task_id).await?;
        if state.get("status").and_then(Value::as_str) == Some("input_required") {
            self.ext_answer(task_id, &state, &CancellationToken::new())
                .await?;
            state = self.ext_get_raw(task_id).await?;
        }
        task_from_wire("tasks/get", state)
    }

    /// `tasks/cancel` of the extension (an acknowledgement), then the task's state.
    pub(super) async fn ext_cancel_task(&self, task_id: &str) -> Result<TaskWithMeta, McpError> {
        if let Some((task, _)) = self.held.get(task_id) {
            return Ok(task.into());
        }
        self.request(
            "tasks/cancel",
            Some(json!({ "taskId": task_id })),
            RequestOptions::default(),
        )
        .await?;
        task_from_wire("tasks/get", self.ext_get_raw(task_id).await?)
    }

    /// The result of task `task_id` (the inlined `result`), polling until it ends.
    pub(super) async fn ext_task_result(
        &self,
        task_id: &str,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        if let Some((_, result)) = self.held.get(task_id) {
            return Ok(result);
        }
        self.drive_task(task_id, DEFAULT_POLL, opts, OnStop::LeaveTask)
            .await
    }

    /// Follows task `task_id` to its end: polls `tasks/get` (every `pollIntervalMs`), answers
    /// the input it waits for with this client's handlers, and returns the inlined result, or
    /// the JSON-RPC error a failed task inlines; a cancelled task is `-32602` (as 2025-11-25's
    /// `tasks/result` answers). `opts.cancel` and `opts.timeout` (the session's request timeout
    /// when unset) bound the wait; `on_stop` says whether the task is cancelled then too.
    pub(crate) async fn drive_task(
        &self,
        task_id: &str,
        first_interval: Duration,
        opts: RequestOptions,
        on_stop: OnStop,
    ) -> Result<Value, McpError> {
        let cancel = opts.cancel.clone().unwrap_or_default();
        let limit = opts.timeout.or(self.session.config().request_timeout);
        let deadline = limit.map(|t| Instant::now() + t);
        let mut interval = first_interval.clamp(MIN_POLL, MAX_POLL);
        // A task just made (or one we were just asked about) is read at once only when the
        // caller asks about an existing task; a fresh handle waits one interval first.
        let mut wait = on_stop == OnStop::CancelTask;
        let outcome = loop {
            let step = async {
                if wait {
                    tokio::time::sleep(interval).await;
                }
                let state = self.ext_get_raw(task_id).await?;
                interval = poll_interval(&state);
                let status = state.get("status").and_then(Value::as_str).unwrap_or("");
                match status {
                    "completed" => {
                        return match state.get("result") {
                            Some(r) if r.is_object() => Ok(Some(r.clone())),
                            _ => Err(malformed("tasks/get", "a completed task without result")),
                        }
                    }
                    "failed" => {
                        return Err(match state.get("error").cloned() {
                            Some(e) => serde_json::from_value::<McpError>(e)
                                .unwrap_or_else(|e| malformed("tasks/get", e)),
                            None => McpError::internal(format!(
                                "task {task_id:?} failed: {}",
                                state
                                    .get("statusMessage")
                                    .and_then(Value::as_str)
                                    .unwrap_or("no error given")
                            )),
                        })
                    }
                    "cancelled" => {
                        return Err(McpError::invalid_params(format!(
                            "task {task_id:?} was cancelled"
                        ))
                        .with_data(json!({ "taskId": task_id })))
                    }
                    "input_required" => {
                        self.ext_answer(task_id, &state, &cancel).await?;
                        // The answers may end the task at once: read it again without waiting.
                        wait = false;
                        return Ok(None);
                    }
                    "working" => wait = true,
                    other => {
                        return Err(malformed("tasks/get", format!("unknown status {other:?}")))
                    }
                }
                Ok(None)
            };
            let timeout = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                r = step => match r {
                    Ok(None) => continue,
                    Ok(Some(result)) => return Ok(result),
                    Err(e) => return Err(e),
                },
                _ = cancel.cancelled() => break McpError::cancelled(None),
                _ = timeout => break McpError::timeout(format!(
                    "task {task_id:?} did not finish within {:?}",
                    limit.unwrap_or_default()
                )),
            }
        };
        if on_stop == OnStop::CancelTask {
            // Best effort: the caller is told why it stopped either way.
            let _ = self
                .request(
                    "tasks/cancel",
                    Some(json!({ "taskId": task_id })),
                    RequestOptions {
                        timeout: Some(Duration::from_secs(5)),
                        ..Default::default()
                    },
                )
                .await;
        }
        Err(outcome)
    }

    /// A task handle a plain `tools/call` got: followed to its end ([`Self::drive_task`]),
    /// cancelling the task when the call is cancelled or times out.
    pub(super) async fn ext_finish_call(
        &self,
        handle: &Value,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        let Some(id) = handle.get("taskId").and_then(Value::as_str) else {
            return Err(malformed("tools/call", "a task handle without taskId"));
        };
        self.drive_task(id, poll_interval(handle), opts, OnStop::CancelTask)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TaskStatus;

    #[test]
    fn wire_fields_become_the_2025_11_25_names() {
        let t = task_from_wire(
            "tasks/get",
            json!({ "resultType": "complete", "taskId": "t1", "status": "completed",
                    "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 60000,
                    "pollIntervalMs": 50, "result": { "content": [] } }),
        )
        .unwrap();
        assert_eq!(t.task.task_id, "t1");
        assert_eq!(t.task.status, TaskStatus::Completed);
        assert_eq!(t.task.ttl, Some(60000));
        assert_eq!(t.task.poll_interval, Some(50));
        assert!(t.task.extra.contains_key("result"));
        assert!(!t.task.extra.contains_key("resultType"));
        assert!(!t.task.extra.contains_key("ttlMs"));
    }

    #[test]
    fn malformed_tasks_are_precise_errors() {
        for bad in [
            json!([]),
            json!({ "taskId": "t" }),
            json!({ "taskId": 1, "status": "working",
                    "createdAt": "a", "lastUpdatedAt": "b" }),
        ] {
            let e = task_from_wire("tasks/get", bad).unwrap_err();
            assert_eq!(e.code, crate::codes::INTERNAL_ERROR, "{e}");
            assert!(e.message.contains("malformed tasks/get"), "{e}");
        }
    }

    #[test]
    fn poll_intervals_are_bounded() {
        assert_eq!(poll_interval(&json!({ "pollIntervalMs": 0 })), MIN_POLL);
        assert_eq!(
            poll_interval(&json!({ "pollIntervalMs": 10_000_000 })),
            MAX_POLL
        );
        assert_eq!(poll_interval(&json!({})), DEFAULT_POLL);
        assert_eq!(
            poll_interval(&json!({ "pollIntervalMs": 250 })),
            Duration::from_millis(250)
        );
    }
}
