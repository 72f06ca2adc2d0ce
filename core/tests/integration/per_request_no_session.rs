//! A per-request-era (2026-07-28) request answered with one JSON body holds no HTTP session and
//! no routing-table entry, not even while its handler runs ([`HttpServerStats::live_sessions`]);
//! a client that disconnects cancels it; one that asks for progress still gets its stream (on
//! an HTTP session that is gone once the stream ends); calls with the same `_meta` (which may
//! share a kept engine session) each start uncancelled.

use crate::common_http;
use crate::common_modern;

use common_http::init_session;
use common_modern::{answer, headers_for, meta, post_modern, request};
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, Notify};

/// Sends on its channel when dropped: the handler holding it ended, answered or not.
struct Ended(mpsc::UnboundedSender<&'static str>);

impl Drop for Ended {
    fn drop(&mut self) {
        let _ = self.0.send("ended");
    }
}

/// Reports to the test: `started` when the slow tool runs, then `ended` when it stops.
struct Probe {
    events: mpsc::UnboundedSender<&'static str>,
    release: Arc<Notify>,
}

fn server(probe: Arc<Mutex<Probe>>) -> Server {
    Server::builder("no-session", "1.0")
        .tool_raw(
            Tool::new("echo"),
            tool_fn(
                |args, _| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
            ),
        )
        .tool_raw(
            Tool::new("slow"),
            tool_fn(move |_, _| {
                let (events, release) = {
                    let p = probe.lock().unwrap();
                    (p.events.clone(), p.release.clone())
                };
                async move {
                    let _ended = Ended(events.clone());
                    let _ = events.send("started");
                    release.notified().await;
                    Ok(CallToolResult::text("released"))
                }
            }),
        )
        .tool_raw(
            Tool::new("count"),
            tool_fn(|_, ctx| async move {
                for i in 1..=2 {
                    ctx.progress(i as f64, Some(2.0), None).await.ok();
                }
                Ok(CallToolResult::text("counted"))
            }),
        )
        // Cancels its own request (the token a JSON-answered call's session lends it) and
        // still answers.
        .tool_raw(
            Tool::new("self-cancel"),
            tool_fn(|_, ctx| async move {
                ctx.cancellation().cancel();
                Ok(CallToolResult::text("cancelled itself"))
            }),
        )
        .tool_raw(
            Tool::new("is-cancelled"),
            tool_fn(|_, ctx| async move {
                Ok(CallToolResult::text(
                    ctx.cancellation().is_cancelled().to_string(),
                ))
            }),
        )
        .build()
        .unwrap()
}

async fn start() -> (
    HttpServerHandle,
    String,
    mpsc::UnboundedReceiver<&'static str>,
    Arc<Notify>,
) {
    let (events, rx) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let probe = Arc::new(Mutex::new(Probe {
        events,
        release: release.clone(),
    }));
    let h = serve_http(server(probe), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url, rx, release)
}

async fn next(rx: &mut mpsc::UnboundedReceiver<&'static str>) -> &'static str {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the slow tool did not report")
        .expect("channel open")
}

/// Polls `cond` until it holds or `within` passes.
async fn eventually(within: Duration, cond: impl Fn() -> bool) -> bool {
    let end = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < end {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    cond()
}

#[tokio::test]
async fn a_per_request_call_holds_no_http_session_even_while_it_runs() {
    let (h, url, mut rx, release) = start().await;
    assert_eq!(h.stats().live_sessions, 0);

    // Answered calls leave nothing behind.
    for id in 1..=3 {
        let body = request(
            id,
            "tools/call",
            json!({ "name": "echo", "arguments": { "n": id } }),
        );
        let r = post_modern(&url, &body).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.headers["content-type"], "application/json");
        let a = answer(&r);
        assert_eq!(a["result"]["resultType"], "complete", "{}", r.body);
        assert!(a["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    }
    let list = request(4, "tools/list", json!({}));
    let r = post_modern(&url, &list).await;
    assert_eq!(answer(&r)["result"]["tools"].as_array().unwrap().len(), 5);
    assert_eq!(h.stats().live_sessions, 0);

    // A call still running holds no HTTP session either.
    let body = request(5, "tools/call", json!({ "name": "slow", "arguments": {} }));
    let url2 = url.clone();
    let call = tokio::spawn(async move { post_modern(&url2, &body).await });
    assert_eq!(next(&mut rx).await, "started");
    assert_eq!(
        h.stats().live_sessions,
        0,
        "a per-request call made an HTTP session"
    );
    release.notify_one();
    let r = call.await.unwrap();
    assert_eq!(answer(&r)["result"]["content"][0]["text"], "released");
    assert_eq!(next(&mut rx).await, "ended");
    assert_eq!(h.stats().live_sessions, 0);

    // The gauge does count sessions: a handshake-era one stays in the session table.
    let _sid = init_session(&url).await;
    assert_eq!(h.stats().live_sessions, 1);
}

#[tokio::test]
async fn a_client_that_disconnects_cancels_its_per_request_call() {
    let (h, url, mut rx, _release) = start().await;
    let body = request(1, "tools/call", json!({ "name": "slow", "arguments": {} }));
    let text = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
        h.local_addr(),
        text.len()
    );
    for (k, v) in headers_for(&body) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut conn = tokio::net::TcpStream::connect(h.local_addr())
        .await
        .unwrap();
    conn.write_all(head.as_bytes()).await.unwrap();
    conn.write_all(text.as_bytes()).await.unwrap();
    assert_eq!(next(&mut rx).await, "started");
    drop(conn);
    // The handler is stopped without being released.
    assert_eq!(next(&mut rx).await, "ended");
    assert!(eventually(Duration::from_secs(5), || h.stats().open_connections == 0).await);
    assert_eq!(h.stats().live_sessions, 0);
    // The server keeps serving.
    let echo = request(2, "tools/call", json!({ "name": "echo", "arguments": {} }));
    assert_eq!(
        answer(&post_modern(&url, &echo).await)["result"]["resultType"],
        "complete"
    );
}

#[tokio::test]
async fn a_call_that_asks_for_progress_gets_its_stream_and_leaves_nothing() {
    let (h, url, _rx, _release) = start().await;
    let mut m = meta(json!({}));
    m["progressToken"] = json!("p1");
    let body = request(
        1,
        "tools/call",
        json!({ "name": "count", "arguments": {}, "_meta": m }),
    );
    let r = post_modern(&url, &body).await;
    assert_eq!(r.headers["content-type"], "text/event-stream", "{}", r.body);
    let progress = r
        .sse_messages()
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 2, "{}", r.body);
    assert_eq!(answer(&r)["result"]["content"][0]["text"], "counted");
    assert!(eventually(Duration::from_secs(5), || h.stats().live_sessions == 0).await);
}

#[tokio::test]
async fn header_and_meta_errors_keep_their_codes_and_statuses() {
    let (h, url, _rx, _release) = start().await;
    // Mcp-Name differs from the body's tool name: -32020, 400.
    let body = request(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    let mut headers = headers_for(&body);
    headers.retain(|(k, _)| k != "mcp-name");
    headers.push(("mcp-name".into(), "other".into()));
    let r = common_modern::post_with(&url, &headers, &body).await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(answer(&r)["error"]["code"], -32020);
    // An unknown tool: a JSON-RPC error answered with 200 on the light path.
    let body = request(2, "tools/call", json!({ "name": "nope", "arguments": {} }));
    let r = post_modern(&url, &body).await;
    assert_eq!(r.headers["content-type"], "application/json");
    assert!(answer(&r)["error"]["code"].is_i64(), "{}", r.body);
    // An unknown method: 404.
    let body = request(3, "no/such", json!({}));
    let r = post_modern(&url, &body).await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(answer(&r)["error"]["code"], -32601);
    assert_eq!(h.stats().live_sessions, 0);
}

/// The text of a `tools/call` answer.
fn text_of(v: &Value) -> String {
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn calls_with_the_same_meta_each_start_uncancelled() {
    // A JSON-answered call's session may serve the next call with the same `_meta`: nothing of
    // a call (not even a cancellation it made of itself) reaches the next one.
    let (h, url, _rx, _release) = start().await;
    for i in 0..3 {
        let call =
            |id, name: &str| request(id, "tools/call", json!({ "name": name, "arguments": {} }));
        let own = answer(&post_modern(&url, &call(10 * i + 1, "self-cancel")).await);
        assert_eq!(text_of(&own), "cancelled itself");
        let next = answer(&post_modern(&url, &call(10 * i + 2, "is-cancelled")).await);
        assert_eq!(text_of(&next), "false", "call {i}");
        let again = answer(&post_modern(&url, &call(10 * i + 3, "is-cancelled")).await);
        assert_eq!(text_of(&again), "false", "call {i}");
    }
    assert_eq!(h.stats().live_sessions, 0);
}
