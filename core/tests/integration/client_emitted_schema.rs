//! Proves that everything the `Client` sends conforms to the official schema of the negotiated
//! revision: for each revision a client (with roots, sampling and elicitation handlers, extra
//! capabilities and clientInfo fields) runs initialize, initialized, every typed call (tools with
//! progress, resources, templates, subscribe, prompts, completion, logging, tasks on 2025-11-25),
//! answers the server's sampling / roots / elicitation requests (including error answers),
//! cancels a request and sends roots/list_changed. Every frame the client writes is captured at
//! the transport and validated against the JSON-RPC envelope and the specific definition.

use crate::common;
use crate::support;

use common::spec_schema::{assert_valid, errors, has_definition};
use ferromcp::client::{Client, ClientHandlers, ClientOptions, TaskOptions};
use ferromcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, CreateMessageResult, ElicitAction,
    ElicitResult, GetPromptResult, LoggingLevel, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, ResourceTemplate, Root, TaskSupport, TextResourceContents, Tool,
    ToolExecution,
};
use ferromcp::server::{completion_fn, prompt_fn, resource_fn, tool_fn, CompletionRef, Server};
use ferromcp::session::RequestOptions;
use ferromcp::transport::{memory_pair, FrameWriter, MemoryWriter};
use ferromcp::ProtocolVersion;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::within;

pub(crate) type Log = Arc<Mutex<Vec<Value>>>;

/// A writer that records every frame it sends.
pub(crate) struct Recording {
    pub(crate) inner: MemoryWriter,
    pub(crate) log: Log,
}

impl FrameWriter for Recording {
    async fn write_frame(&mut self, frame: &[u8]) -> std::io::Result<()> {
        let v: Value = serde_json::from_slice(frame).expect("the client writes JSON");
        self.log.lock().unwrap().push(v);
        self.inner.write_frame(frame).await
    }
    async fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().await
    }
    async fn close(&mut self) -> std::io::Result<()> {
        self.inner.close().await
    }
}

fn server() -> Server {
    Server::builder("client-schema", "1")
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
            Tool::new("progress"),
            tool_fn(|_a, ctx| async move {
                ctx.progress(1.0, Some(2.0), Some("half")).await?;
                Ok(CallToolResult::text("done"))
            }),
        )
        .tool_raw(
            Tool::new("hang"),
            tool_fn(|_a, ctx| async move {
                ctx.cancellation().cancelled().await;
                Ok(CallToolResult::text("cancelled"))
            }),
        )
        .tool_raw(
            {
                let mut lit = Tool::new("task_tool");
                lit.execution = Some({
                    let mut lit = ToolExecution::default();
                    lit.task_support = Some(TaskSupport::Optional);
                    lit
                });
                lit
            },
            tool_fn(|args, ctx| async move {
                if args.get("block").is_some() {
                    ctx.cancellation().cancelled().await;
                }
                Ok(CallToolResult::text("task done"))
            }),
        )
        .resource(
            Resource::new("mem://a", "a"),
            resource_fn(|r, _c| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    r.uri, "a",
                ))])
            }),
        )
        .resource_template(
            ResourceTemplate::new("mem://items/{id}", "item"),
            resource_fn(|r, _c| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    r.uri, "item",
                ))])
            }),
        )
        .prompt(
            {
                let mut lit = Prompt::new("greet");
                lit.arguments = Some(vec![{
                    let mut lit = PromptArgument::default();
                    lit.name = "who".into();
                    lit.required = Some(true);
                    lit
                }]);
                lit
            },
            prompt_fn(|_a, _c| async move {
                Ok({
                    let mut lit = GetPromptResult::default();
                    lit.messages = vec![PromptMessage::user_text("hello")];
                    lit
                })
            }),
        )
        .completion(
            CompletionRef::Prompt("greet".into()),
            "who",
            completion_fn(|_p, _c| async move {
                Ok({
                    let mut lit = Completion::default();
                    lit.values = vec!["ada".into()];
                    lit
                })
            }),
        )
        .build()
        .unwrap()
}

