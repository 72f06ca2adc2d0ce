//! A request the JSON parser refuses after its id (params nested 100,000 deep, invalid UTF-8 in
//! a later string, a lone surrogate escape) is answered with that id, not without one: the id
//! was read, so the peer can match the error to its request. A malformed response is still never
//! given an id (answering it could start an endless exchange of errors).

use crate::common_http;
use common_http::*;
use ferromcp::jsonrpc::{parse, RequestId};
use ferromcp::transport::http::HttpServerOptions;

/// Frames whose id (7) comes before the part that fails to parse.
fn broken_after_the_id() -> Vec<(&'static str, Vec<u8>)> {
    let head = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"#;
    let mut deep = head.to_vec();
    deep.extend(std::iter::repeat_n(b'[', 100_000));
    deep.extend(std::iter::repeat_n(b']', 100_000));
    deep.push(b'}');
    let mut utf8 = head.to_vec();
    utf8.extend(b"{\"name\":\"echo\",\"arguments\":{\"text\":\"a\xff\xfeb\"}}}");
    let mut surrogate = head.to_vec();
    surrogate.extend(br#"{"name":"echo","arguments":{"text":"\ud800"}}}"#);
    let late = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"\udc00"}},"id":"s-7"}"#.to_vec();
    vec![
        ("nested 100k deep", deep),
        ("invalid UTF-8", utf8),
        ("lone surrogate", surrogate),
        ("id after a lone surrogate", late),
    ]
}

#[test]
fn the_parser_keeps_the_id_it_read() {
    for (what, frame) in broken_after_the_id() {
        let e = parse(&frame).expect_err(what);
        let want = if what.starts_with("id after") {
            RequestId::from("s-7")
        } else {
            RequestId::Number(7)
        };
        assert_eq!(e.id, Some(want), "{what}: {e:?}");
        assert_eq!(e.error.code, -32700, "{what}: {e:?}");
    }
    // Not a request: no id to answer.
    let response = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"t\":\"\xff\"}}";
    assert_eq!(parse(response).expect_err("bad UTF-8").id, None);
    assert_eq!(parse(b"{\"id\":7,").expect_err("cut").error.code, -32700);
    assert_eq!(parse(b"garbage{").expect_err("garbage").id, None);
}

#[tokio::test]
async fn over_http_the_error_carries_the_id() {
    let (_s, _h, url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    for (what, frame) in broken_after_the_id() {
        // `send` takes text: the frames with invalid UTF-8 go out as raw bytes below.
        let Ok(body) = String::from_utf8(frame.clone()) else {
            continue;
        };
        let r = send("POST", &url, &headers, &body).await;
        assert_eq!(r.status, 400, "{what}");
        let v = r.json();
        assert_eq!(v["error"]["code"], -32700, "{what}: {v}");
        let want = if what.starts_with("id after") {
            serde_json::json!("s-7")
        } else {
            serde_json::json!(7)
        };
        assert_eq!(v["id"], want, "{what}: {v}");
    }
    // Invalid UTF-8 over the wire.
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let (_, frame) = broken_after_the_id().remove(1);
    let mut raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        frame.len()
    )
    .into_bytes();
    raw.extend(&frame);
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut tcp, &raw)
        .await
        .unwrap();
    let mut out = vec![0u8; 4096];
    let n = tokio::io::AsyncReadExt::read(&mut tcp, &mut out)
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out[..n]);
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    assert!(text.contains(r#""id":7"#), "{text}");
}
