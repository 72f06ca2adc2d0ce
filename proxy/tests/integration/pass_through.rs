//! What the proxy passes between a backend and its clients besides results (issue 39 point 1):
//! a client's cancellation reaches the backend's handler, a backend's
//! `notifications/tools/list_changed` reaches the client with the new tool listed under its
//! namespace, and `notifications/resources/updated` of a subscribed backend resource reaches
//! the client with the namespaced URI. The backends are in-process servers over Streamable
//! HTTP, two of them so that names and URIs are namespaced.

use crate::common;

use common::{client, first_text, proxy};
use ferromcp::client::{Client, ClientHandlers};
use ferromcp::codes;
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{CallToolResult, Resource, ResourceContents, TextResourceContents, Tool};
use ferromcp::server::{resource_fn, tool_fn, Server};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp_proxy::{Proxy, ProxyConfig};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long a test waits for something that should happen at once.
const WAIT: Duration = Duration::from_secs(10);

/// An in-process backend: a `slow` tool that reports on `events` when it starts and when its
/// cancellation fires, a `fast` tool, and a subscribable resource `test://watched`. The
/// returned `Server` shares its state with the one being served (to add tools and send
/// updates from the test).
struct Backend {
    server: Server,
    handle: HttpServerHandle,
    url: String,
    events: mpsc::UnboundedReceiver<String>,
}

