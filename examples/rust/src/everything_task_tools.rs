//! The everything server's tools of the tasks extension scenarios (`tasks-*`, extension
//! `io.modelcontextprotocol/tasks`, 2026-07-28): the fixtures those scenarios name, listed in
//! `tests/conformance/SCENARIOS.md`. Calls of the task-supporting ones from a request that
//! declares the extension become tasks (the engine decides; the handlers are plain ones).

use ferromcp::protocol::{CallToolResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, ServerBuilder};
use ferromcp::session::{input_required, RequestContext};
use ferromcp::McpError;
use serde_json::{json, Map, Value};
use std::time::Duration;

fn tool(name: &str, description: &str, properties: Value, support: Option<TaskSupport>) -> Tool {
    let t = Tool::new(name)
        .with_description(description)
        .with_input_schema(json!({ "type": "object", "properties": properties }));
    match support {
        Some(s) => t.with_task_support(s),
        None => t,
    }
}

/// An elicitation input request asking for `property` (a string) and a `confirm` flag.
fn ask(message: &str) -> Value {
    json!({ "method": "elicitation/create", "params": {
        "mode": "form",
        "message": message,
        "requestedSchema": { "type": "object", "properties": {
            "name": { "type": "string" }, "confirm": { "type": "boolean" } } } } })
}

/// Sleeps `d`, or fails as cancelled when the call (or its task) is cancelled first.
async fn sleep_or_cancel(ctx: &RequestContext, d: Duration) -> Result<(), McpError> {
    tokio::select! {
        _ = tokio::time::sleep(d) => Ok(()),
        _ = ctx.cancellation().cancelled() => Err(McpError::cancelled(None)),
    }
}

/// What an elicitation answer says: the accepted `name`, else `confirmed` / `declined`.
fn answer_text(answer: &Value) -> String {
    if answer["action"] != "accept" {
        return "declined".into();
    }
    match answer["content"]["name"].as_str() {
        Some(n) => n.to_string(),
        None => "confirmed".into(),
    }
}

/// Adds `greet`, `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
/// `multi_input` and `test_tool_with_task`.
pub fn add_task_tools(b: ServerBuilder) -> ServerBuilder {
    b.tool_raw(
        tool("greet", "Greets by name (never a task)", json!({ "name": { "type": "string" } }), None),
        tool_fn(|args, _| async move {
            let name = args.get("name").and_then(Value::as_str).unwrap_or("World");
            Ok(CallToolResult::text(format!("Hello, {name}!")))
        }),
    )
    .tool_raw(
        tool(
            "slow_compute",
            "Sleeps `seconds` seconds, then reports (a task when the client supports tasks)",
            json!({ "seconds": { "type": "number", "minimum": 0 }, "label": { "type": "string" } }),
            Some(TaskSupport::Optional),
        ),
        tool_fn(|args, ctx| async move {
            let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0);
            let label = args.get("label").and_then(Value::as_str).unwrap_or("job");
            sleep_or_cancel(&ctx, Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await?;
            Ok(CallToolResult::text(format!("{label}: computed after {seconds} s")))
        }),
    )
    .tool_raw(
        tool(
            "failing_job",
            "Always ends with a tool execution error after a moment (must run as a task)",
            json!({}),
            Some(TaskSupport::Required),
        ),
        tool_fn(|_, ctx| async move {
            sleep_or_cancel(&ctx, Duration::from_millis(500)).await?;
            Ok(CallToolResult::error_text("failing_job failed, as it always does"))
        }),
    )
    .tool_raw(
        tool(
            "protocol_error_job",
            "Always ends with a JSON-RPC error after a moment",
            json!({}),
            Some(TaskSupport::Optional),
        ),
        tool_fn(|_, ctx| async move {
            sleep_or_cancel(&ctx, Duration::from_millis(200)).await?;
            Err(McpError::internal("protocol_error_job failed with a protocol error on purpose"))
        }),
    )
    .tool_raw(
        tool(
            "confirm_delete",
            "Asks the user to confirm (elicitation), then deletes `filename` (pretend)",
            json!({ "filename": { "type": "string" } }),
            Some(TaskSupport::Optional),
        ),
        tool_fn(|args, ctx| async move {
            let file = args.get("filename").and_then(Value::as_str).unwrap_or("file").to_string();
            let mut asked = Map::new();
            asked.insert("confirm".into(), ask(&format!("Delete {file}?")));
            let answers = ctx.input(asked).await?;
            let confirmed = answers["confirm"]["action"] == "accept";
            Ok(CallToolResult::text(if confirmed {
                format!("Deleted {file}")
            } else {
                format!("Kept {file}")
            }))
        }),
    )
    .tool_raw(
        tool(
            "multi_input",
            "Asks two questions at once (elicitation), then reports both answers",
            json!({}),
            Some(TaskSupport::Optional),
        ),
        tool_fn(|_, ctx| async move {
            let mut asked = Map::new();
            asked.insert("first".into(), ask("First value?"));
            asked.insert("second".into(), ask("Second value?"));
            let answers = ctx.input(asked).await?;
            Ok(CallToolResult::text(format!(
                "Got {} and {}",
                answer_text(&answers["first"]),
                answer_text(&answers["second"])
            )))
        }),
    )
    .tool_raw(
        tool(
            "test_tool_with_task",
            "Asks for the user's name before any task exists (input_required), then completes as a task",
            json!({}),
            Some(TaskSupport::Required),
        ),
        // Answering input_required at once keeps the input round ahead of the task; the retry
        // carrying the answer becomes the task.
        tool_fn(|_, ctx| async move {
            match ctx.input_response("user_name") {
                Some(answer) => Ok(CallToolResult::text(format!("Hello, {}!", answer_text(answer)))),
                None => {
                    let mut asked = Map::new();
                    asked.insert(
                        "user_name".into(),
                        json!({ "method": "elicitation/create", "params": {
                            "mode": "form",
                            "message": "What is your name?",
                            "requestedSchema": { "type": "object",
                                "properties": { "name": { "type": "string" } }, "required": ["name"] } } }),
                    );
                    Err(input_required(asked, None))
                }
            }
        }),
    )
}
