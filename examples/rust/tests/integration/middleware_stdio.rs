//! The middleware example over real stdio: `Client::spawn` starts the `middleware-server`
//! binary; its own layer refuses `admin_*` tools to a client not named `admin` (-32003) and
//! lets an `admin` client through, masking hides the failing tool's detail, and the fourth
//! `tools/call` of a session within 10 s is refused with -32004 and its retryAfter, limit and
//! window, while other methods still answer.

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use serde_json::json;
use std::time::Duration;

const T: Duration = Duration::from_secs(10);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(T, f).await.expect("timed out")
}

async fn spawn(name: &str) -> Client {
    let process =
        ChildProcessOptions::new(env!("CARGO_BIN_EXE_middleware-server")).stderr(StderrMode::Null);
    within(Client::spawn(
        process,
        ClientOptions::new(name, "0"),
        ClientHandlers::default(),
    ))
    .await
    .expect("spawn and handshake")
}

#[tokio::test]
async fn middleware_example_over_stdio() {
    let client = spawn("guest").await;
    let err = within(client.call_tool("admin_reset", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (-32003, "Permission denied")
    );
    let err = within(client.call_tool("fragile", json!({})))
        .await
        .unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32603, "Internal error"));
    assert_eq!(err.data, None, "the detail stays in the server's log");
    // Two calls above, one more within the limit of 3 per 10 s, then refused.
    let r = within(client.call_tool("echo", json!({ "text": "hi" })))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("hi"));
    let err = within(client.call_tool("echo", json!({ "text": "hi" })))
        .await
        .unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32004, "Rate limited"));
    let data = err.data.expect("data");
    assert_eq!(
        (data["limit"].clone(), data["window"].clone()),
        (json!(3), json!(10))
    );
    let retry = data["retryAfter"].as_f64().unwrap();
    assert!(retry > 0.0 && retry <= 10.0 / 3.0, "{retry}");
    // Methods the limit does not name still answer.
    assert_eq!(within(client.list_all_tools()).await.unwrap().len(), 3);
    client.close().await;

    let admin = spawn("admin").await;
    let r = within(admin.call_tool("admin_reset", json!({})))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("reset done"));
    admin.close().await;
}
