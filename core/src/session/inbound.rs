//! What an incoming frame is and which way it goes, decided once for every transport.
//!
//! A message transport (stdio, in-memory, WebSocket: [`super::Connection`]) and Streamable HTTP
//! (a POST body) both hand their bytes to [`read`], and ask the same questions of the result:
//! whether a batch may be served here and what answers it at once ([`check_batch`],
//! [`split_batch`]), and which lane a `tools/call` takes ([`Session::start_tool_call`]: the
//! typed lane in both eras, on the session itself or, on a message stream that never
//! initialized, on a per-request child). The transports keep only their framing and I/O, so the
//! same input gets the same JSON-RPC answer over each of them.

use super::core::{Session, STATE_INITIALIZING};
use super::per_request;
use super::ToolCallParams;
use crate::jsonrpc::{self, ErrorResponse, Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::McpError;

/// One frame (or POST body), read.
pub(crate) enum Inbound<'a> {
    /// A `tools/call` request whose params were read straight into what the call uses.
    Call(RequestId, ToolCallParams<'a>),
    /// Any other single message.
    One(Message),
    /// A JSON-RPC batch (not yet checked against the revision: see [`check_batch`]); invalid
    /// elements are reported in place.
    Batch(Vec<Result<Message, ErrorResponse>>),
}

/// Reads one frame. `lane`: whether a `tools/call` request is read for the typed lane (the
/// receiving side is a server, [`super::ToolLane`]); params that lane does not accept (not an
/// object, no `name` string, a member given twice) are read as any other message, so every
/// malformed call gets the answer it always got. `Err` is the one answer the whole frame gets
/// (not JSON, an empty batch, a top level that is no message). In a batch, a request reusing
/// the id of an earlier request of the same batch is an invalid element
/// ([`refuse_duplicate_ids`]).
pub(crate) fn read(frame: &[u8], lane: bool) -> Result<Inbound<'_>, ErrorResponse> {
    if lane {
        match jsonrpc::parse_request_as::<ToolCallParams<'_>>(
            frame,
            "tools/call",
            Some(crate::session::shared_meta::known_len),
        ) {
            Some(jsonrpc::Fast::Typed(id, params)) => return Ok(Inbound::Call(id, params)),
            Some(jsonrpc::Fast::Message(m)) => return Ok(Inbound::One(m)),
            None => {}
        }
    }
    Ok(match jsonrpc::parse(frame)? {
        jsonrpc::Incoming::Single(m) => Inbound::One(m),
        jsonrpc::Incoming::Batch(mut items) => {
            refuse_duplicate_ids(&mut items);
            Inbound::Batch(items)
        }
    })
}

/// Turns every request of a batch whose id an earlier request of the batch already has into
/// an invalid element: `-32600` with that id (data: `duplicate request id <id> in the batch`).
///
/// JSON-RPC 2.0 does not forbid the case, but an answer is matched to its request by id alone
/// (by the peer, by HTTP's routing of answers to streams, by cancellation), so two requests
/// with one id cannot both be answered distinctly: the first is served, the others are told
/// why they are not, on every transport, and none is left unanswered.
fn refuse_duplicate_ids(items: &mut [Result<Message, ErrorResponse>]) {
    let requests = items
        .iter()
        .filter(|m| matches!(m, Ok(Message::Request(_))))
        .count();
    if requests < 2 {
        return;
    }
    let mut seen = std::collections::HashSet::with_capacity(requests);
    for item in items.iter_mut() {
        let Ok(Message::Request(r)) = item else {
            continue;
        };
        if seen.insert(r.id.clone()) {
            continue;
        }
        let id = r.id.clone();
        let error = McpError::invalid_request(format!("duplicate request id {id} in the batch"));
        *item = Err(ErrorResponse {
            id: Some(id),
            error,
        });
    }
}

/// The revision a batch arrives under.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BatchScope<'a> {
    /// A session settled on this revision (by its handshake, or by the transport for a
    /// stateless request).
    Revision(ProtocolVersion),
    /// A per-request-era request naming this revision (its `_meta`, or over HTTP the
    /// `MCP-Protocol-Version` header), as given.
    PerRequest(&'a str),
    /// No revision yet: the handshake has not completed.
    Unsettled,
}

