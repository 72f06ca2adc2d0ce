//! Proves the bindings' composition seam (`embed/compose.rs`): `EmbeddedServer::mount` and
//! `import_server` reach the engine's composition (what a binding registers on the servers is served through the mount), and
//! `add_transformed_tool_json` makes a tool from its JSON transform with the output reshaped
//! by a foreign function; its refusals and the wording of a failed reshape. Scenario names as
//! in composition.rs and tool_transform.rs where the scenario is the same.

use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, ToolFn};
use ferromcp::McpError;
use ferromcp_embed::{
    CallOptions, ClientConfig, EmbeddedClient, EmbeddedServer, ForeignOutputReshape,
};
use serde_json::{json, Value};
use std::sync::Arc;

/// Answers `{"args": <its arguments>, "hits": ["hit 0", ...]}` (`limit` hits, 2 by default).
/// (A Rust handler: what the seam under test adds does not depend on the handler's language.)
fn search() -> ToolFn {
    tool_fn(|args, _ctx| async move {
        let n = args.get("limit").and_then(Value::as_u64).unwrap_or(2);
        let hits: Vec<String> = (0..n).map(|i| format!("hit {i}")).collect();
        Ok(CallToolResult::structured(
            json!({ "args": args, "hits": hits }),
        ))
    })
}

fn tool(definition: Value) -> Tool {
    serde_json::from_value(definition).unwrap()
}

/// Counts the hits; fails (as a foreign function raising an exception of its language) when
/// there are none, and raises an MCP error -32004 (as a user's `McpError`) for more than 5.
struct Count;

impl ForeignOutputReshape for Count {
    fn reshape(&self, v: Value) -> Result<Value, McpError> {
        match v["hits"].as_array() {
            Some(h) if h.len() > 5 => {
                Err(McpError::new(-32004, "too many hits to count")
                    .with_data(json!({ "limit": 5 })))
            }
            Some(h) if !h.is_empty() => Ok(json!({ "count": h.len() })),
            _ => Err(McpError::handler_exception("no hits to count")),
        }
    }
}

fn search_server() -> EmbeddedServer {
    let s = EmbeddedServer::from_json(json!({ "name": "t", "version": "1" })).unwrap();
    s.server()
        .add_tool(
            tool(json!({ "name": "search", "inputSchema": { "type": "object",
                "properties": { "q": { "type": "string" }, "index": { "type": "string" },
                                "limit": { "type": "integer" } },
                "required": ["q", "index"] } })),
            search(),
        )
        .unwrap();
    s
}

async fn client(server: &EmbeddedServer) -> EmbeddedClient {
    EmbeddedClient::connect_memory(server, &ClientConfig::default(), None)
        .await
        .unwrap()
}

async fn call(c: &EmbeddedClient, name: &str, args: Value) -> Result<Value, McpError> {
    c.request(
        "tools/call",
        Some(json!({ "name": name, "arguments": args })),
        CallOptions::default(),
    )
    .await
}

