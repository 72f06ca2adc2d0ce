//! The typed configuration every binding passes to embed: one struct per thing configured
//! ([`ServerConfig`], [`HttpConfig`], [`ClientConfig`]), read from JSON with camelCase keys.
//!
//! Bindings build a JSON object in their own language (a Python dict, a JS object, a Swift
//! `Codable`) and hand it over; the keys and their meaning are defined here once, so the three
//! bindings cannot drift. Unknown keys are an error in every struct: a typo (`jsonResponce`) must
//! fail loudly at start-up instead of being silently ignored.
//!
//! One file per thing configured: `server.rs` (identity, limits, caching hints, the
//! `requestState` key ring, middleware), `http.rs` (the Streamable HTTP server's options and
//! TLS) and `client.rs` (identity, protocol mode, the features offered). This file holds what
//! they share: reading any of them from JSON ([`from_json`]).

mod client;
#[cfg(feature = "http")]
mod http;
mod server;

pub use client::ClientConfig;
#[cfg(feature = "http")]
pub use http::{HttpConfig, TlsConfig};
pub use server::ServerConfig;

use ferromcp::McpError;
use serde::Deserialize;
use serde_json::Value;

/// Reads a config struct from JSON; `null` gives the defaults, anything but an object or null is
/// an error. Errors name the struct (`what`) and serde's reason (unknown key, wrong type).
pub fn from_json<T: for<'de> Deserialize<'de> + Default>(
    what: &str,
    v: Value,
) -> Result<T, McpError> {
    match v {
        Value::Null => Ok(T::default()),
        Value::Object(_) => {
            serde_json::from_value(v).map_err(|e| McpError::invalid_params(format!("{what}: {e}")))
        }
        other => Err(McpError::invalid_params(format!(
            "{what} must be an object, not {}",
            ferromcp::schema::json_type_name(&other)
        ))),
    }
}
