//! [`EventStore`]: the events of SSE streams kept for resumption, and its in-memory default.

use super::{ready, StoreFuture};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Keeps the events sent on SSE streams so a client can resume with `Last-Event-ID`, on the
/// replica that sent them or on any other.
///
/// A stream is written by one replica at a time, which numbers its events (`seq`, increasing
/// from 0); the event id a client sees is `{stream}:{seq}`. Stream keys are opaque strings
/// chosen by the server; every key of one session starts with the session's prefix, so
/// [`EventStore::remove_streams`] can forget a whole session at once. A store bounds itself
/// (events per stream, number of streams, or a time to live): an event it no longer has is
/// simply not replayed. Writes may complete in any order; replay returns events by `seq`.
pub trait EventStore: Send + Sync + 'static {
    /// Records event `seq` of `stream`: one serialized JSON-RPC message, or empty for a
    /// priming event.
    fn append(&self, stream: String, seq: u64, data: String) -> StoreFuture<()>;
    /// The events of `stream` after `seq`, oldest first, as `(seq, data)`; `None` when the
    /// stream is unknown (never written, forgotten or expired).
    fn replay_after(&self, stream: String, seq: u64) -> StoreFuture<Option<Vec<(u64, String)>>>;
    /// Forgets every stream whose key starts with `prefix`.
    fn remove_streams(&self, prefix: String) -> StoreFuture<()>;
    /// The oldest event still kept of `stream`, as `(seq, data)` (a replica that takes over a
    /// stream reads what its priming event recorded: the requests it carries). The default
    /// keeps none.
    fn first_event(&self, stream: String) -> StoreFuture<Option<(u64, String)>> {
        let _ = stream;
        ready(None)
    }
}

/// The default [`EventStore`]: per stream a ring of the most recent events, and at most
/// `max_streams` streams (the oldest are dropped first). It completes every call at once.
#[derive(Debug, Clone)]
pub struct InMemoryEventStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    per_stream: usize,
    max_streams: usize,
    logs: Mutex<Logs>,
}

#[derive(Debug, Default)]
struct Logs {
    streams: HashMap<String, VecDeque<(u64, String)>>,
    order: VecDeque<String>,
}

impl InMemoryEventStore {
    /// A store keeping `per_stream` events per stream and at most `max_streams` streams.
    pub fn new(per_stream: usize, max_streams: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                per_stream: per_stream.max(1),
                max_streams: max_streams.max(1),
                logs: Mutex::new(Logs::default()),
            }),
        }
    }

    fn append_now(&self, stream: String, seq: u64, data: String) {
        let mut logs = self.inner.logs.lock().unwrap();
        let logs = &mut *logs;
        if !logs.streams.contains_key(&stream) {
            while logs.streams.len() >= self.inner.max_streams {
                match logs.order.pop_front() {
                    Some(old) => {
                        logs.streams.remove(&old);
                    }
                    None => break,
                }
            }
            logs.order.push_back(stream.clone());
        }
        let log = logs.streams.entry(stream).or_default();
        // Writes usually come in order; one that does not is put in its place.
        let at = log.iter().rposition(|(s, _)| *s < seq).map_or(0, |i| i + 1);
        log.insert(at, (seq, data));
        while log.len() > self.inner.per_stream {
            log.pop_front();
        }
    }
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(256, 20_000)
    }
}

impl EventStore for InMemoryEventStore {
    fn append(&self, stream: String, seq: u64, data: String) -> StoreFuture<()> {
        self.append_now(stream, seq, data);
        ready(())
    }

    fn first_event(&self, stream: String) -> StoreFuture<Option<(u64, String)>> {
        let logs = self.inner.logs.lock().unwrap();
        ready(
            logs.streams
                .get(&stream)
                .and_then(|log| log.front().cloned()),
        )
    }

    fn replay_after(&self, stream: String, seq: u64) -> StoreFuture<Option<Vec<(u64, String)>>> {
        let logs = self.inner.logs.lock().unwrap();
        let events = logs.streams.get(&stream).map(|log| {
            log.iter()
                .filter(|(s, _)| *s > seq)
                .map(|(s, d)| (*s, d.clone()))
                .collect()
        });
        ready(events)
    }

    fn remove_streams(&self, prefix: String) -> StoreFuture<()> {
        let mut logs = self.inner.logs.lock().unwrap();
        logs.streams.retain(|k, _| !k.starts_with(&prefix));
        logs.order.retain(|k| !k.starts_with(&prefix));
        ready(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn now<T>(f: StoreFuture<T>) -> T {
        f.now_or_never()
            .expect("in-memory completes at once")
            .unwrap()
    }

    #[test]
    fn replays_by_seq_and_bounds_itself() {
        let s = InMemoryEventStore::new(3, 2);
        for seq in [0u64, 2, 1, 3] {
            now(s.append("a/1".into(), seq, format!("e{seq}")));
        }
        // Four written, three kept (the oldest dropped); an out-of-order write sits in place.
        let got = now(s.replay_after("a/1".into(), 0)).unwrap();
        assert_eq!(
            got,
            vec![(1, "e1".into()), (2, "e2".into()), (3, "e3".into())]
        );
        assert_eq!(now(s.replay_after("a/1".into(), 3)).unwrap(), vec![]);
        assert!(now(s.replay_after("b/1".into(), 0)).is_none());
        now(s.append("b/1".into(), 0, String::new()));
        now(s.append("c/1".into(), 0, String::new()));
        // Only two streams are kept: the oldest went.
        assert!(now(s.replay_after("a/1".into(), 0)).is_none());
        now(s.remove_streams("b/".into()));
        assert!(now(s.replay_after("b/1".into(), 0)).is_none());
        assert!(now(s.replay_after("c/1".into(), 0)).is_some());
    }
}
