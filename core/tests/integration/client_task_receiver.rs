//! The client as a task receiver (2025-11-25; `ClientOptions::tasks`): it declares
//! `tasks.requests.sampling.createMessage`, answers a server's task-augmented
//! `sampling/createMessage` at once with a task while its sampling handler runs as that task, and
//! answers the server's `tasks/get`, `tasks/result` (which waits), `tasks/list` and
//! `tasks/cancel` (which cancels the handler), sending `notifications/tasks/status` as the task
//! changes; bad `tasks/*` input gets `-32602`. Without the option the request is answered in
//! the request, as before. The server is a real ferromcp server whose `ask` tool sends the
//! client what the test says (`client_features::server`).

use crate::client_emitted_schema::{Log, Recording};
use crate::client_features::{ask, server};
use crate::support::within;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, TaskOptions};
use ferromcp::codes;
use ferromcp::protocol::{CreateMessageResult, SamplingContent};
use ferromcp::transport::memory_pair;
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// What the sampling handler saw and how it is let go.
#[derive(Default)]
struct Sampler {
    /// `ctx.in_task()` at each call.
    in_task: Mutex<Vec<bool>>,
    /// Lets a `go` call answer.
    release: Notify,
    /// Set when a `hold` call saw its cancellation.
    cancelled: AtomicBool,
}

/// A sampling handler that, by the request's `systemPrompt`, answers once released (`go`),
/// fails (`fail`), or waits for its cancellation (`hold`).
fn handlers(sampler: Arc<Sampler>) -> ClientHandlers {
    ClientHandlers::default().with_sampling(Some(Arc::new(move |p, ctx| {
        let sampler = sampler.clone();
        Box::pin(async move {
            sampler.in_task.lock().unwrap().push(ctx.in_task());
            match p.system_prompt.as_deref() {
                Some("fail") => return Err(McpError::internal("no model here")),
                Some("hold") => {
                    ctx.cancellation().cancelled().await;
                    sampler.cancelled.store(true, Ordering::SeqCst);
                    return Err(McpError::cancelled(None));
                }
                _ => sampler.release.notified().await,
            }
            Ok(CreateMessageResult::new(
                SamplingContent::text("sampled"),
                "test-model",
            ))
        })
    })))
}

/// A client of the `ask` server, receiving tasks when `tasks`; every frame it writes is logged.
async fn connect(tasks: bool, sampler: Arc<Sampler>) -> (Client, Log) {
    let log: Log = Arc::default();
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(64);
    let srv = server();
    tokio::spawn(async move { srv.serve(r_s, w_s).await });
    let mut options = ClientOptions::new("task-receiver", "1");
    if tasks {
        let mut limits = TaskOptions::default();
        limits.poll_interval = Duration::from_millis(20);
        options.tasks = Some(limits);
    }
    let w_c = Recording {
        inner: w_c,
        log: log.clone(),
    };
    let c = within(Client::connect(options, handlers(sampler), r_c, w_c))
        .await
        .unwrap();
    (c, log)
}

fn sampling(system_prompt: &str) -> Value {
    json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
        "maxTokens": 10,
        "systemPrompt": system_prompt,
        "task": { "ttl": 60000 }
    })
}

/// Asks the client for `sampling(system_prompt)` as a task; returns the task's id.
async fn start(c: &Client, system_prompt: &str) -> String {
    let created = ask(c, "sampling/createMessage", sampling(system_prompt))
        .await
        .unwrap();
    assert_eq!(created["task"]["status"], "working", "{created}");
    created["task"]["taskId"].as_str().unwrap().to_string()
}

/// The statuses the client announced for task `id`, in order.
fn announced(log: &Log, id: &str) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|m| m["method"] == "notifications/tasks/status" && m["params"]["taskId"] == id)
        .map(|m| m["params"]["status"].as_str().unwrap_or("?").to_string())
        .collect()
}

