//! The fast path for the common case: one well-formed request, notification or result.
//!
//! The envelope's small fields are read in place (`"2.0"`, the method name and the id are
//! borrowed from the frame, never built as JSON values); only `params` and `result` become
//! [`Value`]s. Anything this path does not accept as it stands (an error object, a batch, a null
//! or malformed field, escapes in `jsonrpc`, invalid JSON, ...) makes it give up, and the full
//! parser in [`super::parse`] handles the frame from scratch, so every bad input gets exactly the
//! answer it always got.

use super::{Message, Notification, Request, RequestId, Response};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// The envelope as this path reads it. Every field is `None` when absent; a present field that
/// is not of the expected kind fails the whole parse (and so defers to the full parser).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, deserialize_with = "version")]
    jsonrpc: Option<()>,
    #[serde(default, deserialize_with = "id")]
    id: Option<RequestId>,
    #[serde(default, borrow, deserialize_with = "method")]
    method: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "container")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(rename = "error", default, deserialize_with = "reject")]
    _error: Option<()>,
}

/// Parses `bytes` as one message if it is plainly valid; `None` defers to the full parser.
pub(super) fn parse(bytes: &[u8]) -> Option<Message> {
    // Only an object: serde would also read a struct from an array, which here is a batch.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let env: Envelope<'_> = serde_json::from_slice(bytes).ok()?;
    env.jsonrpc?;
    match (env.method, env.result) {
        (Some(method), None) => {
            let method = method.into_owned();
            let params = env.params;
            Some(match env.id {
                Some(id) => Message::Request(Request { id, method, params }),
                None => Message::Notification(Notification { method, params }),
            })
        }
        (None, Some(result)) if env.params.is_none() => Some(Message::Response(Response {
            id: env.id?,
            result,
        })),
        _ => None,
    }
}

/// `"jsonrpc": "2.0"`, written without escapes.
fn version<'de, D: Deserializer<'de>>(d: D) -> Result<Option<()>, D::Error> {
    match <&str>::deserialize(d)? {
        super::JSONRPC_VERSION => Ok(Some(())),
        _ => Err(de::Error::custom("not 2.0")),
    }
}

/// A method name; a string, never null.
fn method<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct MethodVisitor;
    impl<'de> Visitor<'de> for MethodVisitor {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_owned()))
        }
    }
    d.deserialize_str(MethodVisitor).map(Some)
}

/// A request id as MCP allows it: an integer that fits `i64`, or a string.
fn id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RequestId>, D::Error> {
    struct IdVisitor;
    impl Visitor<'_> for IdVisitor {
        type Value = RequestId;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string or an integer")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(RequestId::Number(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            i64::try_from(v)
                .map(RequestId::Number)
                .map_err(|_| E::custom("id out of range"))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(RequestId::String(Arc::from(v)))
        }
    }
    d.deserialize_any(IdVisitor).map(Some)
}

/// `params`: an object or an array (null and scalars are the full parser's to report).
fn container<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    match Value::deserialize(d)? {
        v @ (Value::Object(_) | Value::Array(_)) => Ok(Some(v)),
        _ => Err(de::Error::custom("params must be an object or an array")),
    }
}

/// Any value, present (`Some(Value::Null)` for an explicit null).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A field this path leaves to the full parser.
fn reject<'de, D: Deserializer<'de>>(_: D) -> Result<Option<()>, D::Error> {
    Err(de::Error::custom("left to the full parser"))
}
