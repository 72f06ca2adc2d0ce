//! Shared helpers of the HTTP tests: a demo server and a raw HTTP client.
#![allow(dead_code)]

use bytes::Bytes;
use ferromcp::protocol::{Resource, ResourceContents, TextResourceContents};
use ferromcp::server::{resource_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct CountArgs {
    /// Steps.
    pub steps: u32,
    /// Delay per step in ms.
    #[serde(default)]
    pub delay_ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct SleepArgs {
    /// Milliseconds.
    pub ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct ShoutArgs {
    /// Notifications.
    pub count: u32,
    /// Bytes of padding each.
    pub size: usize,
}

pub fn demo_server() -> Server {
    Server::builder("http-test", "1.0")
        .options(|o| o.enable_resources = true)
        .tool(
            "count",
            "Counts with progress",
            |a: CountArgs, ctx| async move {
                for i in 1..=a.steps {
                    ctx.progress(i as f64, Some(a.steps as f64), None)
                        .await
                        .ok();
                    if a.delay_ms > 0 {
                        tokio::time::sleep(Duration::from_millis(a.delay_ms)).await;
                    }
                }
                format!("counted to {}", a.steps)
            },
        )
        .tool(
            "poll",
            "Closes its SSE stream (SSE polling), then answers later",
            |a: SleepArgs, ctx| async move {
                let closed = ctx.close_sse_stream();
                tokio::time::sleep(Duration::from_millis(a.ms)).await;
                format!("polled closed={closed}")
            },
        )
        .tool(
            "later",
            "Yields to the runtime once (its first poll is pending), sleeps `ms`, then answers",
            |a: SleepArgs, _ctx| async move {
                tokio::task::yield_now().await;
                if a.ms > 0 {
                    tokio::time::sleep(Duration::from_millis(a.ms)).await;
                }
                format!("later {}", a.ms)
            },
        )
        .tool(
            "shout",
            "Sends `count` custom notifications of `size` bytes on its stream, then answers",
            |a: ShoutArgs, ctx| async move {
                let pad = "x".repeat(a.size);
                for i in 0..a.count {
                    ctx.notify("notifications/shout", Some(json!({"i": i, "pad": pad})))
                        .await
                        .ok();
                }
                format!("shouted {}", a.count)
            },
        )
        .resource(
            Resource::new("mem://greeting", "greeting"),
            resource_fn(|req, _ctx| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "hello",
                ))])
            }),
        )
        .build()
        .unwrap()
}

pub async fn start(opts: HttpServerOptions) -> (Server, HttpServerHandle, String) {
    let server = demo_server();
    let h = serve_http(server.clone(), "127.0.0.1:0", opts)
        .await
        .unwrap();
    let url = h.url("/mcp");
    (server, h, url)
}

pub struct Resp {
    pub status: u16,
    pub headers: http::HeaderMap,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
    pub fn sid(&self) -> Option<String> {
        self.headers
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string())
    }
    /// The `data:` payloads of an SSE body that are JSON.
    pub fn sse_messages(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect()
    }
}

pub fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

/// The GET request that opens the session `sid`'s SSE stream at `url` (protocol 2025-11-25).
pub fn get_stream_request(url: &str, sid: &str) -> http::Request<Full<Bytes>> {
    http::Request::builder()
        .method("GET")
        .uri(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Full::new(Bytes::new()))
        .unwrap()
}

/// Opens the session `sid`'s GET stream at `url` on a task of its own (asserting a 200 answer)
/// and reads it until it ends or breaks: a connection in use for as long as the server keeps it.
pub fn hold_get_stream(url: &str, sid: &str) -> tokio::task::JoinHandle<()> {
    let req = get_stream_request(url, sid);
    tokio::spawn(async move {
        let resp = client().request(req).await.unwrap();
        assert_eq!(resp.status(), 200);
        let mut body = resp.into_body();
        // Returns when the stream ends or breaks.
        while let Some(Ok(_)) = body.frame().await {}
    })
}

pub async fn send(method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> Resp {
    let mut b = http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let req = b.body(Full::new(Bytes::from(body.to_string()))).unwrap();
    let fut = async {
        let r = client().request(req).await.unwrap();
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let body = r.into_body().collect().await.unwrap().to_bytes();
        Resp {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    };
    tokio::time::timeout(Duration::from_secs(10), fut)
        .await
        .expect("HTTP request timed out")
}

pub const JSON_SSE: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

pub async fn post(url: &str, sid: Option<&str>, body: Value) -> Resp {
    let mut h: Vec<(&str, &str)> = JSON_SSE.to_vec();
    if let Some(s) = sid {
        h.push(("mcp-session-id", s));
    }
    send("POST", url, &h, &body.to_string()).await
}

pub fn init_body(version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name":"t","version":"1"}}})
}

/// Initializes a session and sends `notifications/initialized`; returns the session id.
pub async fn init_session(url: &str) -> String {
    init_session_at(url, "2025-11-25").await
}

/// Initializes a session at `version` and sends `notifications/initialized`.
pub async fn init_session_at(url: &str, version: &str) -> String {
    let r = post(url, None, init_body(version)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.sid().expect("session id");
    let r = post(
        url,
        Some(&sid),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    sid
}

/// A tools/call body.
pub fn call(id: u64, name: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":args}})
}
