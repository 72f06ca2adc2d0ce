//! A backend task's progress through the proxy (docs/gateway.md, "Tasks"): a 2025-11-25 client
//! calls a tool that must run as a task with a progress token; the backend's task reports
//! progress after its `CreateTaskResult` was answered, and the client gets it under its own
//! token (the proxy's handshake connection sends the backend a token of the proxy's own, which
//! outlives the call's answer).

use crate::common::{client_in, in_process_proxy};
use ferromcp::client::{ClientHandlers, ProtocolMode};
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{CallToolResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::session::RequestOptions;
use ferromcp_proxy::ProxyOptions;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A backend whose `steps` tool must run as a task: once its task exists (100 ms in), it
/// reports progress 1/2 and 2/2, then answers "done".
fn backend() -> Server {
    let mut options = ServerOptions::new("stepper", "1");
    options.tasks_extension = true;
    Server::builder_with(options)
        .tool_raw(
            Tool::new("steps").with_task_support(TaskSupport::Required),
            tool_fn(|_, ctx| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                ctx.progress(1.0, Some(2.0), Some("step one")).await?;
                tokio::time::sleep(Duration::from_millis(20)).await;
                ctx.progress(2.0, Some(2.0), Some("step two")).await?;
                Ok(CallToolResult::text("done"))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_backend_tasks_progress_after_its_handle_reaches_the_client() {
    let proxy = in_process_proxy("stepper", backend(), ProxyOptions::default()).await;
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = seen.clone();
    // The task-augmented call's answer is the task's handle: its progress comes after it, under
    // a token no request of the client waits on any more, so the client's notification handler
    // gets it.
    let handlers =
        ClientHandlers::default().with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/progress" {
                sink.lock().unwrap().push(n.params.unwrap_or(Value::Null));
            }
        })));
    let c = client_in(&proxy, "progress-test", ProtocolMode::Handshake, handlers).await;
    let created = c
        .request(
            "tools/call",
            Some(json!({ "name": "steps", "arguments": {}, "task": {},
                         "_meta": { "progressToken": "client-token-7" } })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    let id = created["task"]["taskId"]
        .as_str()
        .expect("a task handle")
        .to_string();
    let result = c
        .request(
            "tasks/result",
            Some(json!({ "taskId": id })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "done", "{result}");
    // The last notification may trail the result by a moment.
    for _ in 0..50 {
        if seen.lock().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen = seen.lock().unwrap().clone();
    let steps: Vec<(Value, Value, Value)> = seen
        .iter()
        .map(|p| {
            (
                p["progressToken"].clone(),
                p["progress"].clone(),
                p["message"].clone(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            (json!("client-token-7"), json!(1.0), json!("step one")),
            (json!("client-token-7"), json!(2.0), json!("step two")),
        ],
        "{seen:?}"
    );
    c.close().await;
    proxy.shutdown().await;
}
