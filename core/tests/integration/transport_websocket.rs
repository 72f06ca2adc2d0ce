//! Tests of the WebSocket transport over loopback: echo, size limit, closing handshake,
//! abrupt disconnects, subprotocol negotiation and control frames.
#![cfg(feature = "websocket")]

use ferromcp::transport::websocket::{self, WebSocketListener, WebSocketOptions};
use ferromcp::transport::{FrameReader, FrameWriter, ReadStatus};
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const LIMIT: Duration = Duration::from_secs(10);

/// A server that echoes every frame back, closing its writer at end of input. Returns the
/// `ws://` URL and a task yielding what the server's reader saw last (Eof, or an error).
async fn echo_server(
    options: WebSocketOptions,
) -> (
    String,
    tokio::task::JoinHandle<Vec<Result<ReadStatus, String>>>,
) {
    let mut listener = WebSocketListener::bind_with("127.0.0.1:0", options)
        .await
        .unwrap();
    let url = format!("ws://{}/mcp", listener.local_addr());
    let task = tokio::spawn(async move {
        let (mut reader, mut writer, _peer) = listener.accept().await.unwrap();
        let mut seen = Vec::new();
        let mut buf = Vec::new();
        loop {
            match reader.read_frame(&mut buf).await {
                Ok(ReadStatus::Frame) => {
                    seen.push(Ok(ReadStatus::Frame));
                    if writer.write_frame(&buf).await.is_err() || writer.flush().await.is_err() {
                        break;
                    }
                }
                Ok(other) => {
                    seen.push(Ok(other));
                    if other == ReadStatus::Eof {
                        break;
                    }
                }
                Err(e) => {
                    seen.push(Err(e.to_string()));
                    break;
                }
            }
        }
        let _ = writer.close().await;
        seen
    });
    (url, task)
}

