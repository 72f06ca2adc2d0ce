//! Proves the client features through a real `Client`: roots/list via `ClientHandlers.roots`,
//! sampling via `ClientHandlers.sampling` (tools/toolChoice only when `sampling_tools` is
//! advertised), form-mode elicitation with the restricted schema checked (nested objects ->
//! -32602) and accepted content validated, and URL-mode elicitation plus
//! `notifications/elicitation/complete` reaching `on_notification`.

use crate::support;

use ferromcp::client::{Client, ClientHandlers};
use ferromcp::codes;
use ferromcp::protocol::{
    CallToolResult, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult, Role,
    Root, SamplingContent, Tool,
};
use ferromcp::server::{tool_fn, Server};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// A server whose `ask` tool forwards `{method, params}` to the client and reports the outcome:
/// the result as JSON text, or an `isError` result carrying the error code.
pub(crate) fn server() -> Server {
    Server::builder("asker", "1")
        .tool_raw(
            Tool::new("ask"),
            tool_fn(|args, ctx| async move {
                let method = args["method"].as_str().unwrap_or_default().to_string();
                let params = args.get("params").cloned();
                match ctx.request(&method, params).await {
                    Ok(v) => Ok(CallToolResult::text(v.to_string())),
                    Err(e) => Ok(CallToolResult::error_text(e.code.to_string())),
                }
            }),
        )
        .tool_raw(
            Tool::new("notify_complete"),
            tool_fn(|args, ctx| async move {
                ctx.peer()
                    .notify(
                        "notifications/elicitation/complete",
                        Some(json!({"elicitationId": args["id"]})),
                    )
                    .await?;
                Ok(CallToolResult::text("sent"))
            }),
        )
        .build()
        .unwrap()
}

pub(crate) async fn ask(client: &Client, method: &str, params: Value) -> Result<Value, i64> {
    let r = support::within(client.call_tool("ask", json!({"method": method, "params": params})))
        .await
        .unwrap();
    let text = r.content[0].as_text().unwrap().to_string();
    if r.is_error() {
        Err(text.parse().unwrap())
    } else {
        Ok(serde_json::from_str(&text).unwrap())
    }
}

fn sampling_handler(seen: Arc<Mutex<Vec<Value>>>) -> ferromcp::client::SamplingFn {
    Arc::new(move |p, _ctx| {
        let seen = seen.clone();
        Box::pin(async move {
            seen.lock().unwrap().push(serde_json::to_value(&p).unwrap());
            Ok({
                let mut lit =
                    CreateMessageResult::new(SamplingContent::text("sampled answer"), "test-model");
                lit.role = Role::Assistant;
                lit.stop_reason = Some("endTurn".into());
                lit
            })
        })
    })
}

#[tokio::test]
async fn roots_list() {
    let handlers = ClientHandlers::default().with_roots(Some(Arc::new(|_ctx| {
        Box::pin(async move {
            Ok(vec![{
                let mut lit = Root::new("file:///proj");
                lit.name = Some("proj".into());
                lit
            }])
        })
    })));
    let client = support::connect(&server(), handlers).await;
    let r = ask(&client, "roots/list", json!({})).await.unwrap();
    assert_eq!(r["roots"], json!([{"uri": "file:///proj", "name": "proj"}]));
    client.close().await;
}

#[tokio::test]
async fn sampling_with_and_without_tools() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let msg = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 20});
    let mut with_tools = msg.clone();
    with_tools["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    with_tools["toolChoice"] = json!({"mode": "auto"});

    // Without `sampling_tools`: plain sampling works, sampling with tools is refused locally.
    let client = support::connect(
        &server(),
        ClientHandlers::default().with_sampling(Some(sampling_handler(seen.clone()))),
    )
    .await;
    let r = ask(&client, "sampling/createMessage", msg.clone())
        .await
        .unwrap();
    assert_eq!(r["model"], "test-model");
    assert_eq!(r["role"], "assistant");
    assert_eq!(seen.lock().unwrap()[0]["maxTokens"], 20);
    assert_eq!(
        ask(&client, "sampling/createMessage", with_tools.clone()).await,
        Err(codes::MISSING_CLIENT_CAPABILITY as i64)
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "the refused request never reached the client"
    );
    client.close().await;

    // With `sampling_tools`: tools and toolChoice reach the handler.
    let client = support::connect(
        &server(),
        ClientHandlers::default()
            .with_sampling(Some(sampling_handler(seen.clone())))
            .with_sampling_tools(true),
    )
    .await;
    ask(&client, "sampling/createMessage", with_tools)
        .await
        .unwrap();
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last["tools"][0]["name"], "t");
    assert_eq!(last["toolChoice"]["mode"], "auto");
    client.close().await;
}

