//! Task-capable tools through the proxy (docs/gateway.md, "Tasks"): a backend tool with
//! `taskSupport` called as a task at the proxy runs as a task of the proxy whose handler drives
//! a task of the backend (2025-11-25 tasks on a handshake backend connection, the tasks
//! extension on a 2026-07-28 one), so `tasks/get`, `tasks/result`, `tasks/list` and
//! `tasks/cancel` are the proxy's, each proxy task maps to its backend's task, and cancelling it
//! cancels the backend's. Two in-process backends that answer differently, one speaking both
//! eras (the proxy reaches it by handshake) and one only 2026-07-28, each called by clients of
//! both eras.

use crate::common::{client_in, connect};
use crate::common_task_tools::{asking, sleeping};
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{
    CallToolResult, ElicitAction, ElicitResult, ProtocolVersion, TaskStatus, TaskSupport, Tool,
    TASKS_EXTENSION,
};
use ferromcp::server::{Server, ServerOptions};
use ferromcp_proxy::{BackendOptions, InProcessBackend, Proxy, ProxyOptions};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const ERAS: [ProtocolMode; 2] = [ProtocolMode::Handshake, ProtocolMode::PerRequest];
const BACKENDS: [&str; 2] = ["alpha", "beta"];

/// A backend called `name`, with the tasks extension on and tools that must run as tasks:
/// `job` sleeps `ms` and answers `"<name>: slept <ms> ms"` (setting `stopped` when cancelled);
/// `confirm` asks the client for a name while it runs and answers `"<name>: <action> <name>"`.
/// `only_2026`: it speaks 2026-07-28 only.
fn backend(name: &'static str, only_2026: bool, stopped: Arc<AtomicBool>) -> Server {
    let mut options = ServerOptions::new(name, "1");
    options.tasks_extension = true;
    options.tasks.poll_interval = Duration::from_millis(20);
    if only_2026 {
        options.session.supported_versions = vec![ProtocolVersion::V2026_07_28];
    }
    let required = |tool: &str| Tool::new(tool).with_task_support(TaskSupport::Required);
    let prefix = format!("{name}: ");
    Server::builder_with(options)
        .tool_raw(required("job"), sleeping(&prefix, stopped))
        .tool_raw(required("confirm"), asking(&prefix, "Who?"))
        .build()
        .unwrap()
}

struct Fixture {
    proxy: Proxy,
    /// Whether each backend's `job` saw its cancellation (alpha, beta).
    stopped: [Arc<AtomicBool>; 2],
}

async fn start() -> Fixture {
    let stopped: [Arc<AtomicBool>; 2] = [Arc::default(), Arc::default()];
    let backends = vec![
        InProcessBackend::new("alpha", backend("alpha", false, stopped[0].clone())),
        InProcessBackend::new("beta", backend("beta", true, stopped[1].clone())),
    ];
    let options = ProxyOptions {
        backend: BackendOptions {
            stderr: ferromcp::transport::StderrMode::Null,
            ..Default::default()
        },
        ..Default::default()
    };
    let proxy = Proxy::start_with(None, backends, options).await.unwrap();
    for b in BACKENDS {
        assert!(proxy.backend(b).unwrap().is_up(), "{b} is up");
    }
    Fixture { proxy, stopped }
}

