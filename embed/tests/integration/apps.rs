//! Proves the bindings' MCP Apps seam (`ferromcp_embed::apps`): a UI resource registered from
//! its wire form (static HTML or a foreign handler answering it) is listed and read with the
//! app MIME type and its `_meta.ui`; a tool's `_meta` naming its UI is checked against the
//! server (the deprecated flat key added, an unregistered or non-UI resource refused); the
//! checks alone answer the engine's messages; the capability check reads a client's
//! capabilities.

use ferromcp::McpError;
use ferromcp_embed::apps::{
    capabilities_support_ui, check_ui_resource_meta, check_ui_uri, tool_ui_meta_json,
    ui_client_capability, ui_constants,
};
use ferromcp_embed::{
    CallOptions, ClientConfig, EmbeddedClient, EmbeddedServer, ForeignAnswer, ForeignContext,
    ForeignHandler, ForeignRequest,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const MIME: &str = "text/html;profile=mcp-app";

/// Answers the HTML of a dynamic UI (`<p>n</p>`, n counting reads), or a tool's text.
struct Page(AtomicUsize);

impl ForeignHandler for Page {
    fn call(
        &self,
        request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
        let answer = match request {
            ForeignRequest::ReadResource { .. } => json!(format!("<p>{n}</p>")),
            _ => json!("sunny"),
        };
        Box::pin(async move { Ok(answer.into()) })
    }
}

fn server() -> EmbeddedServer {
    EmbeddedServer::from_json(json!({"name": "apps", "version": "1"})).unwrap()
}

async fn request(client: &EmbeddedClient, method: &str, params: Value) -> Value {
    client
        .request(method, Some(params), CallOptions::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn ui_resource_from_its_wire_form_is_listed_and_read_with_its_meta() {
    let s = server();
    let ui = json!({"csp": {"connectDomains": ["https://api.example"]}, "prefersBorder": true});
    s.add_ui_resource_json(
        json!({"uri": "ui://w/static", "name": "static", "html": "<p>hi</p>",
               "_meta": {"ui": ui, "x-vendor": 1}}),
        None,
    )
    .unwrap();
    s.add_ui_resource_json(
        json!({"uri": "ui://w/live", "name": "live"}),
        Some(Arc::new(Page(AtomicUsize::new(0)))),
    )
    .unwrap();
    let c = EmbeddedClient::connect_memory(&s, &ClientConfig::default(), None)
        .await
        .unwrap();
    let listed = request(&c, "resources/list", json!({})).await;
    let listed = listed["resources"].as_array().unwrap();
    assert!(listed.iter().all(|r| r["mimeType"] == MIME), "{listed:?}");
    let read = request(&c, "resources/read", json!({"uri": "ui://w/static"})).await;
    assert_eq!(
        read["contents"][0],
        json!({"uri": "ui://w/static", "mimeType": MIME, "text": "<p>hi</p>",
               "_meta": {"ui": ui, "x-vendor": 1}})
    );
    for n in 1..=2 {
        let read = request(&c, "resources/read", json!({"uri": "ui://w/live"})).await;
        assert_eq!(read["contents"][0]["text"], format!("<p>{n}</p>"));
        assert_eq!(read["contents"][0]["mimeType"], MIME);
    }
}

#[test]
fn bad_ui_resources_are_refused_with_the_engines_message() {
    let s = server();
    let refused = |def: Value| s.add_ui_resource_json(def, None).unwrap_err().message;
    let m = refused(json!({"uri": "https://a.example/ui", "name": "u", "html": "<p>"}));
    assert!(
        m.contains("\"https://a.example/ui\" must use the ui:// scheme"),
        "{m}"
    );
    let m = refused(json!({"uri": "ui://a/b", "name": "b", "mimeType": "text/html", "html": ""}));
    assert!(
        m.contains("MCP Apps require \"text/html;profile=mcp-app\""),
        "{m}"
    );
    let m = refused(json!({"uri": "ui://a/b", "name": "b", "html": "",
                           "_meta": {"ui": {"permissions": {"usb": {}}}}}));
    assert!(
        m.contains("_meta.ui.permissions.usb is not a permission"),
        "{m}"
    );
    let m = refused(json!({"uri": "ui://a/b", "name": "b"}));
    assert!(m.contains("give html or a handler"), "{m}");
    let m = refused(json!({"uri": "ui://a/b", "name": "b", "html": 3}));
    assert!(m.contains("html must be a string"), "{m}");
}

#[test]
fn tool_meta_names_a_registered_ui_or_is_refused() {
    let s = server();
    s.add_ui_resource_json(json!({"uri": "ui://w/v", "name": "v", "html": "<p>"}), None)
        .unwrap();
    let meta = s
        .ui_tool_meta_json(
            "t",
            json!({"ui": {"resourceUri": "ui://w/v", "visibility": ["app"]}, "k": 1}),
        )
        .unwrap();
    assert_eq!(
        meta,
        json!({"ui": {"resourceUri": "ui://w/v", "visibility": ["app"]}, "k": 1,
               "ui/resourceUri": "ui://w/v"})
    );
    let m = s
        .ui_tool_meta_json("t", json!({"ui": {"resourceUri": "ui://missing/view"}}))
        .unwrap_err()
        .message;
    assert!(
        m.contains("tool \"t\" names UI resource \"ui://missing/view\""),
        "{m}"
    );
    let m = s
        .ui_tool_meta_json(
            "t",
            json!({"ui": {"resourceUri": "ui://w/v", "visibility": []}}),
        )
        .unwrap_err()
        .message;
    assert!(
        m.starts_with("tool \"t\": _meta.ui.visibility must be a non-empty list"),
        "{m}"
    );
    let m = s.ui_tool_meta_json("t", json!({})).unwrap_err().message;
    assert!(m.contains("tool \"t\": _meta.ui must be an object"), "{m}");
    // A ui:// resource registered by hand with another MIME type is not a UI a tool may name.
    s.add_resource_json(
        json!({"uri": "ui://a/b", "name": "b", "mimeType": "text/html"}),
        Arc::new(Page(AtomicUsize::new(0))),
    )
    .unwrap();
    let m = s
        .ui_tool_meta_json("t", json!({"ui": {"resourceUri": "ui://a/b"}}))
        .unwrap_err()
        .message;
    assert!(
        m.contains("not registered on this server as a UI resource"),
        "{m}"
    );
}

#[tokio::test]
async fn a_tool_registered_with_the_checked_meta_lists_its_ui() {
    let s = server();
    s.add_ui_resource_json(json!({"uri": "ui://w/v", "name": "v", "html": "<p>"}), None)
        .unwrap();
    let meta = s
        .ui_tool_meta_json("weather", json!({"ui": {"resourceUri": "ui://w/v"}}))
        .unwrap();
    s.add_tool_json(
        json!({"name": "weather", "inputSchema": {"type": "object"}, "_meta": meta}),
        Arc::new(Page(AtomicUsize::new(0))),
    )
    .unwrap();
    let c = EmbeddedClient::connect_memory(&s, &ClientConfig::default(), None)
        .await
        .unwrap();
    let tools = request(&c, "tools/list", json!({})).await;
    assert_eq!(
        tools["tools"][0]["_meta"],
        json!({"ui": {"resourceUri": "ui://w/v"}, "ui/resourceUri": "ui://w/v"})
    );
}

#[test]
fn the_checks_alone_answer_the_engines_messages() {
    assert!(check_ui_uri("ui://a").is_ok());
    let m = check_ui_uri("ui://").unwrap_err().message;
    assert!(m.contains("nothing after ui://"), "{m}");
    let m = check_ui_resource_meta(&json!({"prefersBorder": "yes"}))
        .unwrap_err()
        .message;
    assert_eq!(m, "_meta.ui.prefersBorder must be a boolean");
    let meta = tool_ui_meta_json(None, json!({"ui": {"resourceUri": "ui://a/b"}})).unwrap();
    assert_eq!(meta["ui/resourceUri"], "ui://a/b");
    let m = tool_ui_meta_json(
        None,
        json!({"ui": {"resourceUri": "ui://a", "visibility": ["user"]}}),
    )
    .unwrap_err()
    .message;
    assert!(
        m.starts_with("_meta.ui.visibility must be a non-empty list"),
        "{m}"
    );
    let m = tool_ui_meta_json(Some("t"), json!({"ui": {}}))
        .unwrap_err()
        .message;
    assert!(
        m.contains("tool \"t\": _meta.ui.resourceUri is required"),
        "{m}"
    );
}

#[test]
fn the_capability_check_needs_the_app_mime_type() {
    assert!(capabilities_support_ui(&ui_client_capability()));
    assert!(!capabilities_support_ui(&json!({})));
    assert!(!capabilities_support_ui(&json!({
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}
    })));
    let names = ui_constants();
    assert_eq!(names["mimeType"], MIME);
    assert_eq!(names["extension"], "io.modelcontextprotocol/ui");
    assert_eq!(names["legacyResourceUriKey"], "ui/resourceUri");
}