/// Whether a batch may be served under `scope`; when not, the error answering the whole batch
/// (`-32600`, sent without an id). `initialize`: whether the batch carries an `initialize`
/// request ([`carries_initialize`]).
///
/// Only 2025-03-26 has batches (its schema's `JSONRPCBatchRequest`; 2024-11-05, 2025-06-18 and
/// later, the per-request era included, have none), and `initialize` must never be part of
/// one: before the handshake, a batch is refused, naming `initialize` when it carries it.
pub(crate) fn check_batch(scope: BatchScope<'_>, initialize: bool) -> Result<(), McpError> {
    let refused = |revision: &dyn std::fmt::Display| {
        McpError::invalid_request(format!(
            "JSON-RPC batches are not allowed in protocol revision {revision}"
        ))
    };
    match scope {
        BatchScope::Revision(v) if v.supports_batches() => Ok(()),
        BatchScope::Revision(v) => Err(refused(&v)),
        BatchScope::PerRequest(v) => Err(refused(&v)),
        BatchScope::Unsettled => Err(McpError::invalid_request(if initialize {
            "initialize must not be part of a JSON-RPC batch"
        } else {
            "JSON-RPC batches are not allowed before initialization"
        })),
    }
}

/// Whether `items` (a batch) carry an `initialize` request.
pub(crate) fn carries_initialize(items: &[Result<Message, ErrorResponse>]) -> bool {
    items
        .iter()
        .any(|m| matches!(m, Ok(Message::Request(r)) if r.method == "initialize"))
}

/// A batch taken apart: the answers of its invalid elements (sent whatever else it holds, in
/// the batch's answer), and its messages to handle.
pub(crate) fn split_batch(
    items: Vec<Result<Message, ErrorResponse>>,
) -> (Vec<Message>, Vec<Message>) {
    let mut errors = Vec::new();
    let mut messages = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Ok(m) => messages.push(m),
            Err(ErrorResponse { id, error }) => errors.push(Message::error(id, error)),
        }
    }
    (errors, messages)
}

