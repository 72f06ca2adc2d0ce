//! The tasks extension's status notifications (`notifications/tasks`, SEP-2663) on
//! `subscriptions/listen` over Streamable HTTP: a declaring client naming `taskIds` is
//! acknowledged with the tasks this server runs, gets each one's current state at once, then a
//! `DetailedTask` (what `tasks/get` answers) at every change up to the terminal state, tagged
//! with the subscription id; tasks it did not name are not sent; a server without the
//! extension acknowledges no `taskIds`; a malformed `taskIds` is invalid params.

use crate::common_http;
use crate::common_modern;

use bytes::Bytes;
use common_modern::{answer, headers_for, meta, post_modern, request};
use ferromcp::protocol::{CallToolResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, Server, TASKS_EXTENSION};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use http_body_util::{BodyExt, Full};
use serde_json::{json, Map, Value};
use std::time::Duration;

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

async fn start(extension: bool) -> (HttpServerHandle, String) {
    let opt = |name: &str| Tool::new(name).with_task_support(TaskSupport::Optional);
    let server = Server::builder("task-notes", "1.0")
        .options(move |o| {
            o.tasks_extension = extension;
            o.tasks.poll_interval = Duration::from_millis(50);
        })
        .tool_raw(
            opt("confirm"),
            tool_fn(|_, ctx| async move {
                let mut asked = Map::new();
                asked.insert(
                    "ok".into(),
                    json!({ "method": "elicitation/create", "params": { "mode": "form",
                        "message": "Sure?", "requestedSchema": { "type": "object" } } }),
                );
                let a = ctx.input(asked).await?;
                Ok(CallToolResult::text(format!(
                    "answer: {}",
                    a["ok"]["action"].as_str().unwrap_or("?")
                )))
            }),
        )
        .tool_raw(
            opt("slow"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(150)).await;
                Ok(CallToolResult::text("slept"))
            }),
        )
        .build()
        .unwrap();
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url)
}

fn ext() -> Value {
    json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } })
}

async fn rpc(url: &str, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta(ext());
    answer(&post_modern(url, &request(1, method, params)).await)
}

/// Starts a task of tool `name`; its id.
async fn create(url: &str, name: &str) -> String {
    let a = rpc(url, "tools/call", json!({ "name": name, "arguments": {} })).await;
    assert_eq!(a["result"]["resultType"], "task", "{a}");
    a["result"]["taskId"].as_str().unwrap().to_string()
}

/// Polls `tasks/get` until the task's status is `status` (5 s at most).
async fn wait_for(url: &str, id: &str, status: &str) -> Value {
    for _ in 0..250 {
        let a = rpc(url, "tasks/get", json!({ "taskId": id })).await;
        if a["result"]["status"] == status {
            return a["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} never reached {status}");
}

/// An open SSE response: yields its JSON `data:` messages one by one.
struct Stream {
    body: hyper::body::Incoming,
    buf: String,
    ready: std::collections::VecDeque<Value>,
}

impl Stream {
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(m) = self.ready.pop_front() {
                return Some(m);
            }
            let frame = tokio::time::timeout(Duration::from_secs(5), self.body.frame())
                .await
                .ok()??
                .ok()?;
            if let Ok(data) = frame.into_data() {
                self.buf.push_str(&String::from_utf8_lossy(&data));
                while let Some(i) = self.buf.find('\n') {
                    let line: String = self.buf.drain(..=i).collect();
                    if let Some(d) = line.trim_end().strip_prefix("data: ") {
                        if let Ok(v) = serde_json::from_str(d) {
                            self.ready.push_back(v);
                        }
                    }
                }
            }
        }
    }
}

/// Opens `subscriptions/listen` (request id `id`) with `notifications`, declaring the extension.
async fn listen(url: &str, id: u64, notifications: Value) -> Stream {
    let body = request(
        id,
        "subscriptions/listen",
        json!({ "notifications": notifications, "_meta": meta(ext()) }),
    );
    let mut b = http::Request::builder().method("POST").uri(url);
    for (k, v) in headers_for(&body) {
        b = b.header(k, v);
    }
    let req = b.body(Full::new(Bytes::from(body.to_string()))).unwrap();
    let r = tokio::time::timeout(Duration::from_secs(5), common_http::client().request(req))
        .await
        .expect("response head within 5 s")
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    Stream {
        body: r.into_body(),
        buf: String::new(),
        ready: Default::default(),
    }
}