#[tokio::test]
async fn a_task_augmented_sampling_request_runs_as_a_task() {
    let sampler = Arc::new(Sampler::default());
    let (c, log) = connect(true, sampler.clone()).await;
    let own = c.session().negotiated().unwrap().own_capabilities.clone();
    assert_eq!(
        own["tasks"],
        json!({ "list": {}, "cancel": {}, "requests": { "sampling": { "createMessage": {} } } })
    );

    let created = ask(&c, "sampling/createMessage", sampling("go"))
        .await
        .unwrap();
    let task = &created["task"];
    let id = task["taskId"].as_str().unwrap().to_string();
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    assert_eq!(task["pollInterval"], 20);
    let got = ask(&c, "tasks/get", json!({ "taskId": id })).await.unwrap();
    assert_eq!(got["status"], "working", "{got}");
    let listed = ask(&c, "tasks/list", json!({})).await.unwrap();
    assert_eq!(listed["tasks"][0]["taskId"], id.as_str(), "{listed}");

    // tasks/result waits for the handler, released 200 ms later.
    let (result, _) = tokio::join!(ask(&c, "tasks/result", json!({ "taskId": id })), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let got = ask(&c, "tasks/get", json!({ "taskId": id })).await.unwrap();
        assert_eq!(got["status"], "working", "{got}");
        sampler.release.notify_one();
    });
    let result = result.unwrap();
    assert_eq!(result["model"], "test-model", "{result}");
    assert_eq!(result["content"]["text"], "sampled");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let got = ask(&c, "tasks/get", json!({ "taskId": id })).await.unwrap();
    assert_eq!(got["status"], "completed", "{got}");
    // The result is kept: read again.
    let again = ask(&c, "tasks/result", json!({ "taskId": id }))
        .await
        .unwrap();
    assert_eq!(again["model"], "test-model");
    assert_eq!(announced(&log, &id), ["completed"]);
    assert_eq!(*sampler.in_task.lock().unwrap(), [true]);
    c.close().await;
}

#[tokio::test]
async fn a_task_fails_or_is_cancelled_and_bad_task_requests_get_precise_errors() {
    let sampler = Arc::new(Sampler::default());
    let (c, log) = connect(true, sampler.clone()).await;

    // The handler's error is the task's: failed, and tasks/result answers that error.
    let failing = start(&c, "fail").await;
    let err = ask(&c, "tasks/result", json!({ "taskId": failing })).await;
    assert_eq!(err, Err(i64::from(codes::INTERNAL_ERROR)));
    let got = ask(&c, "tasks/get", json!({ "taskId": failing }))
        .await
        .unwrap();
    assert_eq!(got["status"], "failed", "{got}");
    assert_eq!(got["statusMessage"], "no model here");

    // tasks/cancel cancels the handler; a cancelled task cannot be cancelled again.
    let held = start(&c, "hold").await;
    let cancelled = ask(&c, "tasks/cancel", json!({ "taskId": held }))
        .await
        .unwrap();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    for _ in 0..100 {
        if sampler.cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        sampler.cancelled.load(Ordering::SeqCst),
        "the handler was not cancelled"
    );
    let bad = i64::from(codes::INVALID_PARAMS);
    let again = ask(&c, "tasks/cancel", json!({ "taskId": held })).await;
    assert_eq!(again, Err(bad));
    let result = ask(&c, "tasks/result", json!({ "taskId": held })).await;
    assert_eq!(result, Err(bad));
    assert_eq!(announced(&log, &failing), ["failed"]);
    assert_eq!(announced(&log, &held), ["cancelled"]);

    // Unknown ids, missing or mistyped ones, a cursor the client did not issue: -32602.
    for (method, params) in [
        ("tasks/get", json!({ "taskId": "no-such-task" })),
        ("tasks/result", json!({ "taskId": "no-such-task" })),
        ("tasks/cancel", json!({ "taskId": "no-such-task" })),
        ("tasks/get", json!({})),
        ("tasks/get", json!({ "taskId": 7 })),
        ("tasks/list", json!({ "cursor": "not-ours" })),
    ] {
        assert_eq!(
            ask(&c, method, params.clone()).await,
            Err(bad),
            "{method} {params}"
        );
    }
    let listed = ask(&c, "tasks/list", json!({})).await.unwrap();
    assert_eq!(
        listed["tasks"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    c.close().await;
}

#[tokio::test]
async fn without_the_option_a_task_augmented_request_is_answered_in_it() {
    let sampler = Arc::new(Sampler::default());
    let (c, _log) = connect(false, sampler.clone()).await;
    let own = c.session().negotiated().unwrap().own_capabilities.clone();
    assert!(own.get("tasks").is_none(), "{own}");
    sampler.release.notify_one();
    let answered = ask(&c, "sampling/createMessage", sampling("go"))
        .await
        .unwrap();
    assert_eq!(answered["model"], "test-model", "{answered}");
    assert!(answered.get("task").is_none());
    assert_eq!(*sampler.in_task.lock().unwrap(), [false]);
    // The server does not send tasks/* to a client that declared no tasks.
    let refused = ask(&c, "tasks/get", json!({ "taskId": "x" })).await;
    assert_eq!(refused, Err(i64::from(codes::MISSING_CLIENT_CAPABILITY)));
    c.close().await;
}
