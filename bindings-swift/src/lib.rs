//! `FerroMCP` for Swift: the UniFFI glue between the ferromcp engine (`ferromcp_embed`) and the
//! Swift package's hand-written facade (`bindings-swift/Sources/FerroMCP`).
//!
//! Everything protocol-related stays in the engine; this crate only moves values across. JSON
//! crosses as UTF-8 strings (the facade encodes and decodes them with `Codable`), so the
//! interface stays small and every MCP shape the engine knows reaches Swift unchanged.
//!
//! - [`server::NativeServer`] wraps `EmbeddedServer`; Swift handlers are the foreign traits of
//!   [`handler`] ([`handler::ToolHandler`], ...), adapted here to the engine's
//!   `embed::Foreign*Handler` traits.
//! - [`client::NativeClient`] wraps `EmbeddedClient`; outgoing requests take an explicit
//!   [`client::NativeCancelHandle`], because cancelling a Swift `Task` does not drop the Rust
//!   future it awaits.
//! - [`context::NativeContext`] is what a handler gets: ids, `_meta`, progress, logging,
//!   requests back to the peer and cancellation.
//! - [`middleware::MiddlewareHandler`] is a Swift middleware layer (`embed::ForeignMiddleware`
//!   across UniFFI), with [`middleware::NativeNext`] for the rest of the chain and the built-ins
//!   added by name (`NativeServer::add_middleware_config`).
//! - MCP cancellation reaches Swift as `Task` cancellation: the engine drops the handler's
//!   future, which cancels the Swift task behind it (a server handler's through its `cancel`
//!   call, the client handler's through UniFFI's foreign future).
//!
//! The classes here are the facade's private layer (Swift module `FerroMCPNative`); Swift code
//! uses `FerroMCP` (`Server`, `Client`, `McpError`).

/// The library's allocator for everything the engine and the glue allocate (Swift's own
/// objects are not affected): mimalloc, whose per-thread free lists cost less than the system
/// allocator on this path, where memory allocated on the engine's thread is often freed on a
/// Swift executor thread and back (bench/results/swift-sdk-form-handler.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod apps;
pub mod auth;
pub mod client;
pub mod client_tasks;
pub mod client_tls;
pub mod composition;
pub mod context;
pub mod engine_hooks;
pub mod error;
pub mod handler;
pub mod http_handler;
pub mod listen;
pub mod log_sink;
pub mod mcp_servers;
pub mod middleware;
pub mod runtime;
pub mod server;
pub mod session_send;

uniffi::setup_scaffolding!("ferromcp_swift");

/// One named error code of the engine (`embed::ERROR_CODES`).
#[derive(Clone, Debug, uniffi::Record)]
pub struct ErrorCodeEntry {
    /// The name (PascalCase, e.g. `InvalidParams`).
    pub name: String,
    /// The JSON-RPC code.
    pub code: i32,
    /// What it means, one line.
    pub description: String,
    /// Whether errors with this code are made locally by a transport.
    pub transport: bool,
}

/// The engine's error-code table, from which the facade's `McpError.Code` is checked.
#[uniffi::export]
pub fn error_codes() -> Vec<ErrorCodeEntry> {
    ferromcp_embed::ERROR_CODES
        .iter()
        .map(|c| ErrorCodeEntry {
            name: c.name.to_string(),
            code: c.code,
            description: c.description.to_string(),
            transport: ferromcp_embed::is_transport_code(c.code),
        })
        .collect()
}

/// The engine's version.
#[uniffi::export]
pub fn engine_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// One header field or environment variable: a name and its value.
#[derive(Clone, Debug, uniffi::Record)]
pub struct NameValue {
    /// The name.
    pub name: String,
    /// The value.
    pub value: String,
}

impl From<NameValue> for (String, String) {
    fn from(p: NameValue) -> Self {
        (p.name, p.value)
    }
}
