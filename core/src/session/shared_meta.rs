//! A request's `params._meta`, read once and shared by every request that sends the same text.
//!
//! In the per-request era (2026-07-28) every request carries the client's protocol version,
//! capabilities and identity in `_meta`, and a client sends the very same `_meta` text with
//! each call. Building it as a [`Value`] tree per call, copying the capabilities and identity
//! out of it for the request's session and freeing it all again cost more than the rest of the
//! era's work on a call (a callgrind profile of the HTTP echo call: about a quarter of the
//! server's instructions per call). A `tools/call` read on the typed lane keeps its `_meta` as
//! the text the scanner checked ([`crate::jsonrpc::scan::RAW_TEXT`]) and looks it up here: the
//! text seen recently maps to one parsed, immutable [`SharedMeta`], whose capabilities and
//! identity the session takes as they are ([`super::RequestMeta::read_shared`]).
//!
//! The table is small and bounded: [`SLOTS`] texts of at most [`MAX_TEXT`] bytes, compared
//! byte for byte, replaced in turn. A `_meta` naming a `progressToken` (different in every
//! request) is parsed but not remembered. What a handler sees ([`super::RequestContext::meta`])
//! is the same object either way.

use super::per_request::{META_CLIENT_CAPABILITIES, META_CLIENT_INFO};
use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::{Arc, Mutex};

/// How many `_meta` texts are remembered.
const SLOTS: usize = 16;
/// Longer `_meta` texts are parsed every time.
const MAX_TEXT: usize = 2048;

/// A request's `params._meta` as parsed (any JSON value; handlers see it when it is an
/// object), with the per-request era's client capabilities and identity ready to share.
#[derive(Debug, PartialEq)]
pub(crate) struct SharedMeta {
    value: Value,
    /// `clientCapabilities` when it is an object.
    capabilities: Option<Arc<Value>>,
    /// `clientInfo` when it is an object.
    info: Option<Arc<Value>>,
}

impl SharedMeta {
    /// `value` as a request's `_meta`, used by this request alone: the era's members are
    /// copied out when a session asks for them ([`super::RequestMeta::read_shared`]).
    pub(crate) fn new(value: Value) -> Self {
        SharedMeta {
            value,
            capabilities: None,
            info: None,
        }
    }

    /// `value` as a `_meta` many requests share: the era's members are made ready to share.
    fn shared(value: Value) -> Self {
        let member = |key: &str| {
            value
                .get(key)
                .filter(|v| v.is_object())
                .map(|v| Arc::new(v.clone()))
        };
        let (capabilities, info) = (member(META_CLIENT_CAPABILITIES), member(META_CLIENT_INFO));
        SharedMeta {
            value,
            capabilities,
            info,
        }
    }

    /// The `_meta` of a request whose JSON text is `text` (valid JSON): the shared copy when
    /// the same text was seen recently, else parsed (and remembered, see the module docs).
    pub(crate) fn from_text(text: &str) -> Result<Arc<Self>, serde_json::Error> {
        let fits = text.len() <= MAX_TEXT;
        if fits {
            if let Some(hit) = TABLE.find(text) {
                return Ok(hit);
            }
        }
        let parsed = Arc::new(SharedMeta::shared(serde_json::from_str(text)?));
        // A text with a progress token is never found (its token is new each time): it is
        // looked for, but not remembered in place of texts that recur.
        if fits && !text.contains("\"progressToken\"") {
            TABLE.remember(text, &parsed);
        }
        Ok(parsed)
    }

    /// The value as given.
    pub(crate) fn value(&self) -> &Value {
        &self.value
    }

    /// The value when it is an object (what handlers see as the request's `_meta`).
    pub(crate) fn object(&self) -> Option<&Map<String, Value>> {
        self.value.as_object()
    }

    /// `clientCapabilities`, shared, when it is an object (and this `_meta` is shared).
    pub(crate) fn capabilities(&self) -> Option<&Arc<Value>> {
        self.capabilities.as_ref()
    }

