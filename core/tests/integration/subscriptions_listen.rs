//! `subscriptions/listen` (2026-07-28) over Streamable HTTP: the acknowledgement comes first,
//! every notification carries the subscription id, only the kinds the client opted in to are
//! delivered, and closing the stream ends the subscription.

use crate::common_http;
use crate::common_modern;

use bytes::Bytes;
use common_modern::{headers_for, request};
use ferromcp::protocol::{Prompt, Resource, ResourceContents, TextResourceContents, Tool};
use ferromcp::server::{prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use http_body_util::{BodyExt, Full};
use serde_json::{json, Value};
use std::time::Duration;

fn server() -> Server {
    Server::builder("listen-test", "1.0")
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

/// An open SSE response: yields its JSON `data:` messages one by one.
struct Stream {
    body: hyper::body::Incoming,
    buf: String,
    ready: std::collections::VecDeque<Value>,
}

impl Stream {
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(m) = self.ready.pop_front() {
                return Some(m);
            }
            let frame = tokio::time::timeout(Duration::from_secs(5), self.body.frame())
                .await
                .ok()??
                .ok()?;
            if let Ok(data) = frame.into_data() {
                self.buf.push_str(&String::from_utf8_lossy(&data));
                while let Some(i) = self.buf.find('\n') {
                    let line: String = self.buf.drain(..=i).collect();
                    if let Some(d) = line.trim_end().strip_prefix("data: ") {
                        if let Ok(v) = serde_json::from_str(d) {
                            self.ready.push_back(v);
                        }
                    }
                }
            }
        }
    }
}

async fn open(url: &str, body: &Value) -> (u16, Stream) {
    let mut b = http::Request::builder().method("POST").uri(url);
    for (k, v) in headers_for(body) {
        b = b.header(k, v);
    }
    let req = b.body(Full::new(Bytes::from(body.to_string()))).unwrap();
    let r = tokio::time::timeout(Duration::from_secs(5), common_http::client().request(req))
        .await
        .expect("response head within 5 s")
        .unwrap();
    let status = r.status().as_u16();
    let stream = Stream {
        body: r.into_body(),
        buf: String::new(),
        ready: Default::default(),
    };
    (status, stream)
}

#[tokio::test]
async fn listen_acknowledges_filters_and_tags() {
    let server = server();
    let h = serve_http(server.clone(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    let body = request(
        41,
        "subscriptions/listen",
        json!({ "notifications": {
            "toolsListChanged": true,
            "resourcesListChanged": false,
            "resourceSubscriptions": ["mem://a"],
        } }),
    );
    let (status, mut s) = open(&url, &body).await;
    assert_eq!(status, 200);
    let ack = s.next().await.expect("acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "toolsListChanged": true, "resourceSubscriptions": ["mem://a"] })
    );

    // Not asked for: nothing on the stream. Asked for: tagged with the subscription id.
    server.add_prompt(
        Prompt::new("p"),
        prompt_fn(|_, _| async { Ok(serde_json::from_value(json!({ "messages": [] })).unwrap()) }),
    );
    server.notify_resource_updated("mem://other");
    server
        .add_tool(
            Tool::new("t"),
            tool_fn(|_, _| async { Ok(ferromcp::protocol::CallToolResult::text("t")) }),
        )
        .unwrap();
    let n = s.next().await.expect("tools list change");
    assert_eq!(n["method"], "notifications/tools/list_changed", "{n}");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    server.notify_resource_updated("mem://a");
    let n = s.next().await.expect("resource update");
    assert_eq!(n["method"], "notifications/resources/updated", "{n}");
    assert_eq!(n["params"]["uri"], "mem://a");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    assert_eq!(server.live_sessions().len(), 1);

    // Closing the stream ends the subscription.
    drop(s);
    let mut gone = false;
    for _ in 0..100 {
        if server.live_sessions().is_empty() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the subscription outlived its stream");
}

#[tokio::test]
async fn listen_needs_a_filter() {
    let h = serve_http(server(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    let body = request(1, "subscriptions/listen", json!({}));
    let (_, mut s) = open(&url, &body).await;
    let m = s.next().await.expect("an answer");
    assert_eq!(m["error"]["code"], -32602, "{m}");
}

#[tokio::test]
async fn listen_streams_even_when_the_server_answers_json() {
    let opts = HttpServerOptions::default().with_json_response(true);
    let h = serve_http(server(), "127.0.0.1:0", opts).await.unwrap();
    let url = h.url("/mcp");
    let body = request(
        2,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
    );
    let (status, mut s) = open(&url, &body).await;
    assert_eq!(status, 200);
    let ack = s.next().await.expect("acknowledgement on a stream");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
}

/// A cap of 0 would refuse every `subscriptions/listen`: the builder refuses it.
#[test]
fn a_listen_cap_of_zero_is_refused() {
    let e = Server::builder("listen-cap", "1.0")
        .options(|o| o.max_listen_streams = 0)
        .build()
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert!(
        e.message.contains("max_listen_streams must be at least 1"),
        "{e}"
    );
}

/// `max_listen_streams`: one stream past the cap is refused with an error naming the limit;
/// closing a stream frees its slot.
#[tokio::test]
async fn listen_streams_are_capped() {
    let server = Server::builder("listen-cap", "1.0")
        .options(|o| {
            o.enable_tools = true;
            o.max_listen_streams = 2;
        })
        .build()
        .unwrap();
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    let listen = |id: u64| {
        request(
            id,
            "subscriptions/listen",
            json!({ "notifications": { "toolsListChanged": true } }),
        )
    };
    let mut open_streams = Vec::new();
    for id in 1..=2 {
        let (_, mut s) = open(&url, &listen(id)).await;
        let ack = s.next().await.expect("acknowledgement");
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        open_streams.push(s);
    }
    let (_, mut s) = open(&url, &listen(3)).await;
    let m = s.next().await.expect("an answer");
    assert_eq!(m["id"], 3, "{m}");
    assert_eq!(m["error"]["code"], -32603, "{m}");
    assert_eq!(m["error"]["data"]["reason"], "tooManyListenStreams", "{m}");
    assert_eq!(m["error"]["data"]["limit"], 2, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2 subscriptions/listen streams already open"),
        "{m}"
    );
    // A closed stream gives its slot back.
    drop(open_streams.pop());
    let mut acked = false;
    for id in 10..60 {
        let (_, mut s) = open(&url, &listen(id)).await;
        let m = s.next().await.expect("an answer");
        if m["method"] == "notifications/subscriptions/acknowledged" {
            acked = true;
            break;
        }
        assert_eq!(m["error"]["data"]["reason"], "tooManyListenStreams", "{m}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(acked, "the closed stream's slot was never freed");
}
