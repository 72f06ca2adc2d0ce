//! The "everything" server: the fixed surface the official MCP conformance suite drives
//! (tools `test_*`, resources `test://...`, prompts `test_*`, completion, logging), as listed in
//! `tests/conformance/SCENARIOS.md`. It serves the tasks extension `io.modelcontextprotocol/tasks`
//! to 2026-07-28 clients (its fixtures: `everything_task_tools.rs`).
//!
//! `everything-server [--transport stdio|http] [--port N] [--redis-url URL]` (default stdio;
//! HTTP binds 127.0.0.1 and serves `/mcp`; with `--redis-url`, built with the `redis` feature,
//! replicas sharing the URL serve each other's sessions; they share `FERROMCP_REQUEST_STATE_KEY`,
//! 64 hex digits, to open each other's 2026-07-28 `requestState`). Logs go to stderr.

mod everything_input_required;
mod everything_task_tools;

use everything_input_required::{accepted, add_input_required_tools, elicit_input, inputs};

use ferromcp::protocol::{CallToolResult, Prompt, Resource, ResourceTemplate, Tool};
use ferromcp::server::{completion_fn, prompt_fn, resource_fn, tool_fn, PromptFn, Server, ToolFn};
use ferromcp::session::{input_required, RequestContext};
use ferromcp::McpError;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;
use std::time::Duration;

/// A 1x1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV, base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const LOGGER: &str = "conformance-test-server";

/// Builds a protocol value from its JSON form (the surface is specified as JSON).
fn from_json<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("fixed JSON matches the protocol types")
}

fn result(content: Value) -> Result<CallToolResult, McpError> {
    Ok(from_json(json!({ "content": content })))
}

fn text_result(text: impl Into<String>) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::text(text))
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name)
        .with_description(description)
        .with_input_schema(schema)
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

/// Whether the client declared a capability (`sampling`, `elicitation`).
fn client_has(ctx: &RequestContext, cap: &str) -> bool {
    ctx.session()
        .negotiated()
        .is_some_and(|n| n.peer_has(&[cap]))
}

/// Sends `elicitation/create` with a form and reports the outcome as the tool's text.
async fn elicit(
    ctx: &RequestContext,
    message: &str,
    schema: Value,
) -> Result<CallToolResult, McpError> {
    if !client_has(ctx, "elicitation") {
        return Ok(CallToolResult::error_text(
            "the client does not support elicitation",
        ));
    }
    let params = json!({ "message": message, "requestedSchema": schema });
    match ctx.request("elicitation/create", Some(params)).await {
        Ok(r) => {
            let action = r.get("action").and_then(Value::as_str).unwrap_or("unknown");
            let content = r.get("content").cloned().unwrap_or_else(|| json!({}));
            text_result(format!(
                "Elicitation completed: action={action}, content={content}"
            ))
        }
        Err(e) => Ok(CallToolResult::error_text(format!(
            "Elicitation failed: {}",
            e.message
        ))),
    }
}

/// The running server, for the diagnostic tools that change its lists.
static SERVER: OnceLock<Server> = OnceLock::new();

fn trigger_tool() -> Tool {
    tool(
        "test_trigger_tool_change",
        "Registers itself again, so the server announces a tools list change",
        no_args(),
    )
}

fn trigger_tool_handler() -> ToolFn {
    tool_fn(|_, _| async {
        if let Some(server) = SERVER.get() {
            server.add_tool(trigger_tool(), trigger_tool_handler())?;
        }
        text_result("Tool list changed")
    })
}

/// Diagnostic tools of the 2026-07-28 conformance scenarios (`server-stateless`).
fn add_diagnostic_tools(b: ferromcp::server::ServerBuilder) -> ferromcp::server::ServerBuilder {
    b.tool_raw(trigger_tool(), trigger_tool_handler())
        .tool_raw(
            tool(
                "test_trigger_prompt_change",
                "Registers test_simple_prompt again, so the server announces a prompts list change",
                no_args(),
            ),
            tool_fn(|_, _| async {
                if let Some(server) = SERVER.get() {
                    server.add_prompt(simple_prompt(), simple_prompt_handler());
                }
                text_result("Prompt list changed")
            }),
        )
        .tool_raw(
            tool(
                "test_missing_capability",
                "Asks the client for sampling whether or not it declared the capability",
                no_args(),
            ),
            tool_fn(|_, ctx| async move {
                let params = json!({
                    "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
                    "maxTokens": 10
                });
                ctx.request("sampling/createMessage", Some(params)).await?;
                text_result("Sampling succeeded")
            }),
        )
        .tool_raw(
            tool(
                "test_header_param",
                "Echoes its region, which clients mirror into the Mcp-Param-Region header",
                json!({ "type": "object", "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" } } }),
            ),
            tool_fn(
                |args, _| async move { text_result(format!("region: {}", arg(&args, "region"))) },
            ),
        )
        .tool_raw(
            tool(
                "test_logging_tool",
                "Sends a log message (only delivered when the request asked for a log level)",
                no_args(),
            ),
            tool_fn(|_, ctx| async move {
                ctx.log("info", Some(LOGGER), json!("test_logging_tool ran"))
                    .await
                    .ok();
                text_result("Logging tool executed")
            }),
        )
}

