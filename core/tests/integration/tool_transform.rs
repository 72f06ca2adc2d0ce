//! Proves tool transforms (`ferromcp::server::transform`): a new tool made from an existing
//! one has its own name and description, renamed arguments reach the original under their
//! old names, a hidden argument is gone from the schema and always given, a default makes an
//! argument optional, a constraint is enforced before the original runs, a reshaped output is
//! validated against the new output schema, and a transform that names what is not there is
//! refused.

use crate::support;

use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::transform::ToolTransform;
use ferromcp::server::{tool_fn, Server};
use serde_json::{json, Value};
use support::{error_code, RawPeer};

/// `search(q: string, index: string, limit?: integer)`: answers with its arguments as
/// structured content.
fn search_tool() -> Tool {
    let mut t = Tool::new("search");
    t.description = Some("Search an index.".into());
    t.input_schema = json!({
        "type": "object",
        "properties": {
            "q": { "type": "string", "description": "the query" },
            "index": { "type": "string" },
            "limit": { "type": "integer", "minimum": 1 }
        },
        "required": ["q", "index"],
        "additionalProperties": false
    });
    t
}

fn server() -> Server {
    Server::builder("t", "1")
        .tool_raw(
            search_tool(),
            tool_fn(|args, _| async move {
                let hits: Vec<Value> = (0..args.get("limit").and_then(Value::as_u64).unwrap_or(2))
                    .map(
                        |i| json!({ "title": format!("hit {i}"), "score": 1.0 / (i as f64 + 1.0) }),
                    )
                    .collect();
                Ok(CallToolResult::text("done")
                    .with_structured_content(json!({ "args": Value::Object(args), "hits": hits })))
            }),
        )
        .build()
        .unwrap()
}

async fn tool_listed(p: &mut RawPeer, name: &str) -> Value {
    let r = p.call(json!("list"), "tools/list", json!({})).await;
    r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {r}"))
        .clone()
}

async fn started(server: &Server) -> RawPeer {
    let mut p = RawPeer::start(server);
    p.initialize("2025-11-25").await;
    p
}

#[tokio::test]
async fn a_transformed_tool_has_the_new_name_and_description() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("find")
            .title("Find")
            .description("Find documents."),
    )
    .unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "find").await;
    assert_eq!(t["description"], "Find documents.");
    assert_eq!(t["title"], "Find");
    assert_eq!(t["inputSchema"], search_tool().input_schema);
    // The original stays until removed.
    tool_listed(&mut p, "search").await;
}

#[tokio::test]
async fn renamed_arguments_reach_the_original_under_their_old_names() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("find")
            .rename_arg("q", "query")
            .describe_arg("q", "What to look for."),
    )
    .unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "find").await;
    assert_eq!(
        t["inputSchema"]["properties"]["query"],
        json!({ "type": "string", "description": "What to look for." })
    );
    assert!(t["inputSchema"]["properties"].get("q").is_none());
    assert_eq!(t["inputSchema"]["required"], json!(["index", "query"]));
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "find", "arguments": { "query": "rust", "index": "docs" } }),
        )
        .await;
    assert_eq!(
        r["structuredContent"]["args"],
        json!({ "q": "rust", "index": "docs" })
    );
    // The old name is not an argument of the new tool.
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "find", "arguments": { "q": "rust", "index": "docs" } }),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
}

#[tokio::test]
async fn a_hidden_argument_is_absent_from_the_schema_and_always_given() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("search_docs").hide_arg("index", json!("docs")),
    )
    .unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "search_docs").await;
    assert!(t["inputSchema"]["properties"].get("index").is_none(), "{t}");
    assert_eq!(t["inputSchema"]["required"], json!(["q"]));
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "search_docs", "arguments": { "q": "x" } }),
        )
        .await;
    assert_eq!(
        r["structuredContent"]["args"],
        json!({ "q": "x", "index": "docs" })
    );
    // Sending it anyway is refused (the schema forbids additional properties).
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "search_docs", "arguments": { "q": "x", "index": "all" } }),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
}

#[tokio::test]
async fn a_default_makes_an_argument_optional() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("quick").default_arg("index", json!("main")),
    )
    .unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "quick").await;
    assert_eq!(t["inputSchema"]["required"], json!(["q"]));
    assert_eq!(t["inputSchema"]["properties"]["index"]["default"], "main");
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "quick", "arguments": { "q": "x" } }),
        )
        .await;
    assert_eq!(r["structuredContent"]["args"]["index"], "main");
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "quick", "arguments": { "q": "x", "index": "other" } }),
        )
        .await;
    assert_eq!(r["structuredContent"]["args"]["index"], "other");
}

#[tokio::test]
async fn a_constraint_refuses_values_the_original_would_accept() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("small_search")
            .constrain_arg("limit", json!({ "maximum": 3 }))
            .constrain_arg("index", json!({ "enum": ["docs", "blog"] })),
    )
    .unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "small_search").await;
    assert_eq!(
        t["inputSchema"]["properties"]["limit"],
        json!({ "type": "integer", "minimum": 1, "maximum": 3 })
    );
    let r = p
        .call(json!(1), "tools/call", json!({ "name": "small_search", "arguments": { "q": "x", "index": "docs", "limit": 10 } }))
        .await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Invalid arguments"),
        "{r}"
    );
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "small_search", "arguments": { "q": "x", "index": "wiki" } }),
        )
        .await;
    assert_eq!(r["isError"], true);
    let r = p
        .call(json!(3), "tools/call", json!({ "name": "small_search", "arguments": { "q": "x", "index": "blog", "limit": 3 } }))
        .await;
    assert_eq!(r["structuredContent"]["hits"].as_array().unwrap().len(), 3);
    // The original still accepts 10.
    let r = p
        .call(
            json!(4),
            "tools/call",
            json!({ "name": "search", "arguments": { "q": "x", "index": "docs", "limit": 10 } }),
        )
        .await;
    assert_eq!(r["structuredContent"]["hits"].as_array().unwrap().len(), 10);
}

