//! The tasks extension `io.modelcontextprotocol/tasks` (2026-07-28, SEP-2663) over Streamable
//! HTTP: declared in `server/discover` when the server asks for it, task handles for calls of
//! task-supporting tools from requests that declare it, `tasks/get` (polling, inlined result or
//! error, outstanding input requests), `tasks/update`, `tasks/cancel`, expiry, the errors for
//! unknown tasks and undeclared clients, the routing headers, and input gathered before the
//! task exists; 2025-11-25 tasks of handshake sessions stay as they were.

use crate::common_http;
use crate::common_modern;
use crate::common_task_tools;

use common_http::{call, init_body, init_session, post};
use common_modern::{answer, headers_for, meta, post_modern, post_with, request, with_header};
use ferromcp::protocol::{CallToolResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, Server, TASKS_EXTENSION};
use ferromcp::session::input_required;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp::McpError;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn elicit(message: &str) -> Value {
    json!({ "method": "elicitation/create", "params": { "mode": "form", "message": message,
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } } })
}

fn one(key: &str, request: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), request);
    m
}

/// The test server; `stopped` turns true when a handler of `slow` sees its cancellation.
fn server(extension: bool, ttl: Duration, stopped: Arc<AtomicBool>) -> Server {
    let opt = |name: &str| Tool::new(name).with_task_support(TaskSupport::Optional);
    let req = |name: &str| Tool::new(name).with_task_support(TaskSupport::Required);
    Server::builder("tasks-ext-test", "1.0")
        .options(move |o| {
            o.tasks_extension = extension;
            o.tasks.default_ttl = ttl;
            o.tasks.poll_interval = Duration::from_millis(50);
        })
        .tool_raw(opt("slow"), common_task_tools::sleeping("", stopped))
        .tool_raw(
            req("must"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(CallToolResult::text("done"))
            }),
        )
        .tool_raw(
            opt("tool_error"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(CallToolResult::error_text("it went wrong"))
            }),
        )
        .tool_raw(
            opt("protocol_error"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Err(McpError::internal("the backend is down"))
            }),
        )
        .tool_raw(
            opt("confirm"),
            tool_fn(|_, ctx| async move {
                let a = ctx.input(one("ok", elicit("Sure?"))).await?;
                Ok(CallToolResult::text(format!(
                    "answer: {}",
                    a["ok"]["action"].as_str().unwrap_or("?")
                )))
            }),
        )
        .tool_raw(
            opt("two"),
            tool_fn(|_, ctx| async move {
                let mut asked = one("a", elicit("A?"));
                asked.insert("b".into(), elicit("B?"));
                let a = ctx.input(asked).await?;
                Ok(CallToolResult::text(format!(
                    "{} and {}",
                    a["a"]["content"]["name"].as_str().unwrap_or("?"),
                    a["b"]["content"]["name"].as_str().unwrap_or("?")
                )))
            }),
        )
        .tool_raw(
            opt("unchanged"),
            // Handler code written for the handshake era: one request to the client.
            tool_fn(|_, ctx| async move {
                let a = ctx
                    .request("elicitation/create", elicit("Name?").get("params").cloned())
                    .await?;
                Ok(CallToolResult::text(format!(
                    "hi {}",
                    a["content"]["name"].as_str().unwrap_or("?")
                )))
            }),
        )
        .tool_raw(
            req("mrtr_then_task"),
            tool_fn(|_, ctx| async move {
                match ctx.input_response("user_name") {
                    Some(a) => Ok(CallToolResult::text(format!(
                        "Hello, {}!",
                        a["content"]["name"].as_str().unwrap_or("?")
                    ))),
                    None => Err(input_required(one("user_name", elicit("Name?")), None)),
                }
            }),
        )
        .tool_raw(
            Tool::new("plain"),
            tool_fn(|_, _| async { Ok(CallToolResult::text("plain")) }),
        )
        .build()
        .unwrap()
}

async fn start_with(extension: bool, ttl: Duration) -> (HttpServerHandle, String, Arc<AtomicBool>) {
    let stopped = Arc::new(AtomicBool::new(false));
    let h = serve_http(
        server(extension, ttl, stopped.clone()),
        "127.0.0.1:0",
        HttpServerOptions::default(),
    )
    .await
    .unwrap();
    let url = h.url("/mcp");
    (h, url, stopped)
}

