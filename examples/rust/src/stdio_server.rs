//! A small MCP server over stdio, built with ferromcp's typed Rust API.
//!
//! Run it under any MCP client, e.g. `cargo run -p ferromcp-examples --bin stdio-client`,
//! which spawns this binary. Logs go to stderr; stdout carries only protocol messages.

use ferromcp::protocol::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, Resource, ResourceContents,
    ResourceTemplate, TextResourceContents,
};
use ferromcp::server::{prompt_fn, resource_fn, Json, Server, ToolError};
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: f64,
    /// Second addend.
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// How many steps to count (progress is reported for each).
    steps: u32,
}

#[derive(Deserialize, JsonSchema)]
struct DivideArgs {
    /// Dividend.
    a: f64,
    /// Divisor; zero is reported as a tool error.
    b: f64,
}

fn build() -> Result<Server, McpError> {
    Server::builder("ferromcp-example", env!("CARGO_PKG_VERSION"))
        .instructions("A demo server: echo, add, count (with progress), divide (with errors), a greeting resource and prompt.")
        .tool("echo", "Echoes the text back", |a: EchoArgs, _ctx| async move { a.text })
        .tool("add", "Adds two numbers (structured output)", |a: AddArgs, _ctx| async move { Json(Sum { sum: a.a + a.b }) })
        .tool("count", "Counts to `steps`, reporting progress", |a: CountArgs, ctx| async move {
            for i in 1..=a.steps {
                ctx.progress(i as f64, Some(a.steps as f64), Some(&format!("step {i}"))).await.ok();
                ctx.log("info", Some("count"), Value::String(format!("step {i} of {}", a.steps))).await.ok();
            }
            format!("counted to {}", a.steps)
        })
        .tool("divide", "Divides a by b", |a: DivideArgs, _ctx| async move {
            if a.b == 0.0 {
                Err(ToolError("division by zero".into()))
            } else {
                Ok(format!("{}", a.a / a.b))
            }
        })
        .resource(
            Resource::new("mem://greeting", "greeting").with_mime_type("text/plain"),
            resource_fn(|req, _ctx| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(req.uri, "hello"))])
            }),
        )
        .resource_template(
            ResourceTemplate::new("mem://items/{id}", "item"),
            resource_fn(|req, _ctx| async move {
                let id = req.variables.get("id").cloned().unwrap_or_default();
                Ok(vec![ResourceContents::Text(TextResourceContents::new(req.uri, format!("item {id}")))])
            }),
        )
        .prompt(
            Prompt::new("greet")
                .with_description("Greets someone")
                .with_arguments(vec![PromptArgument::new("name").with_required(true)]),
            prompt_fn(|args, _ctx| async move {
                let name = args.get("name").and_then(Value::as_str).unwrap_or("world").to_string();
                Ok(GetPromptResult::new(vec![PromptMessage::user_text(format!("Please greet {name} warmly."))])
                    .with_description("A greeting"))
            }),
        )
        .build()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = match build() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("failed to build the server: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = server.serve_stdio().await {
        eprintln!("server stopped: {e}");
        std::process::exit(1);
    }
}