#[tokio::test]
async fn a_listener_gets_the_tasks_it_named_until_they_end() {
    let (h, url) = start(true).await;
    let a = create(&url, "confirm").await;
    let parked = wait_for(&url, &a, "input_required").await;
    let mut s = listen(&url, 77, json!({ "taskIds": [a, "no-such-task"] })).await;
    let ack = s.next().await.expect("acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "taskIds": [a] }),
        "{ack}"
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], 77);

    // The current state first: what tasks/get answered.
    let n = s.next().await.expect("the task's current state");
    assert_eq!(n["method"], "notifications/tasks", "{n}");
    assert_eq!(n["params"]["_meta"][SUBSCRIPTION_ID], 77, "{n}");
    assert!(n["params"].get("resultType").is_none(), "{n}");
    let mut state = n["params"].clone();
    state.as_object_mut().unwrap().remove("_meta");
    let mut polled = parked.clone();
    for result_only in ["resultType", "_meta"] {
        polled.as_object_mut().unwrap().remove(result_only);
    }
    assert_eq!(state, polled);

    // A task not named: nothing of it on the stream.
    let b = create(&url, "slow").await;
    wait_for(&url, &b, "completed").await;

    // Answering the input: the changes up to the terminal state, as tasks/get has them.
    let ack = rpc(
        &url,
        "tasks/update",
        json!({ "taskId": a, "inputResponses": { "ok": { "action": "accept", "content": {} } } }),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let mut seen = Vec::new();
    let last = loop {
        let n = s.next().await.expect("a status notification");
        assert_eq!(n["method"], "notifications/tasks", "{n}");
        assert_eq!(
            n["params"]["taskId"],
            a.as_str(),
            "only the named task: {n}"
        );
        assert_eq!(n["params"]["_meta"][SUBSCRIPTION_ID], 77, "{n}");
        let status = n["params"]["status"].as_str().unwrap().to_string();
        seen.push(status.clone());
        if status == "completed" {
            break n;
        }
        assert_eq!(status, "working", "{n}");
    };
    assert_eq!(
        last["params"]["result"]["content"][0]["text"], "answer: accept",
        "{last}"
    );
    let done = wait_for(&url, &a, "completed").await;
    assert_eq!(last["params"]["lastUpdatedAt"], done["lastUpdatedAt"]);
    assert!(seen.len() <= 2, "{seen:?}");
    drop(s);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_task_that_ended_is_sent_once_and_bad_task_ids_are_refused() {
    let (h, url) = start(true).await;
    let b = create(&url, "slow").await;
    let done = wait_for(&url, &b, "completed").await;
    let mut s = listen(&url, 5, json!({ "taskIds": [b], "toolsListChanged": true })).await;
    let ack = s.next().await.expect("acknowledgement");
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "taskIds": [b], "toolsListChanged": true }),
        "{ack}"
    );
    let n = s.next().await.expect("the terminal state");
    assert_eq!(n["params"]["status"], "completed", "{n}");
    assert_eq!(n["params"]["result"], done["result"], "{n}");
    drop(s);

    let a = rpc(
        &url,
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": "all" } }),
    )
    .await;
    assert_eq!(a["error"]["code"], -32602, "{a}");
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_the_extension_no_task_ids_are_agreed_to() {
    let (h, url) = start(false).await;
    let mut s = listen(
        &url,
        9,
        json!({ "taskIds": ["x"], "toolsListChanged": true }),
    )
    .await;
    let ack = s.next().await.expect("acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert!(
        ack["params"]["notifications"].get("taskIds").is_none(),
        "{ack}"
    );
    drop(s);
    h.shutdown().await.unwrap();
}
