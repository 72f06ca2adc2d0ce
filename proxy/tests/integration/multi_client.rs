//! [`ferromcp_proxy::MultiClient`]: one client over every server of an `mcpServers` document
//! (the Rust everything-server and the example stdio-server, over stdio), names as the proxy
//! gives them: unchanged with one server, `server_name` and `server+uri` with several, each
//! call reaching its own server; an unknown name, a server that cannot be started and a bad
//! file are clear errors.

use crate::common;

use common::{everything_server, first_text, stdio_server};
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

/// Two different servers (the everything-server as `a`, the example stdio-server as `b`): each
/// namespaced call reaches its own server, shown by each answering what only it can and the
/// other's names being unknown at the server they are sent to.
#[tokio::test]
async fn several_servers_are_one_client_with_namespaced_names() {
    let config = ProxyConfig::from_value(&json!({ "mcpServers": {
        "a": { "command": everything_server(), "args": ["--transport", "stdio"] },
        "b": { "command": stdio_server() },
    } }))
    .unwrap();
    let multi = MultiClient::connect(&config, options(), ClientHandlers::default())
        .await
        .unwrap();
    assert_eq!(multi.names(), ["a", "b"]);
    let tools = names(&multi.list_tools().await.unwrap(), "name");
    for (present, absent) in [
        ("a_test_simple_text", "b_test_simple_text"),
        ("b_echo", "a_echo"),
        ("b_divide", "a_divide"),
    ] {
        assert!(
            tools.contains(&present.to_string()) && !tools.contains(&absent.to_string()),
            "{present} without {absent} in {tools:?}"
        );
    }
    assert!(
        !tools.contains(&"test_simple_text".to_string()),
        "{tools:?}"
    );
    let r = multi
        .call_tool("a_test_simple_text", json!({}), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(
        first_text(&r),
        "This is a simple text response for testing."
    );
    let r = multi
        .call_tool(
            "b_echo",
            json!({ "text": "routed" }),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "routed");
    let r = multi
        .call_tool(
            "b_divide",
            json!({ "a": 1, "b": 0 }),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        (first_text(&r).as_str(), &r["isError"]),
        ("division by zero", &json!(true))
    );
    // The other server's tool, under this server's namespace: sent to this server, which
    // does not know it.
    let e = multi
        .call_tool("b_test_simple_text", json!({}), RequestOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602, "{e}");
    assert!(e.message.contains("test_simple_text"), "{e}");
    let e = multi
        .call_tool("a_echo", json!({ "text": "x" }), RequestOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602, "{e}");

    let resources = names(&multi.list_resources().await.unwrap(), "uri");
    assert!(
        resources.contains(&"a+test://static-text".to_string())
            && resources.contains(&"b+mem://greeting".to_string())
            && !resources.contains(&"a+mem://greeting".to_string())
            && !resources.contains(&"b+test://static-text".to_string()),
        "{resources:?}"
    );
    let read = multi.read_resource("b+mem://greeting").await.unwrap();
    assert_eq!(read["contents"][0]["uri"], "b+mem://greeting");
    assert_eq!(read["contents"][0]["text"], "hello");
    let read = multi.read_resource("a+test://static-text").await.unwrap();
    assert_eq!(read["contents"][0]["uri"], "a+test://static-text");
    assert_eq!(
        read["contents"][0]["text"],
        "This is the content of the static text resource."
    );
    assert!(multi.read_resource("a+mem://greeting").await.is_err());

    let prompts = names(&multi.list_prompts().await.unwrap(), "name");
    assert!(
        prompts.contains(&"a_test_simple_prompt".to_string())
            && prompts.contains(&"b_greet".to_string())
            && !prompts.contains(&"a_greet".to_string()),
        "{prompts:?}"
    );
    let p = multi
        .get_prompt("b_greet", json!({ "name": "Ada" }))
        .await
        .unwrap();
    assert_eq!(
        p["messages"][0]["content"]["text"],
        "Please greet Ada warmly."
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
    assert!(multi
        .get_prompt("a_greet", json!({ "name": "Ada" }))
        .await
        .is_err());
    // Each server's own client, with its own names.
    let a = multi.client("a").unwrap();
    let b = multi.client("b").unwrap();
    assert_eq!(b.server_info().unwrap()["name"], "ferromcp-example");
    assert_ne!(
        a.server_info().unwrap()["name"],
        b.server_info().unwrap()["name"]
    );
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
