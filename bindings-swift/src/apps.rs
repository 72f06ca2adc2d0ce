//! MCP Apps and response-cache invalidation for Swift (`Apps.swift`, `ResponseCache.swift`):
//! thin calls into the bindings' seam (`ferromcp_embed::apps`,
//! `EmbeddedServer::invalidate_cache`), the path Python and Node take too; JSON crosses as
//! text. Every check is the engine's: a refusal is an [`FfiError`] with the engine's code
//! (-32602) and message, which the facade throws as its `McpError(.invalidParams)`.

use crate::error::{json_text, parse_json, FfiError};
use crate::runtime::enter;
use crate::server::NativeServer;
use ferromcp_embed::apps;
use std::sync::Arc;

/// Registers an MCP App's UI resource from its wire form as JSON text (`uri`, `name`, `title`,
/// `description`, `_meta`, `html`): `EmbeddedServer::add_ui_resource_json`.
#[uniffi::export]
pub fn ui_add_resource(server: Arc<NativeServer>, definition: String) -> Result<(), FfiError> {
    let definition = parse_json("UI resource definition", &definition)?;
    Ok(enter(|| {
        server.inner.add_ui_resource_json(definition, None)
    })?)
}

/// A tool's `_meta` (JSON text) naming its UI, checked and completed with the flat
/// `ui/resourceUri`: against `server` when given (the UI must be registered there as a UI
/// resource), otherwise the checks alone; errors name `tool_name`.
#[uniffi::export]
pub fn ui_tool_meta(
    server: Option<Arc<NativeServer>>,
    tool_name: String,
    meta: String,
) -> Result<String, FfiError> {
    let meta = parse_json("tool _meta", &meta)?;
    let checked = match server {
        Some(s) => s.inner.ui_tool_meta_json(&tool_name, meta)?,
        None => apps::tool_ui_meta_json(Some(&tool_name), meta)?,
    };
    Ok(json_text(&checked))
}

/// Fails unless `uri` is a UI resource URI (`ui://` and something, no whitespace).
#[uniffi::export]
pub fn ui_check_uri(uri: String) -> Result<(), FfiError> {
    Ok(apps::check_ui_uri(&uri)?)
}

/// Fails unless `ui` (JSON text) is a well-formed resource `_meta.ui`.
#[uniffi::export]
pub fn ui_check_resource_meta(ui: String) -> Result<(), FfiError> {
    let ui = parse_json("_meta.ui", &ui)?;
    Ok(apps::check_ui_resource_meta(&ui)?)
}

/// Whether a client's capabilities (JSON text) say it renders MCP Apps.
#[uniffi::export]
pub fn ui_capabilities_support(capabilities: Option<String>) -> bool {
    capabilities
        .and_then(|c| serde_json::from_str(&c).ok())
        .is_some_and(|c| apps::capabilities_support_ui(&c))
}

/// The capabilities a client declares to say it renders MCP Apps, as JSON text.
#[uniffi::export]
pub fn ui_client_capability() -> String {
    json_text(&apps::ui_client_capability())
}

/// The extension's identifiers as JSON text (`extension`, `mimeType`, `scheme`,
/// `legacyResourceUriKey`).
#[uniffi::export]
pub fn ui_constants() -> String {
    json_text(&apps::ui_constants())
}

/// Forgets entries of the server's response caches: all, one method's, or one resource's
/// reads (`EmbeddedServer::invalidate_cache`).
#[uniffi::export]
pub fn invalidate_cache(
    server: Arc<NativeServer>,
    method: Option<String>,
    uri: Option<String>,
) -> Result<(), FfiError> {
    Ok(server
        .inner
        .invalidate_cache(method.as_deref(), uri.as_deref())?)
}
