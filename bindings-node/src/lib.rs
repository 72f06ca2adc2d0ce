//! `ferromcp` for Node.js: the N-API glue between the ferromcp engine (`ferromcp_embed`) and the
//! npm package's TypeScript facade (`bindings-node/ts`).
//!
//! Everything protocol-related stays in the engine; this crate converts values and calls
//! JavaScript handlers. JavaScript code should use the facade (`McpServer`, `Client`); the
//! classes here are its private native layer and may change.
//!
//! How JavaScript handlers are called: each server or client gets one [`handler::NativeDispatcher`]
//! built from three JavaScript functions (call, cancel, notify) as *weak* threadsafe functions,
//! so registered handlers never keep the process alive on their own. A call is queued to the
//! Node event loop; the facade runs the handler and resolves with an envelope (`{ok, value}` or
//! `{ok: false, error}`); MCP cancellation reaches the handler's `AbortSignal` through the
//! cancel function. See `bindings-node/README.md` ("How it works").

pub mod apps;
pub mod auth;
pub mod cli;
pub mod client;
pub mod client_tasks;
pub mod client_tls;
pub mod composition;
pub mod context;
pub mod convert;
pub mod engine_hooks;
pub mod error;
pub mod handler;
pub mod listen;
pub mod log_sink;
pub mod mcp_servers;
pub mod middleware;
pub mod oauth_proxy;
pub mod runtime;
pub mod server;
pub mod session_send;

/// The addon's allocator for everything the engine and the glue allocate (the JavaScript heap
/// and Node's own allocations are not affected): mimalloc, whose per-thread free lists cost a
/// fraction of glibc's malloc on this path, where buffers made on one thread are often freed on
/// the other (bench/results/node-sdk-form-handler.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use napi_derive::napi;
use std::collections::HashMap;

/// The engine's error-code table (`embed::ERROR_CODES`): name -> JSON-RPC code.
#[napi]
pub fn error_codes() -> HashMap<String, i32> {
    ferromcp_embed::ERROR_CODES
        .iter()
        .map(|c| (c.name.to_string(), c.code))
        .collect()
}

/// The engine's version.
#[napi]
pub fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
