//! The task calls of `NativeClient` (`Client.callToolAsTask`, `getTask`, `getTaskResult`,
//! `cancelTask` in the facade): one shape in both protocol eras, 2025-11-25 tasks or the tasks
//! extension `io.modelcontextprotocol/tasks` (2026-07-28) picked by the engine
//! (`EmbeddedClient`'s task calls).

use crate::client::{NativeCallOptions, NativeCancel, NativeClient};
use crate::error::napi_result;
use ferromcp_embed::CallOptions;
use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;

#[napi]
impl NativeClient {
    /// Calls tool `name` as a task; resolves with `{ task }` (`CreateTaskResult`) at once.
    /// `ttlMs` asks for a retention (2025-11-25 only: with the extension the server picks it).
    #[napi(ts_return_type = "Promise<any>")]
    pub fn call_tool_as_task<'env>(
        &self,
        env: &'env Env,
        name: String,
        arguments: Option<Value>,
        ttl_ms: Option<u32>,
    ) -> napi::Result<PromiseRaw<'env, Value>> {
        let client = self.client.clone();
        let arguments = arguments.unwrap_or_else(|| serde_json::json!({}));
        env.spawn_future(async move {
            napi_result(
                client
                    .call_tool_as_task(&name, arguments, ttl_ms.map(u64::from))
                    .await,
            )
        })
    }

    /// The task's state (`Task`); input the task waits for is answered with this client's
    /// handlers first.
    #[napi(ts_return_type = "Promise<any>")]
    pub fn get_task<'env>(
        &self,
        env: &'env Env,
        task_id: String,
    ) -> napi::Result<PromiseRaw<'env, Value>> {
        let client = self.client.clone();
        env.spawn_future(async move { napi_result(client.get_task(&task_id).await) })
    }

    /// Waits for the task's end and resolves with its `CallToolResult`; `options.timeoutMs` and
    /// `cancel` bound the wait, not the task.
    #[napi(ts_return_type = "Promise<any>")]
    pub fn get_task_result<'env>(
        &self,
        env: &'env Env,
        task_id: String,
        options: Option<NativeCallOptions>,
        cancel: Option<&NativeCancel>,
    ) -> napi::Result<PromiseRaw<'env, Value>> {
        let call = CallOptions {
            timeout_ms: options.and_then(|o| o.timeout_ms).map(u64::from),
            cancel: cancel.map(|c| c.handle.clone()),
            ..Default::default()
        };
        let client = self.client.clone();
        env.spawn_future(async move { napi_result(client.get_task_result(&task_id, call).await) })
    }

    /// Cancels the task; resolves with its state (`Task`) after the cancellation.
    #[napi(ts_return_type = "Promise<any>")]
    pub fn cancel_task<'env>(
        &self,
        env: &'env Env,
        task_id: String,
    ) -> napi::Result<PromiseRaw<'env, Value>> {
        let client = self.client.clone();
        env.spawn_future(async move { napi_result(client.cancel_task(&task_id).await) })
    }
}
