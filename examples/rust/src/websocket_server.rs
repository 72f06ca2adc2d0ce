//! An MCP server over WebSocket: every accepted connection is its own session of one shared
//! `Server`.
//!
//! `cargo run -p ferromcp-examples --bin websocket-server [ADDR]` (default `127.0.0.1:8765`;
//! port 0 picks a free port). The first stdout line is `listening on ws://HOST:PORT/mcp`; try it
//! with `cargo run -p ferromcp-examples --bin websocket-client ws://HOST:PORT/mcp`.

use ferromcp::server::{Json, Server};
use ferromcp::transport::websocket::WebSocketListener;
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::io::Write;

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

#[derive(Serialize, JsonSchema)]
struct Counted {
    /// The number reached.
    reached: u32,
}

fn build() -> Result<Server, McpError> {
    Server::builder("ferromcp-websocket-example", env!("CARGO_PKG_VERSION"))
        .instructions("A demo server over WebSocket: echo, and count (with progress).")
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
                }
                Json(Counted { reached: a.steps })
            },
        )
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8765".into());
    let server = build()?;
    let mut listener = WebSocketListener::bind(&addr).await?;
    println!("listening on ws://{}/mcp", listener.local_addr());
    std::io::stdout().flush()?;
    loop {
        let (reader, writer, peer) = listener.accept().await?;
        eprintln!("session from {peer}");
        let server = server.clone();
        tokio::spawn(async move {
            if let Err(e) = server.serve(reader, writer).await {
                eprintln!("session from {peer} ended with an error: {e}");
            } else {
                eprintln!("session from {peer} ended");
            }
        });
    }
}
