//! The `mcpServers` configuration the proxy and the `ferromcp` command read: the engine's
//! ([`ferromcp::client::mcp_servers`], read there once for the proxy and for every binding's
//! multi-server client), under the names this crate has always given it. A [`ProxyConfig`]'s
//! `servers` are the proxy's backends; a [`BackendSpec`] is one of them.

pub use ferromcp::client::mcp_servers::{
    check_namespace, split_command_line, ConfigError, McpServersConfig as ProxyConfig,
    ServerEntry as BackendSpec, ServerTransport as Transport,
};
