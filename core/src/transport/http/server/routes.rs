//! A session's routing table: which open stream each request's messages go to, the session's
//! GET stream, and the bounded backlog of messages waiting for a GET stream to open.

use super::frames::Tx;
use crate::jsonrpc::{Message, RequestId};
use std::collections::{HashMap, HashSet, VecDeque};

const BACKLOG_LIMIT: usize = 1000;

/// One open request stream (a POST answered with SSE or JSON).
pub(super) struct StreamRoute {
    pub(super) slot: u64,
    pub(super) tx: Option<Tx>,
    /// Requests of this stream still unanswered (usually one: no set is allocated for it).
    pub(super) pending: SmallIds,
    pub(super) json: bool,
    /// Whether the stream opened with a priming event (an event id and a `retry:` hint, SEP-1699):
    /// only such a stream may be closed before its answer (`close_sse_stream`), since only then
    /// does the client hold an id to resume it from and know to come back.
    pub(super) primed: bool,
    /// Bumped each time a client (re)attaches to the stream, so that a polling-mode close
    /// scheduled for an earlier attachment leaves a later one alone.
    pub(super) generation: u64,
    /// Whether an event of this stream is in the event store (its priming event, or a message
    /// sent before the last answer); until then no client holds an id to resume it from.
    pub(super) recorded: bool,
    /// The number of this stream's next event.
    pub(super) next_seq: u64,
}

/// A request stream of another replica that a client resumed here: its events arrive on the
/// bus (the replica running the request publishes them while no client is attached there).
pub(super) struct RemoteStream {
    pub(super) key: String,
    pub(super) tx: Tx,
    /// The number of the next event to forward (earlier ones were replayed or sent).
    pub(super) next: u64,
    /// Events that arrived while the replay was read, forwarded once it has been.
    pub(super) held: Option<Vec<(u64, String, bool)>>,
}

/// A few request ids, without a heap allocation for the common single one.
pub(super) enum SmallIds {
    One(RequestId),
    Many(HashSet<RequestId>),
    Empty,
}

impl SmallIds {
    /// Forgets `id` (answered or cancelled).
    pub(super) fn remove(&mut self, id: &RequestId) {
        match self {
            SmallIds::One(x) if x == id => *self = SmallIds::Empty,
            SmallIds::Many(set) => {
                set.remove(id);
            }
            _ => {}
        }
    }
    /// Whether `id` is the only id left.
    pub(super) fn is_only(&self, id: &RequestId) -> bool {
        match self {
            SmallIds::One(x) => x == id,
            SmallIds::Many(set) => set.len() == 1 && set.contains(id),
            SmallIds::Empty => false,
        }
    }
    /// Whether every request is answered.
    pub(super) fn is_empty(&self) -> bool {
        match self {
            SmallIds::Empty => true,
            SmallIds::One(_) => false,
            SmallIds::Many(set) => set.is_empty(),
        }
    }
}

#[derive(Default)]
pub(super) struct Routes {
    /// Request id → stream slot (hashed as the session's own request maps are).
    pub(super) requests: HashMap<RequestId, u64, crate::session::IdHash>,
    /// Open request streams (few at a time: a Vec beats a map, and allocates nothing when idle).
    pub(super) streams: Vec<StreamRoute>,
    pub(super) next_stream: u64,
    pub(super) get: Option<Tx>,
    /// The event-store key of the GET stream (a new one per fresh GET stream; a resumed one
    /// keeps its key) and the number of its next event.
    pub(super) get_key: String,
    pub(super) get_seq: u64,
    /// Fresh GET streams opened so far (part of their keys).
    pub(super) get_streams: u64,
    pub(super) backlog: VecDeque<Message>,
    /// Request streams of other replicas followed here.
    pub(super) remote: Vec<RemoteStream>,
}

impl Routes {
    /// The open request stream `slot`.
    pub(super) fn stream(&mut self, slot: u64) -> Option<&mut StreamRoute> {
        self.streams.iter_mut().find(|s| s.slot == slot)
    }
    /// Forgets request stream `slot` (all its requests answered). When it was the last one,
    /// the stream list and the request map give their memory back: an idle session kept
    /// them at full capacity (384 B of an idle session's ~3.3 KB, dhat).
    pub(super) fn remove_stream(&mut self, slot: u64) {
        if let Some(i) = self.streams.iter().position(|s| s.slot == slot) {
            self.streams.swap_remove(i);
        }
        if self.streams.is_empty() {
            self.streams = Vec::new();
            if self.requests.is_empty() {
                self.requests = HashMap::default();
            }
        }
    }
    /// Drops every stream (ending them) when the session closes.
    pub(super) fn clear(&mut self) {
        self.get = None;
        self.streams = Vec::new();
        self.requests = HashMap::default();
        self.remote = Vec::new();
    }
}

/// Keeps a message for the next GET stream, dropping the oldest beyond the limit.
pub(super) fn push_backlog(backlog: &mut VecDeque<Message>, msg: Message) {
    if backlog.len() >= BACKLOG_LIMIT {
        backlog.pop_front();
    }
    backlog.push_back(msg);
}
