//! A client that spawns the example stdio server and exercises it: the project's main demo.
//!
//! `cargo run -p ferromcp-examples --bin stdio-client [SERVER_COMMAND ARGS...]`
//! Without arguments it spawns the `stdio-server` binary that sits next to this one.

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::protocol::ResourceContents;
use ferromcp::session::RequestOptions;
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use serde_json::json;
use std::sync::Arc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        let me = std::env::current_exe()?;
        args.push(
            me.with_file_name("stdio-server")
                .to_string_lossy()
                .into_owned(),
        );
    }
    let program = args.remove(0);
    let process = ChildProcessOptions::new(&program)
        .args(args)
        .stderr(StderrMode::Inherit);
    let client = Client::spawn(
        process,
        ClientOptions::new("ferromcp-demo-client", "0.1.0"),
        ClientHandlers::default(),
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
        .call_tool("echo", json!({ "text": "hello from Rust" }))
        .await?;
    println!(
        "echo -> {}",
        echo.content.first().and_then(|c| c.as_text()).unwrap_or("")
    );

    let sum = client.call_tool("add", json!({ "a": 2, "b": 3 })).await?;
    println!("add -> {}", sum.structured_content.unwrap_or_default());

    let progress = RequestOptions::default().with_on_progress(Some(Arc::new(|p| {
        println!("  progress: {} / {}", p["progress"], p["total"])
    })));
    let counted = client
        .call_tool_with("count", json!({ "steps": 3 }), progress)
        .await?;
    println!(
        "count -> {}",
        counted
            .content
            .first()
            .and_then(|c| c.as_text())
            .unwrap_or("")
    );

    let failed = client
        .call_tool("divide", json!({ "a": 1, "b": 0 }))
        .await?;
    println!(
        "divide by zero -> isError={}: {}",
        failed.is_error.unwrap_or(false),
        failed
            .content
            .first()
            .and_then(|c| c.as_text())
            .unwrap_or("")
    );

    // Arguments that fail the tool's input schema are a tool error the model can read and
    // correct (SEP-1303): a result with isError, not a JSON-RPC error.
    let bad = client.call_tool("add", json!({ "a": "two" })).await?;
    println!(
        "bad arguments -> isError={}: {}",
        bad.is_error.unwrap_or(false),
        bad.content.first().and_then(|c| c.as_text()).unwrap_or("")
    );

    let greeting = client.read_resource("mem://greeting").await?;
    match greeting.contents.first() {
        Some(ResourceContents::Text(t)) => println!("{} -> {}", t.uri, t.text),
        Some(other) => println!("{} -> (binary)", other.uri()),
        None => println!("mem://greeting -> (no contents)"),
    }

    let mut prompt_args = serde_json::Map::new();
    prompt_args.insert("name".into(), json!("Ada"));
    let prompt = client.get_prompt("greet", prompt_args).await?;
    println!("prompt greet -> {} message(s)", prompt.messages.len());

    client.close().await;
    println!("closed cleanly");
    Ok(())
}