fn add_tools(b: ferromcp::server::ServerBuilder) -> ferromcp::server::ServerBuilder {
    add_input_required_tools(add_diagnostic_tools(b)).tool_raw(
        tool("test_simple_text", "Returns a simple text response", no_args()),
        tool_fn(|_, _| async { text_result("This is a simple text response for testing.") }),
    )
    .tool_raw(
        tool("test_image_content", "Returns an image", no_args()),
        tool_fn(|_, _| async {
            result(json!([{ "type": "image", "data": PNG, "mimeType": "image/png" }]))
        }),
    )
    .tool_raw(
        tool("test_audio_content", "Returns an audio clip", no_args()),
        tool_fn(|_, _| async {
            result(json!([{ "type": "audio", "data": WAV, "mimeType": "audio/wav" }]))
        }),
    )
    .tool_raw(
        tool("test_embedded_resource", "Returns an embedded resource", no_args()),
        tool_fn(|_, _| async {
            result(json!([{ "type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            } }]))
        }),
    )
    .tool_raw(
        tool(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
            no_args(),
        ),
        tool_fn(|_, _| async {
            result(json!([
                { "type": "text", "text": "Multiple content types test:" },
                { "type": "image", "data": PNG, "mimeType": "image/png" },
                { "type": "resource", "resource": {
                    "uri": "test://mixed-content-resource", "mimeType": "application/json",
                    "text": "{\"test\":\"data\",\"value\":123}"
                } }
            ]))
        }),
    )
    .tool_raw(
        tool(
            "test_tool_with_logging",
            "Sends three log messages while running",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            for (i, msg) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .into_iter()
            .enumerate()
            {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.log("info", Some(LOGGER), json!(msg)).await.ok();
            }
            text_result("Tool with logging executed successfully")
        }),
    )
    .tool_raw(
        tool(
            "test_error_handling",
            "Always fails with a tool error",
            no_args(),
        ),
        tool_fn(|_, _| async {
            Ok(CallToolResult::error_text(
                "This tool intentionally returns an error for testing",
            ))
        }),
    )
    .tool_raw(
        tool(
            "test_tool_with_progress",
            "Reports progress 0, 50, 100",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                let msg = format!("Completed step {p} of 100");
                ctx.progress(p, Some(100.0), Some(&msg)).await.ok();
            }
            let token = match ctx.progress_reporter().map(|r| r.token().clone()) {
                Some(Value::String(s)) => s,
                Some(other) => other.to_string(),
                None => "no progress token".to_string(),
            };
            text_result(token)
        }),
    )
    .tool_raw(
        tool(
            "test_sampling",
            "Asks the client's LLM to answer a prompt",
            json!({ "type": "object",
                    "properties": { "prompt": { "type": "string", "description": "The prompt to send to the LLM" } },
                    "required": ["prompt"] }),
        ),
        tool_fn(|args, ctx| async move {
            if !client_has(&ctx, "sampling") {
                return Ok(CallToolResult::error_text("the client does not support sampling"));
            }
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default();
            let params = json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
                "maxTokens": 100
            });
            match ctx.request("sampling/createMessage", Some(params)).await {
                Ok(r) => {
                    let content = r.get("content");
                    let text = match content {
                        Some(Value::Array(items)) => items
                            .iter()
                            .filter_map(|c| c.get("text").and_then(Value::as_str))
                            .collect::<Vec<_>>()
                            .join(""),
                        Some(c) => c.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                        None => String::new(),
                    };
                    text_result(format!("LLM response: {text}"))
                }
                Err(e) => Ok(CallToolResult::error_text(format!("Sampling failed: {}", e.message))),
            }
        }),
    )
    .tool_raw(
        tool(
            "test_elicitation",
            "Asks the user for a username and an email address",
            json!({ "type": "object",
                    "properties": { "message": { "type": "string", "description": "The message to show the user" } },
                    "required": ["message"] }),
        ),
        tool_fn(|args, ctx| async move {
            if !client_has(&ctx, "elicitation") {
                return Ok(CallToolResult::error_text("the client does not support elicitation"));
            }
            let message = args.get("message").and_then(Value::as_str).unwrap_or_default();
            let params = json!({
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "username": { "type": "string", "description": "User's response" },
                        "email": { "type": "string", "description": "User's email address" }
                    },
                    "required": ["username", "email"]
                }
            });
            match ctx.request("elicitation/create", Some(params)).await {
                Ok(r) => {
                    let action = r.get("action").and_then(Value::as_str).unwrap_or("unknown");
                    let content = r.get("content").cloned().unwrap_or_else(|| json!({}));
                    text_result(format!("User response: action={action}, content={content}"))
                }
                Err(e) => Ok(CallToolResult::error_text(format!("Elicitation failed: {}", e.message))),
            }
        }),
    )
    .tool_raw(
        tool(
            "test_elicitation_sep1034_defaults",
            "Elicits a form whose fields carry default values (SEP-1034)",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let schema = json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "User name", "default": "John Doe" },
                    "age": { "type": "integer", "description": "User age", "default": 30 },
                    "score": { "type": "number", "description": "User score", "default": 95.5 },
                    "status": { "type": "string", "description": "User status",
                                "enum": ["active", "inactive", "pending"], "default": "active" },
                    "verified": { "type": "boolean", "description": "Verification status", "default": true }
                },
                "required": []
            });
            elicit(&ctx, "Please review and update the form fields with defaults", schema).await
        }),
    )
    .tool_raw(
        tool(
            "test_elicitation_sep1330_enums",
            "Elicits every enum variant of SEP-1330",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let schema = json!({
                "type": "object",
                "properties": {
                    "untitledSingle": { "type": "string", "description": "Select one option",
                                        "enum": ["option1", "option2", "option3"] },
                    "titledSingle": { "type": "string", "description": "Select one option with titles",
                                      "oneOf": [
                                          { "const": "value1", "title": "First Option" },
                                          { "const": "value2", "title": "Second Option" },
                                          { "const": "value3", "title": "Third Option" }
                                      ] },
                    "legacyEnum": { "type": "string", "description": "Select one option (legacy)",
                                    "enum": ["opt1", "opt2", "opt3"],
                                    "enumNames": ["Option One", "Option Two", "Option Three"] },
                    "untitledMulti": { "type": "array", "description": "Select multiple options",
                                       "minItems": 1, "maxItems": 3,
                                       "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                    "titledMulti": { "type": "array", "description": "Select multiple options with titles",
                                     "minItems": 1, "maxItems": 3,
                                     "items": { "anyOf": [
                                         { "const": "value1", "title": "First Choice" },
                                         { "const": "value2", "title": "Second Choice" },
                                         { "const": "value3", "title": "Third Choice" }
                                     ] } }
                },
                "required": []
            });
            elicit(&ctx, "Please select options from the enum fields", schema).await
        }),
    )
    .tool_raw(
        tool(
            "json_schema_2020_12_tool",
            "A tool whose input schema uses JSON Schema 2020-12 features ($defs, $ref)",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": { "address": { "$anchor": "addressDef", "type": "object", "properties": {
                    "street": { "type": "string" }, "city": { "type": "string" } } } },
                "properties": {
                    "name": { "type": "string" },
                    "address": { "$ref": "#/$defs/address" },
                    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                    "phone": { "type": "string" },
                    "email": { "type": "string" }
                },
                "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
                "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
                "then": { "required": ["phone"] },
                "else": { "required": ["email"] },
                "additionalProperties": false
            }),
        ),
        tool_fn(|args, _| async move {
            text_result(format!(
                "JSON Schema 2020-12 tool called with: {}",
                Value::Object(args)
            ))
        }),
    )
    .tool_raw(
        tool(
            "test_reconnection",
            "Checks that the client reconnects after the server closes the request's stream (SEP-1699)",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            // Close this request's SSE stream (the client saw an event id and a retry hint);
            // the answer is kept in the event store and replayed when the client resumes.
            ctx.close_sse_stream();
            tokio::time::sleep(Duration::from_millis(100)).await;
            text_result("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")
        }),
    )
}