impl Session {
    /// The revision a batch arriving on this session is under: the negotiated one once the
    /// handshake completed; before it, on a message stream that serves per-request-era
    /// requests in children, the revision the batch's first per-request-era request names;
    /// else none yet.
    pub(crate) fn batch_scope<'a>(
        &self,
        items: &'a [Result<Message, ErrorResponse>],
    ) -> BatchScope<'a> {
        if self.state() >= STATE_INITIALIZING {
            if let Some(v) = self.protocol_version() {
                return BatchScope::Revision(v);
            }
        }
        let named = items.iter().find_map(|m| match m {
            Ok(Message::Request(r)) => {
                let meta = r.params.as_ref().and_then(|p| p.get("_meta"));
                self.opens_per_request(&r.method, meta)
                    .then(|| per_request::meta_version(r.params.as_ref()))
                    .flatten()
            }
            _ => None,
        });
        match named {
            Some(v) => BatchScope::PerRequest(v),
            None => BatchScope::Unsettled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Outbound, Role, SessionConfig};
    use serde_json::json;
    use std::sync::Arc;

    fn server_session() -> Arc<Session> {
        let server = crate::session::test_lane::EchoServer;
        let (outbound, _rx) = Outbound::channel(8);
        Session::new(
            Role::Server,
            Arc::new(server),
            SessionConfig::default(),
            outbound,
            None,
        )
    }

    fn detail(e: &McpError) -> &str {
        e.data.as_ref().and_then(|d| d.as_str()).unwrap_or_default()
    }

    fn items(v: serde_json::Value) -> Vec<Result<Message, ErrorResponse>> {
        match jsonrpc::parse(v.to_string().as_bytes()).unwrap() {
            jsonrpc::Incoming::Batch(items) => items,
            _ => panic!("not a batch"),
        }
    }

    #[test]
    fn a_batch_is_refused_outside_2025_03_26() {
        let ping = items(json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]));
        assert!(!carries_initialize(&ping));
        assert!(check_batch(BatchScope::Revision(ProtocolVersion::V2025_03_26), false).is_ok());
        for v in [
            ProtocolVersion::V2024_11_05,
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
        ] {
            let e = check_batch(BatchScope::Revision(v), false).unwrap_err();
            assert_eq!(e.code, crate::error::codes::INVALID_REQUEST);
            assert_eq!(
                detail(&e),
                format!("JSON-RPC batches are not allowed in protocol revision {v}")
            );
        }
        let e = check_batch(BatchScope::PerRequest("2026-07-28"), false).unwrap_err();
        assert_eq!(
            detail(&e),
            "JSON-RPC batches are not allowed in protocol revision 2026-07-28"
        );
        let e = check_batch(BatchScope::Unsettled, false).unwrap_err();
        assert_eq!(
            detail(&e),
            "JSON-RPC batches are not allowed before initialization"
        );
        let init = items(json!([{ "jsonrpc": "2.0", "id": 1, "method": "initialize" }]));
        assert!(carries_initialize(&init));
        let e = check_batch(BatchScope::Unsettled, true).unwrap_err();
        assert_eq!(
            detail(&e),
            "initialize must not be part of a JSON-RPC batch"
        );
    }

    #[test]
    fn a_batch_before_any_handshake_takes_the_revision_its_requests_name() {
        let s = server_session();
        let modern = items(json!([
            { "jsonrpc": "2.0", "method": "notifications/x" },
            { "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {} } } },
        ]));
        assert!(matches!(
            s.batch_scope(&modern),
            BatchScope::PerRequest("2026-07-28")
        ));
        let plain = items(json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]));
        assert!(matches!(s.batch_scope(&plain), BatchScope::Unsettled));
    }

    #[test]
    fn split_answers_the_invalid_elements() {
        let (errors, messages) = split_batch(items(json!([
            1,
            { "jsonrpc": "2.0", "id": 7, "method": 5 },
            { "jsonrpc": "2.0", "method": "notifications/x" },
        ])));
        assert_eq!(messages.len(), 1);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].id(), None);
        assert_eq!(errors[1].id(), Some(&RequestId::Number(7)));
    }

    #[test]
    fn a_request_reusing_an_id_of_its_batch_is_an_invalid_element() {
        let batch = json!([
            { "jsonrpc": "2.0", "id": 1, "method": "ping" },
            { "jsonrpc": "2.0", "id": "1", "method": "ping" },
            { "jsonrpc": "2.0", "id": 1, "result": {} },
            { "jsonrpc": "2.0", "id": 1, "method": "tools/list" },
            { "jsonrpc": "2.0", "id": "1", "method": "ping" },
        ])
        .to_string();
        let Ok(Inbound::Batch(items)) = read(batch.as_bytes(), true) else {
            panic!("a batch");
        };
        // The first request of each id, and the response, are kept; a number and a string are
        // different ids.
        assert!(matches!(&items[0], Ok(Message::Request(r)) if r.id == RequestId::Number(1)));
        assert!(matches!(&items[1], Ok(Message::Request(_))));
        assert!(matches!(&items[2], Ok(Message::Response(_))));
        for (i, id, shown) in [
            (3, RequestId::Number(1), "1"),
            (4, RequestId::String("1".into()), "\"1\""),
        ] {
            let Err(ErrorResponse {
                id: Some(got),
                error,
            }) = &items[i]
            else {
                panic!("element {i} refused");
            };
            assert_eq!(got, &id);
            assert_eq!(error.code, crate::error::codes::INVALID_REQUEST);
            assert_eq!(
                detail(error),
                format!("duplicate request id {shown} in the batch")
            );
        }
    }

    #[test]
    fn read_takes_tools_call_on_the_lane_only_when_asked() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}}"#;
        assert!(matches!(read(call, true), Ok(Inbound::Call(..))));
        assert!(matches!(read(call, false), Ok(Inbound::One(_))));
        // Params the lane does not take are read as any other message.
        let bad = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}"#;
        assert!(matches!(read(bad, true), Ok(Inbound::One(_))));
        assert!(read(b"[]", true).is_err());
        assert!(matches!(read(b"[1]", true), Ok(Inbound::Batch(_))));
    }
}
