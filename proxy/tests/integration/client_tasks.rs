//! A backend's task-augmented sampling and elicitation through the proxy (docs/gateway.md, "Tasks
//! the backend runs on the client"): the backend's tool sends `elicitation/create` or
//! `sampling/createMessage` with `params.task`, gets a task of the proxy's at once, and reads it
//! with `tasks/get` and `tasks/result` at the proxy. A client that declared
//! `tasks.requests.elicitation.create` / `tasks.requests.sampling.createMessage` is asked as a task
//! too (its handler runs as a task of its own); one that did not is asked plainly, the proxy
//! running the task; a backend's `tasks/cancel` reaches the client's task. A 2026-07-28
//! (per-request) client, whose revision has neither such tasks nor requests from the server, of a
//! handshake-only backend gets the request as an `input_required` round: the proxy's task ends
//! failed while it waits, and the client's retry runs the backend's call again, whose task then
//! completes with the answer. Of a backend that speaks 2026-07-28 too, the call goes to it in
//! that era, where the backend's own request is an input round and there is no task to make.

use crate::common;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode, TaskOptions};
use ferromcp::protocol::{
    CallToolResult, CreateMessageResult, ElicitAction, ElicitResult, ProtocolVersion,
    SamplingContent, Tool,
};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::McpError;
use ferromcp_proxy::{Proxy, ProxyOptions};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How each run of the backend's asking tools ended: the task's last state, and the error of
/// its `tasks/result` if any.
type Rounds = Arc<Mutex<Vec<String>>>;

fn ask_params(method: &str) -> Value {
    let mut params = if method == "sampling/createMessage" {
        json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": "Hello?" } }],
            "maxTokens": 10
        })
    } else {
        json!({
            "message": "Who?",
            "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
        })
    };
    params["task"] = json!({ "ttl": 60000 });
    params
}

/// The answer of a sampling or elicitation request: the sampled text, or the elicitation's
/// action and name.
fn answer_of(result: &Value) -> String {
    match result["content"]["text"].as_str() {
        Some(sampled) => sampled.to_string(),
        None => format!(
            "{} {}",
            result["action"].as_str().unwrap_or("?"),
            result["content"]["name"].as_str().unwrap_or("?"),
        ),
    }
}

