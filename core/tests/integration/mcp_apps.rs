//! MCP Apps (`io.modelcontextprotocol/ui`) end to end over a message stream: a client lists a
//! tool with its `_meta.ui.resourceUri`, reads the `ui://` resource with the app MIME type and
//! its `_meta.ui`, and a tool sees whether the client advertised UI support, in both protocol
//! eras; a UI outside `ui://`, a wrong MIME type, a malformed `_meta.ui` or a tool naming an
//! unregistered UI are refused at registration. The same scenario names are used by the
//! Python, Node and Swift bindings' tests.

use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::{CallToolResult, Resource, ResourceContents, Tool};
use ferromcp::server::apps::{
    client_supports_ui, ui_client_capability, UiCsp, UiPermissions, UiResource, UiToolMeta,
    Visibility, UI_MIME_TYPE,
};
use ferromcp::server::{resource_fn, tool_fn, Server};
use ferromcp::transport::memory_pair;
use serde_json::{json, Value};

const HTML: &str = "<!doctype html><html><body><p id=t>weather</p></body></html>";

fn server() -> Server {
    Server::builder("apps", "1.0")
        .ui_resource(
            UiResource::new("ui://weather/dashboard", "dashboard", HTML)
                .with_description("Weather dashboard")
                .with_csp(
                    UiCsp::default()
                        .with_connect_domains(vec!["https://api.weather.example".into()]),
                )
                .with_permissions(UiPermissions::default().with_geolocation(true))
                .with_prefers_border(true),
        )
        .ui_tool(
            Tool::new("get_weather").with_description("Weather for a city"),
            UiToolMeta::new("ui://weather/dashboard"),
            tool_fn(|_, ctx| async move {
                Ok(CallToolResult::text(if client_supports_ui(&ctx) {
                    "ui"
                } else {
                    "text only"
                }))
            }),
        )
        .ui_tool(
            Tool::new("refresh"),
            UiToolMeta::new("ui://weather/dashboard").with_visibility(vec![Visibility::App]),
            tool_fn(|_, _| async { Ok(CallToolResult::text("refreshed")) }),
        )
        .build()
        .unwrap()
}