fn text_contents(uri: &str, mime: &str, text: &str) -> Value {
    json!([{ "uri": uri, "mimeType": mime, "text": text }])
}

fn add_resources(b: ferromcp::server::ServerBuilder) -> ferromcp::server::ServerBuilder {
    let res = |uri: &str, name: &str, title: &str, desc: &str, mime: &str| -> Resource {
        from_json(
            json!({ "uri": uri, "name": name, "title": title, "description": desc, "mimeType": mime }),
        )
    };
    b.resource(
        res(
            "test://static-text",
            "static-text",
            "Static Text Resource",
            "A static text resource for testing",
            "text/plain",
        ),
        resource_fn(|req, _| async move {
            Ok(from_json(text_contents(
                &req.uri,
                "text/plain",
                "This is the content of the static text resource.",
            )))
        }),
    )
    .resource(
        res(
            "test://static-binary",
            "static-binary",
            "Static Binary Resource",
            "A static binary resource (image) for testing",
            "image/png",
        ),
        resource_fn(|req, _| async move {
            Ok(from_json(
                json!([{ "uri": req.uri, "mimeType": "image/png", "blob": PNG }]),
            ))
        }),
    )
    .resource(
        res(
            "test://watched-resource",
            "watched-resource",
            "Watched Resource",
            "A resource that auto-updates every 3 seconds",
            "text/plain",
        ),
        resource_fn(|req, _| async move {
            Ok(from_json(text_contents(
                &req.uri,
                "text/plain",
                "Watched resource content",
            )))
        }),
    )
    .resource_template(
        from_json::<ResourceTemplate>(json!({
            "uriTemplate": "test://template/{id}/data", "name": "template",
            "title": "Resource Template",
            "description": "A resource template with parameter substitution",
            "mimeType": "application/json"
        })),
        resource_fn(|req, _| async move {
            let id = req.variables.get("id").cloned().unwrap_or_default();
            let body =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Ok(from_json(text_contents(
                &req.uri,
                "application/json",
                &body.to_string(),
            )))
        }),
    )
}

