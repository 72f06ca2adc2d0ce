//! Storage seams of the HTTP server: the [`EventStore`] that makes SSE streams resumable and the
//! [`SessionStore`] that holds live sessions, each with a bounded in-memory default.

use super::server::HttpSession;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Keeps the events sent on SSE streams so a client can resume with `Last-Event-ID`.
///
/// Stream keys are opaque strings chosen by the server; every key of one session starts with the
/// session's prefix, so [`EventStore::remove_streams`] can forget a whole session at once.
/// Implementations must be cheap: they are called while the session's routing lock is held.
pub trait EventStore: Send + Sync + 'static {
    /// Records `data` (one serialized JSON-RPC message, or empty for a priming event) on `stream`
    /// and returns its globally unique event id.
    fn append(&self, stream: &str, data: &str) -> String;
    /// The id for `data` as the only event `stream` will ever carry (a request's answer on a
    /// stream that sent nothing before it; the server calls it only for a stream with no event
    /// recorded yet). No client can ask for it back (resuming needs the id
    /// of an event received earlier on the same stream, and nothing follows this one), so a
    /// store may return the id [`EventStore::append`] would have returned without keeping the
    /// event; the default keeps it.
    fn append_only_event(&self, stream: &str, data: &str) -> String {
        self.append(stream, data)
    }
    /// The stream that `last_event_id` belongs to and the events stored after it, oldest first,
    /// as `(event id, data)`; `None` when the id is unknown (or its stream has been forgotten).
    fn replay_after(&self, last_event_id: &str) -> Option<(String, Vec<(String, String)>)>;
    /// Forgets every stream whose key starts with `prefix`.
    fn remove_streams(&self, prefix: &str);
}

/// The default [`EventStore`]: per stream a ring of the most recent events, and at most
/// `max_streams` streams (the oldest are dropped first).
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_stream: usize,
    max_streams: usize,
    inner: Mutex<StoreInner>,
}

#[derive(Debug, Default)]
struct StoreInner {
    streams: HashMap<String, StreamLog>,
    order: VecDeque<String>,
}

#[derive(Debug, Default)]
struct StreamLog {
    next: u64,
    events: VecDeque<(u64, String)>,
}

impl InMemoryEventStore {
    /// A store keeping `per_stream` events per stream and at most `max_streams` streams.
    pub fn new(per_stream: usize, max_streams: usize) -> Self {
        Self {
            per_stream: per_stream.max(1),
            max_streams: max_streams.max(1),
            inner: Mutex::new(StoreInner::default()),
        }
    }
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(256, 20_000)
    }
}

impl EventStore for InMemoryEventStore {
    fn append(&self, stream: &str, data: &str) -> String {
        let mut inner = self.inner.lock().unwrap();
        if !inner.streams.contains_key(stream) {
            while inner.streams.len() >= self.max_streams {
                match inner.order.pop_front() {
                    Some(old) => {
                        inner.streams.remove(&old);
                    }
                    None => break,
                }
            }
            inner.order.push_back(stream.to_string());
            inner
                .streams
                .insert(stream.to_string(), StreamLog::default());
        }
        let log = inner.streams.get_mut(stream).expect("inserted above");
        let seq = log.next;
        log.next += 1;
        log.events.push_back((seq, data.to_string()));
        while log.events.len() > self.per_stream {
            log.events.pop_front();
        }
        format!("{stream}:{seq}")
    }

    fn append_only_event(&self, stream: &str, _data: &str) -> String {
        // The id `append` gives the first event of a new stream; nothing is kept.
        let mut id = String::with_capacity(stream.len() + 2);
        id.push_str(stream);
        id.push_str(":0");
        id
    }

    fn replay_after(&self, last_event_id: &str) -> Option<(String, Vec<(String, String)>)> {
        let (stream, seq) = last_event_id.rsplit_once(':')?;
        let seq: u64 = seq.parse().ok()?;
        let inner = self.inner.lock().unwrap();
        let log = inner.streams.get(stream)?;
        let events = log
            .events
            .iter()
            .filter(|(s, _)| *s > seq)
            .map(|(s, d)| (format!("{stream}:{s}"), d.clone()))
            .collect();
        Some((stream.to_string(), events))
    }

    fn remove_streams(&self, prefix: &str) {
        let mut inner = self.inner.lock().unwrap();
        inner.streams.retain(|k, _| !k.starts_with(prefix));
        inner.order.retain(|k| !k.starts_with(prefix));
    }
}

/// Holds the live sessions of a Streamable HTTP server, by `Mcp-Session-Id`.
///
/// The default keeps them in memory; another implementation could index them elsewhere (the
/// session objects themselves stay in this process).
pub trait SessionStore: Send + Sync + 'static {
    /// Adds a session under `id`.
    fn insert(&self, id: Arc<str>, session: Arc<HttpSession>);
    /// Looks a session up.
    fn get(&self, id: &str) -> Option<Arc<HttpSession>>;
    /// Removes a session, returning it.
    fn remove(&self, id: &str) -> Option<Arc<HttpSession>>;
    /// Number of sessions held.
    fn len(&self) -> usize;
    /// Whether no session is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every session id held.
    fn ids(&self) -> Vec<Arc<str>>;
}

/// The default [`SessionStore`]: a map behind a mutex.
#[derive(Default)]
pub struct InMemorySessionStore {
    map: Mutex<HashMap<Arc<str>, Arc<HttpSession>>>,
}

impl std::fmt::Debug for InMemorySessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemorySessionStore")
            .field("len", &self.len())
            .finish()
    }
}

impl SessionStore for InMemorySessionStore {
    fn insert(&self, id: Arc<str>, session: Arc<HttpSession>) {
        self.map.lock().unwrap().insert(id, session);
    }
    fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.map.lock().unwrap().get(id).cloned()
    }
    fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.map.lock().unwrap().remove(id)
    }
    fn len(&self) -> usize {
        self.map.lock().unwrap().len()
    }
    fn ids(&self) -> Vec<Arc<str>> {
        self.map.lock().unwrap().keys().cloned().collect()
    }
}
