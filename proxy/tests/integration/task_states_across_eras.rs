//! A backend task's states through the proxy across protocol eras (docs/gateway.md, "Tasks"):
//! a 2025-11-25 (handshake) client served by a backend that speaks only 2026-07-28 (its task
//! one of the tasks extension), and the reverse pairing, a 2026-07-28 client declaring the
//! extension served by a handshake-only backend (its task one of 2025-11-25). In both, the
//! proxy's task says what the backend's says in the client's era: `working` with each
//! `statusMessage`, `input_required` while the backend waits for the client's answer (which
//! reaches the client and goes back to the backend), and how it ended (completed with its
//! final message and result, failed with its message, cancelled with its message).

use crate::common::{assert_tasks_end_as_the_backends, with_unfinished_task_tools};
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{
    CallToolResult, ElicitAction, ElicitResult, ProtocolVersion, TaskStatus, TaskSupport, Tool,
};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::session::{input_required, RequestOptions};
use ferromcp::transport::memory_pair;
use ferromcp_proxy::{InProcessBackend, Proxy, ProxyOptions};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// A backend serving the revisions `versions` only (tasks extension on, polled every 20 ms),
/// whose tools must run as tasks. `stages` says "stage one" and waits for `gate`; says
/// "waiting for a name" as `input_required` and asks the client for a name ("Who?", an
/// elicitation: a request in the handshake era, an input request of the task with the
/// extension); says "got <name>" and waits for `gate` again; ends completed saying "all stages
/// done", answering "staged for <name>". `greets` (2026-07-28 only) answers `input_required`
/// before any task, asking "Whom to greet?", and on the retry with the answer becomes a task
/// that ends saying "greeted <name>" and answering "hello <name>". `refuses` ends failed saying "quota exhausted at the
/// backend" (its error says "quota"); `withdraws` ends cancelled saying "withdrawn by the
/// backend".
fn backend(versions: &[ProtocolVersion], gate: Arc<Notify>) -> Server {
    let mut options = ServerOptions::new("stager", "1");
    options.session.supported_versions = versions.to_vec();
    options.tasks_extension = true;
    options.tasks.poll_interval = Duration::from_millis(20);
    let required = |tool: &str| Tool::new(tool).with_task_support(TaskSupport::Required);
    let builder = Server::builder_with(options)
        .tool_raw(
            required("stages"),
            tool_fn(move |_, ctx| {
                let gate = gate.clone();
                async move {
                    ctx.report_task_status(TaskStatus::Working, Some("stage one"));
                    gate.notified().await;
                    ctx.report_task_status(TaskStatus::InputRequired, Some("waiting for a name"));
                    let answer = ctx
                        .request(
                            "elicitation/create",
                            Some(json!({ "message": "Who?", "requestedSchema": {
                                "type": "object",
                                "properties": { "name": { "type": "string" } } } })),
                        )
                        .await?;
                    let name = answer["content"]["name"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string();
                    ctx.report_task_status(TaskStatus::Working, Some(&format!("got {name}")));
                    gate.notified().await;
                    ctx.report_task_status(TaskStatus::Completed, Some("all stages done"));
                    Ok(CallToolResult::text(format!("staged for {name}")))
                }
            }),
        )
        .tool_raw(
            required("greets"),
            tool_fn(|_, ctx| async move {
                let Some(answer) = ctx.input_response("who").cloned() else {
                    let ask = json!({ "method": "elicitation/create", "params": {
                        "message": "Whom to greet?", "requestedSchema": { "type": "object",
                            "properties": { "name": { "type": "string" } } } } });
                    return Err(input_required(
                        [("who".to_string(), ask)].into_iter().collect(),
                        None,
                    ));
                };
                let name = answer["content"]["name"].as_str().unwrap_or("?");
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.report_task_status(TaskStatus::Completed, Some(&format!("greeted {name}")));
                Ok(CallToolResult::text(format!("hello {name}")))
            }),
        );
    with_unfinished_task_tools(builder).build().unwrap()
}

/// What the proxy's client saw: the `notifications/tasks/status` it got, and each elicitation
/// asked of it (its message, and the status notifications it had got by then).
#[derive(Default)]
struct Seen {
    statuses: Mutex<Vec<Value>>,
    asked: Mutex<Vec<(String, Vec<Value>)>>,
    asks: AtomicUsize,
}

/// A proxy in front of one backend serving `versions`, and a client of it in `mode` that
/// answers elicitations with the name "Ada".
async fn start(
    versions: &[ProtocolVersion],
    mode: ProtocolMode,
) -> (Proxy, Client, Arc<Notify>, Arc<Seen>) {
    let gate = Arc::new(Notify::new());
    let proxy = Proxy::start_with(
        None,
        vec![InProcessBackend::new(
            "stager",
            backend(versions, gate.clone()),
        )],
        ProxyOptions::default(),
    )
    .await
    .unwrap();
    assert!(proxy.backend("stager").unwrap().is_up());
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
    let server = proxy.server().clone();
    tokio::spawn(async move {
        let _ = server.serve(r_s, w_s).await;
    });
    let seen = Arc::new(Seen::default());
    let (on_ask, on_status) = (seen.clone(), seen.clone());
    let handlers = ClientHandlers::default()
        .with_elicitation(Some(Arc::new(move |params, _ctx| {
            let seen = on_ask.clone();
            Box::pin(async move {
                let statuses = seen.statuses.lock().unwrap().clone();
                seen.asked
                    .lock()
                    .unwrap()
                    .push((params.message().to_string(), statuses));
                seen.asks.fetch_add(1, Ordering::SeqCst);
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
                Ok(r)
            })
        })))
        .with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/tasks/status" {
                on_status
                    .statuses
                    .lock()
                    .unwrap()
                    .push(n.params.unwrap_or(Value::Null));
            }
        })));
    let mut options = ClientOptions::new("task-states-across-eras", "0");
    options.mode = mode;
    let c = Client::connect(options, handlers, r_c, w_c).await.unwrap();
    assert_eq!(c.is_per_request(), mode == ProtocolMode::PerRequest);
    (proxy, c, gate, seen)
}

