//! The client's task calls (`call_tool_as_task`, `get_task`, `get_task_result`, `cancel_task`)
//! against a ferromcp server over Streamable HTTP, in both eras with the same client code:
//! 2025-11-25 tasks after the handshake, and the tasks extension `io.modelcontextprotocol/tasks`
//! in the per-request era (2026-07-28). Also: a plain `call_tool` the extension server makes a
//! task of is followed to its end (and cancelled with the call), input asked inside a task is
//! answered with the client's own elicitation handler, and a result the server answers at once
//! is held as a completed task.

use crate::common_task_tools;
use ferromcp::client::http::connect;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::{
    CallToolResult, ElicitAction, ElicitResult, ProtocolVersion, TaskStatus, Tool,
};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use ferromcp::McpError;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn server(stopped: Arc<AtomicBool>) -> Server {
    let opt = common_task_tools::task_tool;
    common_task_tools::with_task_tools(Server::builder("client-tasks-test", "1.0"), stopped)
        .tool_raw(
            opt("broken"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(30)).await;
                Err(McpError::internal("the backend is down"))
            }),
        )
        .tool_raw(
            Tool::new("plain"),
            tool_fn(|_, _| async { Ok(CallToolResult::text("plain")) }),
        )
        .build()
        .unwrap()
}

struct Fixture {
    handle: ferromcp::transport::http::HttpServerHandle,
    url: String,
    stopped: Arc<AtomicBool>,
    asked: Arc<AtomicUsize>,
}

