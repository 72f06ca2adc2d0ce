//! Handlers see the header fields of the HTTP request their request arrived in
//! (`RequestContext::http_headers`), on the Streamable HTTP endpoint, in stateless mode and on
//! the axum router; other transports give none.

use crate::common_http;

use common_http::{call, init_session, post, send, JSON_SSE};
use ferromcp::protocol::Tool;
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use serde_json::{json, Value};

/// A server whose `headers` tool answers with the headers it saw, as JSON text.
fn server() -> Server {
    Server::builder("headers", "1.0")
        .tool_raw(
            Tool::new("headers"),
            tool_fn(|_args, ctx| async move {
                let seen = match ctx.http_headers() {
                    Some(pairs) => json!(pairs),
                    None => Value::Null,
                };
                Ok(ferromcp::protocol::CallToolResult::text(seen.to_string()))
            }),
        )
        .build()
        .unwrap()
}

fn seen(body: &common_http::Resp) -> Value {
    let msgs = body.sse_messages();
    let text = msgs
        .iter()
        .chain(std::iter::once(&body.json()))
        .find_map(|m| {
            m["result"]["content"][0]["text"]
                .as_str()
                .map(str::to_string)
        })
        .expect("a tools/call result");
    serde_json::from_str(&text).unwrap()
}

fn header<'a>(pairs: &'a Value, name: &str) -> Vec<&'a str> {
    pairs
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p[0] == name)
        .map(|p| p[1].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn streamable_http_requests_carry_their_headers() {
    let h = serve_http(server(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    let sid = init_session(&url).await;
    let mut hs: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hs.extend([
        ("mcp-session-id", sid.as_str()),
        ("Authorization", "Bearer abc"),
        ("x-trace", "1"),
        ("x-trace", "2"),
    ]);
    let r = send(
        "POST",
        &url,
        &hs,
        &call(2, "headers", json!({})).to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let pairs = seen(&r);
    assert_eq!(header(&pairs, "authorization"), ["Bearer abc"]);
    assert_eq!(
        header(&pairs, "x-trace"),
        ["1", "2"],
        "repeated fields keep their order"
    );
    assert_eq!(header(&pairs, "mcp-session-id"), [sid.as_str()]);
    // The next request sees its own headers, not the previous ones.
    let r = post(&url, Some(&sid), call(3, "headers", json!({}))).await;
    assert!(header(&seen(&r), "authorization").is_empty());
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn stateless_and_json_modes_too() {
    let opts = HttpServerOptions::default()
        .with_stateless(true)
        .with_json_response(true);
    let h = serve_http(server(), "127.0.0.1:0", opts).await.unwrap();
    let url = h.url("/mcp");
    let mut hs: Vec<(&str, &str)> = JSON_SSE.to_vec();
    hs.push(("x-tenant", "acme"));
    let r = send(
        "POST",
        &url,
        &hs,
        &call(1, "headers", json!({})).to_string(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(header(&seen(&r), "x-tenant"), ["acme"]);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn other_transports_have_none() {
    use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(16);
    let srv = server();
    tokio::spawn(async move { srv.serve(sr, sw).await });
    let client = Client::connect(
        ClientOptions::new("t", "1"),
        ClientHandlers::default(),
        cr,
        cw,
    )
    .await
    .unwrap();
    let r = client
        .request(
            "tools/call",
            Some(json!({"name": "headers", "arguments": {}})),
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "null");
    client.close().await;
}