/// Polls the proxy's task `id` until its `statusMessage` is `message`; its status then.
async fn until_message(c: &Client, id: &str, message: &str) -> TaskStatus {
    let mut last = None;
    for _ in 0..250 {
        let t = c.get_task(id).await.unwrap().task;
        if t.status_message.as_deref() == Some(message) {
            return t.status;
        }
        last = Some((t.status, t.status_message));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the proxy's task never said {message:?}; last: {last:?}");
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// How each task ends, the same in both pairings: `stages` completed with its final message
/// and result (after the second gate), `refuses` failed with its message, `withdraws`
/// cancelled with its message.
async fn check_the_ends(c: &Client, gate: &Notify, stages: &str, seen: &Seen) {
    gate.notify_one();
    let r = tokio::time::timeout(Duration::from_secs(10), c.get_task_result(stages))
        .await
        .expect("the result in time")
        .unwrap();
    assert_eq!(text(&r), "staged for Ada");
    let t = c.get_task(stages).await.unwrap().task;
    assert_eq!(t.status, TaskStatus::Completed);
    assert_eq!(t.status_message.as_deref(), Some("all stages done"));
    assert_eq!(seen.asks.load(Ordering::SeqCst), 1, "asked once");

    assert_tasks_end_as_the_backends(c, "handshake client, 2026-07-28 backend").await;
}

/// A handshake client, a backend speaking only 2026-07-28: the backend's extension task's
/// messages are the proxy's 2025-11-25 task's; while it has an input request the proxy's task
/// is `input_required` (announced before the client is asked), the request reaches the client
/// as an elicitation and its answer the backend (`tasks/update`); then the ends. (Before, the
/// engine's client followed that task inside the call: the proxy's task said `working`, no
/// message, until it ended, and a task the backend cancelled failed.)
#[tokio::test]
async fn a_handshake_client_sees_a_2026_only_backends_task_states() {
    let (proxy, c, gate, seen) =
        start(&ProtocolVersion::PER_REQUEST, ProtocolMode::Handshake).await;
    let id = c
        .call_tool_as_task("stages", json!({}), None)
        .await
        .unwrap()
        .task
        .task_id;
    assert_eq!(
        until_message(&c, &id, "stage one").await,
        TaskStatus::Working
    );
    gate.notify_one();
    assert_eq!(until_message(&c, &id, "got Ada").await, TaskStatus::Working);
    let asked = seen.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let (message, statuses_then) = &asked[0];
    assert_eq!(message, "Who?");
    assert!(
        statuses_then.iter().any(|s| s["taskId"] == id.as_str()
            && s["status"] == "input_required"
            && s["statusMessage"] == "waiting for a name"),
        "input_required announced before the client was asked: {statuses_then:?}"
    );
    check_the_ends(&c, &gate, &id, &seen).await;
    // The status notifications carried the states in order, ending completed.
    let states: Vec<(String, String)> = seen
        .statuses
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s["taskId"] == id.as_str())
        .map(|s| {
            (
                s["status"].as_str().unwrap_or("").to_string(),
                s["statusMessage"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let at = |status: &str, message: &str| {
        states
            .iter()
            .position(|(s, m)| s == status && m == message)
            .unwrap_or_else(|| panic!("{status} {message:?} in {states:?}"))
    };
    let order = [
        at("working", "stage one"),
        at("input_required", "waiting for a name"),
        at("working", "got Ada"),
        at("completed", "all stages done"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{states:?}");
    c.close().await;
    proxy.shutdown().await;
}

/// A handshake client, a 2026-07-28-only backend that asks for input before it makes its
/// task: the proxy's task is `input_required` while the question is asked of the client (its
/// notification comes first), the answer goes back in the call's retry, and the backend's task
/// then made is followed to its end (its final message, its result).
#[tokio::test]
async fn a_handshake_clients_task_answers_a_2026_backends_round_before_its_task() {
    let (proxy, c, _gate, seen) =
        start(&ProtocolVersion::PER_REQUEST, ProtocolMode::Handshake).await;
    let id = c
        .call_tool_as_task("greets", json!({}), None)
        .await
        .unwrap()
        .task
        .task_id;
    let r = tokio::time::timeout(Duration::from_secs(10), c.get_task_result(&id))
        .await
        .expect("the result in time")
        .unwrap();
    assert_eq!(text(&r), "hello Ada");
    let t = c.get_task(&id).await.unwrap().task;
    assert_eq!(t.status, TaskStatus::Completed);
    assert_eq!(t.status_message.as_deref(), Some("greeted Ada"));
    let asked = seen.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let (message, statuses_then) = &asked[0];
    assert_eq!(message, "Whom to greet?");
    assert!(
        statuses_then
            .iter()
            .any(|s| s["taskId"] == id.as_str() && s["status"] == "input_required"),
        "input_required announced before the client was asked: {statuses_then:?}"
    );
    c.close().await;
    proxy.shutdown().await;
}

/// The reverse pairing: a 2026-07-28 client declaring the extension, a handshake-only backend
/// (its 2025-11-25 task read with `tasks/get` beside `tasks/result`): the proxy's extension
/// task carries the backend task's messages, is `input_required` with the backend's elicitation
/// as its input request while the backend waits for it, and the client's `tasks/update` answer
/// reaches the backend; then the ends.
#[tokio::test]
async fn a_2026_client_sees_a_handshake_only_backends_task_states() {
    let (proxy, c, gate, seen) = start(&ProtocolVersion::ALL, ProtocolMode::PerRequest).await;
    let id = c
        .call_tool_as_task("stages", json!({}), None)
        .await
        .unwrap()
        .task
        .task_id;
    assert!(!id.starts_with("ferromcp-local-"), "{id}");
    assert_eq!(
        until_message(&c, &id, "stage one").await,
        TaskStatus::Working
    );
    gate.notify_one();
    // The raw state (`Client::get_task` would answer the input first).
    let mut last = Value::Null;
    for _ in 0..250 {
        last = c
            .request(
                "tasks/get",
                Some(json!({ "taskId": id })),
                RequestOptions::default(),
            )
            .await
            .unwrap();
        if last["status"] == "input_required" && last["statusMessage"] == "waiting for a name" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(last["status"], "input_required", "{last}");
    assert_eq!(last["statusMessage"], "waiting for a name", "{last}");
    let requests = last["inputRequests"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert_eq!(requests.len(), 1, "{last}");
    let request = requests.values().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{last}");
    assert_eq!(request["params"]["message"], "Who?", "{last}");
    assert_eq!(seen.asks.load(Ordering::SeqCst), 0);
    // Answered (`tasks/update`) by the client's handler.
    assert_eq!(until_message(&c, &id, "got Ada").await, TaskStatus::Working);
    check_the_ends(&c, &gate, &id, &seen).await;
    c.close().await;
    proxy.shutdown().await;
}
