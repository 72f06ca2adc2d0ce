//! Bytes to messages and back, with every malformed input mapped to its JSON-RPC error.
//!
//! Classification follows JSON-RPC 2.0: bytes that are not JSON (or not UTF-8) give -32700; JSON
//! that is not a valid message gives -32600. Either carries the request's id whenever it can be
//! read: for a message `serde_json` refuses (nested too deep, invalid UTF-8 or a lone surrogate
//! in some string), the envelope scan ([`super::scan_envelope`]) reads the id and method of its
//! top level without decoding the rest, so the peer can match the error to its request. A batch
//! yields one result per element so one bad element does not spoil the others.

use super::{ErrorResponse, Message, Notification, Request, RequestId, Response};
use crate::McpError;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// One parsed frame: a single message or a batch.
// Stays open (no #[non_exhaustive]): a JSON-RPC 2.0 frame is one message or a batch, nothing else.
#[derive(Debug)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A JSON array of messages; invalid elements are reported in place.
    Batch(Vec<Result<Message, ErrorResponse>>),
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The envelope as read off the wire, before validation. `Some(Value::Null)` means "present, null".
#[derive(Deserialize)]
struct RawEnvelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// Parses one frame. Returns `Err` only when the frame as a whole must be answered by one error
/// (parse error, empty batch, or a non-object top level).
///
/// ```
/// use ferromcp_protocol::codes;
/// use ferromcp_protocol::jsonrpc::{parse, Incoming, Message};
///
/// let Ok(Incoming::Single(Message::Notification(n))) =
///     parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
/// else {
///     panic!("a notification");
/// };
/// assert_eq!(n.method, "notifications/initialized");
///
/// // Bytes that are not JSON: one -32700 for the whole frame.
/// let refused = parse(b"{not json").unwrap_err();
/// assert_eq!(refused.error.code, codes::PARSE_ERROR);
/// assert_eq!(refused.id, None);
/// ```
pub fn parse(bytes: &[u8]) -> Result<Incoming, ErrorResponse> {
    match super::fast::parse(bytes) {
        Some(msg) => Ok(Incoming::Single(msg)),
        None => parse_full(bytes),
    }
}

/// The full parser: every input, every error classified. [`parse`] tries the fast path first.
#[doc(hidden)]
pub fn parse_full(bytes: &[u8]) -> Result<Incoming, ErrorResponse> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if first == Some(b'[') {
        let items: Vec<Value> = serde_json::from_slice(bytes).map_err(|e| ErrorResponse {
            id: None,
            error: McpError::parse_error(e),
        })?;
        if items.is_empty() {
            return Err(ErrorResponse {
                id: None,
                error: McpError::invalid_request("empty batch"),
            });
        }
        let msgs = items
            .into_iter()
            .map(|v| match RawEnvelope::deserialize(v) {
                Ok(raw) => validate(raw),
                Err(e) => Err(ErrorResponse {
                    id: None,
                    error: McpError::invalid_request(e),
                }),
            })
            .collect();
        return Ok(Incoming::Batch(msgs));
    }
    match serde_json::from_slice::<RawEnvelope>(bytes) {
        Ok(raw) => validate(raw).map(Incoming::Single),
        Err(e) => {
            let error = match e.classify() {
                serde_json::error::Category::Data => McpError::invalid_request(e),
                _ => McpError::parse_error(e),
            };
            // The request's id, when its text names one (never a response's: see `validate`).
            let id = super::scan_envelope(bytes).request_id();
            Err(ErrorResponse { id, error })
        }
    }
}

fn validate(raw: RawEnvelope) -> Result<Message, ErrorResponse> {
    // A malformed *response* is never answered (answering it could start an endless exchange of
    // errors between two peers); it becomes an error the session resolves or logs instead.
    let response_shaped = raw.method.is_none() && (raw.result.is_some() || raw.error.is_some());
    match validate_envelope(raw) {
        Err(ErrorResponse { id, error }) if response_shaped => Ok(Message::Error(ErrorResponse {
            id,
            error: McpError::new(
                crate::codes::INVALID_REQUEST,
                format!(
                    "malformed response from the peer: {}",
                    error
                        .data
                        .as_ref()
                        .and_then(Value::as_str)
                        .unwrap_or(&error.message)
                ),
            ),
        })),
        other => other,
    }
}

