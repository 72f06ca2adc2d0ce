//! Proves server composition (`Server::mount`, `Server::import_server`): a mounted server's
//! tools and prompts are offered as `prefix_name` and its resources as `scheme://prefix/path`,
//! requests for them reach it (through its own middleware), later changes show and its
//! `list_changed` and resource updates reach the parent's sessions, completions are routed to
//! it; an import copies once; pages span own and mounted items; bad mounts are refused.

use crate::support;

use ferromcp::protocol::{
    CallToolResult, Completion, GetPromptResult, Prompt, PromptMessage, Resource, ResourceContents,
    ResourceTemplate, TextResourceContents, Tool,
};
use ferromcp::server::authorization::{Authorization, ItemKind};
use ferromcp::server::{completion_fn, prompt_fn, resource_fn, tool_fn, CompletionRef, Server};
use serde_json::{json, Value};
use std::time::Duration;
use support::{error_code, RawPeer};

fn echo_resource() -> ferromcp::server::ResourceFn {
    resource_fn(|req, _| async move {
        let text = format!("{:?}", req.variables.get("city"));
        Ok(vec![ResourceContents::Text(TextResourceContents::new(
            req.uri, text,
        ))])
    })
}

fn completion(values: &[&str]) -> Completion {
    let mut c = Completion::default();
    c.values = values.iter().map(|v| v.to_string()).collect();
    c
}

fn named_tool(name: &'static str) -> (Tool, ferromcp::server::ToolFn) {
    (
        Tool::new(name),
        tool_fn(move |args, _| async move {
            Ok(CallToolResult::text(format!(
                "{name} {}",
                Value::Object(args)
            )))
        }),
    )
}

/// The weather server: a tool, a static resource, a template, a prompt, a completion.
fn weather() -> Server {
    let (t, h) = named_tool("forecast");
    Server::builder("weather", "1")
        .tool_raw(t, h)
        .resource(
            Resource::new("data://stations", "stations"),
            echo_resource(),
        )
        .resource_template(
            ResourceTemplate::new("weather://{city}/now", "now"),
            echo_resource(),
        )
        .prompt(
            Prompt::new("report"),
            prompt_fn(|args, _| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::user_text(
                    format!(
                        "report for {}",
                        args.get("city").and_then(Value::as_str).unwrap_or("?")
                    ),
                )]))
            }),
        )
        .completion(
            CompletionRef::Resource("weather://{city}/now".into()),
            "city",
            completion_fn(|_, _| async move { Ok(completion(&["Oslo", "Lima"])) }),
        )
        .completion(
            CompletionRef::Prompt("report".into()),
            "city",
            completion_fn(|_, _| async move { Ok(completion(&["Bergen"])) }),
        )
        .build()
        .unwrap()
}

fn main_server() -> Server {
    let (t, h) = named_tool("status");
    Server::builder("main", "1").tool_raw(t, h).build().unwrap()
}

async fn names(p: &mut RawPeer, method: &str, key: &str, field: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for i in 0..50 {
        let params = cursor
            .as_ref()
            .map_or(json!({}), |c| json!({ "cursor": c }));
        let r = p.call(json!(format!("{method}{i}")), method, params).await;
        out.extend(
            r[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t[field].as_str().unwrap().to_string()),
        );
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
    panic!("{method} never ended")
}

async fn started(server: &Server) -> RawPeer {
    let mut p = RawPeer::start(server);
    p.initialize("2025-11-25").await;
    p
}

#[tokio::test]
async fn mounted_tools_and_prompts_are_listed_with_the_prefix() {
    let main = main_server();
    main.mount("weather", &weather()).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status", "weather_forecast"]
    );
    assert_eq!(
        names(&mut p, "prompts/list", "prompts", "name").await,
        ["weather_report"]
    );
}

#[tokio::test]
async fn mounted_resources_and_templates_are_listed_with_namespaced_uris() {
    let main = main_server();
    main.mount("wx", &weather()).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "resources/list", "resources", "uri").await,
        ["data://wx/stations"]
    );
    assert_eq!(
        names(
            &mut p,
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate"
        )
        .await,
        ["weather://wx/{city}/now"]
    );
}

