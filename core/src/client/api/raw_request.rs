//! [`Client::request`], the raw request every call of the client goes through: its span
//! (with telemetry), the per-request era's `_meta` and input rounds, the header-mismatch retry
//! and the tasks extension's follow-up. Apart from `api.rs`, which keeps the connection and
//! the typed calls built on it.

use super::super::{per_request, tasks_held};
use super::Client;
use crate::jsonrpc::RequestId;
use crate::protocol::LoggingLevel;
use crate::session::{RequestOptions, Tracing};
use crate::McpError;
use serde_json::{json, Value};

/// The tracing of a request an engine client's call sends under its own span
/// (`Client::request_spanned`): not traced again, `named` told its id.
fn by_caller<'a>(named: &'a mut Option<&mut (dyn FnMut(&RequestId) + Send)>) -> Tracing<'a> {
    Tracing::ByCaller(match named {
        Some(named) => Some(&mut **named),
        None => None,
    })
}

impl Client {
    /// Sends a raw request. In the per-request era the request carries the client's `_meta`
    /// (version, capabilities, info, log level), and an `input_required` result is answered
    /// with this client's own handlers and retried (up to
    /// [`per_request::MAX_INPUT_ROUNDS`] rounds) until the server's result is complete; a
    /// `tools/list` result leaves out the tools whose `x-mcp-header` annotations are invalid.
    /// `logging/setLevel`, which that era removed, sets the level later requests carry (as
    /// [`Self::set_logging_level`] does). A `tools/call` refused with a header mismatch
    /// (`-32020`) is retried once after listing
    /// the tools again: the `Mcp-Param-*` headers the HTTP transport adds come from the last
    /// `tools/list`, which may predate the tool's current schema.
    ///
    /// A `tools/call` the server answers with a task of the tasks extension (2026-07-28) is
    /// followed to its end: `tasks/get` polled, input the task asks for answered with this
    /// client's handlers, the task's result (or error) returned; cancelling the call or its
    /// timeout cancels the task.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        self.request_spanned(method, params, opts, true).await
    }

    /// [`Self::request`]; `follow_tasks` false returns a task handle as it came. With
    /// telemetry, a client span around the whole request (input rounds and task polling
    /// included), its context written into `params._meta`, naming the first request's id.
    pub(super) async fn request_spanned(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
        follow_tasks: bool,
    ) -> Result<Value, McpError> {
        #[cfg(feature = "otel")]
        if let Some(telemetry) = &self.telemetry {
            use opentelemetry::context::FutureExt as _;
            let mut params = params;
            let call = telemetry.client_request(method, &mut params);
            let mut named = call.request_namer();
            let result = self
                .request_inner(method, params, opts, follow_tasks, Some(&mut named))
                .with_context(call.context())
                .await;
            call.finish(&result);
            return result;
        }
        self.request_inner(method, params, opts, follow_tasks, None)
            .await
    }

    /// [`Self::request_spanned`] under its span: the requests sent are not traced again,
    /// `named` is told their ids.
    async fn request_inner(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
        follow_tasks: bool,
        mut named: Option<&mut (dyn FnMut(&RequestId) + Send)>,
    ) -> Result<Value, McpError> {
        let Some(meta) = &self.per_request else {
            return self
                .peer()
                .request_traced(method, params, opts, Tracing::ByCaller(named))
                .await;
        };
        if method == "logging/setLevel" {
            // Removed in this era: the level travels in every later request's `_meta`, so a
            // binding's raw `logging/setLevel` means what `set_logging_level` does.
            let level = params
                .as_ref()
                .and_then(|p| p.get("level"))
                .cloned()
                .and_then(|l| serde_json::from_value::<LoggingLevel>(l).ok())
                .ok_or_else(|| {
                    McpError::invalid_params("logging/setLevel: params.level must be a log level")
                })?;
            let level = serde_json::to_value(level).expect("serializes");
            meta.set_log_level(level.as_str().unwrap_or("info"));
            return Ok(json!({}));
        }
        let cancel = opts.cancel.clone().unwrap_or_default();
        let mut round_params = params.clone();
        let mut relisted = false;
        for _ in 0..per_request::MAX_INPUT_ROUNDS {
            let sent = self
                .peer()
                .request_traced(
                    method,
                    Some(meta.stamp(round_params.clone())),
                    opts.clone(),
                    by_caller(&mut named),
                )
                .await;
            let result = match sent {
                Err(e)
                    if e.code == crate::error::codes::HEADER_MISMATCH
                        && method == "tools/call"
                        && !relisted =>
                {
                    relisted = true;
                    // Boxed: listing goes through this method again (no `tools/call` there).
                    // If even listing fails, the mismatch is the error worth reporting.
                    if Box::pin(self.list_all_tools()).await.is_err() {
                        return Err(e);
                    }
                    self.peer()
                        .request_traced(
                            method,
                            Some(meta.stamp(round_params.clone())),
                            opts.clone(),
                            by_caller(&mut named),
                        )
                        .await?
                }
                other => other?,
            };
            if follow_tasks && method == "tools/call" && tasks_held::is_task_handle(&result) {
                // Boxed: following the task sends requests through this method again.
                return Box::pin(self.ext_finish_call(&result, opts)).await;
            }
            if !per_request::wants_input(&result) {
                if method == "tools/list" {
                    return Ok(per_request::without_invalid_header_tools(result));
                }
                return Ok(result);
            }
            let answers = per_request::answer_inputs(&self.session, &result, &cancel).await?;
            round_params = Some(per_request::retry_params(&params, &result, answers));
        }
        Err(McpError::internal(format!(
            "{method}: the server still asked for input after {} rounds",
            per_request::MAX_INPUT_ROUNDS
        )))
    }
}