fn validate_envelope(raw: RawEnvelope) -> Result<Message, ErrorResponse> {
    // The id, when readable, goes into any error we produce for this message.
    let id = match &raw.id {
        None => None,
        // An error response carries a null id when the request's id could not be read (e.g. the
        // peer's answer to our parse error). It is valid and must not be answered.
        Some(Value::Null)
            if raw.error.is_some() && raw.method.is_none() && raw.result.is_none() =>
        {
            None
        }
        Some(v) => match RequestId::from_value(v) {
            Some(id) => Some(id),
            None => {
                let what = if v.is_null() {
                    "id must not be null"
                } else {
                    "id must be a string or an integer"
                };
                return Err(ErrorResponse {
                    id: None,
                    error: McpError::invalid_request(what),
                });
            }
        },
    };
    let fail = |detail: &str| ErrorResponse {
        id: id.clone(),
        error: McpError::invalid_request(detail),
    };
    match &raw.jsonrpc {
        Some(Value::String(s)) if s == super::JSONRPC_VERSION => {}
        _ => return Err(fail("jsonrpc must be \"2.0\"")),
    }
    if let Some(p) = &raw.params {
        if !(p.is_object() || p.is_array()) {
            return Err(fail("params must be an object or an array"));
        }
    }
    match (raw.method, raw.result, raw.error) {
        (Some(method), None, None) => {
            let Value::String(method) = method else {
                return Err(fail("method must be a string"));
            };
            Ok(match id {
                Some(id) => Message::Request(Request {
                    id,
                    method,
                    params: raw.params,
                }),
                None => Message::Notification(Notification {
                    method,
                    params: raw.params,
                }),
            })
        }
        (None, Some(result), None) => match id {
            Some(id) if raw.params.is_none() => Ok(Message::Response(Response { id, result })),
            Some(_) => Err(fail("a response must not carry params")),
            None => Err(fail("a response must carry an id")),
        },
        (None, None, Some(error)) => {
            let error: McpError = serde_json::from_value(error)
                .map_err(|e| fail(&format!("malformed error object: {e}")))?;
            Ok(Message::Error(ErrorResponse { id, error }))
        }
        (None, None, None) => Err(fail("message has neither method, result nor error")),
        _ => Err(fail("message mixes method, result and error")),
    }
}

/// Appends `msg` as one line of JSON (no embedded newlines; serde_json escapes them) to `out`.
pub fn write_message(out: &mut Vec<u8>, msg: &Message) {
    serde_json::to_writer(&mut *out, msg).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames the fast path accepts: it must build exactly what the full parser builds.
    const ACCEPTED: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        r#"  {"id":"abc","jsonrpc":"2.0","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"a\"b\u0041","method":"x\/y","params":[1,2]}"#,
        r#"{"jsonrpc":"2.0","id":-7,"method":"m","params":{},"extra":{"ignored":[true]}}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"ok":true}}"#,
        r#"{"jsonrpc":"2.0","id":"r","result":null}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\r\n",
    ];

    /// Frames the fast path must leave to the full parser (errors, unusual shapes).
    const DEFERRED: &[&str] = &[
        r#"["2.0",1,"ping"]"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#,
        r#"{"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"s"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","error":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
        r#"{"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m""#,
        "5",
        "",
    ];

    fn single(r: Result<Incoming, ErrorResponse>) -> Message {
        match r {
            Ok(Incoming::Single(m)) => m,
            other => panic!("expected a single message, got {other:?}"),
        }
    }

    #[test]
    fn fast_path_builds_what_the_full_parser_builds() {
        for frame in ACCEPTED {
            let fast = super::super::fast::parse(frame.as_bytes())
                .unwrap_or_else(|| panic!("fast path declined {frame}"));
            assert_eq!(fast, single(parse_full(frame.as_bytes())), "{frame}");
        }
    }

    #[test]
    fn fast_path_defers_everything_else() {
        for frame in DEFERRED {
            assert!(
                super::super::fast::parse(frame.as_bytes()).is_none(),
                "fast path accepted {frame}"
            );
        }
        let not_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}";
        assert!(super::super::fast::parse(not_utf8).is_none());
    }

    type Params = serde_json::Map<String, Value>;

    fn typed(frame: &str) -> Option<super::super::Fast<Params>> {
        super::super::parse_request_as::<Params>(frame.as_bytes(), "tools/call", None)
    }

    /// The typed path must read `frame` as the full parser does: the same message, or for a
    /// tools/call request the same id and params.
    fn typed_matches_full(frame: &str) -> bool {
        let full = single(parse_full(frame.as_bytes()));
        match typed(frame).unwrap_or_else(|| panic!("typed path declined {frame}")) {
            super::super::Fast::Message(m) => assert_eq!(m, full, "{frame}"),
            super::super::Fast::Typed(id, params) => {
                let Message::Request(r) = full else {
                    panic!("{frame} is a request");
                };
                assert_eq!(r.method, "tools/call", "{frame}");
                assert_eq!(
                    (id, Some(Value::Object(params))),
                    (r.id, r.params),
                    "{frame}"
                );
                return true;
            }
        }
        false
    }

    #[test]
    fn typed_params_are_what_the_full_parser_reads() {
        for frame in ACCEPTED {
            typed_matches_full(frame);
        }
        let calls = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"method":"tools\/call","id":"x","jsonrpc":"2.0","params":{"name":"a\nb","_meta":{"progressToken":1},"other":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{},"extra":null}"#,
        ];
        for frame in calls {
            assert!(typed_matches_full(frame), "typed path did not read {frame}");
        }
    }

    #[test]
    fn typed_params_defer_what_they_cannot_take() {
        for frame in DEFERRED {
            assert!(typed(frame).is_none(), "typed path accepted {frame}");
        }
        let deferred = [
            // A notification: its params are not read as a Value.
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}"#,
            // Params the type rejects (an array is not a map).
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["echo"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":1,"a":2},"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{},"result":{}}"#,
        ];
        for frame in deferred {
            assert!(typed(frame).is_none(), "typed path accepted {frame}");
        }
        // Params before the method name are read as usual.
        let late = r#"{"jsonrpc":"2.0","id":1,"params":{"name":"echo"},"method":"tools/call"}"#;
        match typed(late) {
            Some(super::super::Fast::Message(m)) => {
                assert_eq!(m, single(parse_full(late.as_bytes())))
            }
            _ => panic!("late params not read as a message"),
        }
    }
}
