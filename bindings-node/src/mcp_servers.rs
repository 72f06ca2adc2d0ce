//! The `mcpServers` configuration for the facade's `MultiClient`: read by the engine
//! (`ferromcp_embed::resolve_mcp_servers`), handed to JavaScript as JSON text.

use napi_derive::napi;

/// Reads an `mcpServers` configuration (its JSON text, or the path of a file holding it) and
/// answers the normalized servers as JSON text, or `{"error": {"path", "message"}}`.
#[napi]
pub fn resolve_mcp_servers(source: String) -> String {
    ferromcp_embed::resolve_mcp_servers_json(&source)
}
