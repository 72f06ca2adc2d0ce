//! The bindings' face of task-augmented calls (`EmbeddedClient::call_tool_as_task`,
//! `get_task`, `get_task_result`, `cancel_task`): one JSON shape in both eras. The client side
//! of tasks itself is checked in core's `integration/client_tasks.rs`.

use ferromcp::client::http::connect;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::{CallToolResult, ElicitAction, ElicitResult, TaskSupport, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::http::{
    serve_http, HttpClientOptions, HttpServerHandle, HttpServerOptions,
};
use ferromcp::McpError;
use ferromcp_embed::{CallOptions, EmbeddedClient};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

const ERAS: [ProtocolMode; 2] = [ProtocolMode::Handshake, ProtocolMode::PerRequest];

/// Two task-capable tools: `slow` sleeps `ms` (cancellable), `confirm` asks the client for a
/// name (one elicitation request while it runs) and answers `"<action> <name>"`.
fn server() -> Server {
    let opt = |name: &str| Tool::new(name).with_task_support(TaskSupport::Optional);
    Server::builder("embedded-tasks-test", "1.0")
        .options(|o| {
            o.tasks_extension = true;
            o.tasks.poll_interval = Duration::from_millis(20);
        })
        .tool_raw(
            opt("slow"),
            tool_fn(|args, ctx| async move {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(100);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                    _ = ctx.cancellation().cancelled() => return Err(McpError::cancelled(None)),
                }
                Ok(CallToolResult::text(format!("slept {ms} ms")))
            }),
        )
        .tool_raw(
            opt("confirm"),
            tool_fn(|_, ctx| async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                let a = ctx
                    .request(
                        "elicitation/create",
                        Some(json!({ "message": "Delete?", "requestedSchema": {
                            "type": "object",
                            "properties": { "name": { "type": "string" } } } })),
                    )
                    .await?;
                Ok(CallToolResult::text(format!(
                    "{} {}",
                    a["action"].as_str().unwrap_or("?"),
                    a["content"]["name"].as_str().unwrap_or("?")
                )))
            }),
        )
        .build()
        .unwrap()
}

struct Fixture {
    handle: HttpServerHandle,
    url: String,
}

async fn start() -> Fixture {
    let handle = serve_http(server(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = handle.url("/mcp");
    Fixture { handle, url }
}

/// A client of `mode` with the tasks extension, answering every elicitation "accept Ada".
async fn client(f: &Fixture, mode: ProtocolMode, tasks_extension: bool) -> Client {
    let mut o = ClientOptions::new("embedded-tasks", "1.0");
    o.mode = mode;
    o.tasks_extension = tasks_extension;
    let handlers = ClientHandlers::default().with_elicitation(Some(Arc::new(|_params, _ctx| {
        Box::pin(async {
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
            Ok(r)
        })
    })));
    connect(&f.url, o, handlers, HttpClientOptions::default())
        .await
        .unwrap()
}

/// The embed layer the bindings use: one JSON shape in both eras (`{"task": ...}` with `ttl`
/// and `pollInterval`, never the extension's `ttlMs`), input answered, cancel.
#[tokio::test]
async fn embedded_task_calls_have_one_shape_in_both_eras() {
    let f = start().await;
    for mode in ERAS {
        let c = EmbeddedClient::from_client(client(&f, mode, true).await);
        let created = c
            .call_tool_as_task("confirm", json!({}), None)
            .await
            .unwrap();
        let task = &created["task"];
        assert_eq!(task["status"], "working", "{mode:?}: {created}");
        assert!(task["ttl"].is_u64(), "{mode:?}: {created}");
        assert!(task["pollInterval"].is_u64(), "{mode:?}: {created}");
        assert!(task.get("ttlMs").is_none(), "{mode:?}: {created}");
        let id = task["taskId"].as_str().unwrap().to_string();
        let r = c
            .get_task_result(&id, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r["content"][0]["text"], "accept Ada", "{mode:?}");
        assert_eq!(c.get_task(&id).await.unwrap()["status"], "completed");
        let created = c
            .call_tool_as_task("slow", json!({ "ms": 20_000 }), None)
            .await
            .unwrap();
        let id = created["task"]["taskId"].as_str().unwrap().to_string();
        assert_eq!(c.cancel_task(&id).await.unwrap()["status"], "cancelled");
        c.close().await;
    }
    f.handle.shutdown().await.unwrap();
}
