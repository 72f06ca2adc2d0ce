//! `Client::listen` (2026-07-28 `subscriptions/listen`) against ferromcp's own server, over
//! Streamable HTTP and over the message stream stdio uses: the acknowledgement gives the
//! subscription id, the client receives exactly the notifications it asked for (tagged with that
//! id, and not through `on_notification`), dropping the subscription ends it on the server, and
//! a handshake-era session refuses it with a clear error.

use crate::common;

use ferromcp::client::http::connect;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode, Subscription};
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{
    CallToolResult, Prompt, Resource, ResourceContents, TextResourceContents, Tool,
};
use ferromcp::server::{prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::session::ListenFilter;
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use ferromcp::transport::memory_pair;
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::listen::SUB_ID;

fn server() -> Server {
    Server::builder("client-listen-test", "1.0")
        .options(|o| {
            o.enable_tools = true;
            o.enable_prompts = true;
        })
        .resource(
            Resource::new("mem://a", "a"),
            resource_fn(|req, _| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "a",
                ))])
            }),
        )
        .build()
        .unwrap()
}

fn options(mode: ProtocolMode) -> ClientOptions {
    let mut o = ClientOptions::new("client-listen", "1.0");
    o.mode = mode;
    o
}

/// Handlers that record every notification reaching `on_notification`.
fn recording(seen: Arc<Mutex<Vec<String>>>) -> ClientHandlers {
    ClientHandlers::default().with_on_notification(Some(Arc::new(move |n: Notification| {
        seen.lock().unwrap().push(n.method)
    })))
}

fn filter() -> ListenFilter {
    ListenFilter::default()
        .with_tools_list_changed(true)
        .with_resource_subscriptions(vec!["mem://a".into()])
}

