//! [`Replica`]: what the sessions of one server share with the other replicas of a deployment:
//! the event store, the event bus, and this replica's name on them.

use super::super::store::{run_detached, BusMessage, EventBus, EventStore};
use std::sync::Arc;

/// This replica's stores and its name on the bus.
pub(super) struct Replica {
    pub(super) events: Arc<dyn EventStore>,
    pub(super) bus: Arc<dyn EventBus>,
    /// A random name, unique among the replicas (part of the stream keys it writes).
    pub(super) name: Arc<str>,
}

impl Replica {
    /// Whether other replicas may be serving the same sessions.
    pub(super) fn has_peers(&self) -> bool {
        self.bus.has_peers(&self.name)
    }

    /// Publishes `msg` to the other replicas (best effort; a failure is logged).
    pub(super) fn publish(&self, msg: BusMessage) {
        run_detached(
            self.bus.publish(&self.name, msg),
            "publishing on the event bus",
        );
    }
}

/// What a routing step leaves to do once the routing lock is released: event-store writes,
/// bus messages, and whether a stateless session is done.
#[derive(Default)]
pub(super) struct Effects {
    pub(super) writes: Vec<(String, u64, String)>,
    pub(super) publish: Vec<BusMessage>,
    pub(super) close: bool,
}

impl Effects {
    /// Starts the writes and publications (in order; the in-memory stores complete them here).
    pub(super) fn run(self, replica: Option<&Replica>) {
        let Some(rep) = replica else { return };
        for (stream, seq, data) in self.writes {
            run_detached(rep.events.append(stream, seq, data), "writing an SSE event");
        }
        for m in self.publish {
            rep.publish(m);
        }
    }
}

/// The event id of event `seq` of stream `stream`: `{stream}:{seq}`, what [`parse_event_id`]
/// splits.
pub(super) fn event_id(stream: &str, seq: u64) -> String {
    let mut id = String::with_capacity(stream.len() + 21);
    id.push_str(stream);
    id.push(':');
    super::super::sse::push_decimal(&mut id, seq);
    id
}

/// Splits an event id (`{stream}:{seq}`) into its stream key and number.
pub(super) fn parse_event_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.rsplit_once(':')?;
    Some((stream, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_split_back_into_stream_and_number() {
        for (stream, seq) in [("abc/0123abcd-0", 0), ("sl/-17", 42), ("a:b", u64::MAX)] {
            let id = event_id(stream, seq);
            assert_eq!(id, format!("{stream}:{seq}"));
            assert_eq!(parse_event_id(&id), Some((stream, seq)));
        }
    }
}
