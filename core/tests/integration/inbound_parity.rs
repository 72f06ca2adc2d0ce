//! The same input gets the same JSON-RPC answer (ids, codes, messages, data) over a message
//! stream (the connection stdio uses, here on the in-memory transport) and over Streamable HTTP:
//! what a frame is, whether a batch is served and which lane a `tools/call` takes are decided
//! once, in the session engine (`session::inbound`), for both.
//!
//! Each case runs one server on both transports in the same state: a session at a
//! handshake-era revision, a per-request-era (2026-07-28) client, or nothing yet. The legacy
//! HTTP+SSE endpoint (2024-11-05 transport) follows the same batch policy.

use crate::common_http;
use crate::common_modern;
use crate::support;

use common_http::{init_session_at, send, JSON_SSE};
use common_modern::headers_for;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Value};
use support::RawPeer;

fn server() -> Server {
    server_with(|_| {})
}

/// [`server`] with its options changed by `f`.
fn server_with(f: impl FnOnce(&mut ferromcp::server::ServerOptions)) -> Server {
    Server::builder("parity", "1.0")
        .options(f)
        .tool_raw(
            Tool::new("echo"),
            tool_fn(
                |args, _| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
            ),
        )
        .tool_raw(
            Tool::new("ask"),
            tool_fn(|_, ctx| async move {
                let p = json!({ "message": "who?", "requestedSchema": { "type": "object" } });
                let r = ctx.request("elicitation/create", Some(p)).await?;
                Ok(CallToolResult::text(r["action"].as_str().unwrap_or("?")))
            }),
        )
        .build()
        .unwrap()
}

/// The state both transports are put in before a case.
#[derive(Clone, Copy)]
enum Start {
    /// A session at this handshake-era revision.
    Handshake(&'static str),
    /// No handshake: a per-request-era client (over HTTP, its headers go with every POST).
    PerRequest,
    /// No handshake and no per-request-era headers.
    Fresh,
}

/// One server, reachable over a message stream and over Streamable HTTP (JSON responses).
struct Both {
    start: Start,
    peer: RawPeer,
    url: String,
    sid: Option<String>,
    http: HttpServerHandle,
    syncs: u64,
}

impl Both {
    async fn open(start: Start) -> Both {
        Both::open_with(start, server()).await
    }

    async fn open_with(start: Start, server: Server) -> Both {
        let mut peer = RawPeer::start(&server);
        let opts = HttpServerOptions::default().with_json_response(true);
        let http = serve_http(server, "127.0.0.1:0", opts).await.unwrap();
        let url = http.url("/mcp");
        let sid = match start {
            Start::Handshake(v) => {
                peer.initialize(v).await;
                Some(init_session_at(&url, v).await)
            }
            _ => None,
        };
        Both {
            start,
            peer,
            url,
            sid,
            http,
            syncs: 0,
        }
    }

    /// The answer over the message stream: the answer to a request sent alone, the one
    /// answer of a batch holding a request, else every message sent before the answer to a
    /// ping that follows (`null`: none).
    async fn over_stream(&mut self, body: &str) -> Value {
        self.peer.send_raw(body.as_bytes()).await;
        let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let is_request = |m: &Value| m.get("id").is_some() && m.get("method").is_some();
        if is_request(&parsed) {
            return self.peer.response(parsed["id"].clone()).await;
        }
        if parsed
            .as_array()
            .is_some_and(|items| items.iter().any(is_request))
        {
            return self.peer.recv().await;
        }
        self.syncs += 1;
        let sync = json!(format!("sync-{}", self.syncs));
        self.peer
            .send(json!({ "jsonrpc": "2.0", "id": sync, "method": "ping" }))
            .await;
        let mut before = Vec::new();
        loop {
            let m = self.peer.recv().await;
            if m.get("id") == Some(&sync) {
                break;
            }
            before.push(m);
        }
        match before.len() {
            0 => Value::Null,
            1 => before.pop().unwrap(),
            _ => Value::Array(before),
        }
    }

