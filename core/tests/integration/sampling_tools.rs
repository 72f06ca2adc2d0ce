//! Proves sampling with tools (2025-11-25): a server's `sampling/createMessage` carrying
//! `tools`/`toolChoice` is refused (-32021, before anything is sent) when the client did not
//! advertise `sampling.tools`, and is served when it did, with `tool_use` content going back to
//! the server and a follow-up carrying `tool_result` reaching `ClientHandlers.sampling` intact.
//! On earlier revisions tools in sampling are refused even with the capability.

use crate::support;

use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::protocol::{
    CallToolResult, CreateMessageRequestParams, CreateMessageResult, Role, SamplingContent,
    SamplingMessageContentBlock, Tool, ToolUseContent,
};
use ferromcp::server::{tool_fn, Server};
use ferromcp::ProtocolVersion;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// `agent` runs one tool loop through the client's model: sample with tools; if the model asks
/// for a tool, answer with a `tool_result` and sample again. Reports each result as JSON, or the
/// error code as an `isError` result.
fn server() -> Server {
    Server::builder("agent", "1")
        .tool_raw(
            Tool::new("agent"),
            tool_fn(|_a, ctx| async move {
                let tools = json!([{
                    "name": "weather",
                    "description": "weather by city",
                    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
                }]);
                let first = json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}],
                    "maxTokens": 100,
                    "tools": tools,
                    "toolChoice": {"mode": "auto"}
                });
                let r1 = match ctx.request("sampling/createMessage", Some(first.clone())).await {
                    Ok(v) => v,
                    Err(e) => return Ok(CallToolResult::error_text(e.code.to_string())),
                };
                let r1: CreateMessageResult = serde_json::from_value(r1).unwrap();
                let uses: Vec<ToolUseContent> = r1
                    .content
                    .blocks()
                    .iter()
                    .filter_map(|b| match b {
                        SamplingMessageContentBlock::ToolUse(u) => Some(u.clone()),
                        _ => None,
                    })
                    .collect();
                assert_eq!(uses.len(), 1, "{r1:?}");
                let u = &uses[0];
                let mut second = first;
                second["messages"] = json!([
                    first_message(),
                    {"role": "assistant", "content": [serde_json::to_value(u).unwrap()]},
                    {"role": "user", "content": [{
                        "type": "tool_result",
                        "toolUseId": u.id,
                        "content": [{"type": "text", "text": "18°C, sunny"}],
                        "structuredContent": {"celsius": 18},
                        "isError": false
                    }]}
                ]);
                let r2 = ctx
                    .request("sampling/createMessage", Some(second))
                    .await?;
                Ok(CallToolResult::text(
                    json!({"first": serde_json::to_value(&r1).unwrap(), "second": r2}).to_string(),
                ))
            }),
        )
        .build()
        .unwrap()
}