async fn backend(name: &str) -> Backend {
    let (tx, events) = mpsc::unbounded_channel();
    let server = Server::builder(name, "1")
        .tool_raw(
            Tool::new("slow"),
            tool_fn(move |_args, ctx| {
                let tx = tx.clone();
                async move {
                    let _ = tx.send("started".to_string());
                    tokio::select! {
                        _ = ctx.cancellation().cancelled() => {
                            let _ = tx.send("cancelled".to_string());
                            Ok(CallToolResult::text("finished after cancel"))
                        }
                        _ = tokio::time::sleep(Duration::from_secs(30)) => {
                            Ok(CallToolResult::text("slept"))
                        }
                    }
                }
            }),
        )
        .tool_raw(
            Tool::new("fast"),
            tool_fn(|_args, _ctx| async move { Ok(CallToolResult::text("fast")) }),
        )
        .resource(
            Resource::new("test://watched", "watched"),
            resource_fn(|req, _ctx| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "v1",
                ))])
            }),
        )
        .build()
        .unwrap();
    let handle = serve_http(server.clone(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = format!("http://{}/mcp", handle.local_addr());
    Backend {
        server,
        handle,
        url,
        events,
    }
}

/// A proxy over the backends `live` and `other` (so that everything is namespaced).
async fn proxy_over(live: &Backend, other: &Backend) -> Proxy {
    let config = ProxyConfig::from_value(&json!({ "mcpServers": {
        "live": { "url": live.url },
        "other": { "url": other.url },
    } }))
    .unwrap();
    proxy(&config).await
}

/// Handlers that send every notification with `method` (its params) on the returned channel.
fn notifications_of(method: &'static str) -> (ClientHandlers, mpsc::UnboundedReceiver<Value>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handlers =
        ClientHandlers::default().with_on_notification(Some(Arc::new(move |n: Notification| {
            if n.method == method {
                let _ = tx.send(n.params.unwrap_or(Value::Null));
            }
        })));
    (handlers, rx)
}

async fn call(c: &Client, name: &str) -> Result<Value, ferromcp::McpError> {
    c.request(
        "tools/call",
        Some(json!({ "name": name, "arguments": {} })),
        RequestOptions::default(),
    )
    .await
}

async fn tool_names(c: &Client) -> Vec<String> {
    c.list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect()
}

async fn next_event(events: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(WAIT, events.recv())
        .await
        .expect("the backend's handler reports in time")
        .expect("the backend is alive")
}

#[tokio::test]
async fn a_clients_cancellation_reaches_the_backends_handler_and_the_next_call_works() {
    let mut live = backend("live").await;
    let other = backend("other").await;
    let proxy = proxy_over(&live, &other).await;
    let c = Arc::new(client(&proxy, ClientHandlers::default()).await);
    let token = CancellationToken::new();
    let slow = {
        let c = c.clone();
        let opts = RequestOptions::default().with_cancel(Some(token.clone()));
        tokio::spawn(async move {
            c.request(
                "tools/call",
                Some(json!({ "name": "live_slow", "arguments": {} })),
                opts,
            )
            .await
        })
    };
    assert_eq!(next_event(&mut live.events).await, "started");
    token.cancel();
    // The client's own outcome: its request ends as cancelled, at once.
    let outcome = tokio::time::timeout(WAIT, slow)
        .await
        .expect("the cancelled call returns")
        .unwrap();
    let err = outcome.expect_err("a cancelled call has no result");
    assert_eq!(err.code, codes::REQUEST_CANCELLED, "{err:?}");
    // The backend's handler sees the cancellation the proxy forwarded.
    assert_eq!(next_event(&mut live.events).await, "cancelled");
    // The next calls work, to the same backend and to the other.
    assert_eq!(first_text(&call(&c, "live_fast").await.unwrap()), "fast");
    assert_eq!(first_text(&call(&c, "other_fast").await.unwrap()), "fast");
    // The handler ran once and was cancelled once.
    assert!(
        live.events.try_recv().is_err(),
        "the backend reported more than one start and one cancellation"
    );
    proxy.shutdown().await;
    live.handle.shutdown().await.unwrap();
    other.handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_backends_tools_list_changed_reaches_the_client_with_the_new_tool_namespaced() {
    let live = backend("live").await;
    let other = backend("other").await;
    let proxy = proxy_over(&live, &other).await;
    let (handlers, mut changed) = notifications_of("notifications/tools/list_changed");
    let c = client(&proxy, handlers).await;
    let before = tool_names(&c).await;
    assert!(before.contains(&"live_fast".to_string()), "{before:?}");
    assert!(!before.contains(&"live_added".to_string()), "{before:?}");
    // Whatever was announced while the proxy came up is not what this test waits for.
    tokio::time::sleep(Duration::from_millis(200)).await;
    while changed.try_recv().is_ok() {}
    live.server
        .add_tool(
            Tool::new("added").with_description("added at run time"),
            tool_fn(|_args, _ctx| async move { Ok(CallToolResult::text("new")) }),
        )
        .unwrap();
    tokio::time::timeout(WAIT, changed.recv())
        .await
        .expect("notifications/tools/list_changed reaches the proxy's client")
        .expect("client alive");
    let after = tool_names(&c).await;
    assert!(after.contains(&"live_added".to_string()), "{after:?}");
    assert!(!after.contains(&"added".to_string()), "{after:?}");
    assert!(!after.contains(&"other_added".to_string()), "{after:?}");
    assert_eq!(first_text(&call(&c, "live_added").await.unwrap()), "new");
    proxy.shutdown().await;
    live.handle.shutdown().await.unwrap();
    other.handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_subscribed_backend_resources_update_reaches_the_client_with_the_namespaced_uri() {
    let live = backend("live").await;
    let other = backend("other").await;
    let proxy = proxy_over(&live, &other).await;
    let (handlers, mut updated) = notifications_of("notifications/resources/updated");
    let c = client(&proxy, handlers).await;
    let (handlers, mut not_subscribed) = notifications_of("notifications/resources/updated");
    let bystander = client(&proxy, handlers).await;
    let uris: Vec<String> = c
        .list_resources(None)
        .await
        .unwrap()
        .resources
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert!(
        uris.contains(&"live+test://watched".to_string()),
        "{uris:?}"
    );
    c.subscribe("live+test://watched").await.unwrap();
    // The proxy subscribes to the backend's resource once it has listed it, concurrently with
    // this test: the backend announces the update until the first one arrives (each one sent
    // after the proxy's subscription must reach the client).
    let announce = {
        let server = live.server.clone();
        tokio::spawn(async move {
            loop {
                server.notify_resource_updated("test://watched");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let got = tokio::time::timeout(WAIT, updated.recv())
        .await
        .expect("notifications/resources/updated reaches the subscribed client")
        .expect("client alive");
    // Updates go to subscribers only: the client that did not subscribe gets none of them.
    tokio::time::sleep(Duration::from_millis(200)).await;
    announce.abort();
    assert_eq!(got["uri"], "live+test://watched", "{got}");
    assert!(
        not_subscribed.try_recv().is_err(),
        "an update reached a client that did not subscribe"
    );
    bystander.close().await;
    let read = c.read_resource("live+test://watched").await.unwrap();
    assert_eq!(read.contents[0].uri(), "live+test://watched");
    proxy.shutdown().await;
    live.handle.shutdown().await.unwrap();
    other.handle.shutdown().await.unwrap();
}