#[tokio::test]
async fn frames_round_trip() {
    timeout(LIMIT, async {
        let (url, server) = echo_server(WebSocketOptions::default()).await;
        let (mut reader, mut writer) = websocket::connect(&url, &[]).await.unwrap();
        let frames = [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "{}",
            "[1,2]",
            "\"é\"",
        ];
        for frame in frames {
            writer.write_frame(frame.as_bytes()).await.unwrap();
        }
        writer.flush().await.unwrap();
        let mut buf = Vec::new();
        for frame in frames {
            assert_eq!(
                reader.read_frame(&mut buf).await.unwrap(),
                ReadStatus::Frame
            );
            assert_eq!(buf, frame.as_bytes());
        }
        // Clean close: the server sees Eof, closes its side, and we see Eof.
        writer.close().await.unwrap();
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        let seen = server.await.unwrap();
        assert_eq!(seen.len(), frames.len() + 1);
        assert_eq!(seen.last(), Some(&Ok(ReadStatus::Eof)));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn server_close_is_eof_for_the_client() {
    timeout(LIMIT, async {
        let mut listener = WebSocketListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr());
        let server = tokio::spawn(async move {
            let (mut reader, mut writer, _) = listener.accept().await.unwrap();
            writer.write_frame(b"{\"bye\":true}").await.unwrap();
            writer.close().await.unwrap();
            let mut buf = Vec::new();
            reader.read_frame(&mut buf).await.unwrap()
        });
        let (mut reader, mut writer) = websocket::connect(&url, &[]).await.unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            reader.read_frame(&mut buf).await.unwrap(),
            ReadStatus::Frame
        );
        assert_eq!(buf, b"{\"bye\":true}");
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        assert_eq!(server.await.unwrap(), ReadStatus::Eof);
        // Closing after the peer closed is harmless; writing fails.
        writer.close().await.unwrap();
        assert!(writer.write_frame(b"{}").await.is_err() || writer.flush().await.is_err());
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn oversized_frame_is_reported_then_connection_closes() {
    timeout(LIMIT, async {
        let (url, server) = echo_server(WebSocketOptions::default().max_message_size(64)).await;
        let (mut reader, mut writer) = websocket::connect(&url, &[]).await.unwrap();
        writer.write_frame(b"{\"small\":1}").await.unwrap();
        writer.write_frame(&[b'x'; 1000]).await.unwrap();
        writer.flush().await.unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            reader.read_frame(&mut buf).await.unwrap(),
            ReadStatus::Frame
        );
        assert_eq!(buf, b"{\"small\":1}");
        // The server closes with 1009 after the oversized message: Eof for us.
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        let seen = server.await.unwrap();
        assert_eq!(
            seen,
            vec![
                Ok(ReadStatus::Frame),
                Ok(ReadStatus::Oversized(1000)),
                Ok(ReadStatus::Eof)
            ]
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_limit_applies_to_server_messages() {
    timeout(LIMIT, async {
        let (url, _server) = echo_server(WebSocketOptions::default()).await;
        let options = WebSocketOptions::default().max_message_size(16);
        let (mut reader, mut writer) = websocket::connect_with(&url, &[], options).await.unwrap();
        // Our own limit only governs what we receive: the echo comes back too big.
        writer.write_frame(&[b'y'; 100]).await.unwrap();
        writer.flush().await.unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            reader.read_frame(&mut buf).await.unwrap(),
            ReadStatus::Oversized(100)
        );
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_vanishing_mid_stream_ends_the_server_reader() {
    timeout(LIMIT, async {
        let (url, server) = echo_server(WebSocketOptions::default()).await;
        let (reader, mut writer) = websocket::connect(&url, &[]).await.unwrap();
        writer.write_frame(b"{\"n\":1}").await.unwrap();
        writer.flush().await.unwrap();
        // No close frame: the TCP connection just goes away.
        drop(writer);
        drop(reader);
        let seen = server.await.unwrap();
        assert!(!seen.is_empty());
        let last = seen.last().unwrap();
        assert!(
            matches!(last, Ok(ReadStatus::Eof) | Err(_)),
            "unexpected end: {last:?}"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn accept_on_a_plain_tcp_stream_with_extra_request_headers() {
    timeout(LIMIT, async {
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (stream, _) = tcp.accept().await.unwrap();
            let (mut reader, mut writer) = websocket::accept(stream).await.unwrap();
            let mut buf = Vec::new();
            assert_eq!(
                reader.read_frame(&mut buf).await.unwrap(),
                ReadStatus::Frame
            );
            writer.write_frame(&buf).await.unwrap();
            writer.close().await.unwrap();
        });
        let url = format!("ws://{addr}/");
        let (mut reader, mut writer) = websocket::connect(&url, &[("Authorization", "Bearer t")])
            .await
            .unwrap();
        writer.write_frame(b"[]").await.unwrap();
        writer.flush().await.unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            reader.read_frame(&mut buf).await.unwrap(),
            ReadStatus::Frame
        );
        assert_eq!(buf, b"[]");
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        server.await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn server_negotiates_mcp_and_handles_control_and_binary_frames() {
    timeout(LIMIT, async {
        let (url, server) = echo_server(WebSocketOptions::default()).await;
        let mut request = url.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Sec-WebSocket-Protocol", "other, mcp".parse().unwrap());
        let (mut ws, response) = tokio_tungstenite::connect_async(request).await.unwrap();
        assert_eq!(
            response
                .headers()
                .get("Sec-WebSocket-Protocol")
                .map(|v| v.to_str().unwrap()),
            Some("mcp")
        );
        ws.send(Message::Ping(b"hi".to_vec().into())).await.unwrap();
        ws.send(Message::binary(b"{\"bin\":1}".to_vec()))
            .await
            .unwrap();
        let mut got_pong = false;
        let mut echoed = None;
        while echoed.is_none() || !got_pong {
            match ws.next().await.unwrap().unwrap() {
                Message::Pong(payload) => {
                    assert_eq!(&payload[..], b"hi");
                    got_pong = true;
                }
                Message::Text(text) => echoed = Some(text.to_string()),
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(echoed.as_deref(), Some("{\"bin\":1}"));
        ws.close(None).await.unwrap();
        while let Some(Ok(_)) = ws.next().await {}
        let seen = server.await.unwrap();
        assert_eq!(seen.last(), Some(&Ok(ReadStatus::Eof)));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn listener_serves_several_clients_and_skips_failed_handshakes() {
    timeout(LIMIT, async {
        let mut listener = WebSocketListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr();
        // A client that is not speaking WebSocket at all.
        let mut junk = tokio::net::TcpStream::connect(addr).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut junk, b"hello\r\n\r\n")
            .await
            .unwrap();
        let url = format!("ws://{addr}");
        let clients = tokio::spawn(async move {
            let mut halves = Vec::new();
            for i in 0..3 {
                let (reader, mut writer) = websocket::connect(&url, &[]).await.unwrap();
                writer
                    .write_frame(format!("{{\"client\":{i}}}").as_bytes())
                    .await
                    .unwrap();
                writer.flush().await.unwrap();
                halves.push((reader, writer));
            }
            halves
        });
        let mut got = Vec::new();
        for _ in 0..3 {
            let (mut reader, _writer, peer) = listener.accept().await.unwrap();
            assert!(peer.ip().is_loopback());
            let mut buf = Vec::new();
            assert_eq!(
                reader.read_frame(&mut buf).await.unwrap(),
                ReadStatus::Frame
            );
            got.push(String::from_utf8(buf).unwrap());
        }
        got.sort();
        assert_eq!(got, ["{\"client\":0}", "{\"client\":1}", "{\"client\":2}"]);
        drop(clients.await.unwrap());
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn connect_errors_are_transport_errors() {
    timeout(LIMIT, async {
        let err = websocket::connect("wss://example.invalid/", &[])
            .await
            .err()
            .unwrap();
        assert_eq!(err.code, ferromcp::codes::TRANSPORT_ERROR);
        assert!(err.message.contains("TLS"), "{}", err.message);

        // Nothing listens on this port any more.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let err = websocket::connect(&format!("ws://127.0.0.1:{port}/"), &[])
            .await
            .err()
            .unwrap();
        assert_eq!(err.code, ferromcp::codes::TRANSPORT_ERROR);

        // A server that does not answer with the subprotocol is refused.
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        tokio::spawn(async move {
            let (stream, _) = tcp.accept().await.unwrap();
            let _ = tokio_tungstenite::accept_async(stream).await;
        });
        let err = websocket::connect(&format!("ws://{addr}/"), &[])
            .await
            .err()
            .unwrap();
        assert_eq!(err.code, ferromcp::codes::TRANSPORT_ERROR);
    })
    .await
    .unwrap();
}
