//! A server winding down a message-stream connection (stdio, in-memory) answers an open
//! `subscriptions/listen` with its completion result (`{resultType: "complete", _meta:
//! {subscriptionId}}`), as 2026-07-28's "Graceful Closure" says a server SHOULD, before the
//! stream ends, as the Streamable HTTP server's shutdown does: when the server is told to stop
//! (`Server::serve_until`, what `serve_stdio_until` and the bindings' stdio stop use), and when
//! the peer's end closes (stdin at EOF), where it also stops waiting out the drain time.

use crate::common;

use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::server::Server;
use ferromcp::session::ListenFilter;
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, ReadStatus};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use common::listen::SUB_ID;

fn server() -> Server {
    Server::builder("stream-listen-shutdown", "1.0")
        .options(|o| o.enable_tools = true)
        .build()
        .unwrap()
}

#[tokio::test]
async fn stopping_the_server_answers_an_open_listen() {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
    let stop = CancellationToken::new();
    let serving = {
        let (server, stop) = (server(), stop.clone());
        tokio::spawn(async move { server.serve_until(r_s, w_s, stop.cancelled_owned()).await })
    };
    let mut options = ClientOptions::new("stream-listen-shutdown", "1.0");
    options.mode = ProtocolMode::PerRequest;
    let client = Client::connect(options, ClientHandlers::default(), r_c, w_c)
        .await
        .unwrap();
    let filter = ListenFilter::default().with_tools_list_changed(true);
    let mut sub = client.listen(filter).await.unwrap();

    let asked = Instant::now();
    stop.cancel();
    let end = tokio::time::timeout(Duration::from_secs(5), sub.next()).await;
    assert!(matches!(end, Ok(None)), "{end:?}");
    common::listen::assert_graceful_end(&sub);
    // The server did not wait out the drain time (5 s) for the listen.
    let served = tokio::time::timeout(Duration::from_secs(3), serving)
        .await
        .expect("the server stopped serving within 3 s");
    served.unwrap().unwrap();
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    client.close().await;
}

/// The next message the server wrote, within 5 s.
async fn read(r: &mut impl FrameReader) -> Value {
    let mut buf = Vec::new();
    match tokio::time::timeout(Duration::from_secs(5), r.read_frame(&mut buf))
        .await
        .expect("a message within 5 s")
        .unwrap()
    {
        ReadStatus::Frame => serde_json::from_slice(&buf).unwrap(),
        other => panic!("expected a message, got {other:?}"),
    }
}

#[tokio::test]
async fn the_peer_closing_its_end_answers_an_open_listen_at_once() {
    let ((mut r_c, mut w_c), (r_s, w_s)) = memory_pair(16);
    let serving = tokio::spawn(async move { server().serve(r_s, w_s).await });
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1.0" },
    });
    let listen = json!({ "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": { "notifications": { "toolsListChanged": true }, "_meta": meta } });
    w_c.write_frame(listen.to_string().as_bytes())
        .await
        .unwrap();
    w_c.flush().await.unwrap();
    let ack = read(&mut r_c).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["_meta"][SUB_ID], 7, "{ack}");

    // The client's end closes (stdin at EOF): the listen is answered, then the stream ends.
    let closed = Instant::now();
    w_c.close().await.unwrap();
    drop(w_c);
    let answer = read(&mut r_c).await;
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(answer["result"]["_meta"][SUB_ID], 7, "{answer}");
    assert!(answer.get("error").is_none(), "{answer}");
    let mut buf = Vec::new();
    let rest = tokio::time::timeout(Duration::from_secs(5), r_c.read_frame(&mut buf))
        .await
        .expect("the stream ends within 5 s")
        .unwrap();
    assert!(matches!(rest, ReadStatus::Eof), "{rest:?}");
    serving.await.unwrap().unwrap();
    // Not after the drain time (5 s), which a listen has no reason to wait out.
    assert!(
        closed.elapsed() < Duration::from_secs(3),
        "{:?}",
        closed.elapsed()
    );
}
