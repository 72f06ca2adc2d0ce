//! The fast path for the common case: one well-formed request, notification or result.
//!
//! The envelope's small fields are read in place (`"2.0"`, the method name and the id are
//! borrowed from the frame, never built as JSON values); only `params` and `result` become
//! [`Value`]s. Anything this path does not accept as it stands (an error object, a batch, a null
//! or malformed field, escapes in `jsonrpc`, invalid JSON, ...) makes it give up, and the full
//! parser in [`super::parse`] handles the frame from scratch, so every bad input gets exactly the
//! answer it always got.
//!
//! The common frame is read by [`super::scan`], a strict reader of a subset of JSON that reads
//! exactly as `serde_json` does; a frame outside that subset is read by `serde_json`.
//!
//! [`parse_request_as`] goes one step further for a method its caller names: when that method
//! comes before `params` in the frame, the params are read straight into the caller's own type
//! (borrowing from the frame where it can) instead of a [`Value`] tree.

use super::{Message, Notification, Request, RequestId, Response};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

// Stays open (no #[non_exhaustive]): a #[doc(hidden)] seam the engine (`ferromcp`) builds and
// matches across the crate boundary; not an API.
/// What [`parse_request_as`] made of a frame.
#[doc(hidden)]
pub enum Fast<P> {
    /// A request for the named method, its params read as `P`.
    Typed(RequestId, P),
    /// Any other message the fast path accepts, exactly as [`super::parse`] builds it.
    Message(Message),
}

/// Parses `bytes` as one message if it is plainly valid; `None` defers to the full parser.
#[doc(hidden)]
pub fn parse(bytes: &[u8]) -> Option<Message> {
    match parse_envelope::<IgnoredAny>(bytes, None, None)? {
        Fast::Message(m) => Some(m),
        Fast::Typed(..) => None,
    }
}

/// Like [`parse`], but a request for `method` whose `params` object follows its method name is
/// returned with its params read as `P` (which must accept only an object). `None` when the frame
/// is anything the fast path does not accept, *or* when `P` rejects the params: the caller then
/// hands the frame to [`super::parse`], which reads it as any other message. `known` recognises
/// texts the caller has read before, for `P`'s members read by their text
/// ([`super::scan::KnownText`]).
#[doc(hidden)]
pub fn parse_request_as<'a, P: Deserialize<'a>>(
    bytes: &'a [u8],
    method: &str,
    known: Option<super::scan::KnownText>,
) -> Option<Fast<P>> {
    parse_envelope(bytes, Some(method), known)
}

fn parse_envelope<'a, P: Deserialize<'a>>(
    bytes: &'a [u8],
    typed: Option<&str>,
    known: Option<super::scan::KnownText>,
) -> Option<Fast<P>> {
    // Only an object: a visitor could also be handed an array, which here is a batch.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let visitor = || EnvelopeVisitor {
        typed,
        params: PhantomData,
    };
    // The common frame is read by the scanner; anything outside its subset by serde_json.
    if let Ok(fast) = super::scan::read(bytes, known, |d| d.deserialize_map(visitor())) {
        return Some(fast);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let fast = de.deserialize_map(visitor()).ok()?;
    de.end().ok()?;
    Some(fast)
}

/// The envelope's keys; anything else is ignored.
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "jsonrpc" => Key::Jsonrpc,
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "result" => Key::Result,
                    "error" => Key::Error,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

struct EnvelopeVisitor<'m, P> {
    typed: Option<&'m str>,
    params: PhantomData<P>,
}

fn duplicate<E: de::Error>(field: &str) -> E {
    E::custom(format_args!("duplicate field `{field}`"))
}

impl<'de, P: Deserialize<'de>> Visitor<'de> for EnvelopeVisitor<'_, P> {
    type Value = Fast<P>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fast<P>, A::Error> {
        let mut version = false;
        let mut id: Option<RequestId> = None;
        let mut method: Option<Cow<'de, str>> = None;
        let mut params: Option<Value> = None;
        let mut typed: Option<P> = None;
        let mut result: Option<Value> = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Jsonrpc => {
                    if version {
                        return Err(duplicate("jsonrpc"));
                    }
                    // `"2.0"`, written without escapes.
                    let v: &'de str = map.next_value()?;
                    if v != super::JSONRPC_VERSION {
                        return Err(de::Error::custom("not 2.0"));
                    }
                    version = true;
                }
                Key::Id => {
                    if id.is_some() {
                        return Err(duplicate("id"));
                    }
                    id = Some(map.next_value_seed(IdSeed)?);
                }
                Key::Method => {
                    if method.is_some() {
                        return Err(duplicate("method"));
                    }
                    method = Some(map.next_value_seed(StrSeed)?.0);
                }
                Key::Params => {
                    if params.is_some() || typed.is_some() {
                        return Err(duplicate("params"));
                    }
                    match (&method, self.typed) {
                        (Some(m), Some(t)) if m == t => typed = Some(map.next_value()?),
                        _ => params = Some(map.next_value_seed(ContainerSeed)?),
                    }
                }
                Key::Result => {
                    if result.is_some() {
                        return Err(duplicate("result"));
                    }
                    result = Some(map.next_value()?);
                }
                // Error responses are left to the full parser.
                Key::Error => return Err(de::Error::custom("left to the full parser")),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !version {
            return Err(de::Error::custom("no jsonrpc member"));
        }
        match (method, result) {
            (Some(method), None) => match (id, typed) {
                (Some(id), Some(p)) => Ok(Fast::Typed(id, p)),
                // A notification for the typed method: its params are no longer a Value.
                (None, Some(_)) => Err(de::Error::custom("typed params without an id")),
                (id, None) => {
                    let method = method.into_owned();
                    Ok(Fast::Message(match id {
                        Some(id) => Message::Request(Request { id, method, params }),
                        None => Message::Notification(Notification { method, params }),
                    }))
                }
            },
            (None, Some(result)) if params.is_none() => match id {
                Some(id) => Ok(Fast::Message(Message::Response(Response { id, result }))),
                None => Err(de::Error::custom("a response without an id")),
            },
            _ => Err(de::Error::custom("not a plain message")),
        }
    }
}

/// A string, borrowed from the frame when it has no escapes; never null.
#[doc(hidden)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        StrSeed.deserialize(d)
    }
}

struct StrSeed;

impl<'de> DeserializeSeed<'de> for StrSeed {
    type Value = Str<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Str<'de>, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(StrVisitor)
    }
}

/// A request id as MCP allows it: an integer that fits `i64`, or a string.
struct IdSeed;

impl<'de> DeserializeSeed<'de> for IdSeed {
    type Value = RequestId;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RequestId, D::Error> {
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
        d.deserialize_any(IdVisitor)
    }
}

/// `params`: an object or an array (null and scalars are the full parser's to report).
struct ContainerSeed;

impl<'de> DeserializeSeed<'de> for ContainerSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match Value::deserialize(d)? {
            v @ (Value::Object(_) | Value::Array(_)) => Ok(v),
            _ => Err(de::Error::custom("params must be an object or an array")),
        }
    }
}