async fn next(sub: &mut Subscription) -> Notification {
    tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .expect("a notification within 5 s")
        .expect("the subscription is still open")
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

/// The whole exchange on one connected client: listen, change what was asked for and what was
/// not, check what arrives, drop, check the server let go.
async fn exercise(client: &Client, server: &Server, seen: &Arc<Mutex<Vec<String>>>) {
    let before = server.live_sessions().len();
    let mut sub = client.listen(filter()).await.unwrap();
    assert!(
        sub.id().is_number() || sub.id().is_string(),
        "{:?}",
        sub.id()
    );
    assert_eq!(
        sub.acknowledged(),
        &filter(),
        "the server honours both kinds"
    );
    assert_eq!(
        server.live_sessions().len(),
        before + 1,
        "listed on the server"
    );

    // Not asked for: a prompt list change, an update of another resource.
    server.add_prompt(
        Prompt::new("p"),
        prompt_fn(|_, _| async { Ok(serde_json::from_value(json!({ "messages": [] })).unwrap()) }),
    );
    server.notify_resource_updated("mem://other");
    // Asked for.
    server
        .add_tool(
            Tool::new("t"),
            tool_fn(|_, _| async { Ok(CallToolResult::text("t")) }),
        )
        .unwrap();
    server.notify_resource_updated("mem://a");

    let n = next(&mut sub).await;
    assert_eq!(n.method, "notifications/tools/list_changed");
    assert_eq!(n.params.as_ref().unwrap()["_meta"][SUB_ID], *sub.id());
    let n = next(&mut sub).await;
    assert_eq!(n.method, "notifications/resources/updated");
    let p = n.params.as_ref().unwrap();
    assert_eq!(p["uri"], "mem://a");
    assert_eq!(p["_meta"][SUB_ID], *sub.id());
    // Nothing else: neither the kinds not asked for nor a copy on the other path.
    let extra = tokio::time::timeout(Duration::from_millis(300), sub.next()).await;
    assert!(extra.is_err(), "unexpected: {extra:?}");
    assert!(
        seen.lock().unwrap().is_empty(),
        "subscription notifications reached on_notification: {:?}",
        seen.lock().unwrap()
    );

    // Dropping the subscription ends the server's listen.
    drop(sub);
    wait_until("the server ending the listen", || {
        server.live_sessions().len() == before
    })
    .await;
    // The client still works, and a second subscription gets its own id.
    client.list_all_tools().await.unwrap();
    let sub = client.listen(filter()).await.unwrap();
    assert_eq!(server.live_sessions().len(), before + 1);
    drop(sub);
    wait_until("the second listen ending", || {
        server.live_sessions().len() == before
    })
    .await;
}

#[tokio::test]
async fn listen_over_streamable_http() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let server = server();
        let h = serve_http(server.clone(), "127.0.0.1:0", HttpServerOptions::default())
            .await
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let client = connect(
            &h.url("/mcp"),
            options(ProtocolMode::PerRequest),
            recording(seen.clone()),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        exercise(&client, &server, &seen).await;
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

/// A graceful shutdown does not wait for an open listen (it has no end of its own): the server
/// answers the listen request with its completion result, the stream ends, and the client's
/// subscription ends reporting that result.
#[tokio::test]
async fn shutdown_ends_an_open_listen() {
    let server = server();
    let h = serve_http(server.clone(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let client = connect(
        &h.url("/mcp"),
        options(ProtocolMode::PerRequest),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    let mut sub = client.listen(filter()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), h.shutdown())
        .await
        .expect("shutdown waited for the open listen")
        .unwrap();
    let end = tokio::time::timeout(Duration::from_secs(10), sub.next()).await;
    assert!(matches!(end, Ok(None)), "{end:?}");
    common::listen::assert_graceful_end(&sub);
}

#[tokio::test]
async fn listen_over_a_message_stream() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
        let server = server();
        let srv = server.clone();
        tokio::spawn(async move { srv.serve(r_s, w_s).await });
        let seen = Arc::new(Mutex::new(Vec::new()));
        let client = Client::connect(
            options(ProtocolMode::PerRequest),
            recording(seen.clone()),
            r_c,
            w_c,
        )
        .await
        .unwrap();
        exercise(&client, &server, &seen).await;
        client.close().await;
    })
    .await
    .unwrap();
}

/// Two subscriptions at once on one stream: each gets only its own kinds, under its own id.
#[tokio::test]
async fn concurrent_subscriptions_are_demultiplexed() {
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
    let mut tools = client
        .listen(ListenFilter::default().with_tools_list_changed(true))
        .await
        .unwrap();
    let mut res = client
        .listen(ListenFilter::default().with_resource_subscriptions(vec!["mem://a".into()]))
        .await
        .unwrap();
    assert_ne!(tools.id(), res.id());
    server.notify_resource_updated("mem://a");
    server
        .add_tool(
            Tool::new("t"),
            tool_fn(|_, _| async { Ok(CallToolResult::text("t")) }),
        )
        .unwrap();
    // As a Stream too.
    let n = tokio::time::timeout(Duration::from_secs(5), tools.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n.method, "notifications/tools/list_changed");
    assert_eq!(n.params.unwrap()["_meta"][SUB_ID], *tools.id());
    let n = tokio::time::timeout(Duration::from_secs(5), StreamExt::next(&mut res))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n.method, "notifications/resources/updated");
    assert_eq!(n.params.unwrap()["_meta"][SUB_ID], *res.id());
    let extra = tokio::time::timeout(Duration::from_millis(200), tools.next()).await;
    assert!(extra.is_err(), "unexpected: {extra:?}");
    client.close().await;
    // The connection closed: the subscriptions end.
    let end = tokio::time::timeout(Duration::from_secs(5), tools.next())
        .await
        .unwrap();
    assert!(end.is_none());
    assert!(tools.end().is_some_and(|r| r.is_err()), "{:?}", tools.end());
}

/// A handshake-era session has no `subscriptions/listen`: a clear error, nothing sent.
#[tokio::test]
async fn handshake_era_refuses_listen() {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
    let srv = server();
    tokio::spawn(async move { srv.serve(r_s, w_s).await });
    let client = Client::connect(
        options(ProtocolMode::Handshake),
        ClientHandlers::default(),
        r_c,
        w_c,
    )
    .await
    .unwrap();
    let e = client.listen(filter()).await.unwrap_err();
    assert_eq!(e.code, -32600, "{e}");
    assert!(e.message.contains("per-request era"), "{e}");
    assert!(e.message.contains("subscribe()"), "{e}");
    let _: Value = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    client.close().await;
}
