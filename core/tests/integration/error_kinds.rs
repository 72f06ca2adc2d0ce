//! What a Rust client's error says happened (`McpError::kind`, `ErrorKind`) and what it keeps
//! (`std::error::Error::source`): a peer's JSON-RPC error is `Rpc` whatever its code (-32000
//! included, the code the engine also uses for a closed connection), a server process that dies
//! gives `Closed` with the transport's report as the source, a request past its timeout gives
//! `Timeout`, a request cancelled here gives `Cancelled`, and an HTTP connection refused gives
//! `Transport` keeping the `std::io::Error` (as do a WebSocket connection refused and a server
//! program that cannot start).

use crate::support;

use ferromcp::client::http::connect as connect_http;
use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use ferromcp::transport::{memory_pair, ChildProcessOptions, FrameReader, FrameWriter, ReadStatus};
use ferromcp::{codes, ErrorKind, McpError};
use serde_json::{json, Value};
use std::error::Error as _;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The first `std::io::Error` in `e`'s source chain.
fn io_source(e: &McpError) -> Option<&std::io::Error> {
    let mut cause = e.source();
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        cause = c.source();
    }
    None
}

/// A server whose `fail` tool answers with the JSON-RPC error -32000 (its own, from the wire)
/// and whose `sleepy` tool waits until it is cancelled.
fn server() -> Server {
    Server::builder("kinds", "1")
        .tool_raw(
            Tool::new("fail"),
            tool_fn(|_a, _ctx| async {
                Err::<CallToolResult, _>(
                    McpError::new(codes::CONNECTION_CLOSED, "backend unavailable")
                        .with_data(json!({ "backend": "db" })),
                )
            }),
        )
        .tool_raw(
            Tool::new("sleepy"),
            tool_fn(|_a, ctx| async move {
                ctx.cancellation().cancelled().await;
                Ok(CallToolResult::text("cancelled"))
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_peers_minus_32000_is_rpc_not_closed() {
    // A raw peer, so that -32000 is exactly what the wire carries.
    let ((r_c, w_c), (mut r_s, mut w_s)) = memory_pair(16);
    tokio::spawn(async move {
        let mut buf = Vec::new();
        while let Ok(ReadStatus::Frame) = r_s.read_frame(&mut buf).await {
            let m: Value = serde_json::from_slice(&buf).unwrap();
            let answer = match m["method"].as_str() {
                Some("initialize") => json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw", "version": "0"}}}),
                Some("ping") => json!({"jsonrpc": "2.0", "id": m["id"], "result": {}}),
                Some("tools/call") => json!({"jsonrpc": "2.0", "id": m["id"], "error": {
                    "code": -32000, "message": "upstream closed", "data": {"retry": true}}}),
                _ => continue,
            };
            w_s.write_frame(answer.to_string().as_bytes())
                .await
                .unwrap();
            w_s.flush().await.unwrap();
        }
    });
    let client = support::within(Client::connect(
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        r_c,
        w_c,
    ))
    .await
    .unwrap();
    let err = support::within(client.call_tool("anything", json!({})))
        .await
        .expect_err("the peer answers with an error");
    assert_eq!(err.kind(), ErrorKind::Rpc);
    assert_eq!(err.code, -32000);
    assert_eq!(err.message, "upstream closed");
    assert_eq!(err.data, Some(json!({"retry": true})));
    assert!(err.source().is_none(), "a peer's answer has no local cause");
    // The session is still up: a closed connection would fail this.
    support::within(client.ping()).await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn a_handlers_minus_32000_reaches_an_http_client_as_rpc() {
    let h = serve_http(server(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let client = support::within(connect_http(
        &h.url("/mcp"),
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    ))
    .await
    .unwrap();
    let err = support::within(client.call_tool("fail", json!({})))
        .await
        .expect_err("the tool fails");
    assert_eq!(err.kind(), ErrorKind::Rpc);
    assert_eq!(
        (err.code, err.message.as_str()),
        (codes::CONNECTION_CLOSED, "backend unavailable")
    );
    assert_eq!(err.data, Some(json!({ "backend": "db" })));
    client.close().await;
    h.shutdown().await.unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn a_server_process_that_dies_gives_closed_with_a_source() {
    // Answers initialize, then exits when the next request arrives.
    let script = r#"
        read line
        id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
        printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"dying","version":"0"}}}\n' "$id"
        read line
        read line
        exit 3
    "#;
    let client = support::within(Client::spawn(
        ChildProcessOptions::new("sh").args(["-c", script]),
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
    ))
    .await
    .unwrap();
    let err = support::within(client.call_tool("anything", json!({})))
        .await
        .expect_err("the server died before answering");
    assert_eq!(err.kind(), ErrorKind::Closed, "{err}");
    assert_eq!(err.code, codes::CONNECTION_CLOSED);
    let io = io_source(&err).expect("the transport's report is kept as the source");
    assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
    client.close().await;
}

/// Calls the in-memory server's `sleepy` tool with `options`: the error the call fails with,
/// once the session is seen to answer a ping after it.
async fn sleepy_call_error(options: RequestOptions) -> McpError {
    let client = support::connect(&server(), ClientHandlers::default()).await;
    let err = support::within(client.call_tool_with("sleepy", json!({}), options))
        .await
        .expect_err("the call must fail");
    support::within(client.ping()).await.unwrap();
    client.close().await;
    err
}

#[tokio::test]
async fn a_request_past_its_timeout_gives_timeout() {
    let timeout = Duration::from_millis(100);
    let err = sleepy_call_error(RequestOptions::default().with_timeout(Some(timeout))).await;
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert_eq!(err.code, codes::REQUEST_TIMEOUT);
}

#[tokio::test]
async fn a_request_cancelled_here_gives_cancelled() {
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let err = sleepy_call_error(RequestOptions::default().with_cancel(Some(cancel))).await;
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    assert_eq!(err.code, codes::REQUEST_CANCELLED);
}

#[tokio::test]
async fn an_http_connection_refused_keeps_the_io_error() {
    // A port that was just free: nothing listens there now.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = support::within(connect_http(
        &format!("http://127.0.0.1:{port}/mcp"),
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    ))
    .await
    .expect_err("nothing listens");
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert_eq!(err.code, codes::TRANSPORT_ERROR);
    let io = err
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .expect("the source is the I/O error");
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
}

#[tokio::test]
async fn an_http_status_is_transport_with_the_status() {
    // A server that answers every request with 503 and no JSON-RPC body.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 8192];
                let _ = s.read(&mut buf).await;
                let _ = s
                    .write_all(
                        b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\nconnection: close\r\n\r\nbusy",
                    )
                    .await;
            });
        }
    });
    let err = support::within(connect_http(
        &format!("http://127.0.0.1:{port}/mcp"),
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    ))
    .await
    .expect_err("the server refuses");
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert_eq!(err.data.as_ref().unwrap()["httpStatus"], 503);
}

#[tokio::test]
async fn a_server_program_that_cannot_start_keeps_the_io_error() {
    let err = support::within(Client::spawn(
        ChildProcessOptions::new("ferromcp-no-such-program-for-error-kinds"),
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
    ))
    .await
    .expect_err("no such program");
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    let io = err
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .expect("the source is the spawn's I/O error");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
}

#[tokio::test]
async fn a_websocket_connection_refused_keeps_the_io_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let Err(err) = support::within(ferromcp::transport::websocket::connect(
        &format!("ws://127.0.0.1:{port}/mcp"),
        &[],
    ))
    .await
    else {
        panic!("nothing listens");
    };
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    let io = err
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .expect("the source is the connect's I/O error");
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
}
