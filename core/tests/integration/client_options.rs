//! Proves that a client can advertise capabilities beyond what its handlers imply
//! (`ClientHandlers.extra_capabilities`, deep-merged; `null` removes) and extra `clientInfo`
//! fields (`ClientOptions.title`, `info_extra`), as the server sees them.

use crate::support;

use ferromcp::client::{merge_capabilities, ClientHandlers, ClientOptions};
use ferromcp::protocol::{CallToolResult, ElicitAction, ElicitResult, Root, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::ProtocolVersion;
use serde_json::{json, Value};
use std::sync::Arc;

/// `whoami` answers with what the server negotiated about its client.
fn server() -> Server {
    Server::builder("mirror", "1")
        .tool_raw(
            Tool::new("whoami"),
            tool_fn(|_a, ctx| async move {
                let peer = ctx.peer();
                Ok(CallToolResult::text(
                    json!({
                        "capabilities": peer.peer_capabilities(),
                        "info": peer.peer_info(),
                    })
                    .to_string(),
                ))
            }),
        )
        .build()
        .unwrap()
}

async fn whoami(client: &ferromcp::client::Client) -> Value {
    let r = support::within(client.call_tool("whoami", json!({})))
        .await
        .unwrap();
    serde_json::from_str(r.content[0].as_text().unwrap()).unwrap()
}

fn handlers() -> ClientHandlers {
    ClientHandlers::default()
        .with_roots(Some(Arc::new(|_ctx| {
            Box::pin(async { Ok(vec![Root::new("file:///tmp")]) })
        })))
        .with_elicitation(Some(Arc::new(|_p, _ctx| {
            Box::pin(async { Ok(ElicitResult::new(ElicitAction::Decline)) })
        })))
}

#[tokio::test]
async fn extra_capabilities_are_deep_merged() {
    let h = handlers().with_extra_capabilities(Some(json!({
        "elicitation": {"form": {"applyDefaults": true}},
        "experimental": {"example.com/feature": {"level": 2}},
        "roots": null,
    })));
    let caps = h.capabilities();
    assert_eq!(
        caps,
        json!({
            "elicitation": {"form": {"applyDefaults": true}},
            "experimental": {"example.com/feature": {"level": 2}},
        })
    );
    assert_eq!(
        handlers().capabilities(),
        json!({"roots": {"listChanged": true}, "elicitation": {"form": {}}})
    );
    let c = support::connect(&server(), h).await;
    assert_eq!(whoami(&c).await["capabilities"], caps);
    c.close().await;
}

#[test]
fn merge_rules() {
    let mut base = json!({"a": {"x": 1, "y": {"z": 2}}, "b": 1, "c": "keep"});
    merge_capabilities(
        &mut base,
        &json!({"a": {"y": {"w": 3}, "x": null}, "b": {"now": "object"}, "d": []}),
    );
    assert_eq!(
        base,
        json!({"a": {"y": {"z": 2, "w": 3}}, "b": {"now": "object"}, "c": "keep", "d": []})
    );
    // A non-object overlay is ignored.
    let before = base.clone();
    merge_capabilities(&mut base, &json!(42));
    assert_eq!(base, before);
}

#[tokio::test]
async fn client_info_title_and_extra_fields() {
    let mut o = ClientOptions::new("fancy-client", "2.0");
    o.title = Some("Fancy Client".into());
    o.info_extra
        .insert("websiteUrl".into(), json!("https://example.com"));
    // name/version/title win over info_extra.
    o.info_extra.insert("name".into(), json!("ignored"));
    let c = support::connect_with(&server(), ClientHandlers::default(), o.clone()).await;
    assert_eq!(
        whoami(&c).await["info"],
        json!({"name": "fancy-client", "version": "2.0", "title": "Fancy Client", "websiteUrl": "https://example.com"})
    );
    c.close().await;

    // Revisions before 2025-06-18 have no title.
    o.protocol_version = ProtocolVersion::V2025_03_26;
    let c = support::connect_with(&server(), ClientHandlers::default(), o).await;
    let info = whoami(&c).await["info"].clone();
    assert!(info.get("title").is_none(), "{info}");
    assert_eq!(info["name"], "fancy-client");
    c.close().await;
}

/// A stdio MCP server in Python answering `tools/call` with a text of `size` bytes.
const BIG_RESULT_SERVER: &str = r#"
import json, sys
size = int(sys.argv[1])
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "big", "version": "1"}}
    else:
        r = {"content": [{"type": "text", "text": "x" * size}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"#;

#[tokio::test]
async fn a_spawned_server_is_read_with_the_clients_max_message_size() {
    let process = ferromcp::transport::ChildProcessOptions::new("python3").args([
        "-c",
        BIG_RESULT_SERVER,
        "5000000",
    ]);
    let mut options = ClientOptions::new("big-reader", "1");
    options.session.max_message_size = 16 * 1024 * 1024;
    let client = support::within(ferromcp::client::Client::spawn(
        process,
        options,
        ClientHandlers::default(),
    ))
    .await
    .expect("spawn");
    let r = support::within(client.call_tool("big", json!({})))
        .await
        .expect("a 5 MB result under a 16 MiB limit");
    let text = serde_json::to_value(&r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .len();
    assert_eq!(text, 5_000_000);
}
