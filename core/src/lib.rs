//! # ferromcp
//!
//! One Rust engine for the Model Context Protocol (MCP): JSON-RPC framing, every handshake-era
//! protocol revision (2024-11-05 to 2025-11-25), sessions, the server and client feature sets,
//! schema validation and the transports. The Python, Node.js and Swift bindings all run on it.

#![warn(missing_docs)]

#[cfg(feature = "http")]
pub mod auth;
pub mod client;
pub mod embed;
mod frame_io;
// HTTPS for outgoing connections, below both the OAuth client (`auth`) and the HTTP transports.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod server;
pub mod session;
// OpenTelemetry (feature `otel`): above the server (a middleware layer), below the client.
#[cfg(feature = "otel")]
pub mod telemetry;
#[cfg(feature = "http")]
pub(crate) mod tls;
pub mod transport;

// The wire layer, a crate of its own below this one (`ferromcp-protocol`): re-exported at the
// paths it always had, so `ferromcp::jsonrpc::Message` and the like name what they named.
pub use ferromcp_protocol::{error, jsonrpc, protocol, schema, uri_template};

pub use error::{codes, McpError, Result};
pub use protocol::ProtocolVersion;
