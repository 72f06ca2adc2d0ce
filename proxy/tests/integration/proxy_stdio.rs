//! The proxy in front of the Rust everything-server over stdio: the surface passes unchanged
//! with one backend and namespaced with two, and progress, logs, sampling and completions go
//! through; a backend killed during a call gives a clear error and the next call works.

use crate::common;

use common::{client, config, first_text, proxy};
use ferromcp::client::ClientHandlers;
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::CreateMessageResult;
use ferromcp::session::RequestOptions;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn sampling_handlers(answer: &'static str, on_call: Arc<dyn Fn() + Send + Sync>) -> ClientHandlers {
    ClientHandlers::default().with_sampling(Some(Arc::new(move |_params, _ctx| {
        let on_call = on_call.clone();
        Box::pin(async move {
            on_call();
            let r: CreateMessageResult = serde_json::from_value(json!({
                "role": "assistant", "model": "test-model",
                "content": { "type": "text", "text": answer }
            }))
            .unwrap();
            Ok(r)
        })
    })))
}

#[tokio::test]
async fn one_backend_is_passed_through_unchanged() {
    let proxy = proxy(&config(&["everything"])).await;
    let c = client(&proxy, ClientHandlers::default()).await;
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"test_simple_text".to_string()), "{names:?}");
    assert!(
        names.contains(&"test_tool_with_progress".to_string()),
        "{names:?}"
    );
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_simple_text", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    let read = c.read_resource("test://static-text").await.unwrap();
    assert_eq!(read.contents[0].uri(), "test://static-text");
    let templated = c.read_resource("test://template/42/data").await.unwrap();
    assert_eq!(templated.contents[0].uri(), "test://template/42/data");
    let prompt = c
        .request("prompts/get", Some(json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "x", "arg2": "y" } })), RequestOptions::default())
        .await
        .unwrap();
    assert!(
        prompt["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains('x'),
        "{prompt}"
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn progress_and_logs_of_a_call_reach_the_client() {
    let proxy = proxy(&config(&["everything"])).await;
    let logs = Arc::new(Mutex::new(Vec::<Value>::new()));
    let seen = logs.clone();
    let handlers =
        ClientHandlers::default().with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/message" {
                seen.lock().unwrap().push(n.params.unwrap_or(Value::Null));
            }
        })));
    let c = client(&proxy, handlers).await;
    let progress = Arc::new(Mutex::new(Vec::<Value>::new()));
    let p = progress.clone();
    let opts = RequestOptions::default()
        .with_on_progress(Some(Arc::new(move |v| p.lock().unwrap().push(v))));
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_tool_with_progress", "arguments": {} })),
            opts,
        )
        .await
        .unwrap();
    let got: Vec<f64> = progress
        .lock()
        .unwrap()
        .iter()
        .filter_map(|v| v["progress"].as_f64())
        .collect();
    assert_eq!(got, vec![0.0, 50.0, 100.0]);
    assert_eq!(
        progress.lock().unwrap()[1]["message"],
        "Completed step 50 of 100"
    );
    // The backend saw the proxy's own token; the client's token is a number chosen by its client.
    assert!(!first_text(&r).is_empty());
    c.request(
        "tools/call",
        Some(json!({ "name": "test_tool_with_logging", "arguments": {} })),
        RequestOptions::default(),
    )
    .await
    .unwrap();
    let data: Vec<Value> = logs
        .lock()
        .unwrap()
        .iter()
        .map(|l| l["data"].clone())
        .collect();
    assert_eq!(
        data,
        vec![
            json!("Tool execution started"),
            json!("Tool processing data"),
            json!("Tool execution completed")
        ]
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_backends_sampling_request_goes_to_the_client_and_back() {
    let proxy = proxy(&config(&["everything"])).await;
    let c = client(&proxy, sampling_handlers("forty-two", Arc::new(|| {}))).await;
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_sampling", "arguments": { "prompt": "answer?" } })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "LLM response: forty-two");
    proxy.shutdown().await;
}

#[tokio::test]
async fn completions_are_routed_to_the_backend() {
    let proxy = proxy(&config(&["everything"])).await;
    let c = client(&proxy, ClientHandlers::default()).await;
    let r = c
        .request(
            "completion/complete",
            Some(
                json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                         "argument": { "name": "arg1", "value": "" } }),
            ),
            RequestOptions::default(),
        )
        .await;
    let direct = ferromcp::client::Client::spawn(
        ferromcp::transport::ChildProcessOptions::new(
            common::everything_server().display().to_string(),
        )
        .stderr(ferromcp::transport::StderrMode::Null),
        ferromcp::client::ClientOptions::new("direct", "0"),
        ClientHandlers::default(),
    )
    .await
    .unwrap();
    let expected = direct
        .request(
            "completion/complete",
            Some(
                json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                         "argument": { "name": "arg1", "value": "" } }),
            ),
            RequestOptions::default(),
        )
        .await;
    direct.close().await;
    match (r, expected) {
        (Ok(got), Ok(want)) => assert_eq!(got["completion"], want["completion"]),
        (Err(got), Err(want)) => assert_eq!((got.code, got.message), (want.code, want.message)),
        (got, want) => panic!("through the proxy {got:?}, direct {want:?}"),
    }
    proxy.shutdown().await;
}