async fn connect(ui: bool, mode: ProtocolMode) -> Client {
    let ((cr, cw), (sr, sw)) = memory_pair(16);
    let srv = server();
    tokio::spawn(async move { srv.serve(sr, sw).await });
    let mut options = ClientOptions::new("host", "1");
    options.mode = mode;
    let handlers = ClientHandlers::default().with_extra_capabilities(ui.then(ui_client_capability));
    Client::connect(options, handlers, cr, cw).await.unwrap()
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn client_lists_the_tool_with_its_ui_resource_uri() {
    let client = connect(true, ProtocolMode::Handshake).await;
    let tools = client.list_all_tools().await.unwrap();
    let wire: Vec<Value> = tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    let weather = wire.iter().find(|t| t["name"] == "get_weather").unwrap();
    assert_eq!(
        weather["_meta"]["ui"],
        json!({ "resourceUri": "ui://weather/dashboard" })
    );
    assert_eq!(weather["_meta"]["ui/resourceUri"], "ui://weather/dashboard");
    let refresh = wire.iter().find(|t| t["name"] == "refresh").unwrap();
    assert_eq!(refresh["_meta"]["ui"]["visibility"], json!(["app"]));
    client.close().await;
}

#[tokio::test]
async fn client_reads_the_ui_resource_with_the_app_mime_type() {
    let client = connect(true, ProtocolMode::Handshake).await;
    let listed = client.list_resources(None).await.unwrap();
    let listed = serde_json::to_value(&listed.resources[0]).unwrap();
    assert_eq!(listed["uri"], "ui://weather/dashboard");
    assert_eq!(listed["mimeType"], UI_MIME_TYPE);
    let read = client
        .read_resource("ui://weather/dashboard")
        .await
        .unwrap();
    let ResourceContents::Text(t) = &read.contents[0] else {
        panic!("text contents")
    };
    assert_eq!(t.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    assert_eq!(t.text, HTML);
    assert_eq!(
        Value::Object(t.meta.clone().unwrap()),
        json!({ "ui": {
            "csp": { "connectDomains": ["https://api.weather.example"] },
            "permissions": { "geolocation": {} },
            "prefersBorder": true
        } })
    );
    client.close().await;
}

#[tokio::test]
async fn capability_check_sees_a_client_that_advertises_ui() {
    for mode in [ProtocolMode::Handshake, ProtocolMode::PerRequest] {
        let client = connect(true, mode).await;
        let r = client.call_tool("get_weather", json!({})).await.unwrap();
        assert_eq!(text(&r), "ui", "{mode:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn capability_check_sees_a_client_without_ui() {
    for mode in [ProtocolMode::Handshake, ProtocolMode::PerRequest] {
        let client = connect(false, mode).await;
        let r = client.call_tool("get_weather", json!({})).await.unwrap();
        assert_eq!(text(&r), "text only", "{mode:?}");
        client.close().await;
    }
}

fn refusal(b: ferromcp::server::ServerBuilder) -> String {
    b.build().expect_err("refused at registration").message
}

#[test]
fn non_ui_uri_is_refused_at_registration() {
    let m = refusal(Server::builder("x", "1").ui_resource(UiResource::new(
        "https://a.example/ui",
        "u",
        "<p>",
    )));
    assert!(
        m.contains("\"https://a.example/ui\" must use the ui:// scheme"),
        "{m}"
    );
    let m = refusal(Server::builder("x", "1").ui_resource(UiResource::new("ui://", "u", "<p>")));
    assert!(m.contains("nothing after ui://"), "{m}");
}

#[test]
fn wrong_mime_type_is_refused_at_registration() {
    let s = Server::builder("x", "1").build().unwrap();
    let plain = Resource::new("ui://a/b", "b").with_mime_type("text/html");
    let e = ferromcp::server::apps::check_ui_resource(&plain).unwrap_err();
    assert!(
        e.message.contains(
            "has MIME type \"text/html\"; MCP Apps require \"text/html;profile=mcp-app\""
        ),
        "{}",
        e.message
    );
    // A ui:// resource registered by hand with another MIME type is not a UI a tool may name.
    s.add_resource(
        plain,
        resource_fn(|_, _| async { Ok(Vec::<ResourceContents>::new()) }),
    );
    let e = s
        .add_ui_tool(
            Tool::new("t"),
            UiToolMeta::new("ui://a/b"),
            tool_fn(|_, _| async { Ok(CallToolResult::text("")) }),
        )
        .unwrap_err();
    assert!(
        e.message.contains("not registered on this server as a UI"),
        "{}",
        e.message
    );
}

#[test]
fn tool_naming_an_unregistered_ui_is_refused_at_registration() {
    let m = refusal(Server::builder("x", "1").ui_tool(
        Tool::new("t"),
        UiToolMeta::new("ui://missing/view"),
        tool_fn(|_, _| async { Ok(CallToolResult::text("")) }),
    ));
    assert!(
        m.contains("tool \"t\" names UI resource \"ui://missing/view\""),
        "{m}"
    );
    let m = refusal(Server::builder("x", "1").ui_tool(
        Tool::new("t"),
        UiToolMeta::new("https://x.example"),
        tool_fn(|_, _| async { Ok(CallToolResult::text("")) }),
    ));
    assert!(m.contains("must use the ui:// scheme"), "{m}");
}

#[test]
fn malformed_ui_meta_is_refused_at_registration() {
    let ui = UiResource::new("ui://a/b", "b", "<p>")
        .with_csp(UiCsp::default().with_connect_domains(vec![String::new()]));
    let m = refusal(Server::builder("x", "1").ui_resource(ui));
    assert!(
        m.contains("_meta.ui.csp.connectDomains must be a list of non-empty strings"),
        "{m}"
    );
    let mut tool = Tool::new("t");
    tool.meta = Some(
        json!({ "ui": { "resourceUri": "ui://a/b", "visibility": ["user"] } })
            .as_object()
            .unwrap()
            .clone(),
    );
    let e = ferromcp::server::apps::check_tool_ui_meta(&tool).unwrap_err();
    assert!(
        e.message.contains("visibility must be a non-empty list"),
        "{}",
        e.message
    );
}
