//! Sessions: the lifecycle state machine, request correlation, cancellation, progress and
//! timeouts, shared by servers and clients and by every transport.
//!
//! A [`Session`] holds one connection's protocol state. Transports feed it incoming messages
//! (`Session::handle_incoming`) and carry out what it wants sent (an [`Outbound`] queue plus the
//! responses it returns). [`Connection`] is the driver for message-oriented transports (stdio,
//! child process, in-memory, WebSocket); the HTTP transport drives sessions per request.
//! What a side *does* with requests lives behind the [`Service`] trait (the server's registries or
//! the client's handlers); what the protocol *allows* lives here, and what an incoming frame is
//! and which way it goes is decided once for every transport (`inbound.rs`).
//!
//! A revision is a strategy chosen per session: a handshake-era session is opened by
//! `initialize` and lives as long as its connection; a per-request-era session (2026-07-28) is
//! opened by a transport for one request, from that request's `_meta` ([`per_request`]).

mod cache_hints;
mod capabilities;
mod connection;
mod context;
mod core;
pub(crate) use core::TaggedSink;
pub(crate) mod inbound;
mod listen;
mod mrtr;
mod notify;
mod outbound;
// List cursors, shared by the server's lists and the task receiver's `tasks/list`.
pub(crate) mod pagination;
mod peer;
mod peer_limits;
pub mod per_request;
mod per_request_stream;
mod request_state;
mod service;
pub(crate) mod shared_meta;
mod shared_values;
mod task_input;
// The task-augmented requests a side receives (2025-11-25: a server's `tools/call`, a
// client's sampling and elicitation) and the store replicas share them in.
pub(crate) mod task_store;
pub(crate) mod tasks;
#[cfg(test)]
pub(crate) mod test_lane;
mod tool_wire;
mod worker;

pub(crate) use self::core::Incoming;
pub(crate) use self::core::{IdHash, LaneAnswer, STATE_INITIALIZING, STATE_READY};
pub use self::core::{Negotiated, Role, Session, SessionConfig, StreamCloser};
pub use cache_hints::{CacheHint, CacheHints, CacheScope};
pub use capabilities::check_outgoing_request;
pub use connection::Connection;
pub(crate) use connection::SessionEndHook;
#[cfg(feature = "otel")]
#[doc(hidden)]
pub use context::PeerRequestTracer;
pub use context::{AuthInfo, HeaderFields, HttpHeaders, ProgressReporter, RequestContext};
#[cfg(feature = "otel")]
pub(crate) use context::{OutboundCall, TraceOutbound};
pub(crate) use context::{TaskStatusSink, AUTH_INFO, HTTP_HEADERS};
pub use listen::ListenFilter;
pub use mrtr::{input_required, INPUT_REQUIRED};
#[cfg(feature = "otel")]
pub(crate) use notify::NotificationSpan;
pub(crate) use notify::Notifier;
pub use outbound::{Outbound, OutboundMessage, OutboundSink};
pub(crate) use peer::Tracing;
pub use peer::{log_level_rank, Peer, RequestOptions};
pub use peer_limits::PeerLimits;
pub use per_request::RequestMeta;
pub use request_state::{KeyRing, ReplayStore, DEFAULT_REPLAY_CAPACITY, REQUEST_STATE_TTL};
pub use service::Service;
pub(crate) use service::ToolLane;
pub(crate) use shared_meta::SharedMeta;
pub(crate) use task_input::TaskInputs;
pub(crate) use tool_wire::{
    insert_server_info, to_value, tool_result_value, LaneExtra, ToolCallParams, ToolOutput,
};
pub(crate) use worker::serve_on_worker;
