//! Streamable HTTP under stress: graceful shutdown, batches (2025-03-26), SSE polling, session
//! floods, slow readers, disconnects and malformed input isolated per session.

use crate::common_http;
use bytes::Bytes;
use common_http::*;
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{
    serve_http, HttpClientOptions, HttpServerOptions, InMemoryEventStore,
};
use http_body_util::{BodyExt, Full};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Bounds a whole test.
async fn bounded<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(Duration::from_secs(30), f)
        .await
        .expect("test timed out");
}

/// Opens a POST whose SSE body is read incrementally.
async fn open_post(url: &str, sid: &str, body: Value) -> hyper::body::Incoming {
    let mut b = http::Request::builder()
        .method("POST")
        .uri(url)
        .header("mcp-session-id", sid);
    for (k, v) in JSON_SSE {
        b = b.header(k, v);
    }
    let resp = client()
        .request(b.body(Full::new(Bytes::from(body.to_string()))).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.into_body()
}

/// Reads `body` until `text` contains `needle` (or the body ends); returns all read.
async fn read_until(body: &mut hyper::body::Incoming, text: &mut String, needle: &str) -> bool {
    loop {
        if text.contains(needle) {
            return true;
        }
        match body.frame().await {
            Some(Ok(f)) => {
                if let Ok(d) = f.into_data() {
                    text.push_str(&String::from_utf8_lossy(&d));
                }
            }
            _ => return text.contains(needle),
        }
    }
}

fn sse_json(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

#[tokio::test]
async fn graceful_shutdown_finishes_in_flight_calls_and_refuses_new_ones() {
    bounded(async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let sid = init_session(&url).await;
        let mut body = open_post(
            &url,
            &sid,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count",
                "arguments":{"steps":5,"delay_ms":150},"_meta":{"progressToken":"p"}}}),
        )
        .await;
        let mut text = String::new();
        assert!(read_until(&mut body, &mut text, "notifications/progress").await);
        let shutdown = tokio::spawn(h.shutdown());
        tokio::time::sleep(Duration::from_millis(100)).await;
        // A new connection is refused (listener gone) or answered 503.
        let req = http::Request::builder()
            .method("POST")
            .uri(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &sid)
            .body(Full::new(Bytes::from(
                json!({"jsonrpc":"2.0","id":3,"method":"ping"}).to_string(),
            )))
            .unwrap();
        match tokio::time::timeout(Duration::from_secs(5), client().request(req)).await {
            Ok(Err(_)) => {}
            Ok(Ok(r)) => assert_eq!(r.status(), 503),
            Err(_) => panic!("a request during shutdown hung"),
        }
        // The in-flight call completes and its answer is delivered.
        assert!(
            read_until(&mut body, &mut text, "counted to 5").await,
            "{text}"
        );
        let msgs = sse_json(&text);
        assert_eq!(msgs.last().unwrap()["id"], 2);
        drop(body);
        tokio::time::timeout(Duration::from_secs(10), shutdown)
            .await
            .expect("shutdown finishes")
            .unwrap()
            .unwrap();
    })
    .await;
}