fn handlers() -> ClientHandlers {
    ClientHandlers::default()
        .with_roots(Some(Arc::new(|_ctx| {
            Box::pin(async {
                Ok(vec![Root::new("file:///work"), {
                    let mut lit = Root::new("file:///tmp");
                    lit.name = Some("tmp".into());
                    lit
                }])
            })
        })))
        .with_sampling(Some(Arc::new(|p, _ctx| {
            Box::pin(async move {
                let content = if p.tools.is_some() {
                    json!([{"type": "tool_use", "id": "call-1", "name": "lookup", "input": {"q": "x"}}])
                } else {
                    json!({"type": "text", "text": "sampled"})
                };
                let stop = if p.tools.is_some() {
                    "toolUse"
                } else {
                    "endTurn"
                };
                Ok(serde_json::from_value::<CreateMessageResult>(json!({
                    "role": "assistant", "content": content, "model": "m", "stopReason": stop
                }))
                .unwrap())
            })
        })))
        .with_sampling_tools(true)
        .with_elicitation(Some(Arc::new(|_p, _ctx| {
            Box::pin(async {
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = Some(serde_json::from_value(json!({"name": "Ada"})).unwrap());
                Ok(r)
            })
        })))
        .with_extra_capabilities(Some(json!({"experimental": {"example.com/x": {"on": true}}})))
}

/// Runs one session at `version`; returns every frame the client wrote and every frame the
/// server wrote (to know what each client response answers).
async fn capture(version: ProtocolVersion) -> (Vec<Value>, Vec<Value>) {
    let client_log: Log = Arc::default();
    let server_log: Log = Arc::default();
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(256);
    let srv = server();
    let w_s = Recording {
        inner: w_s,
        log: server_log.clone(),
    };
    tokio::spawn(async move { srv.serve(r_s, w_s).await });
    let mut o = ClientOptions::new("schema-client", "1.0");
    o.protocol_version = version;
    o.title = Some("Schema Client".into());
    if version >= ProtocolVersion::V2025_11_25 {
        o.info_extra
            .insert("websiteUrl".into(), json!("https://example.com"));
        // The client runs the server's task-augmented sampling as tasks.
        o.tasks = Some(TaskOptions::default());
    }
    let w_c = Recording {
        inner: w_c,
        log: client_log.clone(),
    };
    let c = within(Client::connect(o, handlers(), r_c, w_c))
        .await
        .unwrap();
    exercise(&c, version).await;
    c.close().await;
    let client = client_log.lock().unwrap().clone();
    let server = server_log.lock().unwrap().clone();
    (client, server)
}

async fn ask(c: &Client, method: &str, params: Value) -> CallToolResult {
    within(c.call_tool("ask", json!({"method": method, "params": params})))
        .await
        .unwrap()
}

