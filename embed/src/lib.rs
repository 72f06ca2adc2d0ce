//! The JSON-in/JSON-out surface that the Python, Node.js and Swift bindings share.
//!
//! Foreign code never sees the engine's Rust types: it registers features with JSON definitions
//! (the MCP wire shapes: a `Tool`, a `Resource`, ...) and handlers (`Arc<dyn ForeignHandler>`,
//! one trait for every kind: [`ForeignHandler`]) that receive a [`ForeignRequest`] (JSON) and a
//! [`ForeignContext`] and answer JSON ([`ForeignAnswer`]) or an [`McpError`]. Everything
//! protocol-related (validation, lifecycle, cancellation, progress throttling, timeouts) stays in
//! the engine.
//!
//! - [`EmbeddedServer`] wraps [`ferromcp::server::Server`].
//! - [`EmbeddedClient`] wraps [`ferromcp::client::Client`]; [`EmbeddedSubscription`] is its
//!   `subscriptions/listen` (2026-07-28), shareable between a reader and a closer.
//! - [`ForeignContext`] is what a handler gets: request id, `_meta`, cancellation (observe it with
//!   [`ForeignContext::cancelled`] / [`ForeignContext::on_cancel`], trigger it with
//!   [`ForeignContext::cancel`]), progress, logging, requests back to the peer, and the
//!   2026-07-28 multi round-trip input ([`ForeignContext::input`], [`input_required`]).
//! - [`ForeignMiddleware`] is a layer of the server's middleware chain written in the binding's
//!   language ([`EmbeddedServer::add_middleware`]); the built-in layers are named in
//!   [`ServerConfig`]'s `middleware` or added with [`EmbeddedServer::add_middleware_config`].
//! - [`ForeignAccessPredicate`] decides in the engine's authorization layer which items a
//!   caller may list and call ([`EmbeddedServer::add_access_predicate`]);
//!   [`ForeignListProvider`] answers the list methods a page at a time
//!   ([`EmbeddedServer::add_list_provider`]).
//! - [`apps`] holds MCP Apps (the `io.modelcontextprotocol/ui` extension) for the bindings:
//!   UI resources, tools naming their UI, the client-capability check, all decided in the
//!   engine; [`EmbeddedServer::invalidate_cache`] empties the server's response caches.
//! - [`EmbeddedServer::mount`], [`EmbeddedServer::import_server`] and
//!   [`EmbeddedServer::add_transformed_tool_json`] compose servers and transform tools; a
//!   transform's output is reshaped by a [`ForeignOutputReshape`].
//! - [`foreign_token_store`] turns a binding's token store ([`ForeignTokenStore`], JSON in and
//!   out) into the engine's; the OAuth options themselves are [`OAuthSettings`].
//! - [`resolve_mcp_servers`] reads an `mcpServers` configuration for the bindings'
//!   multi-server clients (normalized entries with their name prefixes, or the error).
//! - [`log_forward`] hands the engine's `tracing` events (the request log, masked errors'
//!   details, warnings) to the host language's logging through a sink the binding registers
//!   ([`log_forward::install_log_sink`]).
//! - [`CancelHandle`] lets a foreign caller cancel an outgoing request explicitly (for runtimes
//!   such as UniFFI that cannot drop a Rust future).
//! - [`ServerConfig`], [`HttpConfig`] and [`ClientConfig`] are the typed configuration (camelCase
//!   JSON, unknown keys rejected); [`shape`] turns plain handler answers into MCP results;
//!   [`ERROR_CODES`] is the error-code table bindings build their error classes from.

pub mod apps;
#[cfg(feature = "http")]
mod auth;
mod authorization;
mod cache;
mod client;
mod client_tasks;
mod codes;
mod compose;
#[cfg(feature = "http")]
mod compression_config;
mod config;
mod context;
mod handler;
#[cfg(feature = "http")]
mod http;
mod list_provider;
mod listen;
pub mod log_forward;
mod mcp_servers;
mod middleware;
#[cfg(feature = "http")]
mod oauth_proxy;
pub mod runtime;
mod server;
mod session_send;
pub mod shape;
#[cfg(feature = "http")]
mod token_store;

#[cfg(feature = "http")]
pub use auth::{
    auth_info_from_json, ForeignOpener, ForeignRedirect, IntrospectionSettings, JwtSettings,
    OAuthSettings, ProtectionSettings,
};
pub use authorization::{foreign_authorization, item_kind_name, ForeignAccessPredicate};
pub use client::{CallOptions, CancelHandle, EmbeddedClient, ForeignClientHandler};
pub use codes::{error_json, is_tool_signal, is_transport_code, kind_name, ErrorCode, ERROR_CODES};
pub use compose::{
    is_output_schema_without_reshape, ForeignOutputReshape, OUTPUT_SCHEMA_WITHOUT_RESHAPE,
};
pub use config::{config_schema, ClientConfig, ServerConfig};
#[cfg(feature = "http")]
pub use config::{HttpConfig, TlsConfig};
pub use context::{input_required, ForeignContext};
pub use handler::{ForeignAnswer, ForeignHandler, ForeignRequest};
#[cfg(feature = "http")]
pub use http::{
    EmbeddedHttpHandler, EmbeddedHttpResponse, EmbeddedHttpServer, HttpConnectOptions,
    HttpRequestParts,
};
pub use list_provider::ForeignListProvider;
pub use listen::{listen_filter_from_json, EmbeddedSubscription};
pub use mcp_servers::{resolve_mcp_servers, resolve_mcp_servers_json};
pub use middleware::{request_json, timing_event_json, ForeignMiddleware, ForeignNext};
#[cfg(feature = "http")]
pub use oauth_proxy::{
    ClientIdDocumentSettings, EmbeddedOAuthProxy, OAuthProxySettings, UpstreamSettings,
};
pub use server::EmbeddedServer;
#[cfg(feature = "http")]
pub use token_store::{foreign_token_store, ForeignTokenStore};

use ferromcp::McpError;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Decodes a JSON value into an engine type, reporting `what` on failure as invalid params.
pub(crate) fn decode<T: DeserializeOwned>(what: &str, v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::invalid_params(format!("{what}: {e}")))
}

/// Decodes what a foreign handler returned; a bad shape is the handler's fault (internal error).
pub(crate) fn decode_result<T: DeserializeOwned>(what: &str, v: Value) -> Result<T, McpError> {
    serde_json::from_value(v)
        .map_err(|e| McpError::internal(format!("handler returned a malformed {what}: {e}")))
}
