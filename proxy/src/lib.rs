//! # ferromcp-proxy
//!
//! A ferromcp server in front of other MCP servers (issue 39): their tools, resources,
//! resource templates, prompts and completions through one endpoint, namespaced per backend
//! ([`namespace`]), with progress, cancellation, logs, list changes and resource updates passed
//! on, and the backends' requests (sampling, elicitation, roots) forwarded to the real client.
//! Backends are stdio commands or URLs read from the `mcpServers` JSON ([`config`]), or servers
//! of this program served in memory ([`InProcessBackend`], [`Proxy::start_with`]), started at
//! once or when a client first connects, and restarted with backoff when they die.
//!
//! It sits above the engine and uses only `ferromcp`'s public API: the proxy is a
//! [`ferromcp::server::Server`] whose handlers are [`ferromcp::client::Client`] calls.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use ferromcp_proxy::{Proxy, ProxyConfig, ProxyOptions};
//! let config = ProxyConfig::from_file(std::path::Path::new("mcp.json"))?;
//! let proxy = Proxy::start(&config, ProxyOptions::default()).await?;
//! proxy.server().serve_stdio().await?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod backend;
pub mod config;
mod connect;
mod era;
mod in_process;
mod multi_client;
pub mod namespace;
mod proxy;
mod supervisor;
mod surface;

pub use backend::{Backend, BackendOptions};
pub use config::{BackendSpec, ConfigError, ProxyConfig, Transport};
pub use connect::{connect, connect_in_process};
pub use in_process::InProcessBackend;
pub use multi_client::MultiClient;
pub use proxy::{Proxy, ProxyOptions};
