//! The task-capable tools the task tests serve, written once: core's and embed's
//! `integration/client_tasks.rs` serve [`with_task_tools`]; core's `integration/tasks_extension.rs`
//! and the proxy's `integration/tasks.rs` (backends whose answers carry their name) build their
//! own tools on [`sleeping`] and [`asking`]. Each test binary includes this file by path
//! (`#[path = ".../common_task_tools/mod.rs"]`), as `common_cache_hints` is.
#![allow(dead_code)]

use ferromcp::protocol::{CallToolResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, ServerBuilder, ToolFn};
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A tool that may run as a task (`execution.taskSupport: optional`).
pub fn task_tool(name: &str) -> Tool {
    Tool::new(name).with_task_support(TaskSupport::Optional)
}

/// A handler that sleeps `ms` (its argument, default 100) and answers
/// `"<prefix>slept <ms> ms"`; cancelled, it sets `stopped` and fails as cancelled.
pub fn sleeping(prefix: &str, stopped: Arc<AtomicBool>) -> ToolFn {
    let prefix = prefix.to_string();
    tool_fn(move |args, ctx| {
        let stopped = stopped.clone();
        let prefix = prefix.clone();
        async move {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(100);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                _ = ctx.cancellation().cancelled() => {
                    stopped.store(true, Ordering::SeqCst);
                    return Err(McpError::cancelled(None));
                }
            }
            Ok(CallToolResult::text(format!("{prefix}slept {ms} ms")))
        }
    })
}

/// A handler that, 30 ms in, asks the client for a name with `message` (one elicitation
/// request while it runs, handler code of the handshake era) and answers
/// `"<prefix><action> <name>"`.
pub fn asking(prefix: &str, message: &'static str) -> ToolFn {
    let prefix = prefix.to_string();
    tool_fn(move |_, ctx| {
        let prefix = prefix.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            let a = ctx
                .request(
                    "elicitation/create",
                    Some(json!({ "message": message, "requestedSchema": {
                        "type": "object",
                        "properties": { "name": { "type": "string" } } } })),
                )
                .await?;
            Ok(CallToolResult::text(format!(
                "{prefix}{} {}",
                a["action"].as_str().unwrap_or("?"),
                a["content"]["name"].as_str().unwrap_or("?")
            )))
        }
    })
}

/// `builder` with the tasks extension on (polled every 20 ms) and two task-capable tools:
/// `slow` ([`sleeping`]) sets `stopped` when cancelled; `confirm` ([`asking`] "Delete?")
/// answers `"<action> <name>"`.
pub fn with_task_tools(builder: ServerBuilder, stopped: Arc<AtomicBool>) -> ServerBuilder {
    builder
        .options(|o| {
            o.tasks_extension = true;
            o.tasks.poll_interval = Duration::from_millis(20);
        })
        .tool_raw(task_tool("slow"), sleeping("", stopped))
        .tool_raw(task_tool("confirm"), asking("", "Delete?"))
}
