//! The tasks extension (2026-07-28, SEP-2663) with foreign handlers, as the Python, Node and
//! Swift bindings register them through `embed`: each handler here answers from a thread of its
//! own, as a binding's does, so it has never answered when the engine first polls it.
//! - A handler that answers `input_required` at once keeps the multi round-trip round (no task
//!   is made before it), every time: the engine waits briefly for a foreign handler's first
//!   answer (`TaskOptions::first_answer_wait`, set by the embed config).
//! - One that parks input or keeps running becomes a task.
//! - In a task, an `McpError` the handler failed with ends it `failed` with that error, while an
//!   exception of another kind (`McpError::handler_exception`) is a tool execution error: the
//!   task ends `completed` with `isError`. In an ordinary call both are `isError` results.

use crate::common_modern;

use common_modern::{answer, meta, post_modern, request};
use ferromcp::server::TASKS_EXTENSION;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp::McpError;
use ferromcp_embed::{
    input_required, EmbeddedServer, ForeignAnswer, ForeignContext, ForeignHandler, ForeignRequest,
    ServerConfig,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

/// What a [`Threaded`] handler does on its thread.
#[derive(Clone, Copy)]
enum Does {
    /// Answers `input_required` for `user_name` unless the call carries the answer.
    AsksFirst,
    /// Sleeps 300 ms, then answers a text.
    Sleeps,
    /// Fails with an `McpError` after 50 ms.
    FailsMcp,
    /// Fails with a foreign exception after 50 ms.
    Throws,
}

/// A foreign tool handler whose body runs on a new OS thread and answers through a channel.
struct Threaded(Does);

impl ForeignHandler for Threaded {
    fn call(
        &self,
        _request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let does = self.0;
        let answer = ctx.input_response("user_name");
        let (tx, rx) = oneshot::channel();
        std::thread::spawn(move || {
            let out = match does {
                Does::AsksFirst if answer.is_null() => Err(input_required(
                    json!({ "user_name": { "method": "elicitation/create", "params": {
                        "mode": "form", "message": "Name?",
                        "requestedSchema": { "type": "object",
                            "properties": { "name": { "type": "string" } } } } } }),
                    Value::Null,
                )),
                Does::AsksFirst => Ok(json!(format!("Hello, {}!", answer["content"]["name"]))),
                Does::Sleeps => {
                    std::thread::sleep(Duration::from_millis(300));
                    Ok(json!("slept"))
                }
                Does::FailsMcp => {
                    std::thread::sleep(Duration::from_millis(50));
                    Err(McpError::internal("the backend is down"))
                }
                Does::Throws => {
                    std::thread::sleep(Duration::from_millis(50));
                    Err(McpError::handler_exception("RuntimeError: boom"))
                }
            };
            let _ = tx.send(out);
        });
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(McpError::internal("lost")))
                .map(Into::into)
        })
    }
}

/// A foreign handler that asks for input through its context (parks it, in a task).
struct Confirms;

impl ForeignHandler for Confirms {
    fn call(
        &self,
        _request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        Box::pin(async move {
            let asked = json!({ "ok": { "method": "elicitation/create", "params": {
                "mode": "form", "message": "Sure?",
                "requestedSchema": { "type": "object", "properties": {} } } } });
            let a = ctx.input(asked).await?;
            Ok(json!(format!("answer: {}", a["ok"]["action"])).into())
        })
    }
}

async fn start() -> (HttpServerHandle, String) {
    let config = ServerConfig::from_json(
        json!({ "name": "tasks-embed", "version": "1", "tasksExtension": true }),
    )
    .unwrap();
    let s = EmbeddedServer::new(&config).unwrap();
    let tool = |name: &str, support: &str| {
        json!({ "name": name, "inputSchema": { "type": "object" },
                "execution": { "taskSupport": support } })
    };
    let h = |d: Does| Arc::new(Threaded(d)) as Arc<dyn ForeignHandler>;
    s.add_tool_json(tool("asks_first", "required"), h(Does::AsksFirst))
        .unwrap();
    s.add_tool_json(tool("sleeps", "optional"), h(Does::Sleeps))
        .unwrap();
    s.add_tool_json(tool("fails_mcp", "optional"), h(Does::FailsMcp))
        .unwrap();
    s.add_tool_json(tool("throws", "optional"), h(Does::Throws))
        .unwrap();
    s.add_tool_json(tool("confirms", "optional"), Arc::new(Confirms))
        .unwrap();
    let handle = serve_http(
        s.server().clone(),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let url = handle.url("/mcp");
    (handle, url)
}

fn ext() -> Value {
    json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } })
}

