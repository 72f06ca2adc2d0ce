//! [`ferromcp_proxy::MultiClient`]: one client over every server of an `mcpServers` document
//! (the Rust everything-server over stdio), names as the proxy gives them: unchanged with one
//! server, `server_name` and `server+uri` with several; an unknown name, a server that cannot
//! be started and a bad file are clear errors.

use crate::common;

use common::{config, everything_server, first_text};
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp_proxy::{MultiClient, ProxyConfig};
use serde_json::{json, Value};

fn options() -> ClientOptions {
    ClientOptions::new("multi-test", "1")
}

fn names(items: &[Value], key: &str) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| i[key].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn several_servers_are_one_client_with_namespaced_names() {
    let multi = MultiClient::connect(&config(&["a", "b"]), options(), ClientHandlers::default())
        .await
        .unwrap();
    assert_eq!(multi.names(), ["a", "b"]);
    let tools = names(&multi.list_tools().await.unwrap(), "name");
    assert!(
        tools.contains(&"a_test_simple_text".to_string())
            && tools.contains(&"b_test_simple_text".to_string())
            && !tools.contains(&"test_simple_text".to_string()),
        "{tools:?}"
    );
    let r = multi
        .call_tool("b_test_simple_text", json!({}), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    let resources = names(&multi.list_resources().await.unwrap(), "uri");
    assert!(
        resources.contains(&"a+test://static-text".to_string()),
        "{resources:?}"
    );
    let read = multi.read_resource("b+test://static-text").await.unwrap();
    assert_eq!(read["contents"][0]["uri"], "b+test://static-text");
    let prompts = names(&multi.list_prompts().await.unwrap(), "name");
    assert!(
        prompts.contains(&"a_test_simple_prompt".to_string()),
        "{prompts:?}"
    );
    let p = multi
        .get_prompt(
            "a_test_prompt_with_arguments",
            json!({ "arg1": "x", "arg2": "y" }),
        )
        .await
        .unwrap();
    assert!(
        p["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains('x'),
        "{p}"
    );
    // One server's own client, with its own names.
    let a = multi.client("a").unwrap();
    let r = a
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
    assert!(multi.client("c").is_none());
    let e = multi
        .call_tool("c_test_simple_text", json!({}), RequestOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert_eq!(
        e.message,
        "\"c_test_simple_text\" names no server: namespaced names start with one of a, b and '_'"
    );
    let e = multi.read_resource("test://static-text").await.unwrap_err();
    assert!(
        e.message
            .contains("namespaced URIs start with one of a, b and '+'"),
        "{}",
        e.message
    );
    multi.close().await;
}

#[tokio::test]
async fn one_server_keeps_its_names_and_a_file_is_read() {
    let dir = std::env::temp_dir().join(format!("ferromcp-multi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mcp.json");
    std::fs::write(
        &path,
        json!({ "mcpServers": { "only": { "command": everything_server() } } }).to_string(),
    )
    .unwrap();
    let multi = MultiClient::from_config(&path, options(), ClientHandlers::default())
        .await
        .unwrap();
    let r = multi
        .call_tool("test_simple_text", json!({}), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    let read = multi.read_resource("test://static-text").await.unwrap();
    assert_eq!(read["contents"][0]["uri"], "test://static-text");
    multi.close().await;
    std::fs::write(&path, r#"{"mcpServers": {"a": {"command": 1}}}"#).unwrap();
    let e = MultiClient::from_config(&path, options(), ClientHandlers::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert!(
        e.message
            .starts_with(&format!("{}: mcpServers.a.command", path.display())),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_server_that_cannot_start_fails_the_connect_naming_it() {
    let config = ProxyConfig::from_value(&json!({ "mcpServers": {
        "good": { "command": everything_server() },
        "broken": { "command": "/nonexistent/mcp-server" },
    } }))
    .unwrap();
    let e = MultiClient::connect(&config, options(), ClientHandlers::default())
        .await
        .unwrap_err();
    assert!(
        e.message
            .starts_with("server \"broken\" could not be connected (/nonexistent/mcp-server): "),
        "{}",
        e.message
    );
}
