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
//! they share: reading any of them from JSON ([`from_json`]) and their JSON Schema
//! ([`config_schema`], derived once with `schemars` and checked in as `embed/config-schema.json`,
//! which each binding's tests read to check its option types against).

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

/// The JSON Schema of every configuration a binding passes, derived from the structs above:
/// `{"ServerConfig": ..., "HttpConfig": ..., "ClientConfig": ...}` (`HttpConfig` with the `http`
/// feature), each a JSON Schema 2020-12 document with its nested types under `$defs`. The
/// repository keeps it as `embed/config-schema.json`, checked against this by a test (set
/// `FERROMCP_BLESS=1` to rewrite the file), so the bindings' tests can read it without building
/// Rust. Keys whose values have shapes of their own (`middleware`, `compression`, `oauthProxy`)
/// are described as objects or any value; their own readers check them.
pub fn config_schema() -> Value {
    let mut m = serde_json::Map::new();
    m.insert(
        "ServerConfig".into(),
        serde_json::to_value(schemars::schema_for!(ServerConfig)).unwrap_or_default(),
    );
    #[cfg(feature = "http")]
    m.insert(
        "HttpConfig".into(),
        serde_json::to_value(schemars::schema_for!(HttpConfig)).unwrap_or_default(),
    );
    m.insert(
        "ClientConfig".into(),
        serde_json::to_value(schemars::schema_for!(ClientConfig)).unwrap_or_default(),
    );
    Value::Object(m)
}

#[cfg(all(test, feature = "http"))]
mod schema_tests {
    use super::config_schema;

    /// `embed/config-schema.json` is what the structs derive: a field added, renamed or retyped
    /// here must reach the file the bindings' checks read.
    #[test]
    fn the_checked_in_config_schema_is_the_derived_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config-schema.json");
        let derived = serde_json::to_string_pretty(&config_schema()).unwrap() + "\n";
        if std::env::var_os("FERROMCP_BLESS").is_some() {
            std::fs::write(path, &derived).unwrap();
        }
        let kept = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            kept == derived,
            "{path} is not the configs' derived schema: rerun with FERROMCP_BLESS=1 \
             (cargo test -p ferromcp-embed --lib config) and commit the file"
        );
        let server = &config_schema()["ServerConfig"]["properties"];
        for key in [
            "name",
            "pageSize",
            "cacheScope",
            "requestStateKeys",
            "middleware",
        ] {
            assert!(
                server.get(key).is_some(),
                "ServerConfig has no {key}: {server}"
            );
        }
    }
}
