//! # ferromcp
//!
//! One Rust engine for the Model Context Protocol (MCP): JSON-RPC framing, every handshake-era
//! protocol revision (2024-11-05 to 2025-11-25), sessions, the server and client feature sets,
//! schema validation and the transports. The Python, Node.js and Swift bindings all run on it.
//!
//! A server with one typed tool, and a client calling it over an in-memory transport (the
//! same calls work over stdio, a child process, WebSocket and Streamable HTTP):
//!
//! ```
//! use ferromcp::client::{Client, ClientHandlers, ClientOptions};
//! use ferromcp::server::Server;
//! use ferromcp::transport::memory_pair;
//! use serde_json::json;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add {
//!     a: f64,
//!     b: f64,
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), ferromcp::McpError> {
//!     let server = Server::builder("calc", "1.0")
//!         .tool("add", "Adds two numbers", |x: Add, _ctx| async move { (x.a + x.b).to_string() })
//!         .build()?;
//!
//!     let ((client_reader, client_writer), (server_reader, server_writer)) = memory_pair(16);
//!     tokio::spawn(async move { server.serve(server_reader, server_writer).await });
//!     let options = ClientOptions::new("example-client", "1.0");
//!     let client =
//!         Client::connect(options, ClientHandlers::default(), client_reader, client_writer).await?;
//!
//!     let result = client.call_tool("add", json!({ "a": 2, "b": 3 })).await?;
//!     assert_eq!(result.content[0].as_text(), Some("5"));
//!     // Arguments are validated against the derived schema before the handler runs.
//!     let refused = client.call_tool("add", json!({ "a": "two" })).await?;
//!     assert!(refused.is_error());
//!     client.close().await;
//!     Ok(())
//! }
//! ```
//!
//! The guide is [`docs/rust.md`](https://github.com/ferromcp/ferromcp/blob/main/docs/rust.md);
//! its examples are compiled and run as doctests of this crate.

#![warn(missing_docs)]

// OAuth 2.1 (client flow, resource server, OAuth proxy): a crate of its own below this one,
// `ferromcp-auth`, pulled by the `http` feature and re-exported at the path it always had
// (`doc(inline)`: this crate's API pages list its items under `auth`, as before the move).
#[cfg(feature = "http")]
#[doc(inline)]
pub use ferromcp_auth as auth;
// What `ferromcp-embed` (the bindings' seam, the crate above this one) needs from inside the
// engine; not an API (its module comment says why it exists).
#[doc(hidden)]
pub mod binding_seam;
pub mod client;
mod frame_io;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod server;
pub mod session;
// OpenTelemetry (feature `otel`): above the server (a middleware layer), below the client.
#[cfg(feature = "otel")]
pub mod telemetry;
pub mod transport;
pub mod wait;

// The wire layer, a crate of its own below this one (`ferromcp-protocol`): re-exported at the
// paths it always had, so `ferromcp::jsonrpc::Message` and the like name what they named.
pub use ferromcp_protocol::{error, jsonrpc, protocol, schema, uri_template};

pub use error::{codes, ErrorKind, McpError, Result};
pub use protocol::ProtocolVersion;

// The Rust guide's examples run as doctests of this crate (`cargo test --doc`), so the guide
// cannot drift from the API. Only under `cfg(doctest)`: the published package does not ship
// `docs/`, and nothing else sees this item (so it stays open: no #[non_exhaustive]).
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuide;
