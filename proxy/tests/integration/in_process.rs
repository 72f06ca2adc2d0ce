//! In-process backends ([`ferromcp_proxy::InProcessBackend`]): a `ServerBuilder`-built server of
//! the test program behind the proxy, with no process, alone (names unchanged) or beside a
//! configured stdio backend (namespaced); its calls, its requests to the client (sampling) and
//! per-client sessions go through as for any backend; bad backend sets are refused.

use crate::common;

use common::{client, config, first_text};
use ferromcp::client::ClientHandlers;
use ferromcp::protocol::CreateMessageResult;
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::session::RequestOptions;
use ferromcp_proxy::{BackendOptions, InProcessBackend, Proxy, ProxyOptions};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// A server with `add` (a + b) and `ask` (asks the client's LLM, answers with its text).
fn calculator() -> Server {
    let add = serde_json::from_value(json!({ "name": "add", "inputSchema": { "type": "object",
        "properties": { "a": { "type": "number" }, "b": { "type": "number" } } } }))
    .unwrap();
    let ask = serde_json::from_value(json!({ "name": "ask", "inputSchema": { "type": "object" } }))
        .unwrap();
    Server::builder_with(ServerOptions::new("calculator", "1"))
        .tool_raw(
            add,
            tool_fn(|args: Map<String, Value>, _ctx| async move {
                let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
                Ok(serde_json::from_value(
                    json!({ "content": [{ "type": "text", "text": sum.to_string() }] }),
                )
                .unwrap())
            }),
        )
        .tool_raw(
            ask,
            tool_fn(|_args: Map<String, Value>, ctx| async move {
                let r = ctx
                    .request(
                        "sampling/createMessage",
                        Some(json!({ "messages": [{ "role": "user",
                            "content": { "type": "text", "text": "2+2?" } }], "maxTokens": 5 })),
                    )
                    .await?;
                let text = r["content"]["text"].as_str().unwrap_or("").to_string();
                Ok(serde_json::from_value(
                    json!({ "content": [{ "type": "text", "text": format!("llm: {text}") }] }),
                )
                .unwrap())
            }),
        )
        .build()
        .unwrap()
}

fn options() -> ProxyOptions {
    ProxyOptions {
        backend: BackendOptions {
            stderr: ferromcp::transport::StderrMode::Null,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn sampling_client() -> ClientHandlers {
    ClientHandlers::default().with_sampling(Some(Arc::new(|_p, _ctx| {
        Box::pin(async {
            Ok(serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "model": "m", "content": { "type": "text", "text": "4" }
            }))
            .unwrap())
        })
    })))
}

async fn call(c: &ferromcp::client::Client, name: &str, arguments: Value) -> Value {
    c.request(
        "tools/call",
        Some(json!({ "name": name, "arguments": arguments })),
        RequestOptions::default(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn an_in_process_server_alone_is_served_unchanged_without_a_process() {
    let proxy = Proxy::start_with(
        None,
        vec![InProcessBackend::new("calc", calculator())],
        options(),
    )
    .await
    .unwrap();
    let b = proxy.backend("calc").unwrap();
    assert!(b.is_up());
    assert_eq!(b.child_pid(), None);
    let c = client(&proxy, sampling_client()).await;
    let tools = c
        .request("tools/list", None, RequestOptions::default())
        .await
        .unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["add", "ask"]);
    assert_eq!(
        first_text(&call(&c, "add", json!({ "a": 2, "b": 0.5 })).await),
        "2.5"
    );
    assert_eq!(first_text(&call(&c, "ask", json!({})).await), "llm: 4");
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_in_process_server_beside_a_configured_one_is_namespaced_and_per_client() {
    let config = config(&["everything"]);
    let proxy = Proxy::start_with(
        Some(&config),
        vec![InProcessBackend::new("calc", calculator()).per_client(true)],
        options(),
    )
    .await
    .unwrap();
    let names: Vec<&str> = proxy.backends().iter().map(|b| b.name()).collect();
    assert_eq!(names, ["calc", "everything"]);
    let c1 = client(&proxy, sampling_client()).await;
    let c2 = client(&proxy, sampling_client()).await;
    assert_eq!(
        first_text(&call(&c1, "calc_add", json!({ "a": 1, "b": 2 })).await),
        "3"
    );
    assert_eq!(
        first_text(&call(&c2, "calc_ask", json!({})).await),
        "llm: 4"
    );
    assert_eq!(
        first_text(&call(&c1, "everything_test_simple_text", json!({})).await),
        "This is a simple text response for testing."
    );
    // Each client session got a session of the in-process server of its own.
    assert_eq!(proxy.backend("calc").unwrap().client_sessions().await, 2);
    proxy.shutdown().await;
}

#[tokio::test]
async fn bad_in_process_backend_sets_are_refused() {
    let err = |r: Result<Proxy, ferromcp::McpError>| r.expect_err("refused").message;
    let e = err(Proxy::start_with(None, Vec::new(), options()).await);
    assert!(e.starts_with("the proxy needs at least one backend"), "{e}");
    let config = config(&["everything"]);
    let e = err(Proxy::start_with(
        Some(&config),
        vec![InProcessBackend::new("everything", calculator())],
        options(),
    )
    .await);
    assert_eq!(
        e,
        "in-process backend \"everything\": another backend has that name"
    );
    let e = err(Proxy::start_with(
        None,
        vec![
            InProcessBackend::new("calc", calculator()),
            InProcessBackend::new("2nd calc", calculator()),
        ],
        options(),
    )
    .await);
    assert!(e.contains("\"2nd calc\" is used as a namespace"), "{e}");
}
