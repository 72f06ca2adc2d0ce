//! The task calls of [`EmbeddedClient`], one JSON shape in both protocol eras: the engine's
//! [`Client`](ferromcp::client::Client) picks 2025-11-25 tasks or the tasks extension
//! (`io.modelcontextprotocol/tasks`, 2026-07-28) by the negotiated revision, and answers in the
//! 2025-11-25 shapes (a task's `ttl` and `pollInterval` in milliseconds), so every binding
//! offers the same typed calls whatever the server speaks.

use super::client::{CallOptions, EmbeddedClient};
use ferromcp::session::RequestOptions;
use ferromcp::McpError;
use serde_json::Value;
use std::time::Duration;

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("protocol types serialize")
}

impl EmbeddedClient {
    /// Calls tool `name` as a task; returns `{"task": Task}` (`CreateTaskResult`) at once.
    /// `ttl_ms` asks for a retention (2025-11-25 only: with the extension the server picks it).
    /// A result an extension server answers at once comes back as a completed task the client
    /// holds (see [`Client::call_tool_as_task`](ferromcp::client::Client::call_tool_as_task)).
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl_ms: Option<u64>,
    ) -> Result<Value, McpError> {
        let created = self
            .client()
            .call_tool_as_task(name, arguments, ttl_ms)
            .await?;
        Ok(to_json(&created))
    }

    /// The task's current state (`Task`: `taskId`, `status`, `statusMessage`, `createdAt`,
    /// `lastUpdatedAt`, `ttl`, `pollInterval`); input the task waits for is answered with the
    /// client's handlers first.
    pub async fn get_task(&self, task_id: &str) -> Result<Value, McpError> {
        Ok(to_json(&self.client().get_task(task_id).await?))
    }

    /// Waits until the task ends and returns its `CallToolResult` (or its error; a cancelled
    /// task is `-32602`). `options`: timeout and cancellation of the wait (not of the task).
    pub async fn get_task_result(
        &self,
        task_id: &str,
        options: CallOptions,
    ) -> Result<Value, McpError> {
        let opts = RequestOptions::default()
            .with_timeout(options.timeout_ms.map(Duration::from_millis))
            .with_cancel(options.cancel.map(|c| c.token()));
        let r = self.client().get_task_result_with(task_id, opts).await?;
        Ok(to_json(&r))
    }

    /// Cancels the task; returns its state (`Task`) after the cancellation.
    pub async fn cancel_task(&self, task_id: &str) -> Result<Value, McpError> {
        Ok(to_json(&self.client().cancel_task(task_id).await?))
    }
}
