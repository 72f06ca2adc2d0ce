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
//!
//! There is one table per thread, not one per process: the scanner and the request's reader
//! look a text up twice per call, and the request's session clones the shared capabilities and
//! identity (`Arc` counts) and drops them again. With one process-wide table behind a mutex, the
//! runtime's workers serving calls at the same time took turns on the mutex's cache line and on
//! those counts (a `perf record` of the HTTP echo server at 32 clients put half of the table
//! look-up's samples on the lock and half of `RequestMeta::read_shared`'s on the two `Arc`
//! increments). A thread's own table needs no lock, and the objects it hands out are counted on
//! the core that serves the call. Each thread parses a recurring text once; a thread's table
//! holds at most [`SLOTS`] × [`MAX_TEXT`] bytes of text and goes with the thread.
//!
//! A remembered text also spares the work around it on later requests: the scanner passes over
//! a frame's `_meta` by comparing it with the remembered texts ([`known_len`]) instead of
//! checking it byte by byte, and the checks of the era's members ([`super::RequestMeta`]) are
//! made once per text ([`SharedMeta::checked`]).

use super::per_request::{META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL};
use super::RequestMeta;
use crate::protocol::ProtocolVersion;
use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// How many `_meta` texts are remembered.
const SLOTS: usize = 16;
/// Longer `_meta` texts are parsed every time.
const MAX_TEXT: usize = 2048;

/// A request's `params._meta` as parsed (any JSON value; handlers see it when it is an
/// object), with the per-request era's client capabilities and identity ready to share.
#[derive(Debug)]
pub(crate) struct SharedMeta {
    value: Value,
    /// `clientCapabilities` when it is an object.
    capabilities: Option<Arc<Value>>,
    /// `clientInfo` when it is an object.
    info: Option<Arc<Value>>,
    /// Whether it asks for messages besides the answer (a `progressToken`, or a log level).
    wants_stream: bool,
    /// Whether it is an object with a `progressToken` member.
    names_progress: bool,
    /// A shared `_meta`'s era members as [`RequestMeta::read_shared`] accepted them, with the
    /// revisions they were checked against (set once, by the first request that passes).
    checked: OnceLock<(Box<[ProtocolVersion]>, RequestMeta)>,
}

impl PartialEq for SharedMeta {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
            && self.capabilities == other.capabilities
            && self.info == other.info
    }
}

impl SharedMeta {
    /// `value` as a request's `_meta`, used by this request alone: the era's members are
    /// copied out when a session asks for them ([`super::RequestMeta::read_shared`]).
    pub(crate) fn new(value: Value) -> Self {
        SharedMeta {
            wants_stream: asks_stream(&value),
            names_progress: value.get("progressToken").is_some(),
            value,
            capabilities: None,
            info: None,
            checked: OnceLock::new(),
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
            wants_stream: asks_stream(&value),
            names_progress: value.get("progressToken").is_some(),
            value,
            capabilities,
            info,
            checked: OnceLock::new(),
        }
    }