fn arg(args: &Map<String, Value>, name: &str) -> String {
    args.get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn simple_prompt() -> Prompt {
    from_json(
        json!({ "name": "test_simple_prompt", "title": "Simple Test Prompt",
                      "description": "A simple prompt without arguments" }),
    )
}

fn simple_prompt_handler() -> PromptFn {
    prompt_fn(|_, _| async {
        Ok(from_json(json!({ "messages": [
            { "role": "user", "content": { "type": "text", "text": "This is a simple prompt for testing." } }
        ] })))
    })
}

fn add_prompts(b: ferromcp::server::ServerBuilder) -> ferromcp::server::ServerBuilder {
    b.prompt(simple_prompt(), simple_prompt_handler())
    .prompt(
        from_json::<Prompt>(json!({ "name": "test_input_required_result_prompt",
            "description": "Asks for context (input_required) before it is built" })),
        prompt_fn(|_, ctx| async move {
            match accepted(&ctx, "user_context") {
                Some(c) => {
                    let text = format!("Context: {}", c["context"].as_str().unwrap_or_default());
                    Ok(from_json(json!({ "messages": [
                        { "role": "user", "content": { "type": "text", "text": text } } ] })))
                }
                None => Err(input_required(
                    inputs(vec![("user_context", elicit_input("What context should the prompt use?", "context", "string"))]),
                    None,
                )),
            }
        }),
    )
    .prompt(
        from_json::<Prompt>(json!({
            "name": "test_prompt_with_arguments", "title": "Prompt With Arguments",
            "description": "A prompt with required arguments",
            "arguments": [
                { "name": "arg1", "description": "First test argument", "required": true },
                { "name": "arg2", "description": "Second test argument", "required": true }
            ]
        })),
        prompt_fn(|args, _| async move {
            let text = format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg(&args, "arg1"),
                arg(&args, "arg2")
            );
            Ok(from_json(json!({ "messages": [
                { "role": "user", "content": { "type": "text", "text": text } }
            ] })))
        }),
    )
    .prompt(
        from_json::<Prompt>(json!({
            "name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource",
            "description": "A prompt that includes an embedded resource",
            "arguments": [
                { "name": "resourceUri", "description": "URI of the resource to embed", "required": true }
            ]
        })),
        prompt_fn(|args, _| async move {
            Ok(from_json(json!({ "messages": [
                { "role": "user", "content": { "type": "resource", "resource": {
                    "uri": arg(&args, "resourceUri"), "mimeType": "text/plain",
                    "text": "Embedded resource content for testing." } } },
                { "role": "user", "content": { "type": "text", "text": "Please process the embedded resource above." } }
            ] })))
        }),
    )
    .prompt(
        from_json::<Prompt>(json!({ "name": "test_prompt_with_image", "title": "Prompt With Image",
                                    "description": "A prompt that includes image content" })),
        prompt_fn(|_, _| async {
            Ok(from_json(json!({ "messages": [
                { "role": "user", "content": { "type": "image", "data": PNG, "mimeType": "image/png" } },
                { "role": "user", "content": { "type": "text", "text": "Please analyze the image above." } }
            ] })))
        }),
    )
}

