//! MCP message types (serde) for every handshake-era revision, and version negotiation.
//!
//! Types follow the definition names of the official `schema.json`; fields are snake_case in
//! Rust and camelCase on the wire; `_meta` is `meta`. Every object keeps unknown fields in
//! `extra`, so a message round-trips losslessly.

mod version;

pub use version::ProtocolVersion;
