//! The task calls of [`Client`] (`call_tool_as_task`, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel`): one file for the calls whose answer depends on which tasks
//! mechanism the negotiated revision has (the 2025-11-25 utility, or the 2026-07-28 tasks
//! extension of [`super::super::tasks_ext`]), so `api.rs` keeps the connection and the plain calls.

use super::{decode, Client};
use crate::protocol::*;
use crate::session::RequestOptions;
use crate::McpError;
use serde_json::{json, Value};

impl Client {
    /// Calls a tool as a task: the server answers at once with the created task while the tool
    /// runs. Poll with [`get_task`](Self::get_task), wait for the result with
    /// [`get_task_result`](Self::get_task_result), stop it with
    /// [`cancel_task`](Self::cancel_task). The same calls serve both eras, picked by the
    /// negotiated revision:
    /// - 2025-11-25 (handshake): a task-augmented `tools/call` (`params.task`); `ttl` asks
    ///   for a retention in milliseconds (the server may cap it).
    /// - 2026-07-28 with the tasks extension ([`client::tasks_ext`]): a plain `tools/call`
    ///   declaring the extension; the server picks the TTL (`ttl` is not sent: the extension
    ///   has no such request field) and whether to make a task at all. When it answers the
    ///   result at once, that result is returned as a completed task the client holds (its id
    ///   starts `ferromcp-local-`), so the calls above work on it too.
    ///
    /// [`client::tasks_ext`]: crate::client::tasks_ext
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
    ) -> Result<CreateTaskResult, McpError> {
        if self.per_request.is_some() {
            let v = self
                .request_spanned(
                    "tools/call",
                    Some(json!({ "name": name, "arguments": arguments })),
                    RequestOptions::default(),
                    false,
                )
                .await?;
            return self.ext_created(v);
        }
        let mut task = json!({});
        if let Some(ttl) = ttl {
            task["ttl"] = json!(ttl);
        }
        self.call(
            "tools/call",
            json!({ "name": name, "arguments": arguments, "task": task }),
        )
        .await
    }

    /// `tasks/get`: the task's current state. With the tasks extension (2026-07-28) the
    /// state also carries, in `task.extra`, what `tasks/get` inlines (`result`, `error`), and
    /// input the task waits for is first answered with this client's handlers (`tasks/update`),
    /// as a 2025-11-25 server asks those handlers itself: the state returned is the one after.
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult, McpError> {
        if self.per_request.is_some() {
            return self.ext_get_task(task_id).await;
        }
        self.call("tasks/get", json!({ "taskId": task_id })).await
    }

    /// The result of a task made by [`call_tool_as_task`](Self::call_tool_as_task): waits
    /// until the task ends and returns the tool's result (or the error the call failed with; a
    /// cancelled task is `-32602`). 2025-11-25: `tasks/result` (its `_meta` carries
    /// `io.modelcontextprotocol/related-task`). With the tasks extension: `tasks/get` polled
    /// at the server's interval, input the task asks for answered with this client's handlers.
    pub async fn get_task_result(&self, task_id: &str) -> Result<CallToolResult, McpError> {
        self.get_task_result_with(task_id, RequestOptions::default())
            .await
    }

    /// [`get_task_result`](Self::get_task_result) with options (a longer timeout for long
    /// tasks, cancellation: cancelling stops the wait, not the task).
    pub async fn get_task_result_with(
        &self,
        task_id: &str,
        opts: RequestOptions,
    ) -> Result<CallToolResult, McpError> {
        let v = if self.per_request.is_some() {
            self.ext_task_result(task_id, opts).await?
        } else {
            self.request("tasks/result", Some(json!({ "taskId": task_id })), opts)
                .await?
        };
        decode("tasks/result", v)
    }

    /// `tasks/result` as an open payload, for tasks of any request type (with the tasks
    /// extension: the result `tasks/get` inlines once the task ended).
    pub async fn get_task_payload(&self, task_id: &str) -> Result<GetTaskPayloadResult, McpError> {
        if self.per_request.is_some() {
            let v = self
                .ext_task_result(task_id, RequestOptions::default())
                .await?;
            return decode("tasks/get", v);
        }
        self.call("tasks/result", json!({ "taskId": task_id }))
            .await
    }

    /// One page of `tasks/list` (this session's tasks). 2025-11-25 only: the tasks extension
    /// has no `tasks/list` (nor sessions to list tasks of), so with it this fails with
    /// `-32601` without asking the server.
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<ListTasksResult, McpError> {
        if self.per_request.is_some() {
            return Err(McpError::method_not_found("tasks/list"));
        }
        self.call("tasks/list", Self::page(cursor)).await
    }

    /// Cancels a task and returns its state after the cancellation. 2025-11-25: cancelling a
    /// task that already finished fails with -32602. With the tasks extension `tasks/cancel`
    /// only acknowledges (again for a task that ended), and the state returned is read with
    /// `tasks/get` after it.
    pub async fn cancel_task(&self, task_id: &str) -> Result<CancelTaskResult, McpError> {
        if self.per_request.is_some() {
            return self.ext_cancel_task(task_id).await;
        }
        self.call("tasks/cancel", json!({ "taskId": task_id }))
            .await
    }
}
