//! JSON-RPC 2.0, the envelope every MCP message travels in.
//!
//! This module knows nothing about MCP methods: it parses bytes into [`Message`]s (single or
//! batch), classifies malformed input into the precise JSON-RPC error it deserves, and writes
//! messages back out. Transports hand it frames; the session layer gets typed envelopes.

#[doc(hidden)]
pub mod envelope_scan;
#[doc(hidden)]
pub mod fast;
mod id;
mod message;
#[doc(hidden)]
pub mod parse;
#[doc(hidden)]
pub mod scan;

#[doc(hidden)]
pub use envelope_scan::scan_envelope;
#[doc(hidden)]
pub use fast::{parse_request_as, Fast, Str};
pub use id::{IdGenerator, RequestId};
pub use message::{ErrorResponse, Message, Notification, Request, Response};
pub use parse::{parse, write_message, Incoming};

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

/// Default maximum size of one incoming message (frame), in bytes: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;
