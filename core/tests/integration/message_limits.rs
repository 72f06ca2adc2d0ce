//! Messages over the size limit (issue 16) fail the one request they belong to, clearly, on both
//! sides: a request over the server's limit is answered with an error carrying its id (so the
//! client can match it), and a response over the client's limit fails the waiting call at once
//! instead of leaving it to wait forever, over the in-memory transport and over stdio framing.

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::{LineReader, LineWriter};
use serde_json::{json, Value};
use std::time::Duration;
use support::{connect_with, error_code, within, RawPeer};

/// A server whose `big` tool answers with `n` bytes of text, accepting messages up to `limit`.
fn server(limit: usize) -> Server {
    Server::builder("limits", "1")
        .tool_raw(
            Tool::new("big"),
            tool_fn(|a, _c| async move {
                let n = a.get("n").and_then(Value::as_u64).unwrap_or(0) as usize;
                Ok(CallToolResult::text("x".repeat(n)))
            }),
        )
        .options(|o| o.session.max_message_size = limit)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_request_over_the_limit_gets_an_error_with_its_id() {
    let mut p = RawPeer::start(&server(1024));
    p.initialize("2025-11-25").await;
    let pad = "p".repeat(4000);
    p.send(json!({"jsonrpc":"2.0","id":"big-1","method":"tools/call",
        "params":{"name":"big","arguments":{"pad": pad}}}))
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64, "{m}");
    assert_eq!(m["id"], "big-1", "{m}");
    // The whole message is at hand here: its id is found wherever it is.
    let late_id = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"big","arguments":{{"pad":"{}"}}}},"id":42}}"#,
        "q".repeat(8000)
    );
    p.send_raw(late_id.as_bytes()).await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64, "{m}");
    assert_eq!(m["id"], 42, "{m}");
    // The session still works.
    let m = p
        .request(
            json!(3),
            "tools/call",
            json!({"name":"big","arguments":{"n":3}}),
        )
        .await;
    assert_eq!(m["result"]["content"][0]["text"], "xxx", "{m}");
}

#[tokio::test]
async fn a_request_over_the_stdio_limit_gets_an_error_with_its_id() {
    // The server side of a stdio pipe: newline framing with the limit enforced by the framer.
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let srv = server(1024);
    tokio::spawn(async move {
        srv.serve(LineReader::new(sr, 1024), LineWriter::new(sw))
            .await
    });
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(cr));
    let big = json!({"jsonrpc":"2.0","id":77,"method":"tools/call",
        "params":{"name":"big","arguments":{"pad": "p".repeat(100_000)}}});
    tokio::io::AsyncWriteExt::write_all(&mut cw, format!("{big}\n").as_bytes())
        .await
        .unwrap();
    let line = within(lines.next_line()).await.unwrap().unwrap();
    let m: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(m["id"], 77, "{m}");
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64, "{m}");
    assert!(
        m.to_string().contains("exceeds the limit of 1024 bytes"),
        "{m}"
    );
    // The framer scans the line it discards: an id written after megabytes of params (as the
    // TypeScript SDK writes it) is found too, so the client's call fails at once.
    let late_id = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{{\"pad\":\"{}\"}},\"id\":43}}\n",
        "q".repeat(8000)
    );
    tokio::io::AsyncWriteExt::write_all(&mut cw, late_id.as_bytes())
        .await
        .unwrap();
    let line = within(lines.next_line()).await.unwrap().unwrap();
    let m: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(error_code(&m), codes::INVALID_REQUEST as i64, "{m}");
    assert_eq!(m["id"], 43, "{m}");
    // A line with no id (a notification, seen whole) is dropped, not answered; the next
    // request is served.
    let note = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "n".repeat(8000)
    );
    tokio::io::AsyncWriteExt::write_all(&mut cw, note.as_bytes())
        .await
        .unwrap();
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"ping\"}\n";
    tokio::io::AsyncWriteExt::write_all(&mut cw, ping.as_bytes())
        .await
        .unwrap();
    let line = within(lines.next_line()).await.unwrap().unwrap();
    let m: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(m["id"], 44, "{m}");
    assert!(m.get("result").is_some(), "{m}");
}

#[tokio::test]
async fn a_response_over_the_client_limit_fails_that_call() {
    let mut opts = ClientOptions::new("c", "0");
    opts.session.max_message_size = 2048;
    let client = connect_with(&server(1 << 20), ClientHandlers::default(), opts).await;
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("big", json!({"n": 10_000})),
    )
    .await
    .expect("the call waited for an answer that will never be taken");
    let e = r.expect_err("a response over the limit must fail the call");
    assert!(e.message.contains("exceeds the limit"), "{e:?}");
    // The connection is fine: a small answer still arrives.
    let ok = within(client.call_tool("big", json!({"n": 5})))
        .await
        .unwrap();
    assert_eq!(ok.content.len(), 1);
}

#[tokio::test]
async fn a_response_over_the_stdio_client_limit_fails_that_call() {
    // The client reads through the newline framer with a small limit (as `connect_child` does).
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let srv = server(1 << 20);
    tokio::spawn(async move {
        srv.serve(LineReader::new(sr, 1 << 20), LineWriter::new(sw))
            .await
    });
    let (cr, cw) = tokio::io::split(client_io);
    let mut opts = ClientOptions::new("c", "0");
    opts.session.max_message_size = 2048;
    let client = within(Client::connect(
        opts,
        ClientHandlers::default(),
        LineReader::new(cr, 2048),
        LineWriter::new(cw),
    ))
    .await
    .unwrap();
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("big", json!({"n": 10_000})),
    )
    .await
    .expect("the call waited for an answer that will never be taken");
    let e = r.expect_err("a response over the limit must fail the call");
    assert!(e.message.contains("exceeds the limit"), "{e:?}");
    let ok = within(client.call_tool("big", json!({"n": 5})))
        .await
        .unwrap();
    assert_eq!(ok.content.len(), 1);
}
