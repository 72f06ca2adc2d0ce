//! Era bridging through the proxy (docs/gateway.md, `proxy/src/era.rs`): a 2026-07-28
//! (per-request) client served by a handshake-only backend, a handshake client served by a
//! 2026-07-28-only backend, and a per-request client's `input_required` rounds passed through
//! to a backend of that era with the backend's own input keys. The backends are ferromcp servers
//! over Streamable HTTP in this test, each limited to the revisions of one era.

use crate::common;

use common::{client_in, first_text, proxy};
use ferromcp::client::{Client, ClientHandlers, ProtocolMode};
use ferromcp::protocol::{ElicitResult, ProtocolVersion};
use ferromcp::server::{tool_fn, Server, ServerOptions};
use ferromcp::session::{per_request, RequestOptions};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp_proxy::{Proxy, ProxyConfig};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

/// One elicitation input request asking for `property`.
fn ask(property: &str) -> Map<String, Value> {
    let request = json!({ "method": "elicitation/create", "params": {
        "message": format!("Your {property}?"),
        "requestedSchema": { "type": "object",
            "properties": { property: { "type": "string" } }, "required": [property] } } });
    [(format!("user_{property}"), request)]
        .into_iter()
        .collect()
}

/// A backend serving the revisions `versions` only, with `two_questions` (asks a name, then a
/// colour, with `ctx.input`: requests in the handshake era, `input_required` rounds in the
/// per-request one) and `capabilities` (what the request's client declared).
async fn backend(versions: Vec<ProtocolVersion>) -> (HttpServerHandle, String) {
    let mut options = ServerOptions::new("era-backend", "1");
    options.session.supported_versions = versions;
    let tool = |name: &str| {
        serde_json::from_value(json!({ "name": name, "inputSchema": { "type": "object" } }))
            .unwrap()
    };
    let server =
        Server::builder_with(options)
            .tool_raw(
                tool("two_questions"),
                tool_fn(|_, ctx| async move {
                    let name = ctx.input(ask("name")).await?;
                    let colour = ctx.input(ask("colour")).await?;
                    let text = format!(
                        "{} likes {}",
                        name["user_name"]["content"]["name"].as_str().unwrap_or("?"),
                        colour["user_colour"]["content"]["colour"]
                            .as_str()
                            .unwrap_or("?")
                    );
                    Ok(serde_json::from_value(
                        json!({ "content": [{ "type": "text", "text": text }] }),
                    )
                    .unwrap())
                }),
            )
            .tool_raw(
                tool("capabilities"),
                tool_fn(|_, ctx| async move {
                    let caps = ctx
                        .session()
                        .negotiated()
                        .map(|n| (*n.peer_capabilities).clone())
                        .unwrap_or(Value::Null);
                    let mut names: Vec<&String> = caps
                        .as_object()
                        .map(|m| m.keys().collect())
                        .unwrap_or_default();
                    names.sort();
                    let text = names
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(",");
                    Ok(serde_json::from_value(
                        json!({ "content": [{ "type": "text", "text": text }] }),
                    )
                    .unwrap())
                }),
            )
            .build()
            .unwrap();
    let handle = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = format!("http://{}/mcp", handle.local_addr());
    (handle, url)
}

fn handshake_only() -> Vec<ProtocolVersion> {
    ProtocolVersion::ALL.to_vec()
}

fn per_request_only() -> Vec<ProtocolVersion> {
    ProtocolVersion::PER_REQUEST.to_vec()
}

/// An elicitation handler answering `name` Ada and `colour` green; it records the messages.
fn answering(seen: Arc<Mutex<Vec<String>>>) -> ClientHandlers {
    ClientHandlers::default().with_elicitation(Some(Arc::new(move |params, _ctx| {
        let seen = seen.clone();
        Box::pin(async move {
            let params = serde_json::to_value(params).unwrap();
            let message = params["message"].as_str().unwrap_or_default().to_string();
            let content = if message.contains("name") {
                json!({ "name": "Ada" })
            } else {
                json!({ "colour": "green" })
            };
            seen.lock().unwrap().push(message);
            Ok(serde_json::from_value::<ElicitResult>(
                json!({ "action": "accept", "content": content }),
            )
            .unwrap())
        })
    })))
}

