//! A backend task's status through the proxy (docs/gateway.md, "Tasks"): what the backend's
//! task says of itself (its `statusMessage` while it runs, `input_required`, and how it ends:
//! its final message, or `cancelled`) is what the proxy's task says, for clients of both eras
//! (a 2025-11-25 client's task over the backend's handshake connection, a 2026-07-28 client's
//! over its per-request connection with the tasks extension).

use crate::common::{
    assert_tasks_end_as_the_backends, client_in, in_process_proxy, with_unfinished_task_tools,
};
use ferromcp::client::{Client, ClientHandlers, ProtocolMode};
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{CallToolResult, TaskStatus, TaskSupport, Tool};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp_proxy::{Proxy, ProxyOptions};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

const ERAS: [ProtocolMode; 2] = [ProtocolMode::Handshake, ProtocolMode::PerRequest];

/// A backend (both eras, tasks extension on) whose tools must run as tasks and report their
/// status: `stages` says "stage one", waits for `gate`, says "stage two" as `input_required`,
/// waits for `gate` again, and ends completed saying "all stages done"; `refuses` ends failed
/// saying "quota exhausted at the backend" (its error says "quota"); `withdraws` ends
/// cancelled, saying "withdrawn by the backend".
fn backend(gate: Arc<Notify>) -> Server {
    let mut options = ServerOptions::new("stager", "1");
    options.tasks_extension = true;
    options.tasks.poll_interval = Duration::from_millis(20);
    let required = |tool: &str| Tool::new(tool).with_task_support(TaskSupport::Required);
    let builder = Server::builder_with(options).tool_raw(
        required("stages"),
        tool_fn(move |_, ctx| {
            let gate = gate.clone();
            async move {
                ctx.report_task_status(TaskStatus::Working, Some("stage one"));
                gate.notified().await;
                ctx.report_task_status(TaskStatus::InputRequired, Some("stage two"));
                gate.notified().await;
                ctx.report_task_status(TaskStatus::Completed, Some("all stages done"));
                Ok(CallToolResult::text("staged"))
            }
        }),
    );
    with_unfinished_task_tools(builder).build().unwrap()
}

/// A client of the proxy in `mode`, keeping the `notifications/tasks/status` it gets.
async fn client(proxy: &Proxy, mode: ProtocolMode, statuses: Arc<Mutex<Vec<Value>>>) -> Client {
    let handlers =
        ClientHandlers::default().with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/tasks/status" {
                statuses
                    .lock()
                    .unwrap()
                    .push(n.params.unwrap_or(Value::Null));
            }
        })));
    client_in(proxy, "task-status-test", mode, handlers).await
}

/// Polls the proxy's task `id` until its `statusMessage` is `message`; its state then.
async fn until_message(c: &Client, id: &str, message: &str) -> (TaskStatus, Option<String>) {
    let mut last = None;
    for _ in 0..250 {
        let t = c.get_task(id).await.unwrap().task;
        if t.status_message.as_deref() == Some(message) {
            return (t.status, t.status_message);
        }
        last = Some((t.status, t.status_message));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the proxy's task never said {message:?}; last: {last:?}");
}

#[tokio::test]
async fn a_backend_tasks_status_and_message_are_the_proxy_tasks() {
    let gate = Arc::new(Notify::new());
    let proxy = in_process_proxy("stager", backend(gate.clone()), ProxyOptions::default()).await;
    for mode in ERAS {
        let statuses = Arc::new(Mutex::new(Vec::new()));
        let c = client(&proxy, mode, statuses.clone()).await;

        // While it runs: each message the backend's task gives, and input_required where the
        // era has it as a status the task sets (2025-11-25; the extension derives it from
        // the task's input requests, and this task asks for none).
        let id = c
            .call_tool_as_task("stages", json!({}), None)
            .await
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"))
            .task
            .task_id;
        let (status, _) = until_message(&c, &id, "stage one").await;
        assert_eq!(status, TaskStatus::Working, "{mode:?}");
        gate.notify_one();
        let (status, _) = until_message(&c, &id, "stage two").await;
        let expected = match mode {
            ProtocolMode::Handshake => TaskStatus::InputRequired,
            _ => TaskStatus::Working,
        };
        assert_eq!(status, expected, "{mode:?}");
        gate.notify_one();
        let r = c.get_task_result(&id).await.unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap()["content"][0]["text"],
            "staged"
        );
        let t = c.get_task(&id).await.unwrap().task;
        assert_eq!(t.status, TaskStatus::Completed, "{mode:?}");
        assert_eq!(
            t.status_message.as_deref(),
            Some("all stages done"),
            "{mode:?}"
        );
        if mode == ProtocolMode::Handshake {
            // The status notifications of the proxy's task carry the backend's states.
            let seen = statuses.lock().unwrap().clone();
            assert!(
                seen.iter().any(|s| s["taskId"] == id.as_str()
                    && s["status"] == "input_required"
                    && s["statusMessage"] == "stage two"),
                "{seen:?}"
            );
        }

        // A failed or cancelled backend task: so ends the proxy's, with its message.
        assert_tasks_end_as_the_backends(&c, &format!("{mode:?}")).await;
        c.close().await;
    }
    proxy.shutdown().await;
}