#[tokio::test]
async fn two_backends_are_namespaced_and_map_back() {
    let proxy = proxy(&config(&["alpha", "beta"])).await;
    let c = client(&proxy, ClientHandlers::default()).await;
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(
        names.contains(&"alpha_test_simple_text".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"beta_test_simple_text".to_string()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"test_simple_text".to_string()),
        "{names:?}"
    );
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "beta_test_simple_text", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    let uris: Vec<String> = c
        .list_resources(None)
        .await
        .unwrap()
        .resources
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert!(
        uris.contains(&"alpha+test://static-text".to_string()),
        "{uris:?}"
    );
    let read = c.read_resource("beta+test://static-text").await.unwrap();
    assert_eq!(read.contents[0].uri(), "beta+test://static-text");
    let templated = c
        .read_resource("alpha+test://template/7/data")
        .await
        .unwrap();
    assert_eq!(templated.contents[0].uri(), "alpha+test://template/7/data");
    let embedded = c
        .request(
            "tools/call",
            Some(json!({ "name": "alpha_test_embedded_resource", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        embedded["content"][0]["resource"]["uri"],
        "alpha+test://embedded-resource"
    );
    let prompts: Vec<String> = c
        .list_prompts(None)
        .await
        .unwrap()
        .prompts
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert!(
        prompts.contains(&"beta_test_simple_prompt".to_string()),
        "{prompts:?}"
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_stdio_backend_killed_mid_call_gives_a_clear_error_and_the_next_call_works() {
    let proxy = Arc::new(proxy(&config(&["everything"])).await);
    let backend = proxy.backend("everything").unwrap().clone();
    let pid = backend.child_pid().expect("a stdio backend has a pid");
    // The backend waits for the client's sampling answer: kill it then, mid-call.
    let kill: Arc<dyn Fn() + Send + Sync> = Arc::new(move || {
        let status = std::process::Command::new("kill")
            .arg("-9")
            .arg(pid.to_string())
            .status()
            .unwrap();
        assert!(status.success());
    });
    let c = client(&proxy, sampling_handlers("never delivered", kill)).await;
    let err = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_sampling", "arguments": { "prompt": "p" } })),
            RequestOptions::default(),
        )
        .await
        .expect_err("the call cannot complete");
    assert_eq!(err.code, ferromcp::codes::INTERNAL_ERROR, "{err:?}");
    assert!(
        err.message
            .contains("backend \"everything\" closed its connection during tools/call"),
        "{err:?}"
    );
    assert_eq!(err.data.as_ref().unwrap()["backend"], "everything");
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_simple_text", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .expect("the next call goes to the restarted backend");
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    assert_eq!(backend.restarts(), 1);
    assert_ne!(backend.child_pid(), Some(pid));
    tokio::time::timeout(Duration::from_secs(5), proxy.shutdown())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_backend_that_cannot_start_is_reported_by_name() {
    let cfg = ferromcp_proxy::ProxyConfig::from_value(&json!({ "mcpServers": {
        "broken": { "command": "/nonexistent/ferromcp-no-such-server" } } }))
    .unwrap();
    let options = ferromcp_proxy::ProxyOptions {
        backend: ferromcp_proxy::BackendOptions {
            connect_wait: Duration::from_millis(300),
            ..Default::default()
        },
        ..Default::default()
    };
    let proxy = ferromcp_proxy::Proxy::start(&cfg, options).await.unwrap();
    let c = client(&proxy, ClientHandlers::default()).await;
    assert!(c.list_all_tools().await.unwrap().is_empty());
    let b = proxy.backend("broken").unwrap();
    let why = b.last_error().expect("down");
    assert!(
        why.contains("/nonexistent/ferromcp-no-such-server failed"),
        "{why}"
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_lazy_backend_starts_once_a_client_connects_and_announces_its_tools() {
    let bin = common::everything_server();
    let cfg = ferromcp_proxy::ProxyConfig::from_value(&json!({ "mcpServers": {
        "later": { "command": bin, "lazy": true } } }))
    .unwrap();
    let proxy = proxy(&cfg).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let backend = proxy.backend("later").unwrap().clone();
    assert_eq!(backend.child_pid(), None, "started before any client");
    let (tx, mut changed) = tokio::sync::mpsc::unbounded_channel();
    let handlers =
        ClientHandlers::default().with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == "notifications/tools/list_changed" {
                let _ = tx.send(());
            }
        })));
    let c = client(&proxy, handlers).await;
    tokio::time::timeout(Duration::from_secs(10), changed.recv())
        .await
        .expect("tools/list_changed once the backend is up");
    assert!(backend.child_pid().is_some());
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": "test_simple_text", "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    proxy.shutdown().await;
}