    /// The answer over Streamable HTTP (`null`: none, 202), with the status.
    async fn over_http(&self, body: &str) -> (u16, Value) {
        let mut headers: Vec<(String, String)> = JSON_SSE
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(sid) = &self.sid {
            headers.push(("mcp-session-id".into(), sid.clone()));
        }
        if let Start::PerRequest = self.start {
            let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
            headers = if parsed.is_object() {
                headers_for(&parsed)
            } else {
                headers.push(("mcp-protocol-version".into(), common_modern::V.into()));
                headers
            };
        }
        let h: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let r = send("POST", &self.url, &h, body).await;
        if r.status == 202 {
            assert!(r.body.is_empty(), "202 with a body: {}", r.body);
            return (202, Value::Null);
        }
        let answer = serde_json::from_str(&r.body)
            .unwrap_or_else(|e| panic!("HTTP {}: not JSON ({e}): {}", r.status, r.body));
        (r.status, answer)
    }

    /// Sends `body` both ways and returns the one answer both gave (batch answers in id
    /// order), with the HTTP status.
    async fn same(&mut self, body: &str) -> (u16, Value) {
        let stream = normalize(self.over_stream(body).await);
        let (status, http) = self.over_http(body).await;
        let http = normalize(http);
        assert_eq!(
            stream, http,
            "{body}\n  message stream: {stream}\n  HTTP ({status}):  {http}"
        );
        (status, stream)
    }

    async fn close(self) {
        self.http.shutdown().await.unwrap();
    }
}

/// A batch answer in id order, errors after results for one id (JSON-RPC leaves the order
/// open), and the parts of an answer
/// that differ by design between two runs removed (a sealed `requestState` holds a nonce).
fn normalize(mut v: Value) -> Value {
    if let Value::Array(items) = &mut v {
        items.sort_by_key(|m| (m["id"].to_string(), m.get("error").is_some()));
    }
    if let Some(r) = v.get_mut("result").and_then(Value::as_object_mut) {
        if r.remove("requestState").is_some() {
            r.insert("requestState".into(), json!("(sealed)"));
        }
    }
    v
}

/// The error answering a whole batch: no id (the schema's `JSONRPCErrorResponse` leaves it out
/// when it cannot be known).
fn batch_refusal(detail: &str) -> Value {
    json!({ "jsonrpc": "2.0",
            "error": { "code": -32600, "message": "Invalid Request", "data": detail } })
}

#[tokio::test]
async fn a_batch_is_refused_alike_where_the_revision_has_none() {
    let pings = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" },
                       { "jsonrpc": "2.0", "id": 2, "method": "ping" }])
    .to_string();
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut both = Both::open(Start::Handshake(v)).await;
        let (status, answer) = both.same(&pings).await;
        assert_eq!(status, 400);
        let why = format!("JSON-RPC batches are not allowed in protocol revision {v}");
        assert_eq!(answer, batch_refusal(&why));
        both.close().await;
    }

    // Before any handshake, `initialize` in a batch is named.
    let mut both = Both::open(Start::Fresh).await;
    let init = json!([{ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": { "name": "t", "version": "1" } } }]);
    let (status, answer) = both.same(&init.to_string()).await;
    assert_eq!(status, 400);
    assert_eq!(
        answer,
        batch_refusal("initialize must not be part of a JSON-RPC batch")
    );
    both.close().await;

    // A per-request-era batch: 2026-07-28 has no batches either.
    let mut both = Both::open(Start::PerRequest).await;
    let calls = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": { "name": "echo", "_meta": common_modern::meta(json!({})) } },
        { "jsonrpc": "2.0", "id": 2, "method": "tools/list",
          "params": { "_meta": common_modern::meta(json!({})) } },
    ]);
    let (status, answer) = both.same(&calls.to_string()).await;
    assert_eq!(status, 400);
    assert_eq!(
        answer,
        batch_refusal("JSON-RPC batches are not allowed in protocol revision 2026-07-28")
    );
    both.close().await;
}