    /// `clientInfo`, shared, when it is an object (and this `_meta` is shared).
    pub(crate) fn info(&self) -> Option<&Arc<Value>> {
        self.info.as_ref()
    }
}

/// Reads a `_meta` member: by its text through the table when the scanner reads the frame, as a
/// value when `serde_json` does.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<SharedMeta>, D::Error> {
    struct MetaVisitor;
    impl<'de> Visitor<'de> for MetaVisitor {
        type Value = Arc<SharedMeta>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON value")
        }
        // The scanner: the member's text.
        fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
            SharedMeta::from_text(text).map_err(E::custom)
        }
        // `serde_json`: the member itself.
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            let value = <Value as serde::Deserialize>::deserialize(d)?;
            Ok(Arc::new(SharedMeta::new(value)))
        }
    }
    d.deserialize_newtype_struct(crate::jsonrpc::scan::RAW_TEXT, MetaVisitor)
}

/// The texts seen recently and what they parsed to.
struct Table(Mutex<Slots>);

struct Slots {
    entries: Vec<(Box<str>, Arc<SharedMeta>)>,
    /// Where the next text goes once every slot is taken.
    next: usize,
}

static TABLE: Table = Table(Mutex::new(Slots {
    entries: Vec::new(),
    next: 0,
}));

impl Table {
    fn find(&self, text: &str) -> Option<Arc<SharedMeta>> {
        let slots = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .entries
            .iter()
            .find(|(t, _)| **t == *text)
            .map(|(_, m)| m.clone())
    }

    fn remember(&self, text: &str, meta: &Arc<SharedMeta>) {
        let mut slots = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slots.entries.iter().any(|(t, _)| **t == *text) {
            return;
        }
        let entry = (Box::from(text), meta.clone());
        if slots.entries.len() < SLOTS {
            slots.entries.push(entry);
        } else {
            let at = slots.next;
            slots.entries[at] = entry;
            slots.next = (at + 1) % SLOTS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_text_is_shared_and_reads_as_parsed() {
        let text = r#"{"io.modelcontextprotocol/clientInfo":{"name":"shared-meta-test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}"#;
        let a = SharedMeta::from_text(text).unwrap();
        let b = SharedMeta::from_text(text).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "one parsed copy for one text");
        assert_eq!(*a.value(), serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(
            **a.info().unwrap(),
            json!({"name": "shared-meta-test", "version": "1"})
        );
        assert_eq!(**a.capabilities().unwrap(), json!({"sampling": {}}));
    }

    #[test]
    fn progress_tokens_and_other_texts_are_not_shared() {
        let t = r#"{"progressToken":"shared-meta-p"}"#;
        let a = SharedMeta::from_text(t).unwrap();
        let b = SharedMeta::from_text(t).unwrap();
        assert!(!Arc::ptr_eq(&a, &b), "a progress token is not remembered");
        assert_eq!(a, b);
        let c = SharedMeta::from_text(r#"{"x":"shared-meta-1"}"#).unwrap();
        let d = SharedMeta::from_text(r#"{"x":"shared-meta-2"}"#).unwrap();
        assert_ne!(c, d);
        // Non-object members are not taken as the era's capabilities or identity.
        let e = SharedMeta::from_text(r#"{"io.modelcontextprotocol/clientInfo":"x"}"#).unwrap();
        assert!(e.info().is_none() && e.capabilities().is_none());
        assert!(SharedMeta::from_text("7").unwrap().object().is_none());
    }

    #[test]
    fn the_table_stays_bounded() {
        for i in 0..SLOTS * 3 {
            SharedMeta::from_text(&format!(r#"{{"bounded":{i}}}"#)).unwrap();
        }
        assert!(TABLE.0.lock().unwrap().entries.len() <= SLOTS);
    }
}
