//! The interop server: the small fixed surface of `tests/interop/SURFACE.md` (tools `echo`,
//! `add`, `progress`, `log`, `fail`; resource `mem://greeting`; template `mem://items/{id}`;
//! prompt `greet`) that the official Python and TypeScript SDK clients check.
//!
//! `interop-server [--transport stdio|http] [--port N] [--compression on|off|always]` (default
//! stdio; HTTP binds 127.0.0.1 and serves `/mcp`; `--compression`: the HTTP server's
//! `Content-Encoding`, on by default, `always` encoding every JSON and SSE answer whatever its
//! size, `off` none). Logs go to stderr only.

use ferromcp::protocol::{CallToolResult, Prompt, Resource, ResourceTemplate, Tool};
use ferromcp::server::{prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::McpError;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::time::Duration;

/// Builds a protocol value from its JSON form.
fn from_json<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("fixed JSON matches the protocol types")
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name)
        .with_description(description)
        .with_input_schema(schema)
}

/// A number written the way JSON (and JavaScript) writes it: `3`, not `3.0`; `2.5`.
fn shortest_number(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn build() -> Result<Server, McpError> {
    Server::builder("interop-rust-server", "1.0.0")
        .tool_raw(
            tool(
                "echo",
                "Echoes the text back unchanged",
                json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
            ),
            tool_fn(|args, _| async move {
                let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
                Ok(CallToolResult::text(text))
            }),
        )
        .tool_raw(
            tool(
                "add",
                "Adds two numbers",
                json!({ "type": "object",
                        "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                        "required": ["a", "b"] }),
            ),
            tool_fn(|args, _| async move {
                let n = |k: &str| args.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                Ok(CallToolResult::text(shortest_number(n("a") + n("b"))))
            }),
        )
        .tool_raw(
            tool(
                "progress",
                "Reports progress for each step, then answers \"done\"",
                json!({ "type": "object",
                        "properties": { "steps": { "type": "integer", "minimum": 0, "default": 3 } } }),
            ),
            tool_fn(|args, ctx| async move {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
                for i in 1..=steps {
                    let msg = format!("step {i} of {steps}");
                    ctx.progress(i as f64, Some(steps as f64), Some(&msg)).await.ok();
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Ok(CallToolResult::text("done"))
            }),
        )
        .tool_raw(
            tool(
                "log",
                "Sends one log message at the given level",
                json!({ "type": "object", "properties": {
                    "message": { "type": "string", "default": "hello from log" },
                    "level": { "type": "string", "default": "info",
                               "enum": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] }
                } }),
            ),
            tool_fn(|args, ctx| async move {
                let message = args
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("hello from log");
                let level = args.get("level").and_then(Value::as_str).unwrap_or("info");
                ctx.log(level, Some("interop"), json!(message)).await?;
                Ok(CallToolResult::text("logged"))
            }),
        )
        .tool_raw(
            tool(
                "fail",
                "Always fails with a tool error",
                json!({ "type": "object", "properties": {} }),
            ),
            tool_fn(|_, _| async { Ok(CallToolResult::error_text("intentional failure")) }),
        )
        .resource(
            from_json::<Resource>(json!({ "uri": "mem://greeting", "name": "greeting", "mimeType": "text/plain" })),
            resource_fn(|req, _| async move {
                Ok(from_json(json!([{ "uri": req.uri, "mimeType": "text/plain", "text": "hello" }])))
            }),
        )
        .resource_template(
            from_json::<ResourceTemplate>(json!({ "uriTemplate": "mem://items/{id}", "name": "item", "mimeType": "text/plain" })),
            resource_fn(|req, _| async move {
                let id = req.variables.get("id").cloned().unwrap_or_default();
                Ok(from_json(json!([{ "uri": req.uri, "mimeType": "text/plain", "text": format!("item {id}") }])))
            }),
        )
        .prompt(
            from_json::<Prompt>(json!({
                "name": "greet", "description": "Greets someone by name",
                "arguments": [{ "name": "name", "description": "Who to greet", "required": true }]
            })),
            prompt_fn(|args, _| async move {
                let name = args.get("name").and_then(Value::as_str).unwrap_or("world");
                Ok(from_json(json!({ "messages": [
                    { "role": "user", "content": { "type": "text", "text": format!("Hello, {name}!") } }
                ] })))
            }),
        )
        .build()
}

fn usage() -> ! {
    eprintln!(
        "usage: interop-server [--transport stdio|http] [--port N] [--compression on|off|always]"
    );
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let mut transport = "stdio".to_string();
    let mut port: u16 = 3000;
    let mut compression = Some(ferromcp::transport::http::CompressionOptions::default());
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
            "--compression" => {
                compression = match args.next().as_deref() {
                    Some("on") => compression,
                    Some("off") => None,
                    Some("always") => Some(
                        ferromcp::transport::http::CompressionOptions::default().with_min_size(0),
                    ),
                    _ => usage(),
                }
            }
            _ => usage(),
        }
    }
    let server = match build() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("interop-server: failed to build the server: {e}");
            std::process::exit(2);
        }
    };
    let outcome = match transport.as_str() {
        "stdio" => server.serve_stdio().await,
        "http" => serve_http(server, port, compression).await,
        _ => usage(),
    };
    if let Err(e) = outcome {
        eprintln!("interop-server: stopped: {e}");
        std::process::exit(1);
    }
}

/// Serves Streamable HTTP on 127.0.0.1:`port`, endpoint `/mcp`, until the process is stopped.
async fn serve_http(
    server: Server,
    port: u16,
    compression: Option<ferromcp::transport::http::CompressionOptions>,
) -> Result<(), McpError> {
    use ferromcp::transport::http::{serve_http, HttpServerOptions};
    let options = HttpServerOptions::default()
        .with_retry_interval(Some(Duration::from_millis(5000)))
        .with_compression(compression);
    let handle = serve_http(server, ("127.0.0.1", port), options)
        .await
        .map_err(|e| McpError::internal(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
    eprintln!("interop-server: listening on {}", handle.url("/mcp"));
    handle
        .wait()
        .await
        .map_err(|e| McpError::internal(format!("HTTP server failed: {e}")))
}
