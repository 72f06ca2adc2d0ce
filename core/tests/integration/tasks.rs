//! Proves task-augmented `tools/call` (2025-11-25) end to end through the typed client calls:
//! `CreateTaskResult` at once while the tool runs, `tasks/get` working -> completed,
//! `tasks/result` blocking and carrying the related-task `_meta`, failures (JSON-RPC error and
//! `isError`), `tasks/cancel` (the handler sees its token fire; terminal tasks -> -32602),
//! unknown ids, session isolation, pagination, TTL expiry, the store limit, `taskSupport`
//! enforcement, capability advertisement and `notifications/tasks/status`.

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{CallToolResult, TaskStatus, TaskSupport, Tool, ToolExecution};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::{McpError, ProtocolVersion};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::within;

fn tool(name: &str, support: Option<TaskSupport>) -> Tool {
    {
        let mut lit = Tool::new(name);
        lit.execution = support.map(|s| {
            let mut lit = ToolExecution::default();
            lit.task_support = Some(s);
            lit
        });
        lit
    }
}

/// A server with tools of every `taskSupport`; `cancelled` is set when `block`'s handler sees
/// its cancellation token fire.
fn server_with(opts: ServerOptions, cancelled: Arc<AtomicBool>) -> Server {
    Server::builder_with(opts)
        .tool_raw(
            tool("slow", Some(TaskSupport::Optional)),
            tool_fn(|args, _ctx| async move {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(CallToolResult::text(format!("slept {ms}")))
            }),
        )
        .tool_raw(
            tool("must_task", Some(TaskSupport::Required)),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("required ok")) }),
        )
        .tool_raw(
            tool("plain", None),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("plain ok")) }),
        )
        .tool_raw(
            tool("forbidden", Some(TaskSupport::Forbidden)),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("forbidden ok")) }),
        )
        .tool_raw(
            tool("fails", Some(TaskSupport::Optional)),
            tool_fn(|_a, _c| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Err(McpError::new(-32050, "the tool blew up").with_data(json!({"why": "test"})))
            }),
        )
        .tool_raw(
            tool("is_error", Some(TaskSupport::Optional)),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::error_text("tool-level failure")) }),
        )
        .tool_raw(
            tool("block", Some(TaskSupport::Optional)),
            tool_fn(move |_a, ctx| {
                let cancelled = cancelled.clone();
                async move {
                    ctx.cancellation().cancelled().await;
                    cancelled.store(true, Ordering::SeqCst);
                    Ok(CallToolResult::text("unblocked"))
                }
            }),
        )
        .build()
        .unwrap()
}

fn server() -> Server {
    server_with(ServerOptions::new("tasks", "1"), Arc::default())
}

type Seen = Arc<Mutex<Vec<Notification>>>;

async fn client(server: &Server) -> (Client, Seen) {
    let seen: Seen = Arc::default();
    let sink = seen.clone();
    let handlers = ClientHandlers::default()
        .with_on_notification(Some(Arc::new(move |n| sink.lock().unwrap().push(n))));
    (support::connect(server, handlers).await, seen)
}

fn code(r: Result<impl std::fmt::Debug, McpError>) -> i32 {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.code,
    }
}

