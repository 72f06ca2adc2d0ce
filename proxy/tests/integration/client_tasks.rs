//! A backend's task-augmented elicitation through the proxy (docs/gateway.md, "Tasks the
//! backend runs on the client"): the backend's tool sends `elicitation/create` with
//! `params.task`, gets a task of the proxy's at once, and reads it with `tasks/get` and
//! `tasks/result` at the proxy. A client that declared `tasks.requests.elicitation.create` is
//! asked as a task too (its handler runs as a task of its own); one that did not is asked
//! plainly, the proxy running the task; a backend's `tasks/cancel` reaches the client's task.

use crate::common;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, TaskOptions};
use ferromcp::protocol::{CallToolResult, ElicitAction, ElicitResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::McpError;
use ferromcp_proxy::{Proxy, ProxyOptions};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn ask_params() -> Value {
    json!({
        "message": "Who?",
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } },
        "task": { "ttl": 60000 }
    })
}

/// A backend whose `confirm` tool asks its client for a name as a task and answers
/// `"<first status> -> <action> <name>, <status after>"`, and whose `abandon` tool makes such a
/// task, cancels it and answers the state `tasks/cancel` gave.
fn backend() -> Server {
    Server::builder("asking", "1")
        .tool_raw(
            Tool::new("confirm"),
            tool_fn(|_, ctx| async move {
                let created = ctx
                    .request("elicitation/create", Some(ask_params()))
                    .await?;
                let Some(id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
                    return Err(McpError::internal(format!("no task made: {created}")));
                };
                let get = json!({ "taskId": id });
                let first = ctx.request("tasks/get", Some(get.clone())).await?;
                let result = ctx.request("tasks/result", Some(get.clone())).await?;
                let related = result
                    .pointer("/_meta/io.modelcontextprotocol~1related-task/taskId")
                    .and_then(Value::as_str);
                if related != Some(id) {
                    return Err(McpError::internal(format!(
                        "result of another task: {result}"
                    )));
                }
                let after = ctx.request("tasks/get", Some(get)).await?;
                Ok(CallToolResult::text(format!(
                    "{} -> {} {}, {}",
                    first["status"].as_str().unwrap_or("?"),
                    result["action"].as_str().unwrap_or("?"),
                    result["content"]["name"].as_str().unwrap_or("?"),
                    after["status"].as_str().unwrap_or("?"),
                )))
            }),
        )
        .tool_raw(
            Tool::new("abandon"),
            tool_fn(|_, ctx| async move {
                let created = ctx
                    .request("elicitation/create", Some(ask_params()))
                    .await?;
                let Some(id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
                    return Err(McpError::internal(format!("no task made: {created}")));
                };
                // Give the client time to be asked.
                tokio::time::sleep(Duration::from_millis(300)).await;
                let cancelled = ctx
                    .request("tasks/cancel", Some(json!({ "taskId": id })))
                    .await?;
                Ok(CallToolResult::text(
                    cancelled["status"].as_str().unwrap_or("?").to_string(),
                ))
            }),
        )
        .build()
        .unwrap()
}

/// What the client's elicitation handler saw: whether it ran as a task, and whether it was
/// cancelled.
#[derive(Default)]
struct Seen {
    in_task: Mutex<Vec<bool>>,
    cancelled: AtomicBool,
}

/// A client of the proxy, receiving tasks when `tasks`, whose elicitation handler answers
/// "Ada" after 100 ms, or (`hold`) waits until it is cancelled.
async fn client(proxy: &Proxy, tasks: bool, hold: bool, seen: Arc<Seen>) -> Client {
    let mut options = ClientOptions::new("client-tasks-test", "0");
    if tasks {
        let mut limits = TaskOptions::default();
        limits.poll_interval = Duration::from_millis(20);
        options.tasks = Some(limits);
    }
    let handlers = ClientHandlers::default().with_elicitation(Some(Arc::new(move |_p, ctx| {
        let seen = seen.clone();
        Box::pin(async move {
            seen.in_task.lock().unwrap().push(ctx.in_task());
            if hold {
                ctx.cancellation().cancelled().await;
                seen.cancelled.store(true, Ordering::SeqCst);
                return Err(McpError::cancelled(None));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
            Ok(r)
        })
    })));
    common::connect(proxy, options, handlers).await
}

async fn proxy() -> Proxy {
    common::in_process_proxy("b", backend(), ProxyOptions::default()).await
}

fn text(r: &CallToolResult) -> String {
    r.content[0].as_text().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_backends_task_elicitation_reaches_a_declaring_client_as_a_task() {
    let proxy = proxy().await;
    let seen = Arc::new(Seen::default());
    let c = client(&proxy, true, false, seen.clone()).await;
    let caps = c.session().negotiated().unwrap().own_capabilities.clone();
    assert_eq!(
        caps["tasks"]["requests"],
        json!({ "elicitation": { "create": {} } })
    );
    let r = c.call_tool("confirm", json!({})).await.unwrap();
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(text(&r), "working -> accept Ada, completed");
    assert_eq!(*seen.in_task.lock().unwrap(), vec![true]);
    c.close().await;
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_backends_task_elicitation_reaches_another_client_plainly() {
    let proxy = proxy().await;
    let seen = Arc::new(Seen::default());
    let c = client(&proxy, false, false, seen.clone()).await;
    let caps = c.session().negotiated().unwrap().own_capabilities.clone();
    assert!(caps.get("tasks").is_none(), "{caps}");
    let r = c.call_tool("confirm", json!({})).await.unwrap();
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(text(&r), "working -> accept Ada, completed");
    assert_eq!(*seen.in_task.lock().unwrap(), vec![false]);
    c.close().await;
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_backends_cancel_reaches_the_clients_task() {
    let proxy = proxy().await;
    let seen = Arc::new(Seen::default());
    let c = client(&proxy, true, true, seen.clone()).await;
    let r = c.call_tool("abandon", json!({})).await.unwrap();
    assert_eq!(text(&r), "cancelled", "{r:?}");
    for _ in 0..100 {
        if seen.cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        seen.cancelled.load(Ordering::SeqCst),
        "the client's handler was not cancelled"
    );
    assert_eq!(*seen.in_task.lock().unwrap(), vec![true]);
    c.close().await;
    proxy.shutdown().await;
}