#[tokio::test]
async fn a_2025_03_26_batch_is_answered_alike() {
    let mut both = Both::open(Start::Handshake("2025-03-26")).await;
    let invalid = |id: Value| json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32600 } });
    let codes_of = |answer: &Value| -> Vec<(Value, Value)> {
        answer
            .as_array()
            .unwrap_or_else(|| panic!("an array answer: {answer}"))
            .iter()
            .map(|m| (m["id"].clone(), m["error"]["code"].clone()))
            .collect()
    };

    // Elements that are no messages are answered in the batch's answer, even when nothing
    // else in it is a request.
    let (status, answer) = both
        .same(r#"[1, {"jsonrpc":"2.0","id":7,"method":5}]"#)
        .await;
    assert_eq!(status, 400);
    let want = [invalid(json!(7)), invalid(Value::Null)];
    let got = codes_of(&answer);
    assert_eq!(got.len(), 2, "{answer}");
    for (m, (id, code)) in want.iter().zip(&got) {
        assert_eq!((&m["id"], &m["error"]["code"]), (id, code), "{answer}");
    }
    let (status, answer) = both
        .same(r#"[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}, "x"]"#)
        .await;
    assert_eq!(status, 400);
    assert_eq!(codes_of(&answer), [(Value::Null, json!(-32600))]);

    // Requests, an invalid element, a notification and a response: one answer per request
    // and per invalid element.
    let mixed = json!([
        { "jsonrpc": "2.0", "id": "a", "method": "tools/call",
          "params": { "name": "echo", "arguments": { "x": 1 } } },
        1,
        { "jsonrpc": "2.0", "method": "notifications/roots/list_changed" },
        { "jsonrpc": "2.0", "id": 99, "result": {} },
        { "jsonrpc": "2.0", "id": "b", "method": "no/such" },
    ]);
    let (status, answer) = both.same(&mixed.to_string()).await;
    assert_eq!(status, 200);
    let answer = answer.as_array().unwrap().clone();
    assert_eq!(answer.len(), 3, "{answer:?}");
    assert_eq!(answer[0]["id"], "a");
    assert_eq!(answer[0]["result"]["content"][0]["text"], "{\"x\":1}");
    assert_eq!(answer[1]["id"], "b");
    assert_eq!(answer[1]["error"]["code"], -32601);
    assert_eq!(answer[2]["id"], Value::Null);

    // Two requests with one id: the first is served, the second refused with its id (never
    // left unanswered; over HTTP the answers are routed by id).
    let dup = json!([
        { "jsonrpc": "2.0", "id": "d", "method": "tools/call",
          "params": { "name": "echo", "arguments": { "n": 1 } } },
        { "jsonrpc": "2.0", "id": "d", "method": "ping" },
        { "jsonrpc": "2.0", "id": "e", "method": "ping" },
    ]);
    let (status, answer) = both.same(&dup.to_string()).await;
    assert_eq!(status, 200);
    assert_eq!(answer.as_array().map(Vec::len), Some(3), "{answer}");
    assert_eq!(answer[0]["id"], "d");
    assert_eq!(answer[0]["result"]["content"][0]["text"], "{\"n\":1}");
    assert_eq!(
        answer[1],
        json!({ "jsonrpc": "2.0", "id": "d", "error": { "code": -32600,
                "message": "Invalid Request", "data": "duplicate request id \"d\" in the batch" } })
    );
    assert_eq!(answer[2]["id"], "e");

    // Notifications only: no answer at all; an empty batch: one error.
    let (status, answer) = both
        .same(r#"[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]"#)
        .await;
    assert_eq!((status, answer), (202, Value::Null));
    let (status, answer) = both.same("[]").await;
    assert_eq!(status, 400);
    assert_eq!(answer, batch_refusal("empty batch"));
    both.close().await;
}

#[tokio::test]
async fn tools_call_is_answered_alike_in_the_handshake_era() {
    let mut both = Both::open(Start::Handshake("2025-11-25")).await;
    let call = |id: u64, params: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
    };
    let (_, a) = both
        .same(&call(1, json!({ "name": "echo", "arguments": { "x": 1 } })))
        .await;
    assert_eq!(a["result"]["content"][0]["text"], "{\"x\":1}");
    let (_, a) = both.same(&call(2, json!({ "name": "nope" }))).await;
    assert_eq!(a["error"]["code"], -32602);
    let (_, a) = both
        .same(&call(3, json!({ "name": "echo", "arguments": [1] })))
        .await;
    assert_eq!(a["error"]["code"], -32602);
    // Params the typed lane does not take: answered by the generic path, alike.
    let (_, a) = both.same(&call(4, json!({ "name": 5 }))).await;
    assert_eq!(a["error"]["code"], -32602);
    // Methods of the per-request era only: "method not found" in a session.
    let discover = json!({ "jsonrpc": "2.0", "id": 5, "method": "server/discover" });
    let (_, a) = both.same(&discover.to_string()).await;
    assert_eq!(a["error"]["code"], -32601);
    both.close().await;
}

#[tokio::test]
async fn tools_call_is_answered_alike_in_the_per_request_era() {
    let mut both = Both::open(Start::PerRequest).await;
    let call = |id: u64, params: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
    };
    let meta = common_modern::meta(json!({ "elicitation": {} }));
    let (status, a) = both
        .same(&call(
            1,
            json!({ "name": "echo", "arguments": { "x": 1 }, "_meta": meta }),
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(a["result"]["resultType"], "complete");
    assert_eq!(
        a["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "parity"
    );
    let (_, a) = both
        .same(&call(2, json!({ "name": "nope", "_meta": meta })))
        .await;
    assert_eq!(a["error"]["code"], -32602);
    // A handler asking for input: `input_required` with a sealed state, alike.
    let (_, a) = both
        .same(&call(3, json!({ "name": "ask", "_meta": meta })))
        .await;
    assert_eq!(a["result"]["resultType"], "input_required", "{a}");
    let (_, a) = both
        .same(&call(
            4,
            json!({ "name": "echo", "requestState": "forged", "_meta": meta }),
        ))
        .await;
    assert_eq!(a["error"]["code"], -32602);
    // Without the capability the input request needs: -32021.
    let bare = common_modern::meta(json!({}));
    let (status, a) = both
        .same(&call(5, json!({ "name": "ask", "_meta": bare })))
        .await;
    assert_eq!(status, 400);
    assert_eq!(a["error"]["code"], -32021, "{a}");
    // A missing `_meta` member: -32602.
    let no_caps = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
    let (_, a) = both
        .same(&call(6, json!({ "name": "echo", "_meta": no_caps })))
        .await;
    assert_eq!(a["error"]["code"], -32602);
    // Methods the era removed: "method not found".
    for (id, method) in [
        (7, "ping"),
        (8, "logging/setLevel"),
        (9, "resources/subscribe"),
    ] {
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method,
                           "params": { "_meta": meta } });
        let (status, a) = both.same(&body.to_string()).await;
        assert_eq!(status, 404);
        assert_eq!(a["error"]["code"], -32601, "{a}");
    }
    both.close().await;
}

/// A legacy (2024-11-05 HTTP+SSE) session: its SSE stream, read as it comes, and the message
/// endpoint it named.
struct Legacy {
    body: hyper::body::Incoming,
    buf: String,
    endpoint: String,
}

impl Legacy {
    async fn open(base: &str) -> Legacy {
        use http_body_util::Full;
        let req = http::Request::get(format!("{base}/sse"))
            .header("accept", "text/event-stream")
            .body(Full::new(bytes::Bytes::new()))
            .unwrap();
        let r = common_http::client().request(req).await.unwrap();
        assert_eq!(r.status(), 200);
        let mut legacy = Legacy {
            body: r.into_body(),
            buf: String::new(),
            endpoint: String::new(),
        };
        let (event, data) = legacy.event().await;
        assert_eq!(event, "endpoint");
        legacy.endpoint = format!("{base}{data}");
        legacy
    }

    /// The next SSE event: its name (`message` by default) and data.
    async fn event(&mut self) -> (String, String) {
        use http_body_util::BodyExt;
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let raw: String = self.buf.drain(..end + 2).collect();
                let mut event = "message".to_string();
                let mut data = String::new();
                for line in raw.lines() {
                    if let Some(e) = line.strip_prefix("event: ") {
                        event = e.to_string();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push_str(d);
                    }
                }
                if !data.is_empty() {
                    return (event, data);
                }
                continue;
            }
            let frame = tokio::time::timeout(support::RECV_TIMEOUT, self.body.frame())
                .await
                .expect("no SSE event within the timeout")
                .expect("the SSE stream ended")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                self.buf.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }

    /// The next message on the stream.
    async fn message(&mut self) -> Value {
        let (_, data) = self.event().await;
        serde_json::from_str(&data).unwrap()
    }

    async fn post(&self, body: &str) -> (u16, String) {
        let r = send("POST", &self.endpoint, &JSON_SSE, body).await;
        (r.status, r.body)
    }

    /// Initializes the session at `version`.
    async fn initialize(&mut self, version: &str) {
        let init = common_http::init_body(version).to_string();
        assert_eq!(self.post(&init).await.0, 202);
        let m = self.message().await;
        assert_eq!(m["result"]["protocolVersion"], version, "{m}");
        let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert_eq!(self.post(&done.to_string()).await.0, 202);
    }
}

