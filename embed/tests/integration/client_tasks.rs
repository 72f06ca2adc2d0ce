//! The bindings' face of task-augmented calls (`EmbeddedClient::call_tool_as_task`,
//! `get_task`, `get_task_result`, `cancel_task`): one JSON shape in both eras. The client side
//! of tasks itself is checked in core's `integration/client_tasks.rs`.

use crate::common_task_tools;
use ferromcp::client::http::connect;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::{ElicitAction, ElicitResult};
use ferromcp::server::Server;
use ferromcp::transport::http::{
    serve_http, HttpClientOptions, HttpServerHandle, HttpServerOptions,
};
use ferromcp_embed::{CallOptions, EmbeddedClient};
use serde_json::json;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const ERAS: [ProtocolMode; 2] = [ProtocolMode::Handshake, ProtocolMode::PerRequest];

/// The task-capable tools `slow` and `confirm` (`common_task_tools`), as core's client tests
/// serve them.
fn server() -> Server {
    common_task_tools::with_task_tools(
        Server::builder("embedded-tasks-test", "1.0"),
        Arc::new(AtomicBool::new(false)),
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