/// A client of the proxy in `mode`, answering elicitations with the name "Ada" (counted in
/// `asked`) and keeping the `notifications/tasks/status` it gets in `statuses`.
async fn client(
    proxy: &Proxy,
    mode: ProtocolMode,
    asked: Arc<AtomicUsize>,
    statuses: Arc<Mutex<Vec<Value>>>,
) -> Client {
    let handlers = ClientHandlers::default()
        .with_elicitation(Some(Arc::new(move |_params, _ctx| {
            let asked = asked.clone();
            Box::pin(async move {
                asked.fetch_add(1, Ordering::SeqCst);
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
                Ok(r)
            })
        })))
        .with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/tasks/status" {
                statuses
                    .lock()
                    .unwrap()
                    .push(n.params.unwrap_or(Value::Null));
            }
        })));
    let c = client_in(proxy, "proxy-tasks-test", mode, handlers).await;
    assert_eq!(c.is_per_request(), mode == ProtocolMode::PerRequest);
    c
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Each backend's required-task tool called as a task through the proxy, by clients of both
/// eras: made, polled, its result fetched (each backend's own answer), listed (2025-11-25);
/// the proxy declares tasks in the client's era.
#[tokio::test]
async fn task_tools_of_each_backend_run_as_tasks_in_both_eras() {
    let f = start().await;
    for mode in ERAS {
        let statuses = Arc::new(Mutex::new(Vec::new()));
        let c = client(&f.proxy, mode, Arc::default(), statuses.clone()).await;
        let caps = c.server_capabilities().cloned().unwrap_or(Value::Null);
        if mode == ProtocolMode::Handshake {
            assert!(
                caps["tasks"]["requests"]["tools"]["call"].is_object(),
                "{caps}"
            );
        } else {
            assert!(caps["extensions"][TASKS_EXTENSION].is_object(), "{caps}");
        }
        let mut ids = Vec::new();
        for b in BACKENDS {
            let created = c
                .call_tool_as_task(&format!("{b}_job"), json!({ "ms": 300 }), Some(60_000))
                .await
                .unwrap_or_else(|e| panic!("{mode:?} {b}: {e}"));
            let id = created.task.task_id.clone();
            assert!(
                !id.starts_with("ferromcp-local-"),
                "{mode:?} {b}: {created:?}"
            );
            assert_eq!(created.task.status, TaskStatus::Working, "{mode:?} {b}");
            // The proxy's short default poll interval (a plain call made a task is read one
            // interval after its handle).
            assert_eq!(created.task.poll_interval, Some(50), "{mode:?} {b}");
            let state = c.get_task(&id).await.unwrap();
            assert_eq!(state.task.status, TaskStatus::Working, "{mode:?} {b}");
            let r = c.get_task_result(&id).await.unwrap();
            assert_eq!(text(&r), format!("{b}: slept 300 ms"), "{mode:?}");
            assert_eq!(r.is_error, None, "{mode:?} {b}: {r:?}");
            let state = c.get_task(&id).await.unwrap();
            assert_eq!(state.task.status, TaskStatus::Completed, "{mode:?} {b}");
            ids.push(id);
        }
        if mode == ProtocolMode::Handshake {
            let listed: Vec<String> = c
                .list_tasks(None)
                .await
                .unwrap()
                .tasks
                .into_iter()
                .map(|t| t.task_id)
                .collect();
            for id in &ids {
                assert!(listed.contains(id), "{id} in {listed:?}");
            }
            // The task ids are the proxy's: the status notifications name them, ending
            // completed.
            let seen = statuses.lock().unwrap().clone();
            for id in &ids {
                assert!(
                    seen.iter()
                        .any(|s| s["taskId"] == id.as_str() && s["status"] == "completed"),
                    "{id} completed in {seen:?}"
                );
            }
            // A plain call of a tool that must run as a task is refused, as the backend would.
            let e = c.call_tool("alpha_job", json!({})).await.unwrap_err();
            assert_eq!(e.code, -32601, "{e}");
        } else {
            // A plain call: the proxy makes it a task, which the client follows to its end.
            for b in BACKENDS {
                let r = c
                    .call_tool(&format!("{b}_job"), json!({ "ms": 50 }))
                    .await
                    .unwrap_or_else(|e| panic!("{b}: {e}"));
                assert_eq!(text(&r), format!("{b}: slept 50 ms"));
            }
        }
        c.close().await;
    }
    f.proxy.shutdown().await;
}

