//! [`Outgoing`]: a frame the Streamable HTTP client POSTs, with its JSON parsed once when it is
//! written, so that the write, every retry, the failure path and the per-request era's checks
//! read the one value instead of parsing the bytes again. Apart from `mod.rs` (the transport's
//! connection and streams) because it is a value with no I/O, tested on its own.

use bytes::Bytes;
use serde_json::Value;

/// A frame to POST and what the transport reads of it, parsed once when it is written: its
/// request ids, its method and the header fields its body implies are all read from `value`
/// (a retry after a new session or token sends the same bytes and reads the same value).
pub(super) struct Outgoing {
    /// The bytes sent, shared by every attempt.
    pub(super) bytes: Bytes,
    /// The frame as JSON; `None` when it is not JSON (sent as it is, nothing read from it).
    pub(super) value: Option<Value>,
}

impl Outgoing {
    pub(super) fn new(frame: &[u8]) -> Self {
        Outgoing {
            bytes: Bytes::copy_from_slice(frame),
            value: serde_json::from_slice(frame).ok(),
        }
    }

    /// The messages of the frame: itself, or a batch's items.
    fn messages(&self) -> &[Value] {
        match &self.value {
            Some(Value::Array(items)) => items,
            Some(one) => std::slice::from_ref(one),
            None => &[],
        }
    }

    /// Request ids in the frame (single message or batch).
    pub(super) fn request_ids(&self) -> Vec<Value> {
        self.messages()
            .iter()
            .filter(|m| m.get("method").is_some())
            .filter_map(|m| m.get("id").cloned())
            .collect()
    }

    /// The method of a single message (a batch has none).
    pub(super) fn method(&self) -> Option<&str> {
        self.value.as_ref()?.get("method")?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::Outgoing;
    use serde_json::json;

    #[test]
    fn a_request_has_its_id_and_method() {
        let frame =
            Outgoing::new(br#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{}}"#);
        assert_eq!(frame.request_ids(), vec![json!("a-1")]);
        assert_eq!(frame.method(), Some("tools/call"));
    }

    #[test]
    fn notifications_and_responses_have_no_request_ids() {
        let note = Outgoing::new(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(note.request_ids().is_empty());
        assert_eq!(note.method(), Some("notifications/initialized"));
        let answer = Outgoing::new(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        assert!(answer.request_ids().is_empty());
        assert_eq!(answer.method(), None);
    }

    #[test]
    fn a_batch_has_the_ids_of_its_requests_and_no_method() {
        let frame = Outgoing::new(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]"#,
        );
        assert_eq!(frame.request_ids(), vec![json!(1), json!(3)]);
        assert_eq!(frame.method(), None);
    }

    #[test]
    fn a_frame_that_is_not_json_is_kept_as_it_is_with_nothing_read_from_it() {
        let frame = Outgoing::new(b"{not json");
        assert!(frame.value.is_none());
        assert!(frame.request_ids().is_empty());
        assert_eq!(frame.method(), None);
        assert_eq!(&frame.bytes[..], b"{not json");
    }
}
