//! Which backend tools the proxy runs as tasks (docs/gateway.md, "Tasks"): only those of a
//! backend that declares tasks on its connection (`tasks.requests.tools.call` in the handshake
//! era, the tasks extension in 2026-07-28). A tool whose `execution.taskSupport` says
//! `required` at a backend that declares no tasks (here one speaking 2025-06-18, which has no
//! tasks and refuses a task-augmented call) is offered and called as a plain tool, so a
//! client's plain call reaches it and the proxy declares no tasks for it.

use crate::common::{client_in, in_process_proxy};
use crate::common_task_tools::sleeping;
use ferromcp::client::{ClientHandlers, ProtocolMode};
use ferromcp::protocol::{ProtocolVersion, TaskSupport, Tool};
use ferromcp::server::{Server, ServerOptions};
use ferromcp_proxy::ProxyOptions;
use serde_json::json;

/// A backend speaking 2025-06-18 only whose `job` says it must run as a task.
fn backend() -> Server {
    let mut options = ServerOptions::new("older", "1");
    options.session.supported_versions = vec![ProtocolVersion::V2025_06_18];
    Server::builder_with(options)
        .tool_raw(
            Tool::new("job").with_task_support(TaskSupport::Required),
            sleeping("older: ", Default::default()),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_backend_without_tasks_has_its_tools_called_plainly() {
    let proxy = in_process_proxy("older", backend(), ProxyOptions::default()).await;
    let c = client_in(
        &proxy,
        "task-capabilities-test",
        ProtocolMode::Handshake,
        ClientHandlers::default(),
    )
    .await;
    assert_eq!(c.protocol_version(), ProtocolVersion::V2025_11_25);
    let caps = c.server_capabilities().cloned().unwrap_or_default();
    assert!(caps.get("tasks").is_none(), "{caps}");
    let tools = c.list_all_tools().await.unwrap();
    let job = tools.iter().find(|t| t.name == "job").expect("job listed");
    assert_eq!(job.task_support(), TaskSupport::Forbidden, "{job:?}");
    let r = c.call_tool("job", json!({ "ms": 10 })).await.unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "older: slept 10 ms"
    );
    c.close().await;
    proxy.shutdown().await;
}