#[tokio::test]
async fn the_legacy_http_sse_endpoint_follows_the_same_batch_policy() {
    // 2024-11-05 has no batches: refused as a whole, as over a message stream.
    let mut both = Both::open(Start::Handshake("2024-11-05")).await;
    let mut legacy = Legacy::open(&base_of(&both)).await;
    legacy.initialize("2024-11-05").await;
    let pings = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" },
                       { "jsonrpc": "2.0", "id": 2, "method": "ping" }])
    .to_string();
    let stream = both.over_stream(&pings).await;
    let (status, body) = legacy.post(&pings).await;
    assert_eq!(status, 400, "{body}");
    let http: Value = serde_json::from_str(&body).unwrap();
    let why = "JSON-RPC batches are not allowed in protocol revision 2024-11-05";
    assert_eq!(stream, batch_refusal(why));
    assert_eq!(http, stream);
    both.close().await;

    // 2025-03-26: the batch's answers go out as one array in one event, as over a message
    // stream; an element that is no message and a reused id are answered in it.
    let mut both = Both::open(Start::Handshake("2025-03-26")).await;
    let mut legacy = Legacy::open(&base_of(&both)).await;
    legacy.initialize("2025-03-26").await;
    let batch = json!([
        1,
        { "jsonrpc": "2.0", "id": "p", "method": "ping" },
        { "jsonrpc": "2.0", "id": "c", "method": "tools/call",
          "params": { "name": "echo", "arguments": { "k": 2 } } },
        { "jsonrpc": "2.0", "id": "p", "method": "ping" },
    ])
    .to_string();
    let stream = normalize(both.over_stream(&batch).await);
    assert_eq!(legacy.post(&batch).await.0, 202);
    let http = normalize(legacy.message().await);
    assert_eq!(stream, http);
    assert_eq!(http.as_array().map(Vec::len), Some(4), "{http}");
    assert_eq!(http[0]["id"], "c");
    assert_eq!(http[0]["result"]["content"][0]["text"], "{\"k\":2}");
    assert_eq!(http[1]["result"], json!({}));
    assert_eq!(http[2]["id"], "p");
    assert_eq!(
        http[2]["error"]["data"],
        "duplicate request id \"p\" in the batch"
    );
    assert_eq!(http[3]["error"]["code"], -32600);
    // The stream goes on: the next answer is the next event (nothing was left behind).
    let ping = json!({ "jsonrpc": "2.0", "id": "q", "method": "ping" }).to_string();
    assert_eq!(legacy.post(&ping).await.0, 202);
    assert_eq!(legacy.message().await["id"], "q");
    // Notifications only: no event.
    let note = r#"[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]"#;
    assert_eq!(legacy.post(note).await.0, 202);
    assert_eq!(legacy.post(&ping.replace("q", "r")).await.0, 202);
    assert_eq!(legacy.message().await["id"], "r");
    both.close().await;
}