async fn start() -> Fixture {
    let stopped = Arc::new(AtomicBool::new(false));
    let handle = serve_http(
        server(stopped.clone()),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let url = handle.url("/mcp");
    Fixture {
        handle,
        url,
        stopped,
        asked: Arc::new(AtomicUsize::new(0)),
    }
}

fn handlers(asked: Arc<AtomicUsize>) -> ClientHandlers {
    ClientHandlers::default().with_elicitation(Some(Arc::new(move |_params, _ctx| {
        let asked = asked.clone();
        Box::pin(async move {
            asked.fetch_add(1, Ordering::SeqCst);
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
            Ok(r)
        })
    })))
}

async fn client(f: &Fixture, mode: ProtocolMode, tasks_extension: bool) -> Client {
    let mut o = ClientOptions::new("client-tasks", "1.0");
    o.mode = mode;
    o.tasks_extension = tasks_extension;
    let c = connect(
        &f.url,
        o,
        handlers(f.asked.clone()),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    let per_request = mode == ProtocolMode::PerRequest;
    assert_eq!(c.is_per_request(), per_request);
    assert_eq!(
        c.protocol_version() == ProtocolVersion::V2026_07_28,
        per_request
    );
    c
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

const ERAS: [ProtocolMode; 2] = [ProtocolMode::Handshake, ProtocolMode::PerRequest];

/// The same code in both eras: a task made, polled, its result fetched.
#[tokio::test]
async fn call_as_task_poll_and_fetch_in_both_eras() {
    let f = start().await;
    for mode in ERAS {
        let c = client(&f, mode, true).await;
        let created = c
            .call_tool_as_task("slow", json!({ "ms": 300 }), Some(60_000))
            .await
            .unwrap();
        let id = created.task.task_id.clone();
        assert!(!id.starts_with("ferromcp-local-"), "{mode:?}: {created:?}");
        assert_eq!(created.task.status, TaskStatus::Working, "{mode:?}");
        assert!(created.task.ttl.is_some(), "{mode:?}: {created:?}");
        assert!(
            created.task.poll_interval.is_some(),
            "{mode:?}: {created:?}"
        );
        let state = c.get_task(&id).await.unwrap();
        assert_eq!(state.task.task_id, id);
        assert_eq!(state.task.status, TaskStatus::Working, "{mode:?}");
        let r = c.get_task_result(&id).await.unwrap();
        assert_eq!(text(&r), "slept 300 ms", "{mode:?}");
        let state = c.get_task(&id).await.unwrap();
        assert_eq!(state.task.status, TaskStatus::Completed, "{mode:?}");
        // A protocol error ends the task failed; the result call reports that error.
        let created = c
            .call_tool_as_task("broken", json!({}), None)
            .await
            .unwrap();
        let e = c.get_task_result(&created.task.task_id).await.unwrap_err();
        assert_eq!(e.code, -32603, "{mode:?}: {e}");
        assert!(e.message.contains("the backend is down"), "{mode:?}: {e}");
        c.close().await;
    }
    f.handle.shutdown().await.unwrap();
}

/// A tool asking the client for input while it runs as a task: answered with the client's own
/// elicitation handler, in both eras.
#[tokio::test]
async fn input_asked_inside_a_task_is_answered_by_the_handlers() {
    let f = start().await;
    for (n, mode) in ERAS.into_iter().enumerate() {
        let c = client(&f, mode, true).await;
        let created = c
            .call_tool_as_task("confirm", json!({}), None)
            .await
            .unwrap();
        let r = c.get_task_result(&created.task.task_id).await.unwrap();
        assert_eq!(text(&r), "accept Ada", "{mode:?}");
        assert_eq!(f.asked.load(Ordering::SeqCst), n + 1, "{mode:?}");
        c.close().await;
    }
    // Polling with get_task answers the input too (the extension's tasks/update).
    let c = client(&f, ProtocolMode::PerRequest, true).await;
    let created = c
        .call_tool_as_task("confirm", json!({}), None)
        .await
        .unwrap();
    let id = created.task.task_id;
    let mut status = TaskStatus::Working;
    for _ in 0..200 {
        status = c.get_task(&id).await.unwrap().task.status;
        if status.is_terminal() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, TaskStatus::Completed);
    assert_eq!(f.asked.load(Ordering::SeqCst), 3);
    let state = c.get_task(&id).await.unwrap();
    assert_eq!(
        state.task.extra["result"]["content"][0]["text"], "accept Ada",
        "{state:?}"
    );
    c.close().await;
    f.handle.shutdown().await.unwrap();
}

/// `cancel_task` stops the tool and the task ends cancelled, in both eras.
#[tokio::test]
async fn cancel_task_stops_the_tool_in_both_eras() {
    let f = start().await;
    for mode in ERAS {
        f.stopped.store(false, Ordering::SeqCst);
        let c = client(&f, mode, true).await;
        let created = c
            .call_tool_as_task("slow", json!({ "ms": 20_000 }), None)
            .await
            .unwrap();
        let id = created.task.task_id;
        let after = c.cancel_task(&id).await.unwrap();
        assert_eq!(after.task.status, TaskStatus::Cancelled, "{mode:?}");
        let e = c.get_task_result(&id).await.unwrap_err();
        assert_eq!(e.code, -32602, "{mode:?}: {e}");
        for _ in 0..100 {
            if f.stopped.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            f.stopped.load(Ordering::SeqCst),
            "{mode:?}: handler stopped"
        );
        c.close().await;
    }
    f.handle.shutdown().await.unwrap();
}

/// In the extension era a plain `call_tool` of a task-supporting tool gets a task handle from
/// the server: the client follows it (input answered on the way) and returns the result;
/// cancelling the call cancels the task.
#[tokio::test]
async fn plain_calls_follow_the_task_the_server_made() {
    let f = start().await;
    let c = client(&f, ProtocolMode::PerRequest, true).await;
    let r = c.call_tool("slow", json!({ "ms": 50 })).await.unwrap();
    assert_eq!(text(&r), "slept 50 ms");
    let r = c.call_tool("confirm", json!({})).await.unwrap();
    assert_eq!(text(&r), "accept Ada");
    let e = c.call_tool("broken", json!({})).await.unwrap_err();
    assert_eq!(e.code, -32603, "{e}");
    // The raw request shows the handle was followed: a complete result, no taskId.
    let raw = c
        .request(
            "tools/call",
            Some(json!({ "name": "slow", "arguments": { "ms": 10 } })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert!(raw.get("taskId").is_none(), "{raw}");
    assert_eq!(raw["content"][0]["text"], "slept 10 ms");
    // Cancelling the call cancels the server's task (its handler sees it).
    let cancel = CancellationToken::new();
    let opts = RequestOptions::default().with_cancel(Some(cancel.clone()));
    let call = c.call_tool_with("slow", json!({ "ms": 20_000 }), opts);
    let trigger = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    };
    let (r, ()) = tokio::join!(call, trigger);
    assert_eq!(r.unwrap_err().code, -32800);
    for _ in 0..100 {
        if f.stopped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        f.stopped.load(Ordering::SeqCst),
        "the task's handler stopped"
    );
    // A timeout cancels it the same way.
    f.stopped.store(false, Ordering::SeqCst);
    let opts = RequestOptions::default().with_timeout(Some(Duration::from_millis(300)));
    let e = c
        .call_tool_with("slow", json!({ "ms": 20_000 }), opts)
        .await
        .unwrap_err();
    assert_eq!(e.code, -32001, "{e}");
    for _ in 0..100 {
        if f.stopped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        f.stopped.load(Ordering::SeqCst),
        "stopped after the timeout"
    );
    c.close().await;
    f.handle.shutdown().await.unwrap();
}

/// A result the server answers at once (a tool without task support, or a client that does not
/// declare the extension) is held as a completed task; `tasks/list` does not exist in the
/// extension; the extension is declared only when asked for.
#[tokio::test]
async fn results_answered_at_once_are_held_as_completed_tasks() {
    let f = start().await;
    for declare in [true, false] {
        let c = client(&f, ProtocolMode::PerRequest, declare).await;
        let tool = if declare { "plain" } else { "slow" };
        let created = c
            .call_tool_as_task(tool, json!({ "ms": 1 }), None)
            .await
            .unwrap();
        let id = created.task.task_id.clone();
        assert!(id.starts_with("ferromcp-local-"), "{created:?}");
        assert_eq!(created.task.status, TaskStatus::Completed);
        assert_eq!(
            c.get_task(&id).await.unwrap().task.status,
            TaskStatus::Completed
        );
        let r = c.get_task_result(&id).await.unwrap();
        let want = if declare { "plain" } else { "slept 1 ms" };
        assert_eq!(text(&r), want);
        // Asking again gives the same result.
        assert_eq!(text(&c.get_task_result(&id).await.unwrap()), want);
        assert_eq!(
            c.cancel_task(&id).await.unwrap().task.status,
            TaskStatus::Completed
        );
        let e = c.list_tasks(None).await.unwrap_err();
        assert_eq!(e.code, -32601, "{e}");
        c.close().await;
    }
    // An unknown task is the server's -32602.
    let c = client(&f, ProtocolMode::PerRequest, true).await;
    let e = c.get_task("no-such-task").await.unwrap_err();
    assert_eq!(e.code, -32602, "{e}");
    let e = c.get_task_result("no-such-task").await.unwrap_err();
    assert_eq!(e.code, -32602, "{e}");
    c.close().await;
    f.handle.shutdown().await.unwrap();
}