/// Builds the everything server.
fn build() -> Result<Server, McpError> {
    // Replicas serving the same clients seal 2026-07-28 `requestState` with one shared key.
    let ring = match std::env::var("FERROMCP_REQUEST_STATE_KEY") {
        Ok(hex) => Some(ferromcp::session::KeyRing::new(vec![(
            "shared".into(),
            (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| McpError::invalid_params("FERROMCP_REQUEST_STATE_KEY must be hex"))?,
        )])?),
        Err(_) => None,
    };
    let b = Server::builder("mcp-conformance-test-server", "1.0.0").options(|o| {
        o.enable_tools = true;
        o.enable_resources = true;
        o.enable_prompts = true;
        // 2026-07-28 clients that declare it get task handles from the task-supporting tools.
        o.tasks_extension = true;
        if let Some(ring) = ring {
            o.session.request_state_keys = ring;
        }
    });
    let b = everything_task_tools::add_task_tools(add_tools(b));
    let server = add_prompts(add_resources(b)).build()?;
    let _ = SERVER.set(server.clone());
    // Completion: suggestions from a small fixed list, filtered by the typed prefix.
    server.set_completion_fallback(completion_fn(|p, _| async move {
        let prefix = p.argument.value.clone();
        let values: Vec<String> = ["test", "testValue1", "testValue2", "example"]
            .into_iter()
            .filter(|v| v.starts_with(&prefix))
            .map(str::to_string)
            .collect();
        let total = values.len() as u64;
        Ok(from_json(
            json!({ "values": values, "total": total, "hasMore": false }),
        ))
    }));
    Ok(server)
}

fn usage() -> ! {
    eprintln!("usage: everything-server [--transport stdio|http] [--port N] [--redis-url URL]");
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let mut transport = "stdio".to_string();
    let mut port: u16 = 3000;
    let mut redis_url = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--transport" => transport = args.next().unwrap_or_else(|| usage()),
            "--port" => {
                port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--redis-url" => redis_url = Some(args.next().unwrap_or_else(|| usage())),
            "-h" | "--help" => usage(),
            _ => usage(),
        }
    }
    let server = match build() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("everything-server: failed to build the server: {e}");
            std::process::exit(2);
        }
    };
    // The watched resource "changes" every 3 seconds: tell subscribers.
    let watcher = server.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(3));
        tick.tick().await;
        loop {
            tick.tick().await;
            watcher.notify_resource_updated("test://watched-resource");
        }
    });
    let outcome = match transport.as_str() {
        "stdio" => server.serve_stdio().await,
        "http" => serve_http(server, port, redis_url).await,
        _ => usage(),
    };
    if let Err(e) = outcome {
        eprintln!("everything-server: stopped: {e}");
        std::process::exit(1);
    }
}

/// Serves Streamable HTTP on 127.0.0.1:`port`, endpoint `/mcp`, until the process is stopped.
async fn serve_http(server: Server, port: u16, redis_url: Option<String>) -> Result<(), McpError> {
    use ferromcp::transport::http::{serve_http, HttpServerOptions};
    let options = HttpServerOptions::default()
        .with_retry_interval(Some(Duration::from_millis(5000)))
        .with_redis_url(redis_url);
    let handle = serve_http(server, ("127.0.0.1", port), options)
        .await
        .map_err(|e| McpError::internal(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
    eprintln!("everything-server: listening on {}", handle.url("/mcp"));
    handle
        .wait()
        .await
        .map_err(|e| McpError::internal(format!("HTTP server failed: {e}")))
}
