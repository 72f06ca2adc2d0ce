//! End-to-end over real stdio: the Rust `Client` spawns the `stdio-server` example binary through
//! `Client::spawn`, exercises tools (progress callback, `isError` for handler and argument failures, -32602 for an unknown tool), resources and prompts,
//! and `close()` leaves no child process behind.

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::session::RequestOptions;
use ferromcp::transport::ChildProcessOptions;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const T: Duration = Duration::from_secs(10);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(T, f).await.expect("timed out")
}

/// Pids of this process's children running the stdio-server binary.
fn server_children() -> Vec<u32> {
    let me = std::process::id();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let comm = &stat[stat.find('(').unwrap() + 1..close];
        let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        let ppid: u32 = fields.get(1).and_then(|p| p.parse().ok()).unwrap_or(0);
        if ppid == me && comm.starts_with("stdio-server") {
            out.push(pid);
        }
    }
    out
}

#[tokio::test]
async fn spawned_stdio_server_end_to_end() {
    assert!(server_children().is_empty());
    let process = ChildProcessOptions::new(env!("CARGO_BIN_EXE_stdio-server"));
    let client = within(Client::spawn(
        process,
        ClientOptions::new("e2e", "0"),
        ClientHandlers::default(),
    ))
    .await
    .expect("spawn and handshake");
    let pids = server_children();
    assert_eq!(pids.len(), 1, "one child server: {pids:?}");
    assert_eq!(client.server_info().unwrap()["name"], "ferromcp-example");
    assert!(client.instructions().is_some());

    // tools
    let names: Vec<String> = within(client.list_all_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    for n in ["echo", "add", "count", "divide"] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
    let r = within(client.call_tool("echo", json!({"text": "héllo\nworld"})))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("héllo\nworld"));
    let r = within(client.call_tool("add", json!({"a": 2, "b": 3.5})))
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"sum": 5.5})));

    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let s = seen.clone();
    let opts = RequestOptions::default()
        .with_on_progress(Some(Arc::new(move |p| s.lock().unwrap().push(p))));
    let r = within(client.call_tool_with("count", json!({"steps": 5}), opts))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("counted to 5"));
    let progress: Vec<f64> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, vec![1.0, 2.0, 3.0, 4.0, 5.0]);

    let r = within(client.call_tool("divide", json!({"a": 1, "b": 0})))
        .await
        .unwrap();
    assert!(r.is_error());
    assert_eq!(r.content[0].as_text(), Some("division by zero"));
    // Arguments the schema refuses: a tool execution error the model can read (SEP-1303).
    let r = within(client.call_tool("divide", json!({"a": "one", "b": 2})))
        .await
        .unwrap();
    assert!(r.is_error());
    let text = r.content[0].as_text().unwrap_or_default();
    assert!(
        text.starts_with("Invalid arguments of tool \"divide\":") && text.contains("/a: "),
        "{text}"
    );
    let err = within(client.call_tool("nope", json!({})))
        .await
        .unwrap_err();
    assert_eq!(err.code, codes::INVALID_PARAMS);

    // resources
    let list = within(client.list_resources(None)).await.unwrap();
    assert_eq!(list.resources[0].uri, "mem://greeting");
    let r = within(client.read_resource("mem://greeting"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r.contents[0]).unwrap()["text"],
        "hello"
    );
    let r = within(client.read_resource("mem://items/42"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r.contents[0]).unwrap()["text"],
        "item 42"
    );
    let err = within(client.read_resource("mem://missing"))
        .await
        .unwrap_err();
    assert_eq!(err.code, codes::RESOURCE_NOT_FOUND);

    // prompts
    let prompts = within(client.list_prompts(None)).await.unwrap();
    assert_eq!(prompts.prompts[0].name, "greet");
    let mut args = Map::new();
    args.insert("name".into(), json!("Ada"));
    let g = within(client.get_prompt("greet", args)).await.unwrap();
    let msg = serde_json::to_value(&g.messages[0]).unwrap();
    assert_eq!(msg["content"]["text"], "Please greet Ada warmly.");
    let err = within(client.get_prompt("greet", Map::new()))
        .await
        .unwrap_err();
    assert_eq!(err.code, codes::INVALID_PARAMS);

    within(client.ping()).await.unwrap();

    // close leaves no child behind
    within(client.close()).await;
    let pid = pids[0];
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "child {pid} still exists after close()"
    );
    assert!(server_children().is_empty());
}

/// The main demo (`scripts/demo` runs this client binary): every step prints what it saw, and
/// nothing it prints says something went unexpectedly (no Debug dumps, no "unexpectedly").
#[test]
fn the_demo_client_prints_a_clean_run() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stdio-client"))
        .output()
        .expect("run stdio-client");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "tools: echo, add, count, divide",
        "divide by zero -> isError=true: division by zero",
        "bad arguments -> isError=true: Invalid arguments of tool \"add\"",
        "mem://greeting -> hello",
        "closed cleanly",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    // Debug dumps: a struct's `Name {`, an Option's `Some(`/`None`.
    for unwanted in [
        "unexpectedly",
        "CallToolResult {",
        "McpError",
        "Some(",
        "None",
    ] {
        assert!(!text.contains(unwanted), "{unwanted:?} in:\n{text}");
    }
}
