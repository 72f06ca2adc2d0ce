//! Proves the tools feature: listing passes title/annotations/icons/execution through, calls
//! work, arguments are validated (-32602 with `data.errors[].path`), unknown tools give -32602,
//! structured output is validated against the output schema, `ToolError` gives an `isError`
//! result, a panicking handler gives -32603 without killing the session, pagination uses opaque
//! cursors (bad cursor -> -32602), `add_tool` on a live session sends `list_changed`, and typed
//! `Json<T>` output advertises an `outputSchema`.

use crate::support;

use ferromcp::client::ClientHandlers;
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Icon, TaskSupport, Tool, ToolAnnotations, ToolExecution};
use ferromcp::server::{tool_fn, Json, Server, ToolError};
use serde_json::{json, Value};
use std::time::Duration;
use support::{error_code, RawPeer};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Inner {
    count: u32,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nested {
    name: String,
    inner: Inner,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Div {
    a: f64,
    b: f64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: f64,
}

fn server() -> Server {
    let fancy = {
        let mut lit = Tool::new("fancy");
        lit.title = Some("Fancy Tool".into());
        lit.description = Some("has everything".into());
        lit.annotations = Some({
            let mut lit = ToolAnnotations::default();
            lit.title = Some("Fancy".into());
            lit.read_only_hint = Some(true);
            lit.destructive_hint = Some(false);
            lit
        });
        lit.icons = Some(vec![Icon::new("https://example.com/icon.png")]);
        lit.execution = Some({
            let mut lit = ToolExecution::default();
            lit.task_support = Some(TaskSupport::Optional);
            lit
        });
        lit
    };
    Server::builder("tools", "1")
        .tool_raw(
            fancy,
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("fancy")) }),
        )
        .tool("nested", "nested args", |a: Nested, _c| async move {
            format!("{} {}", a.name, a.inner.count)
        })
        .tool("divide", "divides", |a: Div, _c| async move {
            if a.b == 0.0 {
                Err(ToolError("division by zero".into()))
            } else {
                Ok(format!("{}", a.a / a.b))
            }
        })
        .tool("add", "adds", |a: Div, _c| async move {
            Json(Sum { sum: a.a + a.b })
        })
        .tool_raw(
            Tool::new("bad_structured").with_output_schema(json!({
                "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})),
            tool_fn(|_a, _c| async move {
                Ok(CallToolResult::structured(json!({"n": "not a number"})))
            }),
        )
        .tool_raw(
            Tool::new("panics"),
            tool_fn(|_a, _c| async move {
                if true {
                    panic!("boom");
                }
                Ok(CallToolResult::text("unreachable"))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn list_passes_metadata_through() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let r = p.call(json!(1), "tools/list", json!({})).await;
    let tools = r["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "fancy",
            "nested",
            "divide",
            "add",
            "bad_structured",
            "panics"
        ]
    );
    let fancy = &tools[0];
    assert_eq!(fancy["title"], "Fancy Tool");
    assert_eq!(fancy["annotations"]["readOnlyHint"], true);
    assert_eq!(fancy["annotations"]["destructiveHint"], false);
    assert_eq!(fancy["annotations"]["title"], "Fancy");
    assert_eq!(fancy["icons"][0]["src"], "https://example.com/icon.png");
    assert_eq!(fancy["execution"]["taskSupport"], "optional");
    assert_eq!(fancy["inputSchema"]["type"], "object");
    // typed Json<T> output carries an outputSchema describing `sum`
    let add = &tools[3];
    assert_eq!(add["outputSchema"]["type"], "object");
    assert!(
        add["outputSchema"]["properties"]["sum"].is_object(),
        "{add}"
    );
    assert!(tools[1].get("outputSchema").is_none());
    assert!(r.get("nextCursor").is_none());
}

#[tokio::test]
async fn call_and_structured_output() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let r = client
        .call_tool("nested", json!({"name": "x", "inner": {"count": 3}}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("x 3"));
    assert!(!r.is_error());
    let r = client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"sum": 3.0})));
    client.close().await;
}

#[tokio::test]
async fn argument_validation_failures_are_tool_errors_naming_every_path() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let m = p
        .request(
            json!(1),
            "tools/call",
            json!({"name": "nested", "arguments": {"name": 5, "inner": {"count": "many"}}}),
        )
        .await;
    // A tool execution error (SEP-1303), so the model can retry: every failing path is named.
    assert_eq!(m["result"]["isError"], json!(true), "{m}");
    let text = m["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {m}"));
    assert!(
        text.starts_with("Invalid arguments of tool \"nested\":"),
        "{text}"
    );
    assert!(text.contains("\n- /name: "), "{text}");
    assert!(
        text.contains("\n- /inner/count: "),
        "nested path must be named: {text}"
    );
    // missing required property
    let m = p
        .request(
            json!(2),
            "tools/call",
            json!({"name": "nested", "arguments": {"name": "x"}}),
        )
        .await;
    assert_eq!(m["result"]["isError"], json!(true), "{m}");
    assert!(
        m["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("inner")),
        "{m}"
    );
    // arguments not an object
    let m = p
        .request(
            json!(3),
            "tools/call",
            json!({"name": "nested", "arguments": [1]}),
        )
        .await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    p.assert_alive().await;
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let m = p
        .request(json!(1), "tools/call", json!({"name": "no_such_tool"}))
        .await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    assert!(m["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no_such_tool"));
    let m = p.request(json!(2), "tools/call", json!({})).await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
}

