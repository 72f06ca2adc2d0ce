//! A POST gets the same answer whichever path of `transport/http/server/post.rs` serves it.
//!
//! A per-request-era (2026-07-28) request answered with JSON is served in its POST's future on an
//! engine session of its own; every other POST has an HTTP session, its routing table and stream
//! queue. The first, and stateless JSON mode, had modules of their own once (`per_request_post.rs`,
//! `stateless_post.rs`; both retired into `post.rs`: under 10 % in a timed benchmark); these tests
//! pinned them and now pin the one path. They send the same requests down each path and compare the
//! bytes: a stateless JSON request alone against the same request as a batch of one (2025-03-26)
//! and against a stateless SSE server's answer event; a per-request call with a progress token on a
//! JSON server (no HTTP session) against the same call on an SSE server (which streams it on the
//! general path). The refusals every mode shares (bad JSON, content type, Accept, oversize, batches
//! where the revision has none, unknown session, a notification alone) are compared across the four
//! handshake-era modes and the per-request era.

use crate::common_http::{send, Resp};
use crate::common_modern;

use ferromcp::protocol::CallToolResult;
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

fn server() -> Server {
    Server::builder("post-parity", "1.0")
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .tool("flagged", "A tool error", |_: NoArgs, _ctx| async move {
            CallToolResult::error_text("it went wrong")
        })
        .tool("fails", "A handler's Err", |_: NoArgs, _ctx| async move {
            Err::<String, _>(McpError::invalid_params("no such thing").with_data(json!({"k": 1})))
        })
        .tool(
            "progress",
            "Reports progress, then echoes its _meta",
            |_: NoArgs, ctx| async move {
                ctx.progress(1.0, Some(2.0), Some("half")).await?;
                let meta = ctx
                    .meta()
                    .cloned()
                    .map(Value::Object)
                    .unwrap_or(Value::Null);
                Ok::<_, McpError>(CallToolResult::text(meta.to_string()))
            },
        )
        .build()
        .unwrap()
}

/// Bodies at or under this size are read; the oversize case sends more.
const MAX_BODY: usize = 16 * 1024;

struct Endpoint {
    url: String,
    handle: HttpServerHandle,
}

async fn open(stateless: bool, json_response: bool) -> Endpoint {
    let mut opts = HttpServerOptions::default();
    opts.stateless = stateless;
    opts.json_response = json_response;
    opts.max_body_size = MAX_BODY;
    let handle = serve_http(server(), "127.0.0.1:0", opts).await.unwrap();
    let url = format!("http://{}/mcp", handle.local_addr());
    Endpoint { url, handle }
}

/// What a client sees of a response: status, content type and body.
fn seen(r: &Resp) -> (u16, String, String) {
    let ct = r
        .headers
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (r.status, ct, r.body.clone())
}

/// The raw `data:` text of the SSE event that answers (carries an `id`, no `method`).
fn sse_answer(r: &Resp) -> String {
    r.body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .rfind(|d| {
            let v: Value = serde_json::from_str(d).unwrap_or(Value::Null);
            v.get("id").is_some() && v.get("method").is_none()
        })
        .unwrap_or_else(|| panic!("no answer event in {:?}", r.body))
        .to_string()
}

/// A refusal case: what it is, the request's header fields, its body.
type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, String);

const ACCEPT_BOTH: (&str, &str) = ("accept", "application/json, text/event-stream");
const JSON_BODY: (&str, &str) = ("content-type", "application/json");

async fn post(url: &str, extra: &[(&str, &str)], body: &str) -> Resp {
    let mut h = vec![JSON_BODY, ACCEPT_BOTH];
    for (k, v) in extra {
        h.retain(|(name, _)| name != k);
        h.push((k, v));
    }
    send("POST", url, &h, body).await
}

