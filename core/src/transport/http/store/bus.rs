//! [`EventBus`]: what one replica must tell the others, and its in-process default.

use super::{ready, StoreFuture};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// One message between replicas. Messages carry JSON-RPC messages as their JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum BusMessage {
    /// A message from the client of `session` that this replica could not consume: a response
    /// to a server-to-client request (elicitation, sampling, roots) sent by another replica, or
    /// a `notifications/cancelled` for a request running on another replica.
    FromClient {
        /// The `Mcp-Session-Id`.
        session: String,
        /// The JSON-RPC message.
        message: String,
    },
    /// A server-to-client message of `session` unrelated to any open request (a log, a
    /// list-changed or resource-updated notification, a request outside any request), for the
    /// replica holding the session's GET stream.
    ToGetStream {
        /// The `Mcp-Session-Id`.
        session: String,
        /// The JSON-RPC message.
        message: String,
    },
    /// Event `seq` of request stream `stream`, written by the replica running the request while
    /// the client follows the stream from another replica (it resumed there); `last` when the
    /// stream ends with it.
    StreamEvent {
        /// The event-store key of the stream.
        stream: String,
        /// The event's number.
        seq: u64,
        /// The event's data (a JSON-RPC message; empty for an end marker).
        data: String,
        /// Whether the stream ends after this event.
        last: bool,
    },
    /// The client changed the state of `session` (initialized, log level, subscriptions) on
    /// one replica: the others bring their copies up to date.
    SessionState {
        /// The `Mcp-Session-Id`.
        session: String,
        /// The state as now stored.
        state: super::SessionState,
    },
    /// Session `session` was deleted: every replica drops its copy.
    SessionClosed {
        /// The `Mcp-Session-Id`.
        session: String,
    },
    /// A server-wide notification (`notifications/*/list_changed`, `notifications/resources/
    /// updated`, which `subscriptions/listen` streams also carry) for every session this
    /// replica holds.
    Notify {
        /// The notification's method.
        method: String,
        /// Its params, as JSON text (`None`: no params).
        params: Option<String>,
    },
    /// An explicit invalidation of the server's response caches on another replica
    /// ([`ResponseCache::invalidate_all`](crate::server::middleware::ResponseCache) and its
    /// siblings): every replica applies it to the response caches in its server's chain.
    CacheInvalidate {
        /// What is forgotten.
        invalidation: crate::server::middleware::CacheInvalidation,
    },
    /// `tasks/update` of a task of the tasks extension served by another replica: the replica
    /// running task `task` delivers `responses` to its parked input requests.
    TaskUpdate {
        /// The task's id.
        task: String,
        /// The `inputResponses` object, as JSON text.
        responses: String,
    },
    /// `tasks/cancel` of a task of the tasks extension served by another replica: the replica
    /// running task `task` stops it.
    TaskCancel {
        /// The task's id.
        task: String,
    },
    /// A state of a task of the tasks extension, as just written to the task store with
    /// revision `revision` (by any replica), for the `subscriptions/listen` streams naming it
    /// (`notifications/tasks`) that this replica holds. A `RedisStore` publishes it
    /// itself, in the script writing the state.
    TaskState {
        /// The revision the task store gave the state.
        revision: u64,
        /// The [`StoredTask`](crate::server::StoredTask) as written, as JSON text (its `task`
        /// is what `tasks/get` answers, the `DetailedTask`).
        task: String,
    },
}

/// What a replica receives from the bus: every message published by the others (never its own).
pub type BusReceiver = mpsc::UnboundedReceiver<BusMessage>;

/// Carries [`BusMessage`]s between the replicas serving one deployment. Delivery is best effort
/// (as pub/sub is): what must survive a replica (stream events) is in the [`super::EventStore`].
pub trait EventBus: Send + Sync + 'static {
    /// Joins the bus as replica `replica`; the receiver gets what the other replicas publish.
    fn subscribe(&self, replica: &str) -> BusReceiver;
    /// Sends `msg` from replica `replica` to every other replica.
    fn publish(&self, replica: &str, msg: BusMessage) -> StoreFuture<()>;
    /// Whether other replicas may be listening: when false (a single replica), the server
    /// publishes nothing and keeps undeliverable messages for the session's next GET stream.
    fn has_peers(&self, replica: &str) -> bool;
    /// Says that replica `replica` runs, for the next `ttl` (it says so again before then).
    /// The default says nothing.
    fn announce_alive(&self, replica: &str, ttl: Duration) -> StoreFuture<()> {
        let _ = (replica, ttl);
        ready(())
    }
    /// Whether replica `replica` still runs: `Some(false)` once it stopped (killed, crashed or
    /// shut down) and its last announcement expired; `None` when this bus cannot tell. A
    /// replica that resumed a stream of `replica` answers its requests with an error when it
    /// is gone.
    fn is_alive(&self, replica: &str) -> StoreFuture<Option<bool>> {
        let _ = replica;
        ready(None)
    }
}

/// The default [`EventBus`]: replicas in one process (mounted endpoints sharing this value).
/// With one replica it carries nothing.
#[derive(Default, Clone)]
pub struct InMemoryEventBus {
    subscribers: Arc<Mutex<Vec<Subscriber>>>,
    /// How many subscribers were there at the last look (read without the lock).
    count: Arc<AtomicUsize>,
}

/// A replica's name and the sending end of its receiver.
type Subscriber = (String, mpsc::UnboundedSender<BusMessage>);

impl std::fmt::Debug for InMemoryEventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryEventBus").finish_non_exhaustive()
    }
}

impl EventBus for InMemoryEventBus {
    fn subscribe(&self, replica: &str) -> BusReceiver {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut subs = self.subscribers.lock().unwrap();
        subs.retain(|(_, t)| !t.is_closed());
        subs.push((replica.to_string(), tx));
        self.count.store(subs.len(), Ordering::Release);
        rx
    }

    fn publish(&self, replica: &str, msg: BusMessage) -> StoreFuture<()> {
        let mut subs = self.subscribers.lock().unwrap();
        subs.retain(|(_, t)| !t.is_closed());
        self.count.store(subs.len(), Ordering::Release);
        for (r, tx) in subs.iter() {
            if r != replica {
                let _ = tx.send(msg.clone());
            }
        }
        ready(())
    }

    fn is_alive(&self, replica: &str) -> StoreFuture<Option<bool>> {
        // A replica in this process runs as long as it listens.
        let subs = self.subscribers.lock().unwrap();
        ready(Some(
            subs.iter().any(|(r, t)| r == replica && !t.is_closed()),
        ))
    }

    fn has_peers(&self, replica: &str) -> bool {
        // One replica alone (the usual case) answers without the lock.
        if self.count.load(Ordering::Acquire) < 2 {
            return false;
        }
        self.subscribers
            .lock()
            .unwrap()
            .iter()
            .any(|(r, t)| r != replica && !t.is_closed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reaches_the_other_replicas_only() {
        let bus = InMemoryEventBus::default();
        let mut a = bus.subscribe("a");
        assert!(!bus.has_peers("a"));
        let mut b = bus.subscribe("b");
        assert!(bus.has_peers("a"));
        let m = BusMessage::SessionClosed {
            session: "s".into(),
        };
        bus.publish("a", m.clone()).await.unwrap();
        assert_eq!(b.recv().await, Some(m));
        assert!(a.try_recv().is_err());
        drop(b);
        assert!(!bus.has_peers("a"));
    }
}