#[tokio::test]
async fn calls_reads_and_gets_reach_the_mounted_server() {
    let main = main_server();
    main.mount("wx", &weather()).unwrap();
    let mut p = started(&main).await;
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "wx_forecast", "arguments": { "days": 3 } }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], r#"forecast {"days":3}"#);
    // The mounted server's handler sees its own URI and variables.
    let r = p
        .call(
            json!(2),
            "resources/read",
            json!({ "uri": "data://wx/stations" }),
        )
        .await;
    assert_eq!(r["contents"][0]["uri"], "data://stations");
    let r = p
        .call(
            json!(3),
            "resources/read",
            json!({ "uri": "weather://wx/Oslo/now" }),
        )
        .await;
    assert_eq!(r["contents"][0]["uri"], "weather://Oslo/now");
    assert_eq!(r["contents"][0]["text"], r#"Some("Oslo")"#);
    let r = p
        .call(
            json!(4),
            "prompts/get",
            json!({ "name": "wx_report", "arguments": { "city": "Oslo" } }),
        )
        .await;
    assert_eq!(r["messages"][0]["content"]["text"], "report for Oslo");
    // The server's own tool still runs.
    let r = p
        .call(
            json!(5),
            "tools/call",
            json!({ "name": "status", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "status {}");
}

#[tokio::test]
async fn unknown_prefixed_names_get_the_unknown_errors() {
    let main = main_server();
    main.mount("wx", &weather()).unwrap();
    let mut p = started(&main).await;
    let m = p
        .request(
            json!(1),
            "tools/call",
            json!({ "name": "wx_nothing", "arguments": {} }),
        )
        .await;
    assert_eq!(error_code(&m), -32602);
    assert_eq!(m["error"]["message"], "Unknown tool: wx_nothing");
    // The mounted server's name without the prefix is not the parent's.
    let m = p
        .request(
            json!(2),
            "tools/call",
            json!({ "name": "forecast", "arguments": {} }),
        )
        .await;
    assert_eq!(m["error"]["message"], "Unknown tool: forecast");
    let m = p
        .request(
            json!(3),
            "resources/read",
            json!({ "uri": "data://stations" }),
        )
        .await;
    assert_eq!(error_code(&m), -32002);
    let m = p
        .request(json!(4), "prompts/get", json!({ "name": "wx_none" }))
        .await;
    assert_eq!(m["error"]["message"], "Unknown prompt: wx_none");
}

#[tokio::test]
async fn completions_are_routed_to_the_mounted_server() {
    let main = main_server();
    main.mount("wx", &weather()).unwrap();
    let mut p = started(&main).await;
    let r = p
        .call(
            json!(1),
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "weather://wx/{city}/now" },
                    "argument": { "name": "city", "value": "" } }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["Oslo", "Lima"]));
    let r = p
        .call(
            json!(2),
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "wx_report" },
                    "argument": { "name": "city", "value": "" } }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["Bergen"]));
}

#[tokio::test]
async fn the_parent_advertises_what_a_mounted_server_offers() {
    let main = Server::builder("empty", "1").build().unwrap();
    main.mount("wx", &weather()).unwrap();
    let mut p = RawPeer::start(&main);
    let init = p.initialize("2025-11-25").await;
    let caps = &init["capabilities"];
    assert_eq!(caps["tools"]["listChanged"], true, "{caps}");
    assert!(caps["resources"].is_object(), "{caps}");
    assert!(caps["prompts"].is_object(), "{caps}");
    assert!(caps["completions"].is_object(), "{caps}");
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["wx_forecast"]
    );
}

#[tokio::test]
async fn tools_added_to_a_mounted_server_later_show_up() {
    let main = main_server();
    let wx = weather();
    main.mount("wx", &wx).unwrap();
    let mut p = started(&main).await;
    // Answered after `notifications/initialized`, so the session is listed for broadcasts.
    p.call(json!(0), "ping", json!({})).await;
    let (t, h) = named_tool("radar");
    wx.add_tool(t, h).unwrap();
    // The parent's session is told, then lists and calls the new tool.
    let note = p.recv().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status", "wx_forecast", "wx_radar"]
    );
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "wx_radar", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "radar {}");
    wx.remove_tool("radar");
    let note = p.recv().await;
    assert_eq!(note["method"], "notifications/tools/list_changed");
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status", "wx_forecast"]
    );
}

#[tokio::test]
async fn resource_updates_of_a_mounted_server_carry_the_namespaced_uri() {
    let main = main_server();
    let wx = weather();
    main.mount("wx", &wx).unwrap();
    let mut p = started(&main).await;
    p.call(
        json!(1),
        "resources/subscribe",
        json!({ "uri": "data://wx/stations" }),
    )
    .await;
    wx.notify_resource_updated("data://stations");
    let note = p.recv().await;
    assert_eq!(note["method"], "notifications/resources/updated");
    assert_eq!(note["params"]["uri"], "data://wx/stations");
    // An update of a resource nobody subscribed to is not sent.
    wx.notify_resource_updated("weather://Oslo/now");
    p.assert_silent(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn own_items_win_over_mounted_ones_with_the_same_name() {
    let (t, h) = named_tool("wx_forecast");
    let main = Server::builder("main", "1").tool_raw(t, h).build().unwrap();
    main.mount("wx", &weather()).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["wx_forecast"]
    );
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "wx_forecast", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "wx_forecast {}");
}