/// A backend serving `versions` (all when `None`) whose `confirm` and `sample` tools ask their
/// client as a task (elicitation, sampling) and answer `"<first status> -> <answer>, <status
/// after>"`, or `"in the request -> <answer>"` when no task was made (each run's end goes to
/// `rounds`), and whose `abandon` tool makes such an elicitation task, cancels it and answers
/// the state `tasks/cancel` gave.
fn backend(rounds: Rounds, versions: Option<Vec<ProtocolVersion>>) -> Server {
    let mut options = ServerOptions::new("asking", "1");
    if let Some(versions) = versions {
        options.session.supported_versions = versions;
    }
    let mut b = Server::builder_with(options);
    for (name, method) in [
        ("confirm", "elicitation/create"),
        ("sample", "sampling/createMessage"),
    ] {
        let rounds = rounds.clone();
        b = b.tool_raw(
            Tool::new(name),
            tool_fn(move |_, ctx| {
                let rounds = rounds.clone();
                async move {
                    let created = ctx.request(method, Some(ask_params(method))).await?;
                    let Some(id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
                        rounds.lock().unwrap().push("no task".into());
                        let answer = answer_of(&created);
                        return Ok(CallToolResult::text(format!("in the request -> {answer}")));
                    };
                    let get = json!({ "taskId": id });
                    let first = ctx.request("tasks/get", Some(get.clone())).await?;
                    let result = ctx.request("tasks/result", Some(get.clone())).await;
                    let after = ctx.request("tasks/get", Some(get)).await?;
                    let status = after["status"].as_str().unwrap_or("?").to_string();
                    let result = match result {
                        Ok(r) => {
                            rounds.lock().unwrap().push(status.clone());
                            r
                        }
                        Err(e) => {
                            rounds
                                .lock()
                                .unwrap()
                                .push(format!("{status}: {}", e.message));
                            return Err(e);
                        }
                    };
                    let related = result
                        .pointer("/_meta/io.modelcontextprotocol~1related-task/taskId")
                        .and_then(Value::as_str);
                    if related != Some(id) {
                        return Err(McpError::internal(format!(
                            "result of another task: {result}"
                        )));
                    }
                    Ok(CallToolResult::text(format!(
                        "{} -> {}, {status}",
                        first["status"].as_str().unwrap_or("?"),
                        answer_of(&result),
                    )))
                }
            }),
        );
    }
    b.tool_raw(
        Tool::new("abandon"),
        tool_fn(|_, ctx| async move {
            let method = "elicitation/create";
            let created = ctx.request(method, Some(ask_params(method))).await?;
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

/// What the client's handlers saw: whether each ran as a task, and whether one was cancelled.
#[derive(Default)]
struct Seen {
    in_task: Mutex<Vec<bool>>,
    cancelled: AtomicBool,
}

/// Handlers answering elicitation "Ada" and sampling "sampled" after 100 ms, or (`hold`)
/// waiting until they are cancelled.
fn handlers(hold: bool, seen: Arc<Seen>) -> ClientHandlers {
    let seen_too = seen.clone();
    ClientHandlers::default()
        .with_elicitation(Some(Arc::new(move |_p, ctx| {
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
        })))
        .with_sampling(Some(Arc::new(move |_p, ctx| {
            let seen = seen_too.clone();
            Box::pin(async move {
                seen.in_task.lock().unwrap().push(ctx.in_task());
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(CreateMessageResult::new(
                    SamplingContent::text("sampled"),
                    "test-model",
                ))
            })
        })))
}

/// A handshake client of the proxy, receiving tasks when `tasks` ([`handlers`]).
async fn client(proxy: &Proxy, tasks: bool, hold: bool, seen: Arc<Seen>) -> Client {
    let mut options = ClientOptions::new("client-tasks-test", "0");
    if tasks {
        let mut limits = TaskOptions::default();
        limits.poll_interval = Duration::from_millis(20);
        options.tasks = Some(limits);
    }
    common::connect(proxy, options, handlers(hold, seen)).await
}

async fn proxy(rounds: Rounds) -> Proxy {
    common::in_process_proxy("b", backend(rounds, None), ProxyOptions::default()).await
}

fn text(r: &CallToolResult) -> String {
    r.content[0].as_text().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_backends_task_elicitation_reaches_a_declaring_client_as_a_task() {
    let rounds = Rounds::default();
    let proxy = proxy(rounds.clone()).await;
    let seen = Arc::new(Seen::default());
    let c = client(&proxy, true, false, seen.clone()).await;
    let caps = c.session().negotiated().unwrap().own_capabilities.clone();
    assert_eq!(
        caps["tasks"]["requests"],
        json!({ "elicitation": { "create": {} }, "sampling": { "createMessage": {} } })
    );
    let r = c.call_tool("confirm", json!({})).await.unwrap();
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(text(&r), "working -> accept Ada, completed");
    let r = c.call_tool("sample", json!({})).await.unwrap();
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(text(&r), "working -> sampled, completed");
    assert_eq!(*seen.in_task.lock().unwrap(), vec![true, true]);
    assert_eq!(*rounds.lock().unwrap(), vec!["completed", "completed"]);
    c.close().await;
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_backends_task_elicitation_reaches_another_client_plainly() {
    let rounds = Rounds::default();
    let proxy = proxy(rounds.clone()).await;
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
    let proxy = proxy(Rounds::default()).await;
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

/// A 2026-07-28 client of a handshake-only backend: the backend's task-augmented request
/// reaches it as an input request of an `input_required` round (that revision has neither client
/// tasks nor requests from the server). The proxy's task for the first run of the backend's call
/// ends failed (the call has to end for the round's answer to reach the client); the client's
/// retry runs the call again, and that run's task completes with the client's answer.
#[tokio::test]
async fn a_per_request_client_answers_a_backends_task_request_in_an_input_round() {
    for (tool, method, answer) in [
        ("sample", "sampling/createMessage", "sampled"),
        ("confirm", "elicitation/create", "accept Ada"),
    ] {
        let rounds = Rounds::default();
        let handshake_only = ProtocolVersion::ALL.to_vec();
        let backend = backend(rounds.clone(), Some(handshake_only));
        let proxy = common::in_process_proxy("b", backend, ProxyOptions::default()).await;
        let seen = Arc::new(Seen::default());
        let c = per_request_client(&proxy, seen.clone()).await;
        let r = c.call_tool(tool, json!({})).await.unwrap();
        assert!(!r.is_error(), "{tool}: {r:?}");
        // The second run's task may have its answer before the backend's first tasks/get.
        let said = text(&r);
        let (first, rest) = said.split_once(" -> ").unwrap_or_default();
        assert!(["working", "completed"].contains(&first), "{tool}: {said}");
        assert_eq!(rest, format!("{answer}, completed"), "{tool}");
        // The client was asked once, plainly.
        assert_eq!(*seen.in_task.lock().unwrap(), vec![false], "{tool}");
        let waiting = format!("{method}: waiting for the client's answer (input required)");
        assert_eq!(
            *rounds.lock().unwrap(),
            vec![format!("failed: {waiting}"), "completed".to_string()],
            "{tool}"
        );
        c.close().await;
        proxy.shutdown().await;
    }
}

/// A 2026-07-28 client of a backend that speaks that revision too: the call goes to the backend
/// in that era (passed through), where the backend's request is its own input round, answered
/// by the client on the retry; no task is made anywhere.
#[tokio::test]
async fn a_per_request_client_of_a_per_request_backend_answers_its_input_round() {
    let rounds = Rounds::default();
    let proxy =
        common::in_process_proxy("b", backend(rounds.clone(), None), ProxyOptions::default()).await;
    let seen = Arc::new(Seen::default());
    let c = per_request_client(&proxy, seen.clone()).await;
    let r = c.call_tool("sample", json!({})).await.unwrap();
    assert_eq!(text(&r), "in the request -> sampled", "{r:?}");
    assert_eq!(*seen.in_task.lock().unwrap(), vec![false]);
    assert_eq!(*rounds.lock().unwrap(), vec!["no task"]);
    c.close().await;
    proxy.shutdown().await;
}

/// A 2026-07-28 client of the proxy ([`handlers`]).
async fn per_request_client(proxy: &Proxy, seen: Arc<Seen>) -> Client {
    let mode = ProtocolMode::PerRequest;
    let c = common::client_in(proxy, "per-request", mode, handlers(false, seen)).await;
    assert!(c.is_per_request());
    c
}