#[tokio::test]
async fn bad_structured_content_is_an_error() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let m = p
        .request(json!(1), "tools/call", json!({"name": "bad_structured"}))
        .await;
    assert!(
        m.get("error").is_some(),
        "invalid structuredContent must not pass: {m}"
    );
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("structuredContent"),
        "{m}"
    );
}

#[tokio::test]
async fn tool_error_is_is_error_result() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let r = client
        .call_tool("divide", json!({"a": 1, "b": 0}))
        .await
        .unwrap();
    assert!(r.is_error());
    assert_eq!(r.content[0].as_text(), Some("division by zero"));
    let r = client
        .call_tool("divide", json!({"a": 1, "b": 4}))
        .await
        .unwrap();
    assert!(!r.is_error());
    assert_eq!(r.content[0].as_text(), Some("0.25"));
    client.close().await;
}

#[tokio::test]
async fn panic_is_internal_error_and_session_survives() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let m = p
        .request(json!(1), "tools/call", json!({"name": "panics"}))
        .await;
    assert_eq!(error_code(&m), codes::INTERNAL_ERROR as i64);
    p.assert_alive().await;
    let m = p
        .request(
            json!(2),
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 4, "b": 2}}),
        )
        .await;
    assert_eq!(m["result"]["content"][0]["text"], "2");
}

#[tokio::test]
async fn pagination_with_opaque_cursors() {
    let mut b = Server::builder("paged", "1").options(|o| o.page_size = 2);
    for i in 0..5 {
        b = b.tool_raw(
            Tool::new(format!("t{i}")),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("x")) }),
        );
    }
    let server = b.build().unwrap();
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = p.call(json!(pages), "tools/list", params).await;
        pages += 1;
        let page = r["tools"].as_array().unwrap();
        assert!(page.len() <= 2);
        names.extend(page.iter().map(|t| t["name"].as_str().unwrap().to_string()));
        match r.get("nextCursor") {
            Some(c) => {
                assert!(c.is_string());
                cursor = Some(c.clone());
            }
            None => break,
        }
        assert!(pages < 10, "pagination does not terminate");
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    for bad in [
        json!("garbage"),
        json!("fmc1.zz"),
        json!("fmc1.ff"),
        json!(7),
    ] {
        let m = p
            .request(json!("bad"), "tools/list", json!({"cursor": bad}))
            .await;
        assert_eq!(
            error_code(&m),
            codes::INVALID_PARAMS as i64,
            "cursor {bad}: {m}"
        );
    }
    // Client helper follows cursors to the end.
    let client = support::connect(&server, ClientHandlers::default()).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 5);
    client.close().await;
}

#[tokio::test]
async fn add_tool_on_live_session_sends_list_changed() {
    let server = server();
    let mut p = RawPeer::start(&server);
    let init = p.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
    p.assert_alive().await; // make sure `initialized` was processed
    server
        .add_tool(
            Tool::new("late"),
            tool_fn(|_a, _c| async move { Ok(CallToolResult::text("late")) }),
        )
        .unwrap();
    let m = p.recv().await;
    assert_eq!(m["method"], "notifications/tools/list_changed");
    let r = p.call(json!(1), "tools/list", json!({})).await;
    assert!(r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "late"));
    assert!(server.remove_tool("late"));
    let m = p.recv().await;
    assert_eq!(m["method"], "notifications/tools/list_changed");
    p.assert_silent(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn schemas_without_a_type_are_listed_as_object_schemas() {
    let mut empty = Tool::new("empty");
    empty.input_schema = json!({});
    let mut props = Tool::new("props");
    props.input_schema = json!({"properties": {"a": {"type": "string"}}});
    props.output_schema = Some(json!({"properties": {"b": {"type": "number"}}}));
    let server = Server::builder("schemas", "1")
        .tool_raw(
            empty,
            tool_fn(|_a, _c| async { Ok(CallToolResult::text("ok")) }),
        )
        .tool_raw(
            props,
            tool_fn(|_a, _c| async { Ok(CallToolResult::text("ok")) }),
        )
        .build()
        .unwrap();
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let list = p.call(json!(1), "tools/list", json!({})).await;
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools[0]["inputSchema"], json!({"type": "object"}), "{list}");
    assert_eq!(tools[1]["inputSchema"]["type"], "object", "{list}");
    assert_eq!(tools[1]["outputSchema"]["type"], "object", "{list}");
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({"name": "empty", "arguments": {}}),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "ok");
}

#[test]
fn a_tool_whose_schema_is_not_an_object_schema_is_refused() {
    let mut t = Tool::new("scalar");
    t.input_schema = json!({"type": "string"});
    let e = Server::builder("schemas", "1")
        .tool_raw(t, tool_fn(|_a, _c| async { Ok(CallToolResult::text("x")) }))
        .build()
        .unwrap_err();
    assert_eq!(e.code, codes::INVALID_PARAMS, "{e:?}");
    assert!(e.message.contains("inputSchema"), "{e:?}");
}