async fn start() -> (HttpServerHandle, String, Arc<AtomicBool>) {
    start_with(true, Duration::from_secs(60)).await
}

/// Client capabilities declaring the extension (and elicitation).
fn ext() -> Value {
    json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } })
}

/// Sends `method` with `params` and client capabilities `caps`; returns the JSON-RPC answer.
async fn rpc(url: &str, method: &str, params: Value, caps: Value) -> Value {
    let mut params = params;
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

async fn call_tool(url: &str, name: &str, args: Value, caps: Value) -> Value {
    rpc(
        url,
        "tools/call",
        json!({ "name": name, "arguments": args }),
        caps,
    )
    .await
}

async fn get(url: &str, id: &str) -> Value {
    rpc(url, "tasks/get", json!({ "taskId": id }), ext()).await
}

/// Polls `tasks/get` until the task's status is one of `statuses` (5 s at most).
async fn wait_for(url: &str, id: &str, statuses: &[&str]) -> Value {
    for _ in 0..250 {
        let a = get(url, id).await;
        let s = a["result"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if statuses.contains(&s.as_str()) {
            return a["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "task {id} never reached {statuses:?}: {}",
        get(url, id).await
    );
}

/// Starts a task with tool `name`; returns its `CreateTaskResult`.
async fn create(url: &str, name: &str, args: Value) -> Value {
    let a = call_tool(url, name, args, ext()).await;
    let r = a["result"].clone();
    assert_eq!(r["resultType"], "task", "{a}");
    r
}

fn is_timestamp(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() >= 20 && s.as_bytes()[4] == b'-' && s.as_bytes()[10] == b'T')
}

#[tokio::test]
async fn declared_in_discover_when_the_server_asks_and_never_in_the_handshake() {
    let (_h, url, _) = start().await;
    let d = rpc(&url, "server/discover", json!({}), json!({})).await;
    assert_eq!(
        d["result"]["capabilities"]["extensions"][TASKS_EXTENSION],
        json!({}),
        "{d}"
    );
    assert!(d["result"]["capabilities"].get("tasks").is_none(), "{d}");
    // Handshake era: the 2025-11-25 `tasks` capability, no extension.
    let r = post(&url, None, init_body("2025-11-25")).await;
    let caps = &r.json()["result"]["capabilities"];
    assert!(caps.get("extensions").is_none(), "{}", r.body);
    assert!(caps.get("tasks").is_some(), "{}", r.body);

    let (_h2, url2, _) = start_with(false, Duration::from_secs(60)).await;
    let d = rpc(&url2, "server/discover", json!({}), json!({})).await;
    assert!(
        d["result"]["capabilities"].get("extensions").is_none(),
        "{d}"
    );
    // Not declared: the methods are unknown and task-supporting tools run as plain calls.
    let a = rpc(&url2, "tasks/get", json!({ "taskId": "x" }), ext()).await;
    assert_eq!(a["error"]["code"], -32601, "{a}");
    let a = call_tool(&url2, "slow", json!({ "ms": 1 }), ext()).await;
    assert_eq!(a["result"]["resultType"], "complete", "{a}");
}

#[tokio::test]
async fn a_task_handle_then_polling_until_the_result_is_inlined() {
    let (_h, url, _) = start().await;
    let t = create(&url, "slow", json!({ "ms": 300 })).await;
    let id = t["taskId"].as_str().expect("taskId").to_string();
    assert_eq!(id.len(), 32, "128 random bits, hex: {t}");
    assert_eq!(t["status"], "working", "{t}");
    assert!(
        is_timestamp(&t["createdAt"]) && is_timestamp(&t["lastUpdatedAt"]),
        "{t}"
    );
    assert_eq!(t["ttlMs"], 60_000, "{t}");
    assert_eq!(t["pollIntervalMs"], 50, "{t}");
    for absent in [
        "task",
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
        "pollInterval",
    ] {
        assert!(t.get(absent).is_none(), "{absent} in {t}");
    }
    // Found at once (made before the handle was answered), still working.
    let now = get(&url, &id).await["result"].clone();
    assert_eq!(now["resultType"], "complete", "{now}");
    assert_eq!(now["taskId"], id.as_str());
    assert_eq!(now["status"], "working", "{now}");
    assert!(now.get("result").is_none(), "{now}");
    let done = wait_for(&url, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "slept 300 ms",
        "{done}"
    );
    assert!(
        done["result"]
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/related-task"))
            .is_none(),
        "{done}"
    );
    assert!(done.get("error").is_none(), "{done}");
    // Still there afterwards (its TTL has not run out).
    assert_eq!(get(&url, &id).await["result"]["status"], "completed");
}

#[tokio::test]
async fn tool_errors_complete_and_json_rpc_errors_fail() {
    let (_h, url, _) = start().await;
    let t = create(&url, "tool_error", json!({})).await;
    let done = wait_for(
        &url,
        t["taskId"].as_str().unwrap(),
        &["completed", "failed"],
    )
    .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "it went wrong");

    let t = create(&url, "protocol_error", json!({})).await;
    let done = wait_for(
        &url,
        t["taskId"].as_str().unwrap(),
        &["completed", "failed"],
    )
    .await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603, "{done}");
    assert_eq!(done["error"]["message"], "the backend is down", "{done}");
    assert!(done.get("result").is_none(), "{done}");
    assert_eq!(done["statusMessage"], "the backend is down", "{done}");
}

#[tokio::test]
async fn input_is_parked_until_tasks_update_answers_it() {
    let (_h, url, _) = start().await;
    let t = create(&url, "confirm", json!({})).await;
    let id = t["taskId"].as_str().unwrap().to_string();
    let waiting = wait_for(&url, &id, &["input_required"]).await;
    let reqs = waiting["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(reqs.keys().collect::<Vec<_>>(), ["ok"], "{waiting}");
    assert_eq!(reqs["ok"]["method"], "elicitation/create");
    assert_eq!(reqs["ok"]["params"]["message"], "Sure?");

    // A key that is not outstanding is ignored; the ack is empty either way.
    let ack = rpc(
        &url,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "nope": { "action": "accept" } } }),
        ext(),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    for absent in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack["result"].get(absent).is_none(), "{absent} in {ack}");
    }
    assert_eq!(get(&url, &id).await["result"]["status"], "input_required");

    let ack = rpc(
        &url,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "ok": { "action": "accept", "content": {} } } }),
        ext(),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = wait_for(&url, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "answer: accept",
        "{done}"
    );

    // Unchanged handler code (`ctx.request`) is parked the same way.
    let t = create(&url, "unchanged", json!({})).await;
    let id = t["taskId"].as_str().unwrap().to_string();
    let waiting = wait_for(&url, &id, &["input_required"]).await;
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let mut responses = Map::new();
    responses.insert(
        key,
        json!({ "action": "accept", "content": { "name": "Ada" } }),
    );
    rpc(
        &url,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": responses }),
        ext(),
    )
    .await;
    let done = wait_for(&url, &id, &["completed", "failed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "hi Ada", "{done}");
}

#[tokio::test]
async fn a_partial_update_leaves_the_rest_outstanding() {
    let (_h, url, _) = start().await;
    let t = create(&url, "two", json!({})).await;
    let id = t["taskId"].as_str().unwrap().to_string();
    let waiting = wait_for(&url, &id, &["input_required"]).await;
    assert_eq!(
        waiting["inputRequests"].as_object().unwrap().len(),
        2,
        "{waiting}"
    );
    let update = |key: &str, name: &str| json!({ "taskId": id, "inputResponses": { key: { "action": "accept", "content": { "name": name } } } });
    rpc(&url, "tasks/update", update("a", "one"), ext()).await;
    let still = get(&url, &id).await["result"].clone();
    assert_eq!(still["status"], "input_required", "{still}");
    assert_eq!(
        still["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["b"],
        "{still}"
    );
    // An answered key is not outstanding any more: answering it again changes nothing.
    rpc(&url, "tasks/update", update("a", "again"), ext()).await;
    rpc(&url, "tasks/update", update("b", "two"), ext()).await;
    let done = wait_for(&url, &id, &["completed", "failed"]).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "one and two",
        "{done}"
    );
}

#[tokio::test]
async fn cancel_acks_stops_the_handler_and_is_idempotent() {
    let (_h, url, stopped) = start().await;
    let t = create(&url, "slow", json!({ "ms": 60_000 })).await;
    let id = t["taskId"].as_str().unwrap().to_string();
    let ack = rpc(&url, "tasks/cancel", json!({ "taskId": id }), ext()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    for absent in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack["result"].get(absent).is_none(), "{absent} in {ack}");
    }
    let after = get(&url, &id).await["result"].clone();
    assert_eq!(after["status"], "cancelled", "{after}");
    assert!(
        after.get("result").is_none() && after.get("error").is_none(),
        "{after}"
    );
    for _ in 0..100 {
        if stopped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        stopped.load(Ordering::SeqCst),
        "the handler saw its cancellation"
    );
    // Again, and on a task that completed: the same empty ack, the status unchanged.
    let again = rpc(&url, "tasks/cancel", json!({ "taskId": id }), ext()).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    let t = create(&url, "slow", json!({ "ms": 1 })).await;
    let done_id = t["taskId"].as_str().unwrap().to_string();
    wait_for(&url, &done_id, &["completed"]).await;
    let ack = rpc(&url, "tasks/cancel", json!({ "taskId": done_id }), ext()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(get(&url, &done_id).await["result"]["status"], "completed");
}

#[tokio::test]
async fn unknown_tasks_and_bad_params_are_invalid_params() {
    let (_h, url, _) = start().await;
    for (method, params) in [
        ("tasks/get", json!({ "taskId": "no-such-task" })),
        ("tasks/cancel", json!({ "taskId": "no-such-task" })),
        (
            "tasks/update",
            json!({ "taskId": "no-such-task", "inputResponses": {} }),
        ),
    ] {
        let a = rpc(&url, method, params, ext()).await;
        assert_eq!(a["error"]["code"], -32602, "{method}: {a}");
        assert_eq!(
            a["error"]["data"]["taskId"], "no-such-task",
            "{method}: {a}"
        );
        assert_eq!(
            a["error"]["message"], "Failed to retrieve task: Task not found",
            "{method}: {a}"
        );
    }
    let a = rpc(&url, "tasks/get", json!({}), ext()).await;
    assert_eq!(a["error"]["code"], -32602, "{a}");
    let a = rpc(&url, "tasks/get", json!({ "taskId": 7 }), ext()).await;
    assert_eq!(a["error"]["code"], -32602, "{a}");
    let t = create(&url, "confirm", json!({})).await;
    for bad in [json!(null), json!({ "ok": 1 }), json!("x")] {
        let a = rpc(
            &url,
            "tasks/update",
            json!({ "taskId": t["taskId"], "inputResponses": bad }),
            ext(),
        )
        .await;
        assert_eq!(a["error"]["code"], -32602, "{bad}: {a}");
    }
}

#[tokio::test]
async fn a_client_without_the_extension_gets_plain_calls_or_minus_32021() {
    let (_h, url, _) = start().await;
    let no_ext = json!({ "elicitation": {} });
    for (method, params) in [
        ("tasks/get", json!({ "taskId": "x" })),
        (
            "tasks/update",
            json!({ "taskId": "x", "inputResponses": {} }),
        ),
        ("tasks/cancel", json!({ "taskId": "x" })),
    ] {
        let a = rpc(&url, method, params, no_ext.clone()).await;
        assert_eq!(a["error"]["code"], -32021, "{method}: {a}");
        assert_eq!(
            a["error"]["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
            json!({}),
            "{a}"
        );
    }
    // An optional tool runs as a plain call; a required one cannot run.
    let a = call_tool(&url, "slow", json!({ "ms": 1 }), no_ext.clone()).await;
    assert_eq!(a["result"]["resultType"], "complete", "{a}");
    assert_eq!(a["result"]["content"][0]["text"], "slept 1 ms", "{a}");
    assert!(a["result"].get("taskId").is_none(), "{a}");
    let a = call_tool(&url, "must", json!({}), no_ext.clone()).await;
    assert_eq!(a["error"]["code"], -32021, "{a}");
    assert_eq!(
        a["error"]["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
        json!({}),
        "{a}"
    );
    // With it, the required tool is a task; a tool without task support never is, and a
    // 2025-11-25 `task` param is tolerated and ignored.
    let t = create(&url, "must", json!({})).await;
    let done = wait_for(&url, t["taskId"].as_str().unwrap(), &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "done");
    let a = rpc(
        &url,
        "tools/call",
        json!({ "name": "plain", "arguments": {}, "task": { "ttl": 60000 } }),
        ext(),
    )
    .await;
    assert_eq!(a["result"]["resultType"], "complete", "{a}");
    assert_eq!(a["result"]["content"][0]["text"], "plain", "{a}");
    // Task status notifications need the extension too.
    let a = rpc(
        &url,
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": ["x"] } }),
        no_ext.clone(),
    )
    .await;
    assert_eq!(a["error"]["code"], -32021, "{a}");
    // The methods the extension removed.
    for method in ["tasks/result", "tasks/list"] {
        let a = rpc(&url, method, json!({ "taskId": "x" }), ext()).await;
        assert_eq!(a["error"]["code"], -32601, "{method}: {a}");
    }
}

#[tokio::test]
async fn a_task_past_its_ttl_is_gone_and_its_handler_stopped() {
    let (_h, url, stopped) = start_with(true, Duration::from_millis(300)).await;
    let t = create(&url, "slow", json!({ "ms": 60_000 })).await;
    assert_eq!(t["ttlMs"], 300, "{t}");
    let id = t["taskId"].as_str().unwrap().to_string();
    assert_eq!(get(&url, &id).await["result"]["status"], "working");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        stopped.load(Ordering::SeqCst),
        "the expired task's handler was stopped"
    );
    let a = get(&url, &id).await;
    assert_eq!(a["error"]["code"], -32602, "{a}");
    assert_eq!(
        a["error"]["message"], "Failed to retrieve task: Task has expired",
        "{a}"
    );
    // Dropped: afterwards it is unknown.
    let a = get(&url, &id).await;
    assert_eq!(
        a["error"]["message"], "Failed to retrieve task: Task not found",
        "{a}"
    );
}

#[tokio::test]
async fn input_asked_before_the_task_exists_is_a_multi_round_trip() {
    let (_h, url, _) = start().await;
    let a = call_tool(&url, "mrtr_then_task", json!({}), ext()).await;
    let r1 = &a["result"];
    assert_eq!(r1["resultType"], "input_required", "{a}");
    assert!(r1.get("taskId").is_none(), "{a}");
    assert_eq!(
        r1["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let retry = json!({
        "name": "mrtr_then_task",
        "arguments": {},
        "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } },
        "requestState": r1["requestState"],
    });
    let a = rpc(&url, "tools/call", retry, ext()).await;
    let r2 = &a["result"];
    assert_eq!(r2["resultType"], "task", "{a}");
    assert!(
        r2.get("requestState").is_none() && r2.get("inputRequests").is_none(),
        "{a}"
    );
    let done = wait_for(
        &url,
        r2["taskId"].as_str().unwrap(),
        &["completed", "failed"],
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Alice!",
        "{done}"
    );
}

#[tokio::test]
async fn task_requests_carry_the_task_id_in_mcp_name() {
    let (_h, url, _) = start().await;
    let t = create(&url, "slow", json!({ "ms": 60_000 })).await;
    let id = t["taskId"].as_str().unwrap().to_string();
    let mut params = json!({ "taskId": id });
    params["_meta"] = meta(ext());
    let body = request(9, "tasks/get", params);
    let ok = post_modern(&url, &body).await;
    assert_eq!(answer(&ok)["result"]["taskId"], id.as_str(), "{}", ok.body);
    for headers in [
        with_header(headers_for(&body), "mcp-name", Some("some-other-task")),
        with_header(headers_for(&body), "mcp-name", None),
    ] {
        let r = post_with(&url, &headers, &body).await;
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(answer(&r)["error"]["code"], -32020, "{}", r.body);
    }
    rpc(&url, "tasks/cancel", json!({ "taskId": id }), ext()).await;
}

#[tokio::test]
async fn handshake_sessions_keep_2025_11_25_tasks() {
    let (_h, url, _) = start().await;
    let sid = init_session(&url).await;
    let mut body = call(2, "slow", json!({ "ms": 1 }));
    body["params"]["task"] = json!({ "ttl": 60000 });
    let r = post(&url, Some(&sid), body).await;
    let msg = r
        .sse_messages()
        .into_iter()
        .find(|m| m.get("id").is_some())
        .unwrap_or_else(|| r.json());
    let task = &msg["result"]["task"];
    assert!(
        task["taskId"].is_string(),
        "nested 2025-11-25 handle: {}",
        r.body
    );
    assert!(msg["result"].get("resultType").is_none(), "{}", r.body);
}