async fn exercise(c: &Client, version: ProtocolVersion) {
    within(c.ping()).await.unwrap();
    within(c.set_logging_level(LoggingLevel::Debug))
        .await
        .unwrap();
    within(c.list_all_tools()).await.unwrap();
    let opts = RequestOptions::default().with_on_progress(Some(Arc::new(|_p| {})));
    within(c.call_tool_with("progress", json!({}), opts))
        .await
        .unwrap();
    within(c.list_resources(None)).await.unwrap();
    within(c.list_resource_templates(None)).await.unwrap();
    within(c.read_resource("mem://a")).await.unwrap();
    within(c.read_resource("mem://items/1")).await.unwrap();
    within(c.subscribe("mem://a")).await.unwrap();
    within(c.unsubscribe("mem://a")).await.unwrap();
    within(c.list_prompts(None)).await.unwrap();
    let mut args = serde_json::Map::new();
    args.insert("who".into(), json!("x"));
    within(c.get_prompt("greet", args)).await.unwrap();
    let complete: CompleteRequestParams = serde_json::from_value(json!({
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "who", "value": "a"}
    }))
    .unwrap();
    within(c.complete(complete)).await.unwrap();
    within(c.notify_roots_list_changed()).await.unwrap();

    // Answers to the server's requests.
    let r = ask(c, "roots/list", json!({})).await;
    assert!(!r.is_error(), "{r:?}");
    let msg = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10});
    assert!(!ask(c, "sampling/createMessage", msg.clone())
        .await
        .is_error());
    // An error answer: a method the client does not know.
    assert!(ask(c, "example.com/unknown", json!({})).await.is_error());
    if version.has_elicitation() {
        let form = json!({"message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}});
        assert!(!ask(c, "elicitation/create", form).await.is_error());
        // Nested schema -> the client answers -32602.
        let bad = json!({"message": "x", "requestedSchema": {"type": "object", "properties": {"n": {"type": "object"}}}});
        assert!(ask(c, "elicitation/create", bad).await.is_error());
    }
    if version.has_tasks() {
        // A task-augmented request, and the server's tasks/* about its task.
        let mut as_task = msg.clone();
        as_task["task"] = json!({ "ttl": 60000 });
        let created = ask(c, "sampling/createMessage", as_task).await;
        let created: Value = serde_json::from_str(created.content[0].as_text().unwrap()).unwrap();
        let id = json!({ "taskId": created["task"]["taskId"] });
        assert!(!ask(c, "tasks/result", id.clone()).await.is_error());
        assert!(!ask(c, "tasks/get", id).await.is_error());
        assert!(!ask(c, "tasks/list", json!({})).await.is_error());
        let mut with_tools = msg;
        with_tools["tools"] = json!([{"name": "lookup", "inputSchema": {"type": "object"}}]);
        with_tools["toolChoice"] = json!({"mode": "auto"});
        assert!(!ask(c, "sampling/createMessage", with_tools)
            .await
            .is_error());

        let t = within(c.call_tool_as_task("task_tool", json!({}), Some(60_000)))
            .await
            .unwrap()
            .task;
        within(c.get_task(&t.task_id)).await.unwrap();
        within(c.get_task_result(&t.task_id)).await.unwrap();
        within(c.list_tasks(None)).await.unwrap();
        let b = within(c.call_tool_as_task("task_tool", json!({"block": true}), None))
            .await
            .unwrap()
            .task;
        within(c.cancel_task(&b.task_id)).await.unwrap();
        within(c.get_task_payload(&t.task_id)).await.unwrap();
    }

    // Cancellation of an in-flight request.
    let token = tokio_util::sync::CancellationToken::new();
    let opts = RequestOptions::default().with_cancel(Some(token.clone()));
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    };
    let (r, _) =
        within(async { tokio::join!(c.call_tool_with("hang", json!({}), opts), cancel) }).await;
    assert!(r.is_err());
    within(c.ping()).await.unwrap();
}

fn request_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeRequest",
        "ping" => "PingRequest",
        "tools/list" => "ListToolsRequest",
        "tools/call" => "CallToolRequest",
        "resources/list" => "ListResourcesRequest",
        "resources/templates/list" => "ListResourceTemplatesRequest",
        "resources/read" => "ReadResourceRequest",
        "resources/subscribe" => "SubscribeRequest",
        "resources/unsubscribe" => "UnsubscribeRequest",
        "prompts/list" => "ListPromptsRequest",
        "prompts/get" => "GetPromptRequest",
        "completion/complete" => "CompleteRequest",
        "logging/setLevel" => "SetLevelRequest",
        "tasks/get" => "GetTaskRequest",
        "tasks/result" => "GetTaskPayloadRequest",
        "tasks/list" => "ListTasksRequest",
        "tasks/cancel" => "CancelTaskRequest",
        _ => return None,
    })
}

fn notification_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "notifications/initialized" => "InitializedNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/progress" => "ProgressNotification",
        "notifications/roots/list_changed" => "RootsListChangedNotification",
        "notifications/tasks/status" => "TaskStatusNotification",
        _ => return None,
    })
}

fn result_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "roots/list" => "ListRootsResult",
        "sampling/createMessage" => "CreateMessageResult",
        "elicitation/create" => "ElicitResult",
        "ping" => "EmptyResult",
        "sampling/createMessage as a task" => "CreateTaskResult",
        "tasks/get" => "GetTaskResult",
        "tasks/result" => "GetTaskPayloadResult",
        "tasks/list" => "ListTasksResult",
        _ => return None,
    })
}

