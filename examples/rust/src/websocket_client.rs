//! An MCP client over WebSocket: connects to the `websocket-server` example (or any MCP server
//! speaking the `mcp` WebSocket subprotocol), lists its tools and calls them.
//!
//! `cargo run -p ferromcp-examples --bin websocket-client [URL]` (default
//! `ws://127.0.0.1:8765/mcp`).

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::websocket;
use serde_json::json;
use std::sync::Arc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "ws://127.0.0.1:8765/mcp".into());
    let (reader, writer) = websocket::connect(&url, &[]).await?;
    let client = Client::connect(
        ClientOptions::new("ferromcp-websocket-client", env!("CARGO_PKG_VERSION")),
        ClientHandlers::default(),
        reader,
        writer,
    )
    .await?;
    println!(
        "connected to {} (protocol {})",
        client.server_info().cloned().unwrap_or_default(),
        client.protocol_version()
    );

    let tools = client.list_all_tools().await?;
    println!(
        "tools: {}",
        tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );

    let echo = client
        .call_tool("echo", json!({ "text": "hello over WebSocket" }))
        .await?;
    println!(
        "echo -> {}",
        echo.content.first().and_then(|c| c.as_text()).unwrap_or("")
    );

    let progress = RequestOptions::default().with_on_progress(Some(Arc::new(|p| {
        println!("  progress: {} / {}", p["progress"], p["total"])
    })));
    let counted = client
        .call_tool_with("count", json!({ "steps": 3 }), progress)
        .await?;
    println!(
        "count -> {}",
        counted.structured_content.unwrap_or_default()
    );

    client.close().await;
    println!("closed cleanly");
    Ok(())
}
