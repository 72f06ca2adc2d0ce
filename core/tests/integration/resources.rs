//! Proves the resources feature: list, read of text and blob contents, RFC 6570 templates with
//! variables reaching the handler, unknown URIs -> -32002, subscribe/unsubscribe with
//! `notify_resource_updated` reaching only subscribers, and `list_changed` on a live session.

use crate::support;

use ferromcp::codes;
use ferromcp::protocol::{
    BlobResourceContents, Resource, ResourceContents, ResourceTemplate, TextResourceContents,
};
use ferromcp::server::{resource_fn, Server};
use serde_json::json;
use std::time::Duration;
use support::{error_code, RawPeer};

fn server() -> Server {
    Server::builder("res", "1")
        .resource(
            {
                let mut lit = Resource::new("mem://text", "text");
                lit.mime_type = Some("text/plain".into());
                lit
            },
            resource_fn(|r, _c| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    r.uri,
                    "hello text",
                ))])
            }),
        )
        .resource(
            Resource::new("mem://blob", "blob"),
            resource_fn(|r, _c| async move {
                Ok(vec![ResourceContents::Blob(BlobResourceContents::new(
                    r.uri, "AAEC",
                ))])
            }),
        )
        .resource_template(
            ResourceTemplate::new("mem://items/{id}", "item"),
            resource_fn(|r, _c| async move {
                let id = r.variables.get("id").cloned().unwrap_or_default();
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    r.uri,
                    format!("item={id}"),
                ))])
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn list_and_templates_list() {
    let mut p = RawPeer::start(&server());
    let init = p.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["resources"]["subscribe"], true);
    let r = p.call(json!(1), "resources/list", json!({})).await;
    let uris: Vec<&str> = r["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["mem://text", "mem://blob"]);
    assert_eq!(r["resources"][0]["mimeType"], "text/plain");
    let r = p
        .call(json!(2), "resources/templates/list", json!({}))
        .await;
    assert_eq!(r["resourceTemplates"][0]["uriTemplate"], "mem://items/{id}");
}

#[tokio::test]
async fn read_text_blob_and_template() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let r = p
        .call(json!(1), "resources/read", json!({"uri": "mem://text"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "hello text");
    assert_eq!(r["contents"][0]["uri"], "mem://text");
    let r = p
        .call(json!(2), "resources/read", json!({"uri": "mem://blob"}))
        .await;
    assert_eq!(r["contents"][0]["blob"], "AAEC");
    assert!(r["contents"][0].get("text").is_none());
    let r = p
        .call(json!(3), "resources/read", json!({"uri": "mem://items/42"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "item=42");
    assert_eq!(r["contents"][0]["uri"], "mem://items/42");
    let r = p
        .call(
            json!(4),
            "resources/read",
            json!({"uri": "mem://items/a%20b"}),
        )
        .await;
    assert_eq!(
        r["contents"][0]["text"], "item=a b",
        "variables are percent-decoded"
    );
}

#[tokio::test]
async fn unknown_uri_is_resource_not_found() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    for (i, uri) in ["mem://nope", "mem://items/1/extra", "other://text"]
        .iter()
        .enumerate()
    {
        let m = p
            .request(json!(i), "resources/read", json!({"uri": uri}))
            .await;
        assert_eq!(
            error_code(&m),
            codes::RESOURCE_NOT_FOUND as i64,
            "{uri}: {m}"
        );
        assert_eq!(m["error"]["data"]["uri"], *uri);
    }
    let m = p.request(json!(9), "resources/read", json!({})).await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
}

#[tokio::test]
async fn updates_reach_only_subscribers() {
    let server = server();
    let mut a = RawPeer::start(&server);
    let mut b = RawPeer::start(&server);
    a.initialize("2025-11-25").await;
    b.initialize("2025-11-25").await;
    a.call(
        json!(1),
        "resources/subscribe",
        json!({"uri": "mem://text"}),
    )
    .await;
    b.assert_alive().await;
    server.notify_resource_updated("mem://text");
    let m = a.recv().await;
    assert_eq!(m["method"], "notifications/resources/updated");
    assert_eq!(m["params"]["uri"], "mem://text");
    b.assert_silent(Duration::from_millis(200)).await;
    // Other URIs are not delivered.
    server.notify_resource_updated("mem://blob");
    a.assert_silent(Duration::from_millis(200)).await;
    // After unsubscribing nothing arrives.
    a.call(
        json!(2),
        "resources/unsubscribe",
        json!({"uri": "mem://text"}),
    )
    .await;
    server.notify_resource_updated("mem://text");
    a.assert_silent(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn list_changed_on_live_session() {
    let server = server();
    let mut p = RawPeer::start(&server);
    let init = p.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["resources"]["listChanged"], true);
    p.assert_alive().await;
    server.add_resource(
        Resource::new("mem://new", "new"),
        resource_fn(|r, _c| async move {
            Ok(vec![ResourceContents::Text(TextResourceContents::new(
                r.uri, "new",
            ))])
        }),
    );
    let m = p.recv().await;
    assert_eq!(m["method"], "notifications/resources/list_changed");
    let r = p
        .call(json!(1), "resources/read", json!({"uri": "mem://new"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "new");
    assert!(server.remove_resource("mem://new"));
    assert_eq!(
        p.recv().await["method"],
        "notifications/resources/list_changed"
    );
}
