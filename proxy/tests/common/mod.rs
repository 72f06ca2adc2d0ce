//! What the proxy's tests share: the Rust everything-server as a backend, a proxy over a
//! configuration or over one in-process backend, and a client connected to the proxy in memory.

#![allow(dead_code)]

use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::server::Server;
use ferromcp::transport::memory_pair;
use ferromcp_proxy::{BackendOptions, InProcessBackend, Proxy, ProxyConfig, ProxyOptions};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The Rust everything-server binary: `$FERROMCP_EVERYTHING_SERVER`, else beside this test's
/// target directory (`cargo build -p ferromcp-examples --bin everything-server` makes it; a
/// workspace `cargo test` builds it too).
pub fn everything_server() -> PathBuf {
    if let Some(p) = std::env::var_os("FERROMCP_EVERYTHING_SERVER") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let bin = dir.join("everything-server");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build -p ferromcp-examples --bin everything-server` \
         (or set FERROMCP_EVERYTHING_SERVER)",
        bin.display()
    );
    bin
}

/// The Rust example stdio-server binary (`echo`, `add`, `count`, `divide`, `mem://greeting`,
/// `greet`: nothing in common with the everything-server), beside the everything-server
/// (`cargo build -p ferromcp-examples --bin stdio-server`; a workspace `cargo test` builds it).
pub fn stdio_server() -> PathBuf {
    let bin = everything_server().with_file_name("stdio-server");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build -p ferromcp-examples --bin stdio-server`",
        bin.display()
    );
    bin
}

/// An `mcpServers` config with the everything-server (stdio) under each of `names`.
pub fn config(names: &[&str]) -> ProxyConfig {
    let bin = everything_server();
    let mut servers = serde_json::Map::new();
    for n in names {
        servers.insert(
            (*n).to_string(),
            json!({ "command": bin, "args": ["--transport", "stdio"] }),
        );
    }
    ProxyConfig::from_value(&json!({ "mcpServers": servers })).expect("valid config")
}

/// Starts a proxy over `config` (backend stderr silenced).
pub async fn proxy(config: &ProxyConfig) -> Proxy {
    let options = ProxyOptions {
        backend: BackendOptions {
            stderr: ferromcp::transport::StderrMode::Null,
            ..Default::default()
        },
        ..Default::default()
    };
    Proxy::start(config, options).await.expect("proxy starts")
}

/// Starts a proxy whose one backend is `server`, in process, under `name`.
pub async fn in_process_proxy(name: &str, server: Server, options: ProxyOptions) -> Proxy {
    Proxy::start_with(None, vec![InProcessBackend::new(name, server)], options)
        .await
        .expect("proxy starts")
}

/// A client with `options` and `handlers` connected to the proxy's server in memory.
pub async fn connect(proxy: &Proxy, options: ClientOptions, handlers: ClientHandlers) -> Client {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
    let server = proxy.server().clone();
    tokio::spawn(async move {
        let _ = server.serve(r_s, w_s).await;
    });
    Client::connect(options, handlers, r_c, w_c)
        .await
        .expect("client connects to the proxy")
}

/// A client named `name` of protocol mode `mode` connected to the proxy's server in memory.
pub async fn client_in(
    proxy: &Proxy,
    name: &str,
    mode: ProtocolMode,
    handlers: ClientHandlers,
) -> Client {
    let mut options = ClientOptions::new(name, "0");
    options.mode = mode;
    connect(proxy, options, handlers).await
}

/// A client connected to the proxy's server in memory, with `handlers`.
pub async fn client(proxy: &Proxy, handlers: ClientHandlers) -> Client {
    connect(proxy, ClientOptions::new("proxy-test", "0"), handlers).await
}

/// The text of a tool result's first content block.
pub fn first_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Starts the everything-server over HTTP on a free port (Streamable HTTP at `/mcp`, the
/// legacy HTTP+SSE endpoints at `/sse` and `/messages`); returns it and its `/mcp` URL.
pub async fn http_backend() -> (std::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(everything_server())
        .args(["--transport", "http", "--port", &port.to_string()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (child, format!("http://127.0.0.1:{port}/mcp"));
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    child.kill().ok();
    child.wait().ok();
    panic!("the everything-server did not listen on {port}");
}

/// Adds the two task tools whose backend task ends without a result (each must run as a task):
/// `refuses` ends failed saying "quota exhausted at the backend" (its error says "quota"),
/// `withdraws` ends cancelled saying "withdrawn by the backend".
pub fn with_unfinished_task_tools(
    builder: ferromcp::server::ServerBuilder,
) -> ferromcp::server::ServerBuilder {
    use ferromcp::protocol::{TaskStatus, TaskSupport, Tool};
    use ferromcp::server::tool_fn;
    use ferromcp::McpError;
    use std::time::Duration;
    let required = |tool: &str| Tool::new(tool).with_task_support(TaskSupport::Required);
    builder
        .tool_raw(
            required("refuses"),
            tool_fn(|_, ctx| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.report_task_status(TaskStatus::Failed, Some("quota exhausted at the backend"));
                Err(McpError::internal("quota"))
            }),
        )
        .tool_raw(
            required("withdraws"),
            tool_fn(|_, ctx| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.report_task_status(TaskStatus::Cancelled, Some("withdrawn by the backend"));
                Err(McpError::internal("withdrawn"))
            }),
        )
}

/// Calls [`with_unfinished_task_tools`]' tools as tasks through `c` and checks that the proxy's
/// tasks end as the backend's did: `refuses` failed, `withdraws` cancelled, each with the
/// backend's message. `case` names the case in a failure.
pub async fn assert_tasks_end_as_the_backends(c: &Client, case: &str) {
    use ferromcp::protocol::TaskStatus;
    for (tool, error, status, message) in [
        (
            "refuses",
            "quota",
            TaskStatus::Failed,
            "quota exhausted at the backend",
        ),
        (
            "withdraws",
            "cancelled",
            TaskStatus::Cancelled,
            "withdrawn by the backend",
        ),
    ] {
        let id = c
            .call_tool_as_task(tool, json!({}), None)
            .await
            .unwrap()
            .task
            .task_id;
        let e = c.get_task_result(&id).await.unwrap_err();
        assert!(e.message.contains(error), "{case}: {tool}: {e}");
        let t = c.get_task(&id).await.unwrap().task;
        assert_eq!(t.status, status, "{case}: {tool}");
        assert_eq!(t.status_message.as_deref(), Some(message), "{case}: {tool}");
    }
}
