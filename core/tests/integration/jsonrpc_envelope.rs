//! Proves the JSON-RPC envelope layer: malformed input is classified into the exact JSON-RPC
//! error it deserves (-32700 for non-JSON/non-UTF-8, carrying the request's id when it was read
//! before the failure; -32600 for invalid messages), ids round-trip as strings and integers,
//! and `write_message` emits exactly one line.

use crate::support;

use ferromcp::codes;
use ferromcp::jsonrpc::{parse, write_message, Incoming, Message, RequestId};
use ferromcp::server::Server;
use serde_json::{json, Value};
use support::{error_code, RawPeer};

fn single_err(bytes: &[u8]) -> (Option<RequestId>, i32) {
    match parse(bytes) {
        Err(e) => (e.id, e.error.code),
        Ok(Incoming::Single(Message::Error(_))) => panic!("parsed as an error response"),
        Ok(other) => panic!(
            "expected an error for {:?}, got {other:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

#[test]
fn garbage_is_parse_error_with_null_id() {
    assert_eq!(single_err(b"this is not json"), (None, codes::PARSE_ERROR));
    assert_eq!(
        single_err(b"{\"jsonrpc\": \"2.0\", "),
        (None, codes::PARSE_ERROR)
    );
    assert_eq!(single_err(b"[1, 2"), (None, codes::PARSE_ERROR));
}

#[test]
fn invalid_utf8_is_parse_error() {
    let (id, code) = single_err(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\xfe\"}");
    assert_eq!(code, codes::PARSE_ERROR);
    // The id was read before the bad string: the error carries it (see parse_error_ids.rs).
    assert_eq!(id, Some(RequestId::Number(1)));
}

#[test]
fn wrong_types_are_invalid_request() {
    let (id, code) = single_err(br#"{"jsonrpc":"2.0","id":7,"method":5}"#);
    assert_eq!(code, codes::INVALID_REQUEST);
    assert_eq!(id, Some(RequestId::Number(7)), "the readable id is kept");
    let (_, code) = single_err(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#);
    assert_eq!(code, codes::INVALID_REQUEST);
    let (_, code) = single_err(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#);
    assert_eq!(code, codes::INVALID_REQUEST);
    let (_, code) = single_err(br#""just a string""#);
    assert_eq!(code, codes::INVALID_REQUEST);
}

#[test]
fn null_and_fractional_ids_are_invalid_request() {
    assert_eq!(
        single_err(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
        (None, codes::INVALID_REQUEST)
    );
    assert_eq!(
        single_err(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
        (None, codes::INVALID_REQUEST)
    );
    assert_eq!(
        single_err(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#),
        (None, codes::INVALID_REQUEST)
    );
}

#[test]
fn malformed_responses_are_reported_not_answered() {
    // A response-shaped message is never answered (two peers could otherwise trade error
    // responses forever); it parses as an error the session resolves or logs.
    for bytes in [
        &br#"{"jsonrpc":"2.0","result":{}}"#[..],
        br#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
        br#"{"jsonrpc":"1.0","id":3,"result":{}}"#,
        br#"{"jsonrpc":"2.0","id":4,"error":"oops"}"#,
    ] {
        match parse(bytes) {
            Ok(Incoming::Single(Message::Error(e))) => {
                assert_eq!(
                    e.error.code,
                    codes::INVALID_REQUEST,
                    "{}",
                    String::from_utf8_lossy(bytes)
                );
                assert!(
                    e.error.message.contains("malformed response"),
                    "{}",
                    e.error.message
                );
            }
            other => panic!(
                "{}: expected a reported error, got {other:?}",
                String::from_utf8_lossy(bytes)
            ),
        }
    }
    // The id, when readable, is kept so a pending request fails instead of hanging.
    let Ok(Incoming::Single(Message::Error(e))) = parse(br#"{"jsonrpc":"1.0","id":3,"result":{}}"#)
    else {
        panic!("expected an error")
    };
    assert_eq!(e.id, Some(RequestId::Number(3)));
}

#[test]
fn empty_batch_is_invalid_request() {
    assert_eq!(single_err(b"[]"), (None, codes::INVALID_REQUEST));
    assert_eq!(single_err(b"  [ ]  "), (None, codes::INVALID_REQUEST));
}

#[test]
fn mixed_batch_reports_bad_element_in_place() {
    let bytes = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","id":2,"method":5}, 42, {"jsonrpc":"2.0","method":"notifications/x"}]"#;
    let Ok(Incoming::Batch(items)) = parse(bytes) else {
        panic!("expected a batch")
    };
    assert_eq!(items.len(), 4);
    assert!(
        matches!(&items[0], Ok(Message::Request(r)) if r.id == RequestId::Number(1) && r.method == "ping")
    );
    match &items[1] {
        Err(e) => {
            assert_eq!(e.error.code, codes::INVALID_REQUEST);
            assert_eq!(e.id, Some(RequestId::Number(2)));
        }
        other => panic!("element 2 should be invalid: {other:?}"),
    }
    assert!(
        matches!(&items[2], Err(e) if e.error.code == codes::INVALID_REQUEST && e.id.is_none())
    );
    assert!(matches!(&items[3], Ok(Message::Notification(n)) if n.method == "notifications/x"));
}

#[test]
fn ids_round_trip_as_string_and_integer() {
    for id in [
        json!(0),
        json!(-17),
        json!(9007199254740993i64),
        json!("abc"),
        json!(""),
    ] {
        let raw = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        let Ok(Incoming::Single(msg)) = parse(raw.to_string().as_bytes()) else {
            panic!("valid request rejected: {raw}")
        };
        let back: Value = serde_json::from_str(&msg.to_json()).unwrap();
        assert_eq!(back["id"], id, "id must round-trip with its type");
        let resp = Message::response(msg.id().unwrap().clone(), json!({}));
        let back: Value = serde_json::from_str(&resp.to_json()).unwrap();
        assert_eq!(back["id"], id);
    }
    // "1" and 1 are different ids.
    assert_ne!(
        RequestId::from_value(&json!("1")),
        RequestId::from_value(&json!(1))
    );
}

#[test]
fn write_message_is_exactly_one_line() {
    let msg = Message::request(
        RequestId::from("x"),
        "tools/call",
        Some(json!({"text": "line one\nline two\r\nend\n", "nested": {"k": "a\nb"}})),
    );
    let mut out = Vec::new();
    write_message(&mut out, &msg);
    assert_eq!(out.last(), Some(&b'\n'));
    assert_eq!(
        out.iter().filter(|&&b| b == b'\n').count(),
        1,
        "exactly one newline"
    );
    assert!(!out.contains(&b'\r'));
    let back: Value = serde_json::from_slice(&out[..out.len() - 1]).unwrap();
    assert_eq!(back["params"]["text"], "line one\nline two\r\nend\n");
    // Appending a second message gives exactly two lines.
    write_message(&mut out, &Message::notification("n", None));
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2);
}

#[tokio::test]
async fn server_answers_envelope_errors_on_the_wire() {
    let server = Server::builder("t", "0").build().unwrap();
    let mut p = RawPeer::start(&server);
    p.send_raw(b"garbage{").await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), -32700);
    assert!(
        m.get("id").is_none(),
        "an unreadable id is omitted (2025-11-25): {m}"
    );
    assert_eq!(m["jsonrpc"], "2.0");
    p.send_raw(br#"{"jsonrpc":"2.0","id":"q","method":5}"#)
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), -32600);
    assert_eq!(m["id"], "q");
    p.send_raw(br#"{"jsonrpc":"2.0","id":2.5,"method":"ping"}"#)
        .await;
    let m = p.recv().await;
    assert_eq!(error_code(&m), -32600);
    assert!(m.get("id").is_none(), "{m}");
    // ping works with string and integer ids, echoing them with their type.
    let m = p.request(json!(41), "ping", json!({})).await;
    assert_eq!(m["id"], json!(41));
    let m = p.request(json!("41"), "ping", json!({})).await;
    assert_eq!(m["id"], json!("41"));
}

#[test]
fn error_response_with_null_id_is_valid() {
    let Ok(Incoming::Single(Message::Error(e))) =
        parse(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
    else {
        panic!("an error response with a null id is a valid message")
    };
    assert_eq!(e.id, None);
    assert_eq!(e.error.code, codes::PARSE_ERROR);
    // but a request with a null id is invalid, and a success response with a null id is a
    // malformed response: reported, never answered
    assert_eq!(
        single_err(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
        (None, codes::INVALID_REQUEST)
    );
    let Ok(Incoming::Single(Message::Error(e))) =
        parse(br#"{"jsonrpc":"2.0","id":null,"result":{}}"#)
    else {
        panic!("a success response with a null id is reported as a malformed response")
    };
    assert_eq!((e.id, e.error.code), (None, codes::INVALID_REQUEST));
}

#[test]
fn error_without_id_omits_the_id_member() {
    let m = Message::error(None, ferromcp::McpError::parse_error("x"));
    let v: Value = serde_json::from_str(&m.to_json()).unwrap();
    assert!(
        v.get("id").is_none(),
        "MCP 2025-11-25: id?: string | number, never null: {v}"
    );
    assert_eq!(v["error"]["code"], -32700);
    let m = Message::error(
        Some(RequestId::Number(3)),
        ferromcp::McpError::internal("x"),
    );
    let v: Value = serde_json::from_str(&m.to_json()).unwrap();
    assert_eq!(v["id"], 3);
}
