//! MCP message types (serde) for every handshake-era revision, and version negotiation.
//!
//! Types follow the definition names of the official `schema.json` (2025-11-25), and decode
//! the older revisions (2024-11-05, 2025-03-26, 2025-06-18) too; fields are snake_case in
//! Rust and camelCase on the wire; `_meta` is `meta`. Every object keeps unknown fields in
//! `extra`, so a message round-trips losslessly.
//!
//! Everything is re-exported flat from here; the submodules only group the types by area.

mod client_features;
mod completion;
mod content;
mod header_params;
mod lifecycle;
mod logging;
mod meta;
pub mod methods;
mod notifications;
mod prompts;
mod resources;
mod tasks;
mod tools;
mod version;

pub use client_features::*;
pub use completion::*;
pub use content::*;
pub use header_params::{checked_header_params, encode_header_value, header_params, HeaderParam};
pub use lifecycle::*;
pub use logging::*;
pub use meta::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use tasks::*;
pub use tools::*;
pub use version::ProtocolVersion;