    /// The `_meta` of a request whose JSON text is `text` (valid JSON): the shared copy when
    /// the same text was seen recently, else parsed (and remembered, see the module docs).
    pub(crate) fn from_text(text: &str) -> Result<Arc<Self>, serde_json::Error> {
        let fits = text.len() <= MAX_TEXT;
        if fits {
            if let Some(hit) = TABLE.with_borrow(|slots| slots.find(text)) {
                return Ok(hit);
            }
        }
        let parsed = Arc::new(SharedMeta::shared(serde_json::from_str(text)?));
        // A text with a progress token is never found (its token is new each time): it is
        // looked for, but not remembered in place of texts that recur.
        if fits && !text.contains("\"progressToken\"") {
            TABLE.with_borrow_mut(|slots| slots.remember(text, &parsed));
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

    /// Whether the request asked for messages besides its answer (progress or logs), which
    /// need an SSE response.
    pub(crate) fn wants_stream(&self) -> bool {
        self.wants_stream
    }

    /// Whether it is an object with a `progressToken` member (a request's contexts look it up
    /// only then).
    pub(crate) fn names_progress(&self) -> bool {
        self.names_progress
    }

    /// What [`RequestMeta::read_shared`] made of this `_meta` against `supported` earlier,
    /// when it accepted it.
    pub(crate) fn checked(&self, supported: &[ProtocolVersion]) -> Option<&RequestMeta> {
        self.checked
            .get()
            .filter(|(against, _)| **against == *supported)
            .map(|(_, read)| read)
    }

    /// Remembers `read`, what [`RequestMeta::read_shared`] accepted against `supported`, for
    /// the next requests with this `_meta` (only a shared `_meta` has any).
    pub(crate) fn remember_checked(&self, supported: &[ProtocolVersion], read: &RequestMeta) {
        if self.capabilities.is_some() {
            let _ = self.checked.set((supported.into(), read.clone()));
        }
    }
}

/// Whether `_meta` value `meta` asks for progress or logs.
fn asks_stream(meta: &Value) -> bool {
    meta.get("progressToken").is_some() || meta.get(META_LOG_LEVEL).is_some_and(|l| !l.is_null())
}

/// The length of a remembered `_meta` object text that `rest` (a frame from some value's
/// first byte) starts with, if any, nested at most `room` deep: the scanner then passes over
/// those bytes without checking them again ([`crate::jsonrpc::scan::RAW_TEXT`]). A remembered
/// text is valid JSON that the scanner accepted (or `serde_json` parsed), and an object ends at
/// its own closing brace, so a frame holding that text at this point holds that very value.
pub(crate) fn known_len(rest: &[u8], room: u32) -> Option<usize> {
    if rest.first() != Some(&b'{') {
        return None;
    }
    TABLE.with_borrow(|slots| {
        let at = slots.entries.iter().position(|e| {
            e.depth <= room && e.text.starts_with('{') && rest.starts_with(e.text.as_bytes())
        })?;
        // The reader looks this text up next ([`SharedMeta::from_text`]): try it first.
        slots.last.set(at);
        Some(slots.entries[at].text.len())
    })
}

/// How deep `text` (valid JSON) nests arrays and objects.
fn nesting(text: &str) -> u32 {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0u32, 0u32, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
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

/// One remembered text.
struct Entry {
    text: Box<str>,
    /// How deep it nests ([`nesting`]).
    depth: u32,
    meta: Arc<SharedMeta>,
}

/// The texts this thread saw recently and what they parsed to.
struct Slots {
    entries: Vec<Entry>,
    /// Where the next text goes once every slot is taken.
    next: usize,
    /// The entry [`known_len`] found last (looked at first by [`Slots::find`]).
    last: std::cell::Cell<usize>,
}

thread_local! {
    /// This thread's table (see the module docs for why it is not shared between threads).
    static TABLE: RefCell<Slots> = const {
        RefCell::new(Slots {
            entries: Vec::new(),
            next: 0,
            last: std::cell::Cell::new(0),
        })
    };
}

impl Slots {
    fn find(&self, text: &str) -> Option<Arc<SharedMeta>> {
        if let Some(e) = self.entries.get(self.last.get()) {
            if *e.text == *text {
                return Some(e.meta.clone());
            }
        }
        self.entries
            .iter()
            .find(|e| *e.text == *text)
            .map(|e| e.meta.clone())
    }

    fn remember(&mut self, text: &str, meta: &Arc<SharedMeta>) {
        if self.entries.iter().any(|e| *e.text == *text) {
            return;
        }
        let entry = Entry {
            text: Box::from(text),
            depth: nesting(text),
            meta: meta.clone(),
        };
        if self.entries.len() < SLOTS {
            self.entries.push(entry);
        } else {
            let at = self.next;
            self.entries[at] = entry;
            self.next = (at + 1) % SLOTS;
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
    fn a_remembered_object_is_known_by_its_text_at_the_start_of_a_frame() {
        let text = r#"{"known-len-test":[1,{"x":"a]}\"b"}],"y":{}}"#;
        assert_eq!(nesting(text), 3);
        SharedMeta::from_text(text).unwrap();
        let len = text.len();
        // Followed by the rest of its frame: the text's own length.
        let framed = format!(r#"{text},"arguments":{{}}}}}}"#);
        assert_eq!(known_len(framed.as_bytes(), 100), Some(len));
        assert_eq!(known_len(framed.as_bytes(), 3), Some(len));
        // Not when it would nest deeper than the reader allows.
        assert_eq!(known_len(framed.as_bytes(), 2), None);
        // Not a part of it, nor other text.
        assert_eq!(known_len(&text.as_bytes()[..len - 1], 100), None);
        assert_eq!(known_len(br#"{"known-len-test":[2]}"#, 100), None);
        assert_eq!(known_len(format!(" {text}").as_bytes(), 100), None);
        // Only objects: a number's text is a prefix of longer numbers.
        SharedMeta::from_text("75311").unwrap();
        assert_eq!(known_len(b"753119", 100), None);
    }

    #[test]
    fn a_shared_meta_is_checked_once_per_revision_list() {
        use crate::error::codes;
        let text = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"checked-once","version":"1"}}"#;
        let meta = SharedMeta::from_text(text).unwrap();
        let both = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];
        assert!(meta.checked(&both).is_none());
        let first = RequestMeta::read_shared(Some(&meta), &both).unwrap();
        assert_eq!(meta.checked(&both), Some(&first));
        assert_eq!(RequestMeta::read_shared(Some(&meta), &both).unwrap(), first);
        // Other revisions: checked again, and refused where the version is not served.
        let old = [ProtocolVersion::V2025_11_25];
        assert!(meta.checked(&old).is_none());
        let e = RequestMeta::read_shared(Some(&meta), &old).unwrap_err();
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        // A `_meta` of one request alone keeps nothing.
        let own = SharedMeta::new(meta.value().clone());
        RequestMeta::read_shared(Some(&own), &both).unwrap();
        assert!(own.checked(&both).is_none());
        // A log level asks for a stream.
        assert!(!meta.wants_stream() && !meta.names_progress());
        let p = SharedMeta::from_text(r#"{"progressToken":7}"#).unwrap();
        assert!(p.wants_stream() && p.names_progress());
        let logs = SharedMeta::from_text(r#"{"io.modelcontextprotocol/logLevel":"info"}"#).unwrap();
        assert!(logs.wants_stream());
    }

    #[test]
    fn the_table_stays_bounded() {
        for i in 0..SLOTS * 3 {
            SharedMeta::from_text(&format!(r#"{{"bounded":{i}}}"#)).unwrap();
        }
        assert_eq!(TABLE.with_borrow(|slots| slots.entries.len()), SLOTS);
        // The oldest texts made room; the newest are still known.
        assert_eq!(known_len(br#"{"bounded":0}"#, 100), None);
        let newest = format!(r#"{{"bounded":{}}}"#, SLOTS * 3 - 1);
        assert_eq!(known_len(newest.as_bytes(), 100), Some(newest.len()));
    }

    #[test]
    fn each_thread_has_its_own_table() {
        let text = r#"{"io.modelcontextprotocol/clientInfo":{"name":"per-thread","version":"1"}}"#;
        let here = SharedMeta::from_text(text).unwrap();
        assert!(Arc::ptr_eq(&here, &SharedMeta::from_text(text).unwrap()));
        let there = std::thread::spawn(move || {
            // Not known on a thread that has not read it yet; read there, it is that thread's.
            assert_eq!(known_len(text.as_bytes(), 100), None);
            let first = SharedMeta::from_text(text).unwrap();
            assert!(Arc::ptr_eq(&first, &SharedMeta::from_text(text).unwrap()));
            assert_eq!(known_len(text.as_bytes(), 100), Some(text.len()));
            first
        })
        .join()
        .unwrap();
        assert!(!Arc::ptr_eq(&here, &there), "one parsed copy per thread");
        assert_eq!(*here, *there);
    }
}