#[tokio::test]
async fn batches_over_http_for_2025_03_26() {
    bounded(async {
        for json_response in [false, true] {
            let (_s, h, url) =
                start(HttpServerOptions::default().with_json_response(json_response)).await;
            let sid = init_session_at(&url, "2025-03-26").await;
            let batch = json!([
                {"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"count",
                    "arguments":{"steps":2},"_meta":{"progressToken":"t"}}},
                {"jsonrpc":"2.0","method":"notifications/roots/list_changed"},
                {"jsonrpc":"2.0","id":"b","method":"ping"},
                {"jsonrpc":"2.0","id":"c","method":"no/such/method"}
            ]);
            let r = post(&url, Some(&sid), batch).await;
            assert_eq!(r.status, 200, "{}", r.body);
            let answers: Vec<Value> = if json_response {
                assert_eq!(r.headers["content-type"], "application/json");
                r.json().as_array().expect("an array answer").clone()
            } else {
                let msgs = r.sse_messages();
                let progress = msgs
                    .iter()
                    .filter(|m| m["method"] == "notifications/progress")
                    .count();
                assert_eq!(progress, 2, "{}", r.body);
                msgs.into_iter().filter(|m| m.get("id").is_some()).collect()
            };
            assert_eq!(answers.len(), 3, "{answers:?}");
            let by_id = |id: &str| answers.iter().find(|m| m["id"] == id).unwrap().clone();
            assert_eq!(by_id("a")["result"]["content"][0]["text"], "counted to 2");
            assert_eq!(by_id("b")["result"], json!({}));
            assert_eq!(by_id("c")["error"]["code"], -32601);
            // Two requests with one id, the first still running when the second is answered:
            // the first is served, the second refused with its id, none left unanswered.
            let r = post(
                &url,
                Some(&sid),
                json!([
                    {"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"count",
                        "arguments":{"steps":1,"delay_ms":50}}},
                    {"jsonrpc":"2.0","id":"d","method":"ping"}
                ]),
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.body);
            let answers: Vec<Value> = if json_response {
                r.json().as_array().expect("an array answer").clone()
            } else {
                r.sse_messages()
                    .into_iter()
                    .filter(|m| m.get("id").is_some())
                    .collect()
            };
            assert_eq!(answers.len(), 2, "{}", r.body);
            assert!(answers.iter().all(|m| m["id"] == "d"), "{answers:?}");
            let served = answers.iter().find(|m| m.get("result").is_some());
            assert_eq!(
                served.expect("the first is served")["result"]["content"][0]["text"],
                "counted to 1"
            );
            let refused = answers.iter().find(|m| m.get("error").is_some());
            assert_eq!(
                refused.expect("the second is refused")["error"],
                json!({"code": -32600, "message": "Invalid Request",
                       "data": "duplicate request id \"d\" in the batch"})
            );
            // Notifications (and responses) only: 202.
            let r = post(
                &url,
                Some(&sid),
                json!([{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},
                       {"jsonrpc":"2.0","id":77,"result":{}}]),
            )
            .await;
            assert_eq!(r.status, 202, "{}", r.body);
            // The session still works.
            let r = post(
                &url,
                Some(&sid),
                json!({"jsonrpc":"2.0","id":9,"method":"ping"}),
            )
            .await;
            assert_eq!(r.status, 200);
            h.shutdown().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn batches_are_refused_in_later_revisions_and_for_initialize() {
    bounded(async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        for version in ["2025-06-18", "2025-11-25"] {
            let sid = init_session_at(&url, version).await;
            let r = post(
                &url,
                Some(&sid),
                json!([{"jsonrpc":"2.0","id":1,"method":"ping"},
                       {"jsonrpc":"2.0","id":2,"method":"ping"}]),
            )
            .await;
            assert_eq!(r.status, 400, "{version}: {}", r.body);
            assert_eq!(r.json()["error"]["code"], -32600);
        }
        let r = post(&url, None, json!([init_body("2025-03-26")])).await;
        assert_eq!(r.status, 400, "{}", r.body);
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn tool_closes_its_stream_and_the_client_resumes() {
    bounded(async {
        let (_s, h, url) = start(
            HttpServerOptions::default().with_retry_interval(Some(Duration::from_millis(50))),
        )
        .await;
        // Raw: the POST stream ends early (priming event only), the answer comes on resumption.
        let sid = init_session(&url).await;
        let r = post(&url, Some(&sid), call(2, "poll", json!({"ms": 300}))).await;
        assert_eq!(r.status, 200);
        assert!(r.body.contains("retry: 50"), "{}", r.body);
        assert!(!r.body.contains("polled"), "{}", r.body);
        let prime = r
            .body
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .expect("priming event id")
            .to_string();
        let g = send(
            "GET",
            &url,
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &sid),
                ("last-event-id", &prime),
            ],
            "",
        )
        .await;
        let last = g
            .sse_messages()
            .pop()
            .expect("answer on the resumed stream");
        assert_eq!(last["id"], 2);
        assert_eq!(last["result"]["content"][0]["text"], "polled closed=true");
        // Our client reconnects by itself.
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        for _ in 0..3 {
            let r = client.call_tool("poll", json!({"ms": 200})).await.unwrap();
            assert_eq!(
                serde_json::to_value(&r).unwrap()["content"][0]["text"],
                "polled closed=true"
            );
        }
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await;
}

/// Whether a POST's stream is primed (and so may be closed and resumed) follows the version the
/// session negotiated, not an older revision a request's version header names (the conformance
/// suite's `server-sse-polling` sends `2025-03-26` on a 2025-11-25 session); and a stream that is
/// not primed is never closed early, so its answer is not lost.
#[tokio::test]
async fn a_stream_is_primed_by_the_negotiated_version_and_only_a_primed_one_closes() {
    bounded(async {
        let (_s, h, url) = start(
            HttpServerOptions::default().with_retry_interval(Some(Duration::from_millis(50))),
        )
        .await;
        let sid = init_session(&url).await;
        let mut headers: Vec<(&str, &str)> = JSON_SSE.to_vec();
        headers.push(("mcp-session-id", &sid));
        headers.push(("mcp-protocol-version", "2025-03-26"));
        let body = call(2, "poll", json!({"ms": 100})).to_string();
        let r = send("POST", &url, &headers, &body).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let first = r.body.split("\n\n").next().unwrap_or_default();
        assert!(first.contains("id: "), "priming event first: {}", r.body);
        assert!(first.contains("retry: 50"), "{}", r.body);
        assert!(
            !r.body.contains("polled"),
            "closed before the answer: {}",
            r.body
        );
        let prime = first
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .unwrap()
            .to_string();
        let g = send(
            "GET",
            &url,
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &sid),
                ("last-event-id", &prime),
            ],
            "",
        )
        .await;
        let last = g
            .sse_messages()
            .pop()
            .expect("answer on the resumed stream");
        assert_eq!(last["result"]["content"][0]["text"], "polled closed=true");

        // A 2025-06-18 session gets no priming event: the tool cannot close its stream, and the
        // answer arrives on the POST's own stream.
        let old = init_session_at(&url, "2025-06-18").await;
        let r = post(&url, Some(&old), call(3, "poll", json!({"ms": 50}))).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(!r.body.contains("retry:"), "{}", r.body);
        let answer = r.sse_messages().pop().expect("answer on the POST stream");
        assert_eq!(answer["id"], 3);
        assert_eq!(
            answer["result"]["content"][0]["text"],
            "polled closed=false"
        );
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn close_streams_after_puts_long_requests_in_polling_mode() {
    bounded(async {
        let (_s, h, url) = start(
            HttpServerOptions::default()
                .with_retry_interval(Some(Duration::from_millis(30)))
                .with_close_streams_after(Some(Duration::from_millis(150))),
        )
        .await;
        // Raw: the POST stream is closed before the slow answer.
        let sid = init_session(&url).await;
        let started = std::time::Instant::now();
        let r = post(
            &url,
            Some(&sid),
            call(2, "count", json!({"steps": 4, "delay_ms": 200})),
        )
        .await;
        assert_eq!(r.status, 200);
        assert!(!r.body.contains("counted"), "{}", r.body);
        assert!(started.elapsed() < Duration::from_millis(700));
        // Quick requests are unaffected.
        let r = post(
            &url,
            Some(&sid),
            json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
        )
        .await;
        assert_eq!(r.sse_messages().last().unwrap()["id"], 3);
        // The client polls: progress and the answer arrive across several streams.
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = seen.clone();
        let opts = RequestOptions::default()
            .with_on_progress(Some(Arc::new(move |p| s2.lock().unwrap().push(p))));
        let r = client
            .call_tool_with("count", json!({"steps": 6, "delay_ms": 100}), opts)
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap()["content"][0]["text"],
            "counted to 6"
        );
        assert_eq!(seen.lock().unwrap().len(), 6);
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn session_flood_past_the_limit_evicts_idle_sessions_and_spares_busy_ones() {
    bounded(async {
        let (_s, h, url) = start(HttpServerOptions::default().with_max_sessions(4)).await;
        let a = init_session(&url).await;
        let mut slow = open_post(
            &url,
            &a,
            call(2, "count", json!({"steps": 10, "delay_ms": 100})),
        )
        .await;
        let flood = (0..40).map(|_| {
            let url = url.clone();
            tokio::spawn(async move { post(&url, None, init_body("2025-11-25")).await.status })
        });
        let mut ok = 0;
        let mut refused = 0;
        for f in flood {
            match f.await.unwrap() {
                200 => ok += 1,
                503 => refused += 1,
                other => panic!("unexpected status {other}"),
            }
        }
        // Each initialize closes the least recently active idle session (an earlier one of the
        // flood); the busy session (a call in flight) is spared.
        assert_eq!(ok, 40);
        assert_eq!(refused, 0);
        // The existing session still answers, and its in-flight call completes.
        let r = post(
            &url,
            Some(&a),
            json!({"jsonrpc":"2.0","id":5,"method":"tools/list"}),
        )
        .await;
        assert_eq!(r.status, 200);
        assert_eq!(r.sse_messages().last().unwrap()["id"], 5);
        let mut text = String::new();
        assert!(
            read_until(&mut slow, &mut text, "counted to 10").await,
            "{text}"
        );
        // Freeing a slot admits a new session.
        let d = send("DELETE", &url, &[("mcp-session-id", &a)], "").await;
        assert_eq!(d.status, 200);
        init_session(&url).await;
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn disconnect_mid_stream_while_other_sessions_work() {
    bounded(async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let a = init_session(&url).await;
        let b = init_session(&url).await;
        let mut body = open_post(
            &url,
            &a,
            call(2, "count", json!({"steps": 5, "delay_ms": 80})),
        )
        .await;
        let mut text = String::new();
        let _ = tokio::time::timeout(Duration::from_millis(100), body.frame()).await;
        drop(body);
        text.clear();
        let other = tokio::spawn({
            let url = url.clone();
            async move {
                post(
                    &url,
                    Some(&b),
                    call(3, "count", json!({"steps": 3, "delay_ms": 50})),
                )
                .await
            }
        });
        let r = post(
            &url,
            Some(&a),
            json!({"jsonrpc":"2.0","id":4,"method":"ping"}),
        )
        .await;
        assert_eq!(r.sse_messages().last().unwrap()["id"], 4);
        let r = other.await.unwrap();
        let last = r.sse_messages().pop().unwrap();
        assert_eq!(last["result"]["content"][0]["text"], "counted to 3");
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn malformed_input_on_one_session_does_not_affect_another() {
    bounded(async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let a = init_session(&url).await;
        let b = init_session(&url).await;
        let mut with_a: Vec<(&str, &str)> = JSON_SSE.to_vec();
        with_a.push(("mcp-session-id", &a));
        // Broken JSON, a non-object, an invalid envelope, bad headers, bad params.
        for bad in [
            "{oops",
            "42",
            "[]",
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        ] {
            let r = send("POST", &url, &with_a, bad).await;
            assert_eq!(r.status, 400, "{bad}: {}", r.body);
        }
        let mut bad_version = with_a.clone();
        bad_version.push(("mcp-protocol-version", "garbage"));
        let r = send("POST", &url, &bad_version, "{}").await;
        assert_eq!(r.status, 400);
        let r = send(
            "POST",
            &url,
            &[("content-type", "text/html"), ("mcp-session-id", &a)],
            "<html>",
        )
        .await;
        assert_eq!(r.status, 415);
        let r = post(&url, Some(&a), call(7, "count", json!({"steps": "many"}))).await;
        assert_eq!(r.status, 200);
        let answer = r.sse_messages().pop().unwrap();
        assert!(
            answer.get("error").is_some() || answer["result"]["isError"] == true,
            "{answer}"
        );
        // Both sessions still answer.
        for (sid, id) in [(&b, 8), (&a, 9)] {
            let r = post(&url, Some(sid), call(id, "count", json!({"steps": 1}))).await;
            let last = r.sse_messages().pop().unwrap();
            assert_eq!(last["id"], id);
            assert_eq!(last["result"]["content"][0]["text"], "counted to 1");
        }
        h.shutdown().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn slow_reader_stream_is_closed_not_buffered_and_can_resume() {
    bounded(async {
        let server = demo_server();
        let h = serve_http(
            server,
            "127.0.0.1:0",
            HttpServerOptions::default()
                .with_stream_queue_capacity(8)
                .with_event_store(Some(Arc::new(InMemoryEventStore::new(16, 100)))),
        )
        .await
        .unwrap();
        let url = h.url("/mcp");
        let sid = init_session(&url).await;
        // A raw connection that reads the headers and priming event, then stops reading while
        // the tool sends ~40 MB (more than the socket buffers hold).
        let mut tcp = tokio::net::TcpStream::connect(h.local_addr())
            .await
            .unwrap();
        let body = call(2, "shout", json!({"count": 600, "size": 65536})).to_string();
        let req = format!(
            "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\nmcp-session-id: {sid}\r\n\
             content-length: {}\r\n\r\n{body}",
            h.local_addr(),
            body.len()
        );
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !String::from_utf8_lossy(&head).contains("retry:") {
            let n = tcp.read(&mut buf).await.unwrap();
            assert!(n > 0);
            head.extend_from_slice(&buf[..n]);
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let prime = head
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .expect("priming id")
            .to_string();
        // The session is not blocked by the stuck stream: other requests are answered while the
        // tool runs to its end.
        for _ in 0..10 {
            let r = post(
                &url,
                Some(&sid),
                json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
            )
            .await;
            assert_eq!(r.sse_messages().last().unwrap()["id"], 3);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // The stuck stream was closed when its queue filled: draining the socket ends the body
        // (chunked terminator, or the whole Content-Length when the handler had already run
        // to its end) without the answer, after far less than was sent.
        let split = head.find("\r\n\r\n").expect("end of headers") + 4;
        let length: Option<usize> = head[..split].lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        });
        let mut raw = head.as_bytes()[split..].to_vec();
        let mut buf = vec![0u8; 1 << 16];
        let drained = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if length.is_some_and(|n| raw.len() >= n) {
                    break;
                }
                let n = tcp.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                raw.extend_from_slice(&buf[..n]);
                if length.is_none() && raw.ends_with(b"0\r\n\r\n") {
                    break;
                }
            }
        })
        .await;
        assert!(drained.is_ok(), "the stuck stream was not closed");
        let raw = String::from_utf8_lossy(&raw);
        assert!(!raw.contains("shouted 600"));
        assert!(raw.len() < 16 << 20, "{} bytes of ~40 MB", raw.len());
        // The answer waits in the (bounded) event store for a resumption.
        let g = send(
            "GET",
            &url,
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &sid),
                ("last-event-id", &prime),
            ],
            "",
        )
        .await;
        let replay = g.sse_messages();
        let last = replay.last().expect("replayed");
        assert_eq!(
            last["result"]["content"][0]["text"], "shouted 600",
            "{last}"
        );
        assert!(replay.len() <= 16, "{}", replay.len());
        drop(tcp);
        h.shutdown().await.unwrap();
    })
    .await;
}
