//! The `mcpServers` configuration for `ferromcp.MultiClient`: read by the engine
//! (`ferromcp_embed::resolve_mcp_servers`), handed to Python as JSON text.

use pyo3::prelude::*;

/// Reads an `mcpServers` configuration (its JSON text, or the path of a file holding it) and
/// answers the normalized servers as JSON text, or `{"error": {"path", "message"}}`.
#[pyfunction]
pub fn resolve_mcp_servers(py: Python<'_>, source: &str) -> String {
    py.allow_threads(|| ferromcp_embed::resolve_mcp_servers_json(source))
}