async fn tool_names(c: &EmbeddedClient) -> Vec<String> {
    let r = c
        .request("tools/list", None, CallOptions::default())
        .await
        .unwrap();
    r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn calls_reach_the_mounted_server() {
    let main = EmbeddedServer::from_json(json!({ "name": "main", "version": "1" })).unwrap();
    let child = search_server();
    main.mount("docs", &child).unwrap();
    let c = client(&main).await;
    assert_eq!(tool_names(&c).await, ["docs_search"]);
    let r = call(&c, "docs_search", json!({ "q": "x", "index": "i" }))
        .await
        .unwrap();
    assert_eq!(r["structuredContent"]["args"]["q"], "x");
    // Live: a tool added to the mounted server later shows.
    child
        .server()
        .add_tool(
            tool(json!({ "name": "later", "inputSchema": { "type": "object" } })),
            search(),
        )
        .unwrap();
    assert_eq!(tool_names(&c).await, ["docs_search", "docs_later"]);
}

#[tokio::test]
async fn imported_items_are_copied_once() {
    let main = EmbeddedServer::from_json(json!({ "name": "main", "version": "1" })).unwrap();
    let child = search_server();
    main.import_server("docs", &child).unwrap();
    child
        .server()
        .add_tool(
            tool(json!({ "name": "later", "inputSchema": { "type": "object" } })),
            search(),
        )
        .unwrap();
    let c = client(&main).await;
    assert_eq!(tool_names(&c).await, ["docs_search"]);
}

#[tokio::test]
async fn bad_mounts_are_refused() {
    let s = search_server();
    assert_eq!(s.mount("me", &s).unwrap_err().code, -32602);
    assert_eq!(s.mount("a/b", &search_server()).unwrap_err().code, -32602);
    s.mount("o", &search_server()).unwrap();
    assert_eq!(s.mount("o", &search_server()).unwrap_err().code, -32602);
}

#[tokio::test]
async fn renamed_arguments_reach_the_original_under_their_old_names() {
    let s = search_server();
    s.add_transformed_tool_json(
        "search",
        json!({ "name": "find", "description": "Find documents.",
                "arguments": { "q": { "name": "query" },
                               "index": { "hide": true, "default": "docs" } } }),
        None,
        None,
    )
    .unwrap();
    let c = client(&s).await;
    let r = call(&c, "find", json!({ "query": "rust" })).await.unwrap();
    assert_eq!(
        r["structuredContent"]["args"],
        json!({ "q": "rust", "index": "docs" })
    );
}

#[tokio::test]
async fn reshaped_output_is_validated_against_the_new_schema() {
    let s = search_server();
    let schema = json!({ "type": "object", "properties": { "count": { "type": "integer" } },
                         "required": ["count"] });
    s.add_transformed_tool_json(
        "search",
        json!({ "name": "count" }),
        Some(Arc::new(Count)),
        Some(schema),
    )
    .unwrap();
    let c = client(&s).await;
    let r = call(&c, "count", json!({ "q": "x", "index": "d", "limit": 3 }))
        .await
        .unwrap();
    assert_eq!(r["structuredContent"], json!({ "count": 3 }));
}

#[tokio::test]
async fn a_failing_reshape_is_an_internal_error_naming_the_tool() {
    let s = search_server();
    s.add_transformed_tool_json(
        "search",
        json!({ "name": "count" }),
        Some(Arc::new(Count)),
        None,
    )
    .unwrap();
    let c = client(&s).await;
    let e = call(&c, "count", json!({ "q": "x", "index": "d", "limit": 0 }))
        .await
        .unwrap_err();
    assert_eq!(e.code, -32603);
    assert_eq!(
        e.message,
        "transformOutput of tool \"count\" failed: no hits to count"
    );
}

#[tokio::test]
async fn an_mcp_error_raised_by_the_reshape_reaches_the_client_with_its_code() {
    let s = search_server();
    s.add_transformed_tool_json(
        "search",
        json!({ "name": "count" }),
        Some(Arc::new(Count)),
        None,
    )
    .unwrap();
    let c = client(&s).await;
    let e = call(&c, "count", json!({ "q": "x", "index": "d", "limit": 6 }))
        .await
        .unwrap_err();
    assert_eq!(e.code, -32004, "{e:?}");
    assert_eq!(e.message, "too many hits to count");
    assert_eq!(e.data, Some(json!({ "limit": 5 })));
}

#[test]
fn transforms_naming_missing_or_clashing_arguments_are_refused() {
    let s = search_server();
    let refused = |original: &str, t: Value| {
        s.add_transformed_tool_json(original, t, None, None)
            .unwrap_err()
    };
    let e = refused(
        "search",
        json!({ "name": "a", "arguments": { "nope": { "name": "x" } } }),
    );
    assert!(e.message.contains("no argument"), "{}", e.message);
    let e = refused(
        "search",
        json!({ "name": "b", "arguments": { "q": { "name": "index" } } }),
    );
    assert!(e.message.contains("would be called"), "{}", e.message);
    let e = refused("missing", json!({ "name": "c" }));
    assert!(e.message.contains("no tool"), "{}", e.message);
    let e = refused("search", json!({ "name": "d", "bogus": 1 }));
    assert!(e.message.starts_with("tool transform:"), "{}", e.message);
    let e = refused(
        "search",
        json!({ "name": "e", "arguments": { "q": { "hide": true } } }),
    );
    assert!(e.message.contains("needs a default"), "{}", e.message);
    let e = s
        .add_transformed_tool_json(
            "search",
            json!({ "name": "f" }),
            None,
            Some(json!({ "type": "object" })),
        )
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert!(e.message.contains("give both"), "{}", e.message);
    assert!(
        ferromcp_embed::is_output_schema_without_reshape(&e),
        "{e:?}"
    );
    let other = s
        .add_transformed_tool_json("missing", json!({ "name": "g" }), None, None)
        .unwrap_err();
    assert!(
        !ferromcp_embed::is_output_schema_without_reshape(&other),
        "{other:?}"
    );
}