#[tokio::test]
async fn every_message_the_client_sends_matches_the_revision_schema() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for version in ProtocolVersion::ALL {
        let rev = version.as_str();
        let (sent, received) = capture(version).await;
        // What each server request asked, by id.
        let asked: HashMap<String, String> = received
            .iter()
            .filter(|m| m.get("method").is_some() && m.get("id").is_some())
            .map(|m| {
                let method = m["method"].as_str().unwrap();
                let as_task = m["params"].get("task").is_some();
                let method = match as_task {
                    true => format!("{method} as a task"),
                    false => method.to_string(),
                };
                (m["id"].to_string(), method)
            })
            .collect();
        let error_def = if has_definition(rev, "JSONRPCErrorResponse") {
            "JSONRPCErrorResponse"
        } else {
            "JSONRPCError"
        };
        let mut methods: HashMap<String, usize> = HashMap::new();
        for m in &sent {
            let mut check = |def: &str| {
                checked += 1;
                for e in errors(rev, def, m) {
                    failures.push(format!("[{rev}] {def}: {e}\n    message: {m}"));
                }
            };
            if let Some(method) = m.get("method").and_then(Value::as_str) {
                *methods.entry(method.to_string()).or_default() += 1;
                if m.get("id").is_some() {
                    check("JSONRPCRequest");
                    check("ClientRequest");
                    match request_def(method) {
                        Some(def) => check(def),
                        None => failures.push(format!("[{rev}] unexpected request {m}")),
                    }
                } else {
                    check("JSONRPCNotification");
                    check("ClientNotification");
                    match notification_def(method) {
                        Some(def) => check(def),
                        None => failures.push(format!("[{rev}] unexpected notification {m}")),
                    }
                }
            } else if m.get("error").is_some() {
                *methods.entry("<error>".into()).or_default() += 1;
                check(error_def);
            } else {
                let answered = asked.get(&m["id"].to_string()).cloned();
                *methods
                    .entry(format!("<result:{}>", answered.as_deref().unwrap_or("?")))
                    .or_default() += 1;
                check("JSONRPCResponse");
                checked += 1;
                for e in errors(rev, "ClientResult", &m["result"]) {
                    failures.push(format!("[{rev}] ClientResult: {e}\n    message: {m}"));
                }
                match answered.as_deref().and_then(result_def) {
                    Some(def) => {
                        checked += 1;
                        for e in errors(rev, def, &m["result"]) {
                            failures.push(format!("[{rev}] {def}: {e}\n    message: {m}"));
                        }
                    }
                    None => failures.push(format!("[{rev}] response to what? {m}")),
                }
            }
        }
        // Everything we meant to exercise was sent.
        for expected in [
            "initialize",
            "notifications/initialized",
            "notifications/cancelled",
            "notifications/roots/list_changed",
            "tools/call",
            "completion/complete",
            "<result:roots/list>",
            "<result:sampling/createMessage>",
            "<error>",
        ] {
            assert!(
                methods.contains_key(expected),
                "[{rev}] never sent {expected}: {methods:?}"
            );
        }
        if version.has_elicitation() {
            assert!(methods.contains_key("<result:elicitation/create>"));
        }
        if version.has_tasks() {
            for t in ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] {
                assert!(methods.contains_key(t), "[{rev}] never sent {t}");
            }
            assert_eq!(methods["<result:sampling/createMessage>"], 2);
            for t in [
                "<result:sampling/createMessage as a task>",
                "<result:tasks/get>",
                "<result:tasks/result>",
                "<result:tasks/list>",
                "notifications/tasks/status",
            ] {
                assert!(
                    methods.contains_key(t),
                    "[{rev}] never sent {t}: {methods:?}"
                );
            }
        }
        // The initialize request carries what the options asked for.
        let init = sent.iter().find(|m| m["method"] == "initialize").unwrap();
        assert_eq!(init["params"]["protocolVersion"], rev);
        assert_eq!(
            init["params"]["capabilities"]["experimental"],
            json!({"example.com/x": {"on": true}})
        );
        assert_valid(rev, "InitializeRequest", init);
    }
    assert!(checked > 200, "{checked}");
    assert!(
        failures.is_empty(),
        "{} schema violations:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