/// A client of `mode` connected to the proxy in memory, answering elicitations (`answering`,
/// keeping each message in `seen`).
async fn era_client(proxy: &Proxy, mode: ProtocolMode, seen: Arc<Mutex<Vec<String>>>) -> Client {
    client_in(proxy, "era-test", mode, answering(seen)).await
}

async fn proxy_for(url: &str) -> Proxy {
    let config =
        ProxyConfig::from_value(&json!({ "mcpServers": { "b": { "url": url } } })).unwrap();
    proxy(&config).await
}

async fn call(c: &Client, tool: &str) -> String {
    let r = c
        .request(
            "tools/call",
            Some(json!({ "name": tool, "arguments": {} })),
            RequestOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    first_text(&r)
}

#[tokio::test]
async fn a_per_request_client_is_served_by_a_handshake_only_backend() {
    let (backend, url) = backend(handshake_only()).await;
    let proxy = proxy_for(&url).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let c = era_client(&proxy, ProtocolMode::PerRequest, seen.clone()).await;
    assert!(c.is_per_request());
    // The backend's elicitation requests become input_required rounds for the client; each
    // retry runs the call at the backend again, which gets its answers this time.
    assert_eq!(call(&c, "two_questions").await, "Ada likes green");
    assert_eq!(*seen.lock().unwrap(), vec!["Your name?", "Your colour?"]);
    proxy.shutdown().await;
    backend.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_handshake_client_is_served_by_a_per_request_only_backend() {
    let (backend, url) = backend(per_request_only()).await;
    let proxy = proxy_for(&url).await;
    assert!(
        proxy.backends()[0].is_up(),
        "{:?}",
        proxy.backends()[0].last_error()
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let c = era_client(&proxy, ProtocolMode::Handshake, seen.clone()).await;
    assert!(!c.is_per_request());
    // The backend's input_required rounds become elicitation requests to the client.
    assert_eq!(call(&c, "two_questions").await, "Ada likes green");
    assert_eq!(*seen.lock().unwrap(), vec!["Your name?", "Your colour?"]);
    // The backend sees the real client's capabilities, not the proxy's.
    assert_eq!(call(&c, "capabilities").await, "elicitation");
    proxy.shutdown().await;
    backend.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_per_request_client_gets_the_backends_own_input_requests_through_the_proxy() {
    let (backend, url) = backend(per_request_only()).await;
    let proxy = proxy_for(&url).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let c = era_client(&proxy, ProtocolMode::PerRequest, seen.clone()).await;
    assert_eq!(call(&c, "two_questions").await, "Ada likes green");
    assert_eq!(*seen.lock().unwrap(), vec!["Your name?", "Your colour?"]);
    assert_eq!(call(&c, "capabilities").await, "elicitation");
    // One round by hand: the input request keeps the backend's key, and the proxy's
    // requestState (which seals the backend's) comes with it.
    let envelope = json!({
        per_request::META_PROTOCOL_VERSION: "2026-07-28",
        per_request::META_CLIENT_CAPABILITIES: { "elicitation": {} },
        per_request::META_CLIENT_INFO: { "name": "by-hand", "version": "0" },
    });
    let first = c
        .peer()
        .request(
            "tools/call",
            Some(json!({ "name": "two_questions", "arguments": {}, "_meta": envelope })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let keys: Vec<&String> = first["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, vec!["user_name"]);
    assert!(first["requestState"].is_string(), "{first}");
    // The retry with the answer reaches the backend's second round, under its key.
    let second = c
        .peer()
        .request(
            "tools/call",
            Some(json!({ "name": "two_questions", "arguments": {}, "_meta": envelope,
                "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Bo" } } },
                "requestState": first["requestState"] })),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    let keys: Vec<&String> = second["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, vec!["user_colour"], "{second}");
    // A tampered proxy state is refused by the proxy.
    let tampered = c
        .peer()
        .request(
            "tools/call",
            Some(
                json!({ "name": "two_questions", "arguments": {}, "_meta": envelope,
                "requestState": format!("{}x", first["requestState"].as_str().unwrap()) }),
            ),
            RequestOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(tampered.code, -32602, "{tampered}");
    proxy.shutdown().await;
    backend.shutdown().await.unwrap();
}
