//! [`Replica`]: what the sessions of one server share with the other replicas of a deployment:
//! the event store, the event bus, and this replica's name on them.
//!
//! A request stream is written by the replica running its requests; a client may follow it
//! from another replica (it resumed there). When the running replica dies before answering,
//! the one the client follows learns it from the bus ([`EventBus::is_alive`]: a replica
//! announces itself every [`LIVENESS_RENEW`]) and answers the stream's requests with an
//! error, which it reads from the stream's stored priming event ([`priming_record`]), so the
//! client does not wait forever for an answer that will never come.

#[cfg(doc)]
use super::super::store::LIVENESS_RENEW;
use super::super::store::{run_detached, BusMessage, EventBus, EventStore};
use crate::jsonrpc::RequestId;
use std::sync::Arc;

/// What marks a stored event as a record for the replicas rather than a message: messages are
/// JSON objects or arrays, so no message text starts with it.
const RECORD_MARK: char = '#';

/// The stored data of a request stream's priming event when other replicas may take it over:
/// the ids of the requests it carries (`#` and their JSON list). Clients never see it: the
/// priming event they get has empty data, and a replay skips records ([`is_message`]).
pub(super) fn priming_record(ids: &[&RequestId]) -> String {
    let list: Vec<serde_json::Value> = ids.iter().map(|id| id.to_value()).collect();
    format!("{RECORD_MARK}{}", serde_json::Value::Array(list))
}

/// The request ids a stored priming record names (none for another event).
pub(super) fn priming_ids(data: &str) -> Vec<RequestId> {
    let Some(Ok(serde_json::Value::Array(list))) =
        data.strip_prefix(RECORD_MARK).map(serde_json::from_str)
    else {
        return Vec::new();
    };
    list.iter().filter_map(RequestId::from_value).collect()
}

/// Whether stored event data is a message to send on a replayed stream (not a priming event,
/// empty or a record, nor an end marker).
pub(super) fn is_message(data: &str) -> bool {
    !data.is_empty() && !data.starts_with(RECORD_MARK)
}

/// The replica that writes request stream `stream` (`{session}/{replica}-{slot}`), if it is
/// one.
pub(super) fn stream_owner(stream: &str) -> Option<&str> {
    let (_, rest) = stream.split_once('/')?;
    let (owner, slot) = rest.rsplit_once('-')?;
    (!owner.is_empty() && !owner.starts_with('g') && slot.bytes().all(|b| b.is_ascii_digit()))
        .then_some(owner)
}

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
    fn priming_records_carry_the_ids_and_are_never_sent() {
        let (a, b) = (RequestId::Number(7), RequestId::String("x".into()));
        let rec = priming_record(&[&a, &b]);
        assert_eq!(priming_ids(&rec), vec![a, b]);
        assert!(!is_message(&rec));
        assert!(!is_message(""));
        assert!(is_message(r#"{"jsonrpc":"2.0"}"#));
        assert!(priming_ids("").is_empty());
    }

    #[test]
    fn a_request_streams_owner_is_read_from_its_key() {
        assert_eq!(stream_owner("abc/0123abcd-4"), Some("0123abcd"));
        assert_eq!(stream_owner("abc/g"), None);
        assert_eq!(stream_owner("abc/-4"), None);
    }

    #[test]
    fn event_ids_split_back_into_stream_and_number() {
        for (stream, seq) in [("abc/0123abcd-0", 0), ("sl/-17", 42), ("a:b", u64::MAX)] {
            let id = event_id(stream, seq);
            assert_eq!(id, format!("{stream}:{seq}"));
            assert_eq!(parse_event_id(&id), Some((stream, seq)));
        }
    }
}