async fn rpc(url: &str, method: &str, mut params: Value, caps: Value) -> Value {
    params["_meta"] = meta(caps);
    let r = post_modern(url, &request(1, method, params)).await;
    let a = answer(&r);
    assert!(
        a.is_object(),
        "{method}: no answer: {} {}",
        r.status,
        r.body
    );
    a
}

async fn call(url: &str, name: &str, caps: Value) -> Value {
    rpc(
        url,
        "tools/call",
        json!({ "name": name, "arguments": {} }),
        caps,
    )
    .await
}

/// Polls `tasks/get` until the task is terminal (5 s at most).
async fn settled(url: &str, id: &str) -> Value {
    for _ in 0..250 {
        let a = rpc(url, "tasks/get", json!({ "taskId": id }), ext()).await;
        let r = a["result"].clone();
        if ["completed", "failed", "cancelled"].contains(&r["status"].as_str().unwrap_or("")) {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} never ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_immediate_input_required_from_another_thread_stays_a_multi_round_trip() {
    let (_h, url) = start().await;
    // Every time, not when the thread wins a race (it never did before the wait).
    for round in 0..20 {
        let a = call(&url, "asks_first", ext()).await;
        let r1 = &a["result"];
        assert_eq!(r1["resultType"], "input_required", "round {round}: {a}");
        assert!(r1.get("taskId").is_none(), "round {round}: {a}");
        let retry = json!({
            "name": "asks_first",
            "arguments": {},
            "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } },
            "requestState": r1["requestState"],
        });
        let a = rpc(&url, "tools/call", retry, ext()).await;
        let r2 = &a["result"];
        assert_eq!(r2["resultType"], "task", "round {round}: {a}");
        let done = settled(&url, r2["taskId"].as_str().unwrap()).await;
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(
            done["result"]["content"][0]["text"], "Hello, \"Alice\"!",
            "{done}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_or_parking_foreign_handler_becomes_a_task() {
    let (_h, url) = start().await;
    let a = call(&url, "sleeps", ext()).await;
    assert_eq!(a["result"]["resultType"], "task", "{a}");
    assert_eq!(a["result"]["status"], "working", "{a}");
    let done = settled(&url, a["result"]["taskId"].as_str().unwrap()).await;
    assert_eq!(done["result"]["content"][0]["text"], "slept", "{done}");

    // Parked input ends the wait at once: the handle comes well before the wait's end.
    let began = std::time::Instant::now();
    let a = call(&url, "confirms", ext()).await;
    assert!(
        began.elapsed() < Duration::from_millis(150),
        "{:?}",
        began.elapsed()
    );
    let id = a["result"]["taskId"].as_str().unwrap().to_string();
    let t = rpc(&url, "tasks/get", json!({ "taskId": id }), ext()).await;
    assert_eq!(t["result"]["status"], "input_required", "{t}");
    let update = json!({ "taskId": id, "inputResponses": { "ok": { "action": "accept" } } });
    rpc(&url, "tasks/update", update, ext()).await;
    let done = settled(&url, &id).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "answer: \"accept\"",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_task_an_mcp_error_fails_and_an_exception_is_a_tool_error() {
    let (_h, url) = start().await;
    let a = call(&url, "fails_mcp", ext()).await;
    let done = settled(&url, a["result"]["taskId"].as_str().unwrap()).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603, "{done}");
    assert_eq!(done["error"]["message"], "the backend is down", "{done}");
    assert!(done.get("result").is_none(), "{done}");

    let a = call(&url, "throws", ext()).await;
    let done = settled(&url, a["result"]["taskId"].as_str().unwrap()).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "RuntimeError: boom",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_a_task_both_are_tool_errors() {
    let (_h, url) = start().await;
    for name in ["fails_mcp", "throws"] {
        let a = call(&url, name, json!({ "elicitation": {} })).await;
        assert_eq!(a["result"]["resultType"], "complete", "{a}");
        assert_eq!(a["result"]["isError"], true, "{name}: {a}");
    }
}