fn call(id: u64, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

/// The requests compared in the handshake era: every answer a call can get, and other methods.
fn handshake_requests() -> Vec<Value> {
    vec![
        call(1, json!({ "name": "echo", "arguments": { "text": "hi" } })),
        call(2, json!({ "name": "flagged" })),
        call(3, json!({ "name": "fails" })),
        call(4, json!({ "name": "nope" })),
        call(5, json!({ "name": "echo", "arguments": { "text": 7 } })),
        call(6, json!({ "name": "echo", "arguments": [1] })),
        call(7, json!({ "name": 5 })),
        call(
            8,
            json!({ "name": "progress", "_meta": { "progressToken": "t", "x": [1] } }),
        ),
        call(
            9,
            json!({ "name": "echo", "arguments": { "text": "m" }, "_meta": { "progressToken": 1.5 } }),
        ),
        json!({ "jsonrpc": "2.0", "id": "p", "method": "ping" }),
        json!({ "jsonrpc": "2.0", "id": 10, "method": "tools/list" }),
        json!({ "jsonrpc": "2.0", "id": 11, "method": "no/such/method" }),
        json!({ "jsonrpc": "2.0", "id": 12, "method": "tools/call" }),
    ]
}

#[tokio::test]
async fn a_stateless_json_request_is_answered_as_on_the_general_path() {
    let json_ep = open(true, true).await;
    let sse_ep = open(true, false).await;
    let v = [("mcp-protocol-version", "2025-03-26")];
    for request in handshake_requests() {
        let alone = post(&json_ep.url, &v, &request.to_string()).await;
        // A batch of one takes the general path (a throwaway HTTP session).
        let batch = post(&json_ep.url, &v, &format!("[{request}]")).await;
        // A stateless SSE server streams it on the general path.
        let sse = post(&sse_ep.url, &v, &request.to_string()).await;
        assert_eq!(alone.status, 200, "{request}: {}", alone.body);
        assert_eq!(batch.status, 200, "{request}: {}", batch.body);
        assert_eq!(sse.status, 200, "{request}: {}", sse.body);
        assert_eq!(
            seen(&alone).1,
            "application/json",
            "{request}: {:?}",
            alone.headers
        );
        assert_eq!(seen(&alone).1, seen(&batch).1, "{request}");
        assert_eq!(
            format!("[{}]", alone.body),
            batch.body,
            "{request}: alone (left), batch of one (right)"
        );
        assert_eq!(
            alone.body,
            sse_answer(&sse),
            "{request}: JSON (left), SSE (right)"
        );
    }
    // A notification alone, or a batch of them: 202 with no body, alike.
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 99 } });
    let alone = post(&json_ep.url, &v, &note.to_string()).await;
    let batch = post(&json_ep.url, &v, &format!("[{note}]")).await;
    let sse = post(&sse_ep.url, &v, &note.to_string()).await;
    assert_eq!(seen(&alone), (202, String::new(), String::new()));
    assert_eq!(seen(&alone), seen(&batch));
    assert_eq!(seen(&alone), seen(&sse));
    json_ep.handle.shutdown().await.unwrap();
    sse_ep.handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_per_request_json_answer_is_the_streaming_paths_answer_event() {
    // A call carrying a progress token: a JSON server answers it with one JSON body, with no
    // HTTP session; an SSE server streams it (progress, then the answer) on an HTTP session.
    let json_ep = open(false, true).await;
    let sse_ep = open(false, false).await;
    let meta = common_modern::meta(json!({}));
    let with_token = |token: Value| {
        let mut m = meta.clone();
        m["progressToken"] = token;
        m
    };
    let requests = [
        call(
            1,
            json!({ "name": "echo", "arguments": { "text": "hi" }, "_meta": with_token(json!("a")) }),
        ),
        call(
            2,
            json!({ "name": "progress", "_meta": with_token(json!(7)) }),
        ),
        call(
            3,
            json!({ "name": "flagged", "_meta": with_token(json!("b")) }),
        ),
        call(
            4,
            json!({ "name": "fails", "_meta": with_token(json!("c")) }),
        ),
        call(
            5,
            json!({ "name": "nope", "_meta": with_token(json!("d")) }),
        ),
        call(
            6,
            json!({ "name": "echo", "arguments": { "text": 7 }, "_meta": with_token(json!("e")) }),
        ),
        call(
            7,
            json!({ "name": "echo", "arguments": [1], "_meta": with_token(json!("f")) }),
        ),
        json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": { "_meta": with_token(json!("g")) } }),
        json!({ "jsonrpc": "2.0", "id": 9, "method": "ping", "params": { "_meta": with_token(json!("h")) } }),
    ];
    for request in requests {
        let json_r = common_modern::post_modern(&json_ep.url, &request).await;
        let sse_r = common_modern::post_modern(&sse_ep.url, &request).await;
        assert_eq!(
            seen(&json_r).1,
            "application/json",
            "{request}: {:?}",
            seen(&json_r)
        );
        assert_eq!(
            seen(&sse_r).1,
            "text/event-stream",
            "{request}: {:?}",
            seen(&sse_r)
        );
        assert_eq!(
            json_r.body,
            sse_answer(&sse_r),
            "{request}: JSON (left), SSE (right)"
        );
        let answer: Value = serde_json::from_str(&json_r.body).unwrap();
        if answer.get("result").is_some() {
            assert_eq!(json_r.status, 200, "{request}");
        }
    }
    json_ep.handle.shutdown().await.unwrap();
    sse_ep.handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn refusals_are_the_same_in_every_mode() {
    // Stateful JSON, stateful SSE, stateless JSON, stateless SSE.
    let modes = [(false, true), (false, false), (true, true), (true, false)];
    let mut eps = Vec::new();
    for (stateless, json_response) in modes {
        eps.push(open(stateless, json_response).await);
    }
    let good = call(1, json!({ "name": "echo", "arguments": { "text": "x" } })).to_string();
    let oversize = call(
        2,
        json!({ "name": "echo", "arguments": { "text": "y".repeat(MAX_BODY) } }),
    )
    .to_string();
    let batch = format!("[{good}]");
    let v = ("mcp-protocol-version", "2025-11-25");
    // (what, headers, body): each answered alike by every mode.
    let cases: Vec<Case> = vec![
        (
            "bad JSON",
            vec![v],
            r#"{"jsonrpc":"2.0","id":1,"#.to_string(),
        ),
        ("not JSON-RPC", vec![v], r#"{"id":1}"#.to_string()),
        (
            "wrong content type",
            vec![v, ("content-type", "text/plain")],
            good.clone(),
        ),
        (
            "Accept without JSON",
            vec![v, ("accept", "text/plain")],
            good.clone(),
        ),
        ("oversize", vec![v], oversize.clone()),
        (
            "unknown version",
            vec![("mcp-protocol-version", "2020-01-01")],
            good.clone(),
        ),
        ("empty batch", vec![v], "[]".to_string()),
    ];
    for (what, headers, body) in &cases {
        let mut answers = Vec::new();
        for ep in &eps {
            answers.push(seen(&post(&ep.url, headers, body).await));
        }
        for (i, a) in answers.iter().enumerate() {
            assert_eq!(a, &answers[0], "{what}: mode {i} against mode 0");
        }
        assert!(answers[0].0 >= 400, "{what}: {:?}", answers[0]);
    }
    // A batch under 2025-11-25 (which has none): refused alike by the stateless modes, and by
    // the stateful ones in a session at that revision.
    let mut answers = Vec::new();
    for ep in &eps[2..] {
        answers.push(seen(&post(&ep.url, &[v], &batch).await));
    }
    for ep in &eps[..2] {
        let sid = crate::common_http::init_session_at(&ep.url, "2025-11-25").await;
        answers.push(seen(
            &post(&ep.url, &[v, ("mcp-session-id", &sid)], &batch).await,
        ));
        // An unknown session: 404, alike in both stateful modes.
        let unknown = post(&ep.url, &[v, ("mcp-session-id", "no-such-session")], &good).await;
        assert_eq!(unknown.status, 404, "{}", unknown.body);
        answers.push(seen(&unknown));
    }
    assert_eq!(answers[0], answers[1], "batch, stateless JSON and SSE");
    assert_eq!(answers[0], answers[2], "batch, stateless and stateful JSON");
    assert_eq!(answers[0], answers[4], "batch, stateless and stateful SSE");
    assert_eq!(
        answers[3], answers[5],
        "unknown session, stateful JSON and SSE"
    );
    // The per-request era, on every mode's server: the same refusals, and a notification
    // alone accepted with 202.
    let modern = common_modern::request(
        3,
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "z" } }),
    );
    let headers = common_modern::headers_for(&modern);
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 3, "_meta": common_modern::meta(json!({})) } });
    let modern_cases = [
        (
            "mismatched Mcp-Name",
            common_modern::with_header(headers.clone(), "mcp-name", Some("other")),
            modern.to_string(),
        ),
        (
            "missing Mcp-Method",
            common_modern::with_header(headers.clone(), "mcp-method", None),
            modern.to_string(),
        ),
        ("bad JSON", headers.clone(), "{\"jsonrpc\":".to_string()),
        ("batch", headers.clone(), format!("[{modern}]")),
        ("oversize", headers.clone(), oversize.clone()),
        ("notification", headers.clone(), note.to_string()),
    ];
    for (what, headers, body) in &modern_cases {
        let h: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut answers = Vec::new();
        for ep in &eps {
            answers.push(seen(&send("POST", &ep.url, &h, body).await));
        }
        for (i, a) in answers.iter().enumerate() {
            assert_eq!(
                a, &answers[0],
                "per-request era, {what}: mode {i} against mode 0"
            );
        }
        if *what == "notification" {
            assert_eq!(answers[0].0, 202, "{answers:?}");
        } else {
            assert!(answers[0].0 >= 400, "{what}: {:?}", answers[0]);
        }
    }
    for ep in eps {
        ep.handle.shutdown().await.unwrap();
    }
}
