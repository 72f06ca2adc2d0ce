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
//! - a 2026-07-28 connection: a `tools/call` declaring the tasks extension, whose task handle
//!   the engine's client follows to its end (polling `tasks/get`, answering the task's
//!   `inputRequests` through the proxy's client handlers, which ask the proxy task's client;
//!   cancelling the call cancels the task).
//!
//! A tool whose `taskSupport` is `optional` is called plainly on a handshake connection (the
//! backend answers in the call, however long it takes); one that is `required` always as a
//! task. Progress a backend reports on a task after it was made is not passed on.

use super::Backend;
use crate::era::{self, Route};
use ferromcp::client::Client;
use ferromcp::protocol::{TaskSupport, RELATED_TASK_META_KEY};
use ferromcp::session::{RequestContext, RequestOptions};
use ferromcp::McpError;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

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
                    backend_task(client, params, opts, ctx.cancellation()).await
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

/// A task-augmented `tools/call` (2025-11-25) on a handshake connection, waited for with
/// `tasks/result`; when `cancel` fires, the backend's task is cancelled too.
async fn backend_task(
    client: &Client,
    mut params: Map<String, Value>,
    opts: RequestOptions,
    cancel: &CancellationToken,
) -> Result<Value, McpError> {
    params.insert("task".into(), json!({}));
    let created = client
        .request("tools/call", Some(Value::Object(params)), opts)
        .await?;
    let Some(id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
        // A backend of an older revision ignores `task` and answers the call itself.
        return Ok(created);
    };
    let id = id.to_string();
    let waited = client
        .request(
            "tasks/result",
            Some(json!({ "taskId": id })),
            RequestOptions::default().with_cancel(Some(cancel.clone())),
        )
        .await;
    if cancel.is_cancelled() {
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
        return Err(McpError::cancelled(None));
    }
    waited
}