async fn wait_for_status(seen: &Seen, id: &str, status: &str) -> Value {
    within(async {
        loop {
            let found = seen.lock().unwrap().iter().find_map(|n| {
                let p = n.params.clone()?;
                (n.method == "notifications/tasks/status"
                    && p["taskId"] == id
                    && p["status"] == status)
                    .then_some(p)
            });
            if let Some(p) = found {
                return p;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

#[tokio::test]
async fn task_runs_in_background_and_result_blocks_until_done() {
    let server = server();
    let (c, seen) = client(&server).await;
    let started = Instant::now();
    let created = within(c.call_tool_as_task("slow", json!({"ms": 400}), Some(60_000)))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(350),
        "CreateTaskResult must come back while the tool runs"
    );
    let task = created.task;
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.ttl, Some(60_000));
    assert!(task.poll_interval.is_some());
    assert_eq!(task.task_id.len(), 32);

    let polled = within(c.get_task(&task.task_id)).await.unwrap();
    assert_eq!(polled.task.status, TaskStatus::Working);
    assert_eq!(polled.task.created_at, task.created_at);

    let result = within(c.get_task_result(&task.task_id)).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(result.content[0].as_text(), Some("slept 400"));
    let meta = serde_json::to_value(result.meta.as_ref().expect("tasks/result has _meta")).unwrap();
    assert_eq!(
        meta["io.modelcontextprotocol/related-task"]["taskId"],
        json!(task.task_id)
    );

    let done = within(c.get_task(&task.task_id)).await.unwrap();
    assert_eq!(done.task.status, TaskStatus::Completed);
    // Results stay retrievable until the TTL runs out.
    let again = within(c.get_task_result(&task.task_id)).await.unwrap();
    assert_eq!(again.content[0].as_text(), Some("slept 400"));

    let note = wait_for_status(&seen, &task.task_id, "completed").await;
    assert!(note["lastUpdatedAt"].is_string() && note["createdAt"].is_string());
    c.close().await;
}

#[tokio::test]
async fn failing_tools_fail_the_task() {
    let server = server();
    let (c, seen) = client(&server).await;

    let t = within(c.call_tool_as_task("fails", json!({}), None))
        .await
        .unwrap()
        .task;
    let err = within(c.get_task_result(&t.task_id)).await.unwrap_err();
    assert_eq!(err.code, -32050);
    assert_eq!(err.message, "the tool blew up");
    assert_eq!(err.data, Some(json!({"why": "test"})));
    let got = within(c.get_task(&t.task_id)).await.unwrap();
    assert_eq!(got.task.status, TaskStatus::Failed);
    assert!(got.task.status_message.is_some());
    wait_for_status(&seen, &t.task_id, "failed").await;

    let t = within(c.call_tool_as_task("is_error", json!({}), None))
        .await
        .unwrap()
        .task;
    let r = within(c.get_task_result(&t.task_id)).await.unwrap();
    assert!(r.is_error());
    assert_eq!(r.content[0].as_text(), Some("tool-level failure"));
    assert_eq!(
        within(c.get_task(&t.task_id)).await.unwrap().task.status,
        TaskStatus::Failed
    );
    c.close().await;
}

#[tokio::test]
async fn cancel_stops_the_handler_and_terminal_tasks_cannot_be_cancelled() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = server_with(ServerOptions::new("tasks", "1"), cancelled.clone());
    let (c, seen) = client(&server).await;
    let t = within(c.call_tool_as_task("block", json!({}), None))
        .await
        .unwrap()
        .task;

    // A tasks/result waiter is woken by the cancellation.
    let waiter = {
        let peer = c.peer();
        let id = t.task_id.clone();
        tokio::spawn(async move {
            peer.request(
                "tasks/result",
                Some(json!({"taskId": id})),
                Default::default(),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;

    let after = within(c.cancel_task(&t.task_id)).await.unwrap();
    assert_eq!(after.task.status, TaskStatus::Cancelled);
    within(async {
        while !cancelled.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(
        within(c.get_task(&t.task_id)).await.unwrap().task.status,
        TaskStatus::Cancelled
    );
    let woken = within(waiter).await.unwrap();
    assert!(woken.is_err(), "{woken:?}");
    wait_for_status(&seen, &t.task_id, "cancelled").await;

    // Cancelling again (terminal) -> -32602.
    assert_eq!(
        code(within(c.cancel_task(&t.task_id)).await),
        codes::INVALID_PARAMS
    );
    // So is cancelling a completed task.
    let done = within(c.call_tool_as_task("slow", json!({}), None))
        .await
        .unwrap()
        .task;
    within(c.get_task_result(&done.task_id)).await.unwrap();
    let e = within(c.cancel_task(&done.task_id)).await.unwrap_err();
    assert_eq!(e.code, codes::INVALID_PARAMS);
    assert_eq!(e.data.unwrap()["status"], "completed");
    c.close().await;
}

#[tokio::test]
async fn unknown_ids_and_other_sessions_get_invalid_params() {
    let server = server();
    let (a, _) = client(&server).await;
    let (b, _) = client(&server).await;
    for id in ["nope", ""] {
        assert_eq!(code(within(a.get_task(id)).await), codes::INVALID_PARAMS);
        assert_eq!(
            code(within(a.get_task_result(id)).await),
            codes::INVALID_PARAMS
        );
        assert_eq!(code(within(a.cancel_task(id)).await), codes::INVALID_PARAMS);
    }
    let t = within(a.call_tool_as_task("slow", json!({"ms": 100}), None))
        .await
        .unwrap()
        .task;
    // Session b can neither see nor touch a's task.
    assert_eq!(
        code(within(b.get_task(&t.task_id)).await),
        codes::INVALID_PARAMS
    );
    assert_eq!(
        code(within(b.get_task_result(&t.task_id)).await),
        codes::INVALID_PARAMS
    );
    assert_eq!(
        code(within(b.cancel_task(&t.task_id)).await),
        codes::INVALID_PARAMS
    );
    assert!(within(b.list_tasks(None)).await.unwrap().tasks.is_empty());
    // ... and a still can.
    let listed = within(a.list_tasks(None)).await.unwrap();
    assert_eq!(listed.tasks.len(), 1);
    assert_eq!(listed.tasks[0].task_id, t.task_id);
    within(a.get_task_result(&t.task_id)).await.unwrap();
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn tasks_list_is_paginated() {
    let mut opts = ServerOptions::new("tasks", "1");
    opts.page_size = 2;
    let server = server_with(opts, Arc::default());
    let (c, _) = client(&server).await;
    let mut created = Vec::new();
    for _ in 0..5 {
        let t = within(c.call_tool_as_task("slow", json!({}), None))
            .await
            .unwrap();
        created.push(t.task.task_id);
    }
    let mut listed = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = within(c.list_tasks(cursor.as_deref())).await.unwrap();
        pages += 1;
        assert!(page.tasks.len() <= 2);
        listed.extend(page.tasks.into_iter().map(|t| t.task_id));
        match page.next_cursor {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    created.sort();
    listed.sort();
    assert_eq!(created, listed);
    assert_eq!(
        code(within(c.list_tasks(Some("bogus"))).await),
        codes::INVALID_PARAMS
    );
    c.close().await;
}

#[tokio::test]
async fn ttl_expiry_and_cap() {
    let mut opts = ServerOptions::new("tasks", "1");
    opts.tasks.max_ttl = Duration::from_secs(10);
    let server = server_with(opts, Arc::default());
    let (c, _) = client(&server).await;
    let short = within(c.call_tool_as_task("slow", json!({}), Some(150)))
        .await
        .unwrap()
        .task;
    assert_eq!(short.ttl, Some(150));
    within(c.get_task(&short.task_id)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        code(within(c.get_task(&short.task_id)).await),
        codes::INVALID_PARAMS
    );
    assert_eq!(
        code(within(c.get_task_result(&short.task_id)).await),
        codes::INVALID_PARAMS
    );
    assert!(within(c.list_tasks(None)).await.unwrap().tasks.is_empty());

    // A TTL above the maximum is capped.
    let long = within(c.call_tool_as_task("slow", json!({}), Some(u64::MAX / 2)))
        .await
        .unwrap()
        .task;
    assert_eq!(long.ttl, Some(10_000));

    // A task expiring while it runs wakes its tasks/result waiter instead of hanging it.
    let running = within(c.call_tool_as_task("block", json!({}), Some(200)))
        .await
        .unwrap()
        .task;
    let waiter = c.get_task_result(&running.task_id);
    let poke = async {
        tokio::time::sleep(Duration::from_millis(350)).await;
        // Any store access purges expired tasks.
        let _ = c.list_tasks(None).await;
    };
    let (r, _) = within(async { tokio::join!(waiter, poke) }).await;
    assert!(r.is_err(), "{r:?}");
    c.close().await;
}

#[tokio::test]
async fn store_limit() {
    let mut opts = ServerOptions::new("tasks", "1");
    opts.tasks.max_tasks = 2;
    let server = server_with(opts, Arc::default());
    let (a, _) = client(&server).await;
    let (b, _) = client(&server).await;
    within(a.call_tool_as_task("block", json!({}), None))
        .await
        .unwrap();
    within(a.call_tool_as_task("block", json!({}), None))
        .await
        .unwrap();
    // The limit is server-wide: another session cannot add a third either.
    assert_eq!(
        code(within(a.call_tool_as_task("block", json!({}), None)).await),
        codes::INTERNAL_ERROR
    );
    let e = within(b.call_tool_as_task("slow", json!({}), None))
        .await
        .unwrap_err();
    assert_eq!(e.code, codes::INTERNAL_ERROR);
    assert!(e.message.contains("task limit"), "{}", e.message);
    // Plain calls are unaffected.
    assert_eq!(
        within(b.call_tool("slow", json!({})))
            .await
            .unwrap()
            .content[0]
            .as_text(),
        Some("slept 0")
    );
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn task_support_is_enforced() {
    let server = server();
    let (c, _) = client(&server).await;
    // required without a task -> -32601; with one it works.
    assert_eq!(
        code(within(c.call_tool("must_task", json!({}))).await),
        codes::METHOD_NOT_FOUND
    );
    let t = within(c.call_tool_as_task("must_task", json!({}), None))
        .await
        .unwrap()
        .task;
    let r = within(c.get_task_result(&t.task_id)).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("required ok"));
    // absent or forbidden with a task -> -32601; without one they work.
    for name in ["plain", "forbidden"] {
        assert_eq!(
            code(within(c.call_tool_as_task(name, json!({}), None)).await),
            codes::METHOD_NOT_FOUND,
            "{name}"
        );
        assert!(!within(c.call_tool(name, json!({})))
            .await
            .unwrap()
            .is_error());
    }
    // optional: both ways.
    within(c.call_tool("slow", json!({}))).await.unwrap();
    // An unknown tool as a task is -32602 like a plain call.
    assert_eq!(
        code(within(c.call_tool_as_task("missing", json!({}), None)).await),
        codes::INVALID_PARAMS
    );
    c.close().await;
}

#[tokio::test]
async fn tasks_capability_needs_2025_11_25_and_task_capable_tools() {
    let server = server();
    let (c, _) = client(&server).await;
    let caps = c.server_capabilities().unwrap().clone();
    assert_eq!(
        caps["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    c.close().await;

    for version in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_03_26] {
        let mut o = ClientOptions::new("old", "1");
        o.protocol_version = version;
        let old = support::connect_with(&server, ClientHandlers::default(), o).await;
        assert!(
            old.server_capabilities().unwrap().get("tasks").is_none(),
            "{version}"
        );
        // The client refuses to send tasks/* to a server that did not offer them.
        assert_eq!(
            code(within(old.list_tasks(None)).await),
            codes::METHOD_NOT_FOUND
        );
        // A required-task tool is callable plainly before tasks existed.
        within(old.call_tool("must_task", json!({}))).await.unwrap();
        old.close().await;
    }

    // Only tools without task support: no tasks capability even on 2025-11-25.
    let plain = Server::builder("plain", "1")
        .tool_raw(
            tool("plain", None),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("x")) }),
        )
        .tool_raw(
            tool("forbidden", Some(TaskSupport::Forbidden)),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("x")) }),
        )
        .build()
        .unwrap();
    let c = support::connect(&plain, ClientHandlers::default()).await;
    assert!(c.server_capabilities().unwrap().get("tasks").is_none());
    assert_eq!(
        code(within(c.list_tasks(None)).await),
        codes::METHOD_NOT_FOUND
    );
    c.close().await;
}

#[tokio::test]
async fn tasks_end_with_their_session() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = server_with(ServerOptions::new("tasks", "1"), cancelled.clone());
    let (c, _) = client(&server).await;
    within(c.call_tool_as_task("block", json!({}), None))
        .await
        .unwrap();
    c.close().await;
    within(async {
        while !cancelled.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}