fn titles_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "titles": { "type": "array", "items": { "type": "string" } } },
        "required": ["titles"]
    })
}

#[tokio::test]
async fn reshaped_output_is_validated_against_the_new_schema() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("titles").reshape_output(Some(titles_schema()), |out| {
            let titles: Vec<Value> = out["hits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|h| h["title"].clone())
                .collect();
            Ok(json!({ "titles": titles }))
        }),
    )
    .unwrap();
    // A reshape that breaks its own schema.
    s.add_transformed_tool(
        "search",
        ToolTransform::new("broken")
            .reshape_output(Some(titles_schema()), |_| Ok(json!({ "titles": 7 }))),
    )
    .unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "titles").await;
    assert_eq!(t["outputSchema"], titles_schema());
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "titles", "arguments": { "q": "x", "index": "d" } }),
        )
        .await;
    assert_eq!(
        r["structuredContent"],
        json!({ "titles": ["hit 0", "hit 1"] })
    );
    assert_eq!(r["content"][0]["text"], r#"{"titles":["hit 0","hit 1"]}"#);
    let m = p
        .request(
            json!(2),
            "tools/call",
            json!({ "name": "broken", "arguments": { "q": "x", "index": "d" } }),
        )
        .await;
    assert_eq!(error_code(&m), -32603, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("structuredContent"),
        "{m}"
    );
}

#[tokio::test]
async fn the_original_can_be_removed_and_the_transform_still_works() {
    let s = server();
    s.add_transformed_tool(
        "search",
        ToolTransform::new("find").rename_arg("q", "query"),
    )
    .unwrap();
    assert!(s.remove_tool("search"));
    let mut p = started(&s).await;
    let r = p.call(json!(1), "tools/list", json!({})).await;
    assert_eq!(r["tools"].as_array().unwrap().len(), 1);
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "find", "arguments": { "query": "a", "index": "b" } }),
        )
        .await;
    assert_eq!(
        r["structuredContent"]["args"],
        json!({ "q": "a", "index": "b" })
    );
}

#[tokio::test]
async fn transforms_naming_missing_or_clashing_arguments_are_refused() {
    let s = server();
    let cases = [
        (
            ToolTransform::new("a").rename_arg("nope", "x"),
            "has no argument \"nope\"",
        ),
        (
            ToolTransform::new("b").rename_arg("q", "index"),
            "would be called \"index\"",
        ),
        (
            ToolTransform::new("c").constrain_arg("q", json!(5)),
            "must be a JSON object",
        ),
        (
            ToolTransform::new("d").constrain_arg("limit", json!({ "type": 12 })),
            "invalid",
        ),
    ];
    for (t, why) in cases {
        let e = s.add_transformed_tool("search", t).unwrap_err();
        assert_eq!(e.code, -32602);
        assert!(e.message.contains(why), "{} lacks {why}", e.message);
    }
    let e = s
        .add_transformed_tool("missing", ToolTransform::new("x"))
        .unwrap_err();
    assert!(e.message.contains("no tool \"missing\""), "{}", e.message);
}

#[tokio::test]
async fn a_tool_outside_any_server_can_be_transformed_with_apply() {
    let handler =
        tool_fn(|args, _| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) });
    let (tool, handler) = ToolTransform::new("find")
        .hide_arg("index", json!("docs"))
        .apply(&search_tool(), handler)
        .unwrap();
    let s = Server::builder("t", "1")
        .tool_raw(tool, handler)
        .build()
        .unwrap();
    let mut p = started(&s).await;
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "find", "arguments": { "q": "z" } }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], r#"{"index":"docs","q":"z"}"#);
}

#[tokio::test]
async fn a_transform_is_read_from_its_json_form() {
    let s = server();
    let t = ToolTransform::from_json(json!({
        "name": "find",
        "description": "Find documents.",
        "arguments": {
            "q": { "name": "query", "description": "What to look for." },
            "index": { "hide": true, "default": "docs" },
            "limit": { "default": 2, "constraints": { "maximum": 3 } }
        }
    }))
    .unwrap();
    s.add_transformed_tool("search", t).unwrap();
    let mut p = started(&s).await;
    let t = tool_listed(&mut p, "find").await;
    assert_eq!(t["inputSchema"]["required"], json!(["query"]));
    assert_eq!(t["inputSchema"]["properties"]["limit"]["maximum"], 3);
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "find", "arguments": { "query": "a" } }),
        )
        .await;
    assert_eq!(
        r["structuredContent"]["args"],
        json!({ "q": "a", "index": "docs", "limit": 2 })
    );
    for (bad, why) in [
        (
            json!({ "name": "x", "arguments": { "index": { "hide": true } } }),
            "needs a default",
        ),
        (json!({ "name": "x", "renamed": {} }), "unknown field"),
    ] {
        let e = ToolTransform::from_json(bad).unwrap_err();
        assert!(e.message.contains(why), "{}", e.message);
    }
}