fn elicitation_handler(
    content: Value,
    calls: Arc<Mutex<Vec<Value>>>,
) -> ferromcp::client::ElicitationFn {
    Arc::new(move |p, _ctx| {
        let content = content.clone();
        let calls = calls.clone();
        Box::pin(async move {
            let url_mode = matches!(p, ElicitRequestParams::Url(_));
            calls
                .lock()
                .unwrap()
                .push(json!({"url": url_mode, "message": p.message()}));
            let mut r = ElicitResult::new(ElicitAction::Accept);
            if !url_mode {
                let Value::Object(m) = content else {
                    unreachable!()
                };
                r.content = Some(m);
            }
            Ok(r)
        })
    })
}

#[tokio::test]
async fn elicitation_form_mode() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let good_schema = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}, "required": ["name"]});
    let client = support::connect(
        &server(),
        ClientHandlers::default().with_elicitation(Some(elicitation_handler(
            json!({"name": "Ada", "age": 36}),
            calls.clone(),
        ))),
    )
    .await;
    let r = ask(
        &client,
        "elicitation/create",
        json!({"message": "who?", "requestedSchema": good_schema}),
    )
    .await
    .unwrap();
    assert_eq!(r["action"], "accept");
    assert_eq!(r["content"], json!({"name": "Ada", "age": 36}));

    // A nested object is outside the restricted schema subset.
    let nested = json!({"type": "object", "properties": {"addr": {"type": "object", "properties": {"x": {"type": "string"}}}}});
    let before = calls.lock().unwrap().len();
    assert_eq!(
        ask(
            &client,
            "elicitation/create",
            json!({"message": "where?", "requestedSchema": nested})
        )
        .await,
        Err(codes::INVALID_PARAMS as i64)
    );
    assert_eq!(
        calls.lock().unwrap().len(),
        before,
        "the handler never sees a bad schema"
    );
    client.close().await;

    // Accepted content that violates the schema is refused.
    let client = support::connect(
        &server(),
        ClientHandlers::default().with_elicitation(Some(elicitation_handler(
            json!({"age": "old"}),
            calls.clone(),
        ))),
    )
    .await;
    assert_eq!(
        ask(
            &client,
            "elicitation/create",
            json!({"message": "who?", "requestedSchema": good_schema})
        )
        .await,
        Err(codes::INVALID_PARAMS as i64)
    );
    client.close().await;
}

#[tokio::test]
async fn elicitation_url_mode_and_complete_notification() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let notes: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let n = notes.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let client = support::connect(
        &server(),
        ClientHandlers::default()
            .with_elicitation(Some(elicitation_handler(json!({}), calls.clone())))
            .with_elicitation_url(true)
            .with_on_notification(Some(Arc::new(move |note| {
                n.lock().unwrap().push((
                    note.method.clone(),
                    note.params.clone().unwrap_or(Value::Null),
                ));
                let _ = tx.send(());
            }))),
    )
    .await;
    let params = json!({"mode": "url", "message": "log in", "url": "https://example.com/login", "elicitationId": "e-1"});
    let r = ask(&client, "elicitation/create", params).await.unwrap();
    assert_eq!(r["action"], "accept");
    assert_eq!(
        calls.lock().unwrap()[0],
        json!({"url": true, "message": "log in"})
    );
    client
        .call_tool("notify_complete", json!({"id": "e-1"}))
        .await
        .unwrap();
    support::within(rx.recv()).await.unwrap();
    let first = notes.lock().unwrap()[0].clone();
    assert_eq!(first.0, "notifications/elicitation/complete");
    assert_eq!(first.1, json!({"elicitationId": "e-1"}));
    client.close().await;
}

#[tokio::test]
async fn url_mode_refused_without_url_capability() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let client = support::connect(
        &server(),
        ClientHandlers::default()
            .with_elicitation(Some(elicitation_handler(json!({}), calls.clone()))),
    )
    .await;
    let params = json!({"mode": "url", "message": "log in", "url": "https://example.com/login", "elicitationId": "e-2"});
    assert_eq!(
        ask(&client, "elicitation/create", params).await,
        Err(codes::MISSING_CLIENT_CAPABILITY as i64)
    );
    assert!(calls.lock().unwrap().is_empty());
    client.close().await;
}