#[tokio::test]
async fn pages_span_own_and_mounted_items() {
    let mut b = Server::builder("main", "1").options(|o| o.page_size = 2);
    for name in ["a", "b", "c"] {
        let (t, h) = named_tool(name);
        b = b.tool_raw(t, h);
    }
    let main = b.build().unwrap();
    let mut other = Server::builder("other", "1").options(|o| o.page_size = 1);
    for name in ["x", "y", "z"] {
        let (t, h) = named_tool(name);
        other = other.tool_raw(t, h);
    }
    main.mount("o", &other.build().unwrap()).unwrap();
    let mut p = started(&main).await;
    let r = p.call(json!(1), "tools/list", json!({})).await;
    assert_eq!(r["tools"].as_array().unwrap().len(), 2);
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["a", "b", "c", "o_x", "o_y", "o_z"]
    );
}

#[tokio::test]
async fn nested_mounts_join_their_prefixes() {
    let inner = Server::builder("inner", "1")
        .tool_raw(named_tool("deep").0, named_tool("deep").1)
        .resource(Resource::new("data://leaf", "leaf"), echo_resource())
        .build()
        .unwrap();
    let middle = Server::builder("middle", "1").build().unwrap();
    middle.mount("in", &inner).unwrap();
    let main = main_server();
    main.mount("mid", &middle).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status", "mid_in_deep"]
    );
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "mid_in_deep", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "deep {}");
    let r = p
        .call(
            json!(2),
            "resources/read",
            json!({ "uri": "data://mid/in/leaf" }),
        )
        .await;
    assert_eq!(r["contents"][0]["uri"], "data://leaf");
}

#[tokio::test]
async fn the_mounted_servers_middleware_runs_for_its_items() {
    let wx = Server::builder("weather", "1")
        .tool_raw(named_tool("forecast").0, named_tool("forecast").1)
        .tool_raw(named_tool("admin_purge").0, named_tool("admin_purge").1)
        .middleware(Authorization::new().require_scopes(ItemKind::Tool, "admin_*", ["admin"]))
        .build()
        .unwrap();
    let main = main_server();
    main.mount("wx", &wx).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status", "wx_forecast"]
    );
    let m = p
        .request(
            json!(1),
            "tools/call",
            json!({ "name": "wx_admin_purge", "arguments": {} }),
        )
        .await;
    assert_eq!(m["error"]["message"], "Unknown tool: wx_admin_purge", "{m}");
}

#[tokio::test]
async fn authorization_added_before_the_mount_sees_mounted_items() {
    let main = Server::builder("main", "1")
        .tool_raw(named_tool("status").0, named_tool("status").1)
        .middleware(Authorization::new().require_scopes(ItemKind::Tool, "wx_*", ["weather"]))
        .build()
        .unwrap();
    main.mount("wx", &weather()).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status"]
    );
    let m = p
        .request(
            json!(1),
            "tools/call",
            json!({ "name": "wx_forecast", "arguments": {} }),
        )
        .await;
    assert_eq!(error_code(&m), -32602);
}

#[tokio::test]
async fn imported_items_are_copied_once() {
    let main = main_server();
    let wx = weather();
    main.import_server("wx", &wx).unwrap();
    let (t, h) = named_tool("later");
    wx.add_tool(t, h).unwrap();
    let mut p = started(&main).await;
    assert_eq!(
        names(&mut p, "tools/list", "tools", "name").await,
        ["status", "wx_forecast"]
    );
    assert_eq!(
        names(
            &mut p,
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate"
        )
        .await,
        ["weather://wx/{city}/now"]
    );
    let r = p
        .call(
            json!(1),
            "resources/read",
            json!({ "uri": "weather://wx/Lima/now" }),
        )
        .await;
    assert_eq!(r["contents"][0]["uri"], "weather://Lima/now");
    assert_eq!(r["contents"][0]["text"], r#"Some("Lima")"#);
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "wx_forecast", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "forecast {}");
    let r = p
        .call(
            json!(3),
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "wx_report" },
                    "argument": { "name": "city", "value": "" } }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!(["Bergen"]));
}

#[tokio::test]
async fn bad_mounts_are_refused() {
    let main = main_server();
    let wx = weather();
    assert!(main.mount("a/b", &wx).is_err());
    assert!(
        main.mount("x", &main).is_err(),
        "a server mounted on itself"
    );
    main.mount("wx", &wx).unwrap();
    assert!(main.mount("wx", &weather()).is_err(), "a prefix taken");
    assert!(wx.mount("up", &main).is_err(), "a cycle");
    // Once the server has handled a request, the chain is fixed.
    let late = main_server();
    let mut p = started(&late).await;
    p.call(json!(1), "tools/list", json!({})).await;
    let e = late.mount("wx", &weather()).unwrap_err();
    assert!(
        e.message
            .contains("before the server handles its first request"),
        "{e:?}"
    );
}
