//! Proves ping in both directions: the client pings the server, and a server handler pings the
//! client through `ctx.peer().request("ping")`; both answer with an empty result.

use crate::support;

use ferromcp::client::ClientHandlers;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use serde_json::json;
use support::RawPeer;

fn server() -> Server {
    Server::builder("ping", "1")
        .tool_raw(
            Tool::new("ping_back"),
            tool_fn(|_a, ctx| async move {
                let r = ctx
                    .peer()
                    .request("ping", None, RequestOptions::default())
                    .await?;
                Ok(CallToolResult::text(format!("client answered {r}")))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn client_pings_server() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    support::within(client.ping()).await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn server_pings_client() {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let r = support::within(client.call_tool("ping_back", json!({})))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("client answered {}"));
    client.close().await;
}

#[tokio::test]
async fn server_ping_on_the_wire() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    p.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ping_back"}}),
    )
    .await;
    let ping = p.recv().await;
    assert_eq!(ping["method"], "ping");
    assert!(ping["id"].is_i64() || ping["id"].is_string());
    p.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
        .await;
    let m = p.response(json!(1)).await;
    assert_eq!(m["result"]["content"][0]["text"], "client answered {}");
    // ping without params and with empty params
    p.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    assert_eq!(p.response(json!(2)).await["result"], json!({}));
}