/// A backend task that asks the client for input while it runs: the request reaches the
/// proxy's client (a request in the handshake era, the proxy task's `inputRequests` answered
/// with `tasks/update` in the 2026-07-28 one) and the answer gets back to the backend.
#[tokio::test]
async fn input_asked_inside_a_backend_task_reaches_the_client_in_both_eras() {
    let f = start().await;
    for mode in ERAS {
        let asked = Arc::new(AtomicUsize::new(0));
        let c = client(&f.proxy, mode, asked.clone(), Arc::default()).await;
        for (n, b) in BACKENDS.into_iter().enumerate() {
            let created = c
                .call_tool_as_task(&format!("{b}_confirm"), json!({}), None)
                .await
                .unwrap_or_else(|e| panic!("{mode:?} {b}: {e}"));
            let r = tokio::time::timeout(
                Duration::from_secs(10),
                c.get_task_result(&created.task.task_id),
            )
            .await
            .unwrap_or_else(|_| panic!("{mode:?} {b}: no result"))
            .unwrap_or_else(|e| panic!("{mode:?} {b}: {e}"));
            assert_eq!(text(&r), format!("{b}: accept Ada"), "{mode:?}");
            assert_eq!(asked.load(Ordering::SeqCst), n + 1, "{mode:?} {b}");
        }
        c.close().await;
    }
    f.proxy.shutdown().await;
}

/// Cancelling a task at the proxy cancels the backend's task it maps to (that backend's
/// handler sees its cancellation; the other backend's does not), in both eras.
#[tokio::test]
async fn cancelling_a_task_at_the_proxy_cancels_its_backend_task() {
    let f = start().await;
    for mode in ERAS {
        let c = client(&f.proxy, mode, Arc::default(), Arc::default()).await;
        for (i, b) in BACKENDS.into_iter().enumerate() {
            f.stopped
                .iter()
                .for_each(|s| s.store(false, Ordering::SeqCst));
            let created = c
                .call_tool_as_task(&format!("{b}_job"), json!({ "ms": 20_000 }), None)
                .await
                .unwrap_or_else(|e| panic!("{mode:?} {b}: {e}"));
            let id = created.task.task_id;
            // The backend's task is made once the proxy's handler runs.
            tokio::time::sleep(Duration::from_millis(100)).await;
            let state = c.cancel_task(&id).await.unwrap();
            assert_eq!(state.task.status, TaskStatus::Cancelled, "{mode:?} {b}");
            let mut stopped = false;
            for _ in 0..300 {
                if f.stopped[i].load(Ordering::SeqCst) {
                    stopped = true;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert!(stopped, "{mode:?}: {b}'s job saw no cancellation");
            assert!(
                !f.stopped[1 - i].load(Ordering::SeqCst),
                "{mode:?}: the other backend's job was cancelled"
            );
            let state = c.get_task(&id).await.unwrap();
            assert_eq!(state.task.status, TaskStatus::Cancelled, "{mode:?} {b}");
        }
        c.close().await;
    }
    f.proxy.shutdown().await;
}

/// A client of a revision without tasks (2025-06-18) calls a tool that must run as a task
/// plainly: the proxy runs the backend's task and answers in the call.
#[tokio::test]
async fn a_client_without_tasks_gets_the_result_in_the_call() {
    let f = start().await;
    let mut options = ClientOptions::new("proxy-tasks-test", "0");
    options.protocol_version = ProtocolVersion::V2025_06_18;
    let c = connect(&f.proxy, options, ClientHandlers::default()).await;
    assert_eq!(c.protocol_version(), ProtocolVersion::V2025_06_18);
    assert!(c.server_capabilities().unwrap().get("tasks").is_none());
    for b in BACKENDS {
        let r = c
            .call_tool(&format!("{b}_job"), json!({ "ms": 50 }))
            .await
            .unwrap_or_else(|e| panic!("{b}: {e}"));
        assert_eq!(text(&r), format!("{b}: slept 50 ms"));
    }
    c.close().await;
    f.proxy.shutdown().await;
}