#[tokio::test]
async fn initialize_is_refused_alike_by_a_server_of_the_per_request_era_only() {
    let modern_only = server_with(|o| o.session.supported_versions.retain(|v| v.is_per_request()));
    let mut both = Both::open_with(Start::Fresh, modern_only).await;
    for asked in ["2025-11-25", "2024-11-05", "2026-07-28"] {
        let init = common_http::init_body(asked).to_string();
        let (status, answer) = both.same(&init).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(
            answer,
            json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": { "supported": ["2026-07-28"], "requested": asked } } })
        );
    }
    // Malformed too: the error still names the revisions served here.
    let bare = r#"{"jsonrpc":"2.0","id":2,"method":"initialize"}"#;
    let (_, answer) = both.same(bare).await;
    assert_eq!(answer["error"]["code"], -32022, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
    both.close().await;

    // Per-request-era requests are served as before.
    let modern_only = server_with(|o| o.session.supported_versions.retain(|v| v.is_per_request()));
    let mut both = Both::open_with(Start::PerRequest, modern_only).await;
    let list = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list",
                       "params": { "_meta": common_modern::meta(json!({})) } });
    let (status, answer) = both.same(&list.to_string()).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["tools"].as_array().map(Vec::len), Some(2));
    both.close().await;
}

fn base_of(both: &Both) -> String {
    both.url.trim_end_matches("/mcp").to_string()
}
