//! The task-capable tools that core's `integration/client_tasks.rs` and embed's
//! `integration/client_tasks.rs` both serve, written once: each test binary includes this file
//! by path (`#[path = ".../common_task_tools/mod.rs"]`), as `common_cache_hints` is.

use ferromcp::protocol::{CallToolResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, ServerBuilder};
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A tool that may run as a task (`execution.taskSupport: optional`).
pub fn task_tool(name: &str) -> Tool {
    Tool::new(name).with_task_support(TaskSupport::Optional)
}

/// `builder` with the tasks extension on (polled every 20 ms) and two task-capable tools:
/// `slow` sleeps `ms` (default 100) and is cancellable, setting `stopped` when cancelled;
/// `confirm` asks the client for a name (one elicitation request while it runs, handler code of
/// the handshake era) and answers `"<action> <name>"`.
pub fn with_task_tools(builder: ServerBuilder, stopped: Arc<AtomicBool>) -> ServerBuilder {
    builder
        .options(|o| {
            o.tasks_extension = true;
            o.tasks.poll_interval = Duration::from_millis(20);
        })
        .tool_raw(
            task_tool("slow"),
            tool_fn(move |args, ctx| {
                let stopped = stopped.clone();
                async move {
                    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(100);
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                        _ = ctx.cancellation().cancelled() => {
                            stopped.store(true, Ordering::SeqCst);
                            return Err(McpError::cancelled(None));
                        }
                    }
                    Ok(CallToolResult::text(format!("slept {ms} ms")))
                }
            }),
        )
        .tool_raw(
            task_tool("confirm"),
            tool_fn(|_, ctx| async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                let a = ctx
                    .request(
                        "elicitation/create",
                        Some(json!({ "message": "Delete?", "requestedSchema": {
                            "type": "object",
                            "properties": { "name": { "type": "string" } } } })),
                    )
                    .await?;
                Ok(CallToolResult::text(format!(
                    "{} {}",
                    a["action"].as_str().unwrap_or("?"),
                    a["content"]["name"].as_str().unwrap_or("?")
                )))
            }),
        )
}
