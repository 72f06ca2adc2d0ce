//! The task calls of [`NativeClient`] (`Client.callToolAsTask`, `getTask`, `getTaskResult`,
//! `cancelTask` in the facade), JSON text in the 2025-11-25 shapes in both protocol eras: the
//! engine picks 2025-11-25 tasks or the tasks extension `io.modelcontextprotocol/tasks`
//! (2026-07-28) by the negotiated revision (`EmbeddedClient`'s task calls).

use crate::client::{NativeCancelHandle, NativeClient};
use crate::error::{json_text, parse_opt_json, FfiError};
use crate::runtime::run;
use ferromcp_embed::CallOptions;
use serde_json::Value;
use std::sync::Arc;

#[uniffi::export]
impl NativeClient {
    /// Calls tool `name` (`arguments`: JSON text of an object) as a task; returns
    /// `{"task": ...}` (`CreateTaskResult`) at once. `ttl_ms` asks for a retention (2025-11-25
    /// only: with the extension the server picks it).
    pub async fn call_tool_as_task(
        &self,
        name: String,
        arguments: Option<String>,
        ttl_ms: Option<u64>,
    ) -> Result<String, FfiError> {
        let arguments = parse_opt_json("tool arguments", arguments)?
            .unwrap_or_else(|| Value::Object(Default::default()));
        let inner = self.inner.clone();
        let v = run(async move { inner.call_tool_as_task(&name, arguments, ttl_ms).await }).await?;
        Ok(json_text(&v))
    }

    /// The task's state (`Task` JSON); input the task waits for is answered with this client's
    /// handlers first.
    pub async fn get_task(&self, task_id: String) -> Result<String, FfiError> {
        let inner = self.inner.clone();
        let v = run(async move { inner.get_task(&task_id).await }).await?;
        Ok(json_text(&v))
    }

    /// Waits for the task's end and returns its `CallToolResult` JSON; `timeout_ms` and
    /// `cancel` bound the wait, not the task.
    pub async fn get_task_result(
        &self,
        task_id: String,
        timeout_ms: Option<u64>,
        cancel: Option<Arc<NativeCancelHandle>>,
    ) -> Result<String, FfiError> {
        let options = CallOptions {
            timeout_ms,
            cancel: cancel.map(|c| c.inner.clone()),
            ..Default::default()
        };
        let inner = self.inner.clone();
        let v = run(async move { inner.get_task_result(&task_id, options).await }).await?;
        Ok(json_text(&v))
    }

    /// Cancels the task; returns its state (`Task` JSON) after the cancellation.
    pub async fn cancel_task(&self, task_id: String) -> Result<String, FfiError> {
        let inner = self.inner.clone();
        let v = run(async move { inner.cancel_task(&task_id).await }).await?;
        Ok(json_text(&v))
    }
}
