//! # ferromcp-protocol
//!
//! The wire layer of ferromcp: JSON-RPC 2.0 framing ([`jsonrpc`]), the Model Context Protocol's
//! types of every revision with version negotiation ([`protocol`]), JSON Schema validation
//! ([`schema`]), RFC 6570 URI templates ([`uri_template`]), the one error type
//! ([`McpError`]) and the identity a verified token grants ([`auth_info::AuthInfo`], named by
//! both `ferromcp-auth` and `ferromcp`). No async runtime, no I/O: the sessions, the server, the
//! client and the transports live in the `ferromcp` crate above, which re-exports the modules
//! here at the same path (`ferromcp::jsonrpc`, `ferromcp::protocol`, ...; `AuthInfo` at
//! `ferromcp::session::AuthInfo` and `ferromcp::auth::AuthInfo`).
//!
//! Items marked `#[doc(hidden)]` are the engine's own seams between this crate and `ferromcp`
//! (the fast scanners, the `_meta` checks): they are not an API and may change in any release.

#![warn(missing_docs)]

pub mod auth_info;
pub mod error;
pub mod jsonrpc;
pub mod protocol;
pub mod schema;
// `with_setters!`, exported hidden for the option structs of the crates above.
mod setters;
pub mod uri_template;

pub use error::{codes, ErrorKind, McpError, Result};
pub use protocol::ProtocolVersion;
