//! Idle standalone SSE streams end (`HttpServerOptions::sse_idle_timeout`): a GET stream with
//! nothing to send and a client sending nothing is ended cleanly once the timeout passes,
//! keep-alive comments notwithstanding; a stream whose client keeps using its session, or that
//! carries events, stays open; what is sent after the end waits for the next GET; the legacy
//! SSE stream ends the same way; `None` never ends one.

use crate::common_http;
use bytes::Bytes;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use http_body_util::{BodyExt, Full};
use serde_json::json;
use std::time::{Duration, Instant};

/// What a GET stream carried, and after how long it ended (`None`: still open at `wait`).
struct Read {
    text: String,
    ended_after: Option<Duration>,
}

/// Opens `url` as an SSE stream (with the session `sid`, if any) and reads it for `wait`.
async fn read_stream(url: &str, sid: Option<&str>, wait: Duration) -> Read {
    let mut b = http::Request::builder()
        .method("GET")
        .uri(url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(sid) = sid {
        b = b.header("mcp-session-id", sid);
    }
    let resp = client()
        .request(b.body(Full::new(Bytes::new())).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut body = resp.into_body();
    let mut text = String::new();
    let started = Instant::now();
    let end = started + wait;
    loop {
        match tokio::time::timeout_at(end.into(), body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    text.push_str(&String::from_utf8_lossy(&data));
                }
            }
            // The body ended cleanly (the chunked terminator was read).
            Ok(None) => {
                return Read {
                    text,
                    ended_after: Some(started.elapsed()),
                }
            }
            Ok(Some(Err(e))) => panic!("the stream broke instead of ending: {e}"),
            Err(_) => {
                return Read {
                    text,
                    ended_after: None,
                }
            }
        }
    }
}

fn options(idle: Option<Duration>) -> HttpServerOptions {
    HttpServerOptions::default()
        .with_sse_keep_alive(Some(Duration::from_millis(100)))
        .with_sse_idle_timeout(idle)
}

#[tokio::test]
async fn an_idle_get_stream_ends_cleanly_after_the_timeout_despite_keep_alive_comments() {
    let (_s, h, url) = start(options(Some(Duration::from_millis(400)))).await;
    let sid = init_session(&url).await;
    let r = read_stream(&url, Some(&sid), Duration::from_secs(5)).await;
    let ended = r.ended_after.expect("the idle stream ends");
    assert!(
        ended >= Duration::from_millis(350) && ended < Duration::from_millis(1500),
        "ended after {ended:?}"
    );
    assert!(r.text.contains(": keep-alive"), "{:?}", r.text);
    // The session lives on: a request and a new GET stream are served.
    let ping = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(ping.status, 200, "{}", ping.body);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_stream_whose_client_keeps_using_its_session_stays_open() {
    let (_s, h, url) = start(options(Some(Duration::from_millis(400)))).await;
    let sid = init_session(&url).await;
    let pinger = {
        let (url, sid) = (url.clone(), sid.clone());
        tokio::spawn(async move {
            for i in 0..12u64 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let r = post(
                    &url,
                    Some(&sid),
                    json!({"jsonrpc":"2.0","id":i,"method":"ping"}),
                )
                .await;
                assert_eq!(r.status, 200);
            }
        })
    };
    // Requests every 100 ms for 1.2 s: the stream stays open through them, then ends
    // about 400 ms after the last.
    let r = read_stream(&url, Some(&sid), Duration::from_secs(5)).await;
    pinger.await.unwrap();
    let ended = r.ended_after.expect("ends once the client stops");
    assert!(
        ended >= Duration::from_millis(1400),
        "ended after {ended:?} while in use"
    );
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_stream_carrying_events_stays_open_and_what_follows_waits_for_the_next_get() {
    let (server, h, url) = start(options(Some(Duration::from_millis(400)))).await;
    let sid = init_session(&url).await;
    let reader = {
        let (url, sid) = (url.clone(), sid.clone());
        tokio::spawn(async move { read_stream(&url, Some(&sid), Duration::from_secs(5)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    // An event every 250 ms (each tool removed broadcasts tools/list_changed).
    for name in ["count", "poll", "later"] {
        assert!(server.remove_tool(name));
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let r = reader.await.unwrap();
    assert_eq!(r.text.matches("list_changed").count(), 3, "{:?}", r.text);
    // The last event went out ~600 ms in: the stream ends ~400 ms later, not 400 ms in.
    let ended = r.ended_after.expect("ends once idle");
    assert!(
        ended >= Duration::from_millis(900),
        "ended after {ended:?} while carrying events"
    );
    // Sent while no GET stream is open: delivered on the next one, which replays it.
    assert!(server.remove_tool("shout"));
    let r = read_stream(&url, Some(&sid), Duration::from_millis(300)).await;
    assert_eq!(r.text.matches("list_changed").count(), 1, "{:?}", r.text);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_legacy_sse_stream_ends_once_idle_and_none_never_ends_one() {
    let (_s, h, url) = start(options(Some(Duration::from_millis(300)))).await;
    let sse = url.replace("/mcp", "/sse");
    let r = read_stream(&sse, None, Duration::from_secs(5)).await;
    assert!(r.text.contains("event: endpoint"), "{:?}", r.text);
    let ended = r.ended_after.expect("the idle legacy stream ends");
    assert!(ended < Duration::from_millis(1500), "ended after {ended:?}");
    h.shutdown().await.unwrap();

    let (_s, h, url) = start(options(None)).await;
    let sid = init_session(&url).await;
    let r = read_stream(&url, Some(&sid), Duration::from_millis(900)).await;
    assert!(r.ended_after.is_none(), "ended after {:?}", r.ended_after);
    h.shutdown().await.unwrap();
}
