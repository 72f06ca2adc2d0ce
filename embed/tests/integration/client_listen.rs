//! `EmbeddedClient::listen` and `EmbeddedSubscription`, the bindings' face of
//! `subscriptions/listen` (2026-07-28): the filter as JSON in and out, and `close` from another
//! task (what a foreign runtime's `close()` does while its reader waits). `Client::listen`
//! itself is checked in core's `integration/client_listen.rs`.

use crate::common_listen::SUB_ID;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::memory_pair;
use ferromcp_embed::EmbeddedClient;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// A server with tools enabled and none registered yet (the test adds one).
fn server() -> Server {
    Server::builder("embedded-listen-test", "1.0")
        .options(|o| o.enable_tools = true)
        .build()
        .unwrap()
}

fn options(mode: ProtocolMode) -> ClientOptions {
    let mut o = ClientOptions::new("embedded-listen", "1.0");
    o.mode = mode;
    o
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..250 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what} did not happen within 5 s");
}

/// The bindings' face (`EmbeddedSubscription`): the filter as JSON in and out, `close`
/// from another task while `next` waits (which then returns `None` and `end` says -32800), and
/// the server lets the listen go.
#[tokio::test]
async fn embedded_subscription_closes_from_another_task() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
        let server = server();
        let srv = server.clone();
        tokio::spawn(async move { srv.serve(r_s, w_s).await });
        let client = Client::connect(
            options(ProtocolMode::PerRequest),
            ClientHandlers::default(),
            r_c,
            w_c,
        )
        .await
        .unwrap();
        let client = EmbeddedClient::from_client(client);
        let before = server.live_sessions().len();
        let bad = client.listen(json!({ "toolListChanged": true })).await;
        assert_eq!(bad.unwrap_err().code, -32602);
        let sub = Arc::new(
            client
                .listen(json!({ "toolsListChanged": true, "promptsListChanged": false }))
                .await
                .unwrap(),
        );
        assert_eq!(sub.acknowledged(), json!({ "toolsListChanged": true }));
        assert!(sub.end().is_none());
        server
            .add_tool(
                Tool::new("t"),
                tool_fn(|_, _| async { Ok(CallToolResult::text("t")) }),
            )
            .unwrap();
        let n = sub.next().await.unwrap();
        assert_eq!(n.method, "notifications/tools/list_changed");
        assert_eq!(n.params.unwrap()["_meta"][SUB_ID], sub.id());
        let waiting = tokio::spawn({
            let sub = sub.clone();
            async move { sub.next().await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        sub.close();
        assert!(waiting.await.unwrap().is_none());
        assert_eq!(sub.end().unwrap().unwrap_err().code, -32800);
        assert!(sub.next().await.is_none());
        wait_until("the server ending the listen", || {
            server.live_sessions().len() == before
        })
        .await;

        // A `next` whose task was aborted (a foreign timeout) may still hold the subscription
        // when `close` comes: the server lets go all the same.
        let sub = Arc::new(
            client
                .listen(json!({ "toolsListChanged": true }))
                .await
                .unwrap(),
        );
        assert_eq!(server.live_sessions().len(), before + 1);
        let waiting = tokio::spawn({
            let sub = sub.clone();
            async move { sub.next().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        waiting.abort();
        sub.close();
        wait_until("the server ending the second listen", || {
            server.live_sessions().len() == before
        })
        .await;
        client.close().await;
    })
    .await
    .unwrap();
}
