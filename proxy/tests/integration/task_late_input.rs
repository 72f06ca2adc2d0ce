//! A backend's `input_required` round that comes after the proxy made its task
//! (docs/gateway.md, "Tasks"): a 2026-07-28 client declaring the tasks extension calls a
//! task-capable tool; the proxy's engine waits `first_answer_wait` for the backend's first
//! answer, then makes its task; the backend answers its input round later. The round's input
//! requests become the proxy task's `inputRequests` (the task is `input_required`), and the
//! client's answers (`tasks/update`) go back to the backend in the call's retry.

use crate::common::{client_in, in_process_proxy};
use ferromcp::client::{ClientHandlers, ProtocolMode};
use ferromcp::protocol::{CallToolResult, ElicitAction, ElicitResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::session::input_required;
use ferromcp_proxy::ProxyOptions;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A backend whose `late` tool (a task at the client's wish) answers an input round asking
/// "Who?" 500 ms into its first call, within its own first-answer wait (so a round, not a
/// task), and `"late: <action> <name>"` when retried with the answer.
fn backend() -> Server {
    let mut options = ServerOptions::new("late", "1");
    options.tasks_extension = true;
    options.tasks.poll_interval = Duration::from_millis(20);
    options.tasks.first_answer_wait = Duration::from_secs(5);
    Server::builder_with(options)
        .tool_raw(
            Tool::new("late").with_task_support(TaskSupport::Optional),
            tool_fn(|_, ctx| async move {
                if let Some(a) = ctx.input_response("who") {
                    return Ok(CallToolResult::text(format!(
                        "late: {} {}",
                        a["action"].as_str().unwrap_or("?"),
                        a["content"]["name"].as_str().unwrap_or("?")
                    )));
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
                let mut asked = Map::new();
                asked.insert(
                    "who".into(),
                    json!({ "method": "elicitation/create", "params": {
                        "message": "Who?",
                        "requestedSchema": { "type": "object",
                            "properties": { "name": { "type": "string" } } } } }),
                );
                Err(input_required(asked, None))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_input_round_after_the_proxys_task_was_made_is_the_tasks_input() {
    let mut options = ProxyOptions::default();
    // The backend answers its round after this: the proxy's task exists by then.
    options.server.tasks.first_answer_wait = Duration::from_millis(100);
    let proxy = in_process_proxy("late", backend(), options).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let handlers = ClientHandlers::default().with_elicitation(Some(Arc::new(move |p, _ctx| {
        let counter = counter.clone();
        Box::pin(async move {
            assert_eq!(p.message(), "Who?");
            counter.fetch_add(1, Ordering::SeqCst);
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
            Ok(r)
        })
    })));
    let c = client_in(
        &proxy,
        "late-input-test",
        ProtocolMode::PerRequest,
        handlers,
    )
    .await;
    // A task handle, then the task's input (answered by the client's handler), then the result.
    let created = c.call_tool_as_task("late", json!({}), None).await.unwrap();
    assert!(
        !created.task.task_id.starts_with("ferromcp-local-"),
        "the proxy answered without a task: {created:?}"
    );
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        c.get_task_result(&created.task.task_id),
    )
    .await
    .expect("the task ends")
    .unwrap_or_else(|e| panic!("the proxy's task failed: {e}"));
    let r: Value = serde_json::to_value(&r).unwrap();
    assert_eq!(r["content"][0]["text"], "late: accept Ada", "{r}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    c.close().await;
    proxy.shutdown().await;
}
