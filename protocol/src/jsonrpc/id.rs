//! Request ids: strings or integers, never null, never reused by a sender within a session.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A JSON-RPC request id. MCP forbids `null`; fractional numbers are rejected as invalid.
// Stays open (no #[non_exhaustive]): JSON-RPC 2.0 ids are a number or a string (MCP forbids
// `null`), a fixed specification, so a `match` on them may be exhaustive.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl RequestId {
    /// Converts a JSON value into an id, or `None` if the value is not a valid MCP id.
    pub fn from_value(v: &serde_json::Value) -> Option<Self> {
        match v {
            serde_json::Value::Number(n) => n.as_i64().map(RequestId::Number),
            serde_json::Value::String(s) => Some(RequestId::String(Arc::from(s.as_str()))),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            RequestId::Number(n) => (*n).into(),
            RequestId::String(s) => serde_json::Value::String(s.to_string()),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(Arc::from(s))
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        RequestId::from_value(&v)
            .ok_or_else(|| serde::de::Error::custom("request id must be a string or an integer"))
    }
}

/// Hands out fresh integer ids for the requests one side sends, so no id is ever reused.
#[derive(Debug, Default)]
pub struct IdGenerator(AtomicI64);

impl IdGenerator {
    /// A generator whose first id is 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes the next id `n` (a session copy on another replica starts far from the others).
    #[doc(hidden)]
    pub fn start_at(&self, n: i64) {
        self.0.store(n, Ordering::Relaxed);
    }

    /// The next unused id.
    ///
    /// ```
    /// use ferromcp_protocol::jsonrpc::{IdGenerator, RequestId};
    ///
    /// let ids = IdGenerator::new();
    /// let first = ids.next_id();
    /// assert_ne!(first, ids.next_id());
    /// assert!(matches!(first, RequestId::Number(_)));
    /// assert_eq!(RequestId::from("abc").to_string(), "\"abc\"");
    /// ```
    pub fn next_id(&self) -> RequestId {
        RequestId::Number(self.0.fetch_add(1, Ordering::Relaxed))
    }
}