fn first_message() -> Value {
    json!({"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}})
}

/// A model that calls `weather` when it has not seen a tool result yet, and answers in text
/// once it has. Records every request it got.
fn model(seen: Arc<Mutex<Vec<CreateMessageRequestParams>>>) -> ferromcp::client::SamplingFn {
    Arc::new(move |p: CreateMessageRequestParams, _ctx| {
        let seen = seen.clone();
        Box::pin(async move {
            let has_result = p.messages.iter().any(|m| {
                m.content
                    .blocks()
                    .iter()
                    .any(|b| matches!(b, SamplingMessageContentBlock::ToolResult(_)))
            });
            seen.lock().unwrap().push(p);
            let (content, stop) = if has_result {
                (
                    SamplingContent::text("It is 18°C and sunny in Paris."),
                    "endTurn",
                )
            } else {
                (
                    serde_json::from_value(json!([{
                        "type": "tool_use", "id": "call-42", "name": "weather", "input": {"city": "Paris"}
                    }]))
                    .unwrap(),
                    "toolUse",
                )
            };
            Ok({
                let mut lit = CreateMessageResult::new(content, "test-model");
                lit.role = Role::Assistant;
                lit.stop_reason = Some(stop.into());
                lit
            })
        })
    })
}

async fn run(handlers: ClientHandlers, version: ProtocolVersion) -> CallToolResult {
    let mut o = ClientOptions::new("c", "1");
    o.protocol_version = version;
    let c = support::connect_with(&server(), handlers, o).await;
    let r = support::within(c.call_tool("agent", json!({})))
        .await
        .unwrap();
    c.close().await;
    r
}

#[tokio::test]
async fn tools_in_sampling_are_refused_without_sampling_tools() {
    let seen = Arc::default();
    let handlers = ClientHandlers::default()
        .with_sampling(Some(model(Arc::clone(&seen))))
        .with_sampling_tools(false);
    assert_eq!(handlers.capabilities()["sampling"], json!({}));
    let r = run(handlers, ProtocolVersion::LATEST).await;
    assert!(r.is_error());
    assert_eq!(
        r.content[0].as_text().unwrap(),
        codes::MISSING_CLIENT_CAPABILITY.to_string()
    );
    assert!(seen.lock().unwrap().is_empty(), "the request went out");
}

#[tokio::test]
async fn tools_in_sampling_need_2025_11_25() {
    let seen = Arc::default();
    let handlers = ClientHandlers::default()
        .with_sampling(Some(model(Arc::clone(&seen))))
        .with_sampling_tools(true);
    let r = run(handlers, ProtocolVersion::V2025_06_18).await;
    assert!(r.is_error());
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn tool_use_and_tool_result_round_trip() {
    let seen: Arc<Mutex<Vec<CreateMessageRequestParams>>> = Arc::default();
    let handlers = ClientHandlers::default()
        .with_sampling(Some(model(seen.clone())))
        .with_sampling_tools(true);
    assert_eq!(handlers.capabilities()["sampling"], json!({"tools": {}}));
    let r = run(handlers, ProtocolVersion::LATEST).await;
    assert!(!r.is_error(), "{r:?}");
    let out: Value = serde_json::from_str(r.content[0].as_text().unwrap()).unwrap();
    // The server got the model's tool_use ...
    assert_eq!(out["first"]["stopReason"], "toolUse");
    assert_eq!(
        out["first"]["content"],
        json!([{"type": "tool_use", "id": "call-42", "name": "weather", "input": {"city": "Paris"}}])
    );
    // ... and the final text answer after sending the tool_result.
    assert_eq!(out["second"]["stopReason"], "endTurn");
    assert_eq!(
        out["second"]["content"]["text"],
        "It is 18°C and sunny in Paris."
    );

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    // The handler saw the tools and toolChoice.
    let first = serde_json::to_value(&seen[0]).unwrap();
    assert_eq!(first["tools"][0]["name"], "weather");
    assert_eq!(first["toolChoice"], json!({"mode": "auto"}));
    // The follow-up's history reached it typed, and re-serializes to what the server sent.
    let second = &seen[1];
    assert_eq!(second.messages.len(), 3);
    match &second.messages[1].content.blocks()[0] {
        SamplingMessageContentBlock::ToolUse(u) => {
            assert_eq!((u.id.as_str(), u.name.as_str()), ("call-42", "weather"));
            assert_eq!(Value::Object(u.input.clone()), json!({"city": "Paris"}));
        }
        other => panic!("expected tool_use, got {other:?}"),
    }
    match &second.messages[2].content.blocks()[0] {
        SamplingMessageContentBlock::ToolResult(t) => {
            assert_eq!(t.tool_use_id, "call-42");
            assert_eq!(t.content[0].as_text(), Some("18°C, sunny"));
            assert_eq!(t.structured_content, Some(json!({"celsius": 18})));
            assert_eq!(t.is_error, Some(false));
        }
        other => panic!("expected tool_result, got {other:?}"),
    }
    assert_eq!(
        serde_json::to_value(&second.messages[2]).unwrap()["content"][0],
        json!({
            "type": "tool_result",
            "toolUseId": "call-42",
            "content": [{"type": "text", "text": "18°C, sunny"}],
            "structuredContent": {"celsius": 18},
            "isError": false
        })
    );
}
