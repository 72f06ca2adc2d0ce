//! Streamable HTTP server: sessions, SSE streams, GET stream, resumption, JSON and stateless modes.

use crate::common_http;
use bytes::Bytes;
use common_http::*;
use ferromcp::transport::http::HttpServerOptions;
use http_body_util::{BodyExt, Full};
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn initialize_then_call_with_progress_before_response() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    assert_eq!(sid.len(), 32);
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"count","arguments":{"steps":3},"_meta":{"progressToken":"p"}}}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let msgs = r.sse_messages();
    assert_eq!(msgs.len(), 4, "{}", r.body);
    for m in &msgs[..3] {
        assert_eq!(m["method"], "notifications/progress");
    }
    assert_eq!(msgs[3]["id"], 2);
    assert_eq!(msgs[3]["result"]["content"][0]["text"], "counted to 3");
    // DELETE ends the session; afterwards it is unknown.
    let d = send("DELETE", &url, &[("mcp-session-id", &sid)], "").await;
    assert_eq!(d.status, 200);
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 404);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn get_stream_receives_unrelated_notification() {
    let (server, h, url) = start(HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    let req = http::Request::builder()
        .method("GET")
        .uri(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let resp = client().request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let mut body = resp.into_body();
    // A second GET stream is refused while the first is open.
    let again = send(
        "GET",
        &url,
        &[("accept", "text/event-stream"), ("mcp-session-id", &sid)],
        "",
    )
    .await;
    assert_eq!(again.status, 409);
    let s2 = server.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        s2.add_tool(
            ferromcp::protocol::Tool::new("late"),
            ferromcp::server::tool_fn(|_a, _c| async move { Ok(Default::default()) }),
        )
        .unwrap();
    });
    let mut text = String::new();
    let got = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(f)) = body.frame().await {
            if let Ok(d) = f.into_data() {
                text.push_str(&String::from_utf8_lossy(&d));
                if text.contains("notifications/tools/list_changed") {
                    return true;
                }
            }
        }
        false
    })
    .await;
    assert_eq!(got, Ok(true), "{text}");
    drop(body);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn resume_with_last_event_id_after_disconnect() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    let sid = init_session(&url).await;
    let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call",
        "params":{"name":"count","arguments":{"steps":4,"delay_ms":150},"_meta":{"progressToken":1}}});
    let mut b = http::Request::builder()
        .method("POST")
        .uri(&url)
        .header("mcp-session-id", &sid);
    for (k, v) in JSON_SSE {
        b = b.header(k, v);
    }
    let resp = client()
        .request(b.body(Full::new(Bytes::from(call.to_string()))).unwrap())
        .await
        .unwrap();
    let mut body = resp.into_body();
    // Read until the first progress event, remember its id, then hang up.
    let mut text = String::new();
    let last_id = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let f = body.frame().await.unwrap().unwrap();
            text.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
            if let Some(pos) = text.find("notifications/progress") {
                let before = &text[..pos];
                let id_line = before
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("id: "))
                    .unwrap();
                return id_line[4..].to_string();
            }
        }
    })
    .await
    .unwrap();
    drop(body);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let r = send(
        "GET",
        &url,
        &[
            ("accept", "text/event-stream"),
            ("mcp-session-id", &sid),
            ("last-event-id", &last_id),
        ],
        "",
    )
    .await;
    assert_eq!(r.status, 200);
    let msgs = r.sse_messages();
    let last = msgs.last().expect("events replayed");
    assert_eq!(last["id"], 7, "{}", r.body);
    assert_eq!(last["result"]["content"][0]["text"], "counted to 4");
    let progress = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!(
        progress, 3,
        "the first progress event is not replayed: {}",
        r.body
    );
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn json_response_mode() {
    let (_s, h, url) = start(HttpServerOptions::default().with_json_response(true)).await;
    let sid = init_session(&url).await;
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"count","arguments":{"steps":2}}}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "application/json");
    assert_eq!(r.json()["result"]["content"][0]["text"], "counted to 2");
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn stateless_mode() {
    let (_s, h, url) = start(HttpServerOptions::default().with_stateless(true)).await;
    let r = post(&url, None, init_body("2025-06-18")).await;
    assert_eq!(r.status, 200);
    assert!(r.sid().is_none());
    // No session, no initialize needed: each request stands alone.
    let r = post(
        &url,
        None,
        json!({"jsonrpc":"2.0","id":5,"method":"tools/list"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let msgs = r.sse_messages();
    let tools: &Value = &msgs.last().unwrap()["result"]["tools"];
    assert_eq!(tools[0]["name"], "count");
    let g = send("GET", &url, &[("accept", "text/event-stream")], "").await;
    assert_eq!(g.status, 405);
    h.shutdown().await.unwrap();
}

/// Stateless JSON mode: every request stands alone and is answered with its own JSON body;
/// what a handler sends besides its answer (progress) is dropped, a handler still running after
/// its first poll is waited for, and a POST without a request is accepted.
#[tokio::test]
async fn stateless_json_mode_answers_each_request_with_its_body() {
    let (_s, h, url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let r = post(&url, None, init_body("2025-06-18")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.sid().is_none());
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-06-18");
    let with_progress = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"count","arguments":{"steps":2},"_meta":{"progressToken":"p"}}});
    let cases = [
        (
            with_progress,
            json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"counted to 2"}]}}),
        ),
        // Pending at its first poll, then answered from its own task.
        (
            call(3, "later", json!({"ms": 20})),
            json!({"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"later 20"}]}}),
        ),
        (
            json!({"jsonrpc":"2.0","id":"p","method":"ping"}),
            json!({"jsonrpc":"2.0","id":"p","result":{}}),
        ),
    ];
    for (body, want) in cases {
        let r = post(&url, None, body).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.headers["content-type"], "application/json");
        let mut got = r.json();
        if let Some(result) = got["result"].as_object_mut() {
            result.remove("isError");
            result.remove("structuredContent");
        }
        assert_eq!(got, want, "{}", r.body);
    }
    let r = post(
        &url,
        None,
        json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["tools"][0]["name"], "count");
    // An unknown tool and an unknown method: their errors, in a 200 JSON body.
    let r = post(&url, None, call(5, "missing", json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["id"], 5);
    let r = post(
        &url,
        None,
        json!({"jsonrpc":"2.0","id":6,"method":"no/such"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], -32601, "{}", r.body);
    let r = post(
        &url,
        None,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    h.shutdown().await.unwrap();
}

/// Stateless JSON mode: a handler still running when its client disconnects runs on to its end
/// (on the endpoint's task tracker), counted as a live session until then.
#[tokio::test]
async fn stateless_json_handler_outlives_its_disconnected_client() {
    use tokio::io::AsyncWriteExt;
    let (_s, h, url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let live = |n: usize| {
        let h = &h;
        async move {
            for _ in 0..250 {
                if h.stats().live_sessions == n {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            false
        }
    };
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = call(1, "later", json!({"ms": 1500})).to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    sock.write_all(format!("{head}{body}").as_bytes())
        .await
        .unwrap();
    assert!(live(1).await, "the call is running");
    drop(sock);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(h.stats().live_sessions, 1, "the handler runs on");
    assert!(live(0).await, "and ends");
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn session_limit_answers_503_when_every_session_is_busy() {
    let (_s, h, url) = start(HttpServerOptions::default().with_max_sessions(1)).await;
    let sid = init_session(&url).await;
    // An open GET stream makes the only session busy: it is not closed to make room.
    let req = http::Request::builder()
        .method("GET")
        .uri(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let stream = client().request(req).await.unwrap();
    assert_eq!(stream.status(), 200);
    let r = post(&url, None, init_body("2025-11-25")).await;
    assert_eq!(r.status, 503);
    assert!(r.json()["error"]["code"].is_i64());
    let ping = json!({"jsonrpc":"2.0","id":3,"method":"ping"});
    assert_eq!(post(&url, Some(&sid), ping).await.status, 200);
    drop(stream);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn idle_sessions_are_reaped() {
    let (_s, h, url) =
        start(HttpServerOptions::default().with_session_idle_timeout(Duration::from_millis(200)))
            .await;
    let sid = init_session(&url).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 404);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn resume_after_a_streams_only_event_replays_nothing() {
    let (_s, h, url) = start(HttpServerOptions::default()).await;
    // 2025-06-18: no priming event. No progress token: the answer is the stream's only event
    // (its id is not kept).
    let sid = init_session_at(&url, "2025-06-18").await;
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
        "params":{"name":"count","arguments":{"steps":1}}}),
    )
    .await;
    assert_eq!(r.status, 200);
    let id_line = r
        .body
        .lines()
        .find(|l| l.starts_with("id: "))
        .expect("the answer carries an event id")
        .to_string();
    let r = send(
        "GET",
        &url,
        &[
            ("accept", "text/event-stream"),
            ("mcp-session-id", &sid),
            ("last-event-id", &id_line[4..]),
        ],
        "",
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.sse_messages().is_empty(), "{}", r.body);
    // The standalone GET stream is still free to open.
    let headers = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", sid.as_str()),
    ];
    let g = tokio::time::timeout(Duration::from_millis(300), send("GET", &url, &headers, "")).await;
    assert!(g.is_err(), "the GET stream stays open (not a 409)");
    h.shutdown().await.unwrap();
}
