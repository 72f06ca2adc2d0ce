//! What a slow reader can pin is bounded in bytes (`HttpServerOptions::max_stream_buffered_bytes`):
//! a client that stops reading a stream carrying large events has that stream closed once the
//! events waiting for it pass the budget (however few they are), and loses nothing: it resumes
//! with `Last-Event-ID` and gets every later event and the answer. The same holds for the budget
//! a session's streams share (`HttpServerOptions::max_session_buffered_bytes`), which is given
//! back as streams drain: the session's next call is served whole.

use crate::common_http;
use bytes::Bytes;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use std::time::Duration;

/// Events of an SSE text: (id, JSON data) of each that has data.
fn events(text: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut id = String::new();
        let mut data = None;
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id: ") {
                id = v.to_string();
            } else if let Some(v) = line.strip_prefix("data: ") {
                data = serde_json::from_str(v).ok();
            }
        }
        if let Some(d) = data {
            out.push((id, d));
        }
    }
    out
}

/// Sends `req` through a client whose socket receive buffer is 4 KiB, waits `stall` before
/// reading the body (a slow reader), then reads it to its end.
async fn read_slowly(req: http::Request<Full<Bytes>>, stall: Duration) -> (u16, String) {
    let mut conn = HttpConnector::new();
    conn.set_recv_buffer_size(Some(4096));
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(conn);
    let resp = client.request(req).await.unwrap();
    let status = resp.status().as_u16();
    tokio::time::sleep(stall).await;
    let body = tokio::time::timeout(Duration::from_secs(20), resp.into_body().collect())
        .await
        .expect("the stream ends")
        .expect("the stream ends cleanly")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_past_the_byte_budget_has_its_stream_closed_and_resumes_without_loss() {
    slow_reader_closed_then_resumed(
        HttpServerOptions::default().with_max_stream_buffered_bytes(256 * 1024),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_budget_closes_a_slow_stream_too_and_is_given_back() {
    slow_reader_closed_then_resumed(
        HttpServerOptions::default()
            .with_max_stream_buffered_bytes(usize::MAX)
            .with_max_session_buffered_bytes(256 * 1024),
    )
    .await;
}

/// A call whose 100 events of 128 KiB meet a reader stalled for 1.5 s: its stream closes before
/// the answer; resumed, it brings the rest; then the session's next call comes whole to a
/// reader that keeps up (nothing of the budget is left taken).
async fn slow_reader_closed_then_resumed(options: HttpServerOptions) {
    let (_s, h, url) = start(options).await;
    let sid = init_session(&url).await;
    // 100 events of 128 KiB (12.8 MB): far fewer than the 1,024 frames a queue may hold, far
    // more bytes than the budget and the sockets' buffers.
    let req = http::Request::post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Full::new(Bytes::from(
            call(7, "shout", json!({"count": 100, "size": 128 * 1024})).to_string(),
        )))
        .unwrap();
    let (status, text) = read_slowly(req, Duration::from_millis(1500)).await;
    assert_eq!(status, 200);
    let first = events(&text);
    let shouts = |evs: &[(String, Value)]| {
        evs.iter()
            .filter(|(_, d)| d["method"] == "notifications/shout")
            .map(|(_, d)| d["params"]["i"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    let got = shouts(&first);
    assert!(
        first.iter().all(|(_, d)| d["id"] != 7),
        "the stream was not closed: the answer came on it after {} events",
        got.len()
    );
    assert!(got.len() < 100, "{} events", got.len());
    assert_eq!(got, (0..got.len() as u64).collect::<Vec<_>>());
    // Resumed from the last event it got: the rest, then the answer.
    let last = &first.last().expect("some events came").0;
    let r = send(
        "GET",
        &url,
        &[
            ("accept", "text/event-stream"),
            ("mcp-session-id", &sid),
            ("mcp-protocol-version", "2025-11-25"),
            ("last-event-id", last),
        ],
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let rest = events(&r.body);
    let mut all = got.clone();
    all.extend(shouts(&rest));
    assert_eq!(
        all,
        (0..100).collect::<Vec<_>>(),
        "every event, once, in order"
    );
    let answer = rest.iter().find(|(_, d)| d["id"] == 7).expect("the answer");
    assert_eq!(answer.1["result"]["content"][0]["text"], "shouted 100");
    let next = post(
        &url,
        Some(&sid),
        call(8, "shout", json!({"count": 20, "size": 8 * 1024})),
    )
    .await;
    let evs = events(&next.body);
    assert_eq!(shouts(&evs), (0..20).collect::<Vec<_>>(), "{}", next.body);
    assert!(evs.iter().any(|(_, d)| d["id"] == 8), "{}", next.body);
    h.shutdown().await.unwrap();
}
