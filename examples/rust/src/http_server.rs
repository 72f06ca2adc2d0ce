//! A small MCP server over Streamable HTTP (and the legacy HTTP+SSE endpoints), built with
//! ferromcp's typed Rust API.
//!
//! Usage: `http-server [--port N]` (default 3000). Listens on 127.0.0.1; the MCP endpoint is
//! `/mcp`, the legacy endpoints are `/sse` and `/messages`.

use ferromcp::protocol::{Resource, ResourceContents, TextResourceContents};
use ferromcp::server::{resource_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// How many steps to count (progress is reported for each).
    steps: u32,
}

fn build() -> Result<Server, McpError> {
    Server::builder("ferromcp-http-example", env!("CARGO_PKG_VERSION"))
        .instructions(
            "A demo server over HTTP: echo, count (with progress) and a greeting resource.",
        )
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .tool(
            "count",
            "Counts to `steps`, reporting progress",
            |a: CountArgs, ctx| async move {
                for i in 1..=a.steps {
                    ctx.progress(i as f64, Some(a.steps as f64), Some(&format!("step {i}")))
                        .await
                        .ok();
                    ctx.log(
                        "info",
                        Some("count"),
                        Value::String(format!("step {i} of {}", a.steps)),
                    )
                    .await
                    .ok();
                }
                format!("counted to {}", a.steps)
            },
        )
        .resource(
            Resource::new("mem://greeting", "greeting").with_mime_type("text/plain"),
            resource_fn(|req, _ctx| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "hello",
                ))])
            }),
        )
        .build()
}

#[tokio::main]
async fn main() {
    let mut port: u16 = 3000;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => match args.next().and_then(|p| p.parse().ok()) {
                Some(p) => port = p,
                None => {
                    eprintln!("--port needs a number");
                    std::process::exit(2);
                }
            },
            other => {
                eprintln!("unknown argument {other:?}; usage: http-server [--port N]");
                std::process::exit(2);
            }
        }
    }
    let server = match build() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("failed to build the server: {e}");
            std::process::exit(2);
        }
    };
    let handle = match serve_http(server, ("127.0.0.1", port), HttpServerOptions::default()).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("cannot listen on 127.0.0.1:{port}: {e}");
            std::process::exit(1);
        }
    };
    eprintln!("MCP server listening on {}", handle.url("/mcp"));
    if let Err(e) = handle.wait().await {
        eprintln!("server stopped: {e}");
        std::process::exit(1);
    }
}
