//! MCP Apps and response-cache invalidation for Node (`ts/apps.ts`, `ts/cache.ts`): thin calls
//! into the bindings' seam (`ferromcp_embed::apps`, `EmbeddedServer::invalidate_cache`), the
//! path Python and Swift take too. Every check is the engine's; a refusal is thrown as an
//! `Error` whose message is the engine's, which the facade rethrows as its `TypeError`.

use crate::handler::JsHandler;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::apps;
use napi_derive::napi;
use serde_json::Value;

fn plain(e: McpError) -> napi::Error {
    napi::Error::from_reason(e.message)
}

/// Registers an MCP App's UI resource from its wire form (`uri`, `name`, `title`,
/// `description`, `_meta`, and `html` or a handler answering it at each read):
/// `EmbeddedServer::add_ui_resource_json`.
#[napi]
pub fn ui_add_resource(
    server: &NativeServer,
    definition: Value,
    handler_id: Option<u32>,
) -> napi::Result<()> {
    let handler = handler_id.map(|id| {
        JsHandler::from_dispatch(server.dispatch().clone(), id)
            as std::sync::Arc<dyn ferromcp_embed::ForeignHandler>
    });
    server
        .embedded()
        .add_ui_resource_json(definition, handler)
        .map_err(plain)
}

/// A tool's `_meta` naming its UI, checked against `server` (the UI must be registered there
/// as a UI resource) and completed with the flat `ui/resourceUri`.
#[napi]
pub fn ui_tool_meta(server: &NativeServer, tool_name: String, meta: Value) -> napi::Result<Value> {
    server
        .embedded()
        .ui_tool_meta_json(&tool_name, meta)
        .map_err(plain)
}

/// Throws unless `uri` is a UI resource URI (`ui://` and something, no whitespace).
#[napi]
pub fn ui_check_uri(uri: String) -> napi::Result<()> {
    apps::check_ui_uri(&uri).map_err(plain)
}

/// Throws unless `ui` is a well-formed resource `_meta.ui`.
#[napi]
pub fn ui_check_resource_meta(ui: Value) -> napi::Result<()> {
    apps::check_ui_resource_meta(&ui).map_err(plain)
}

/// Whether a client's capabilities say it renders MCP Apps.
#[napi]
pub fn ui_capabilities_support(capabilities: Option<Value>) -> bool {
    capabilities.is_some_and(|c| apps::capabilities_support_ui(&c))
}

/// The capabilities a client declares to say it renders MCP Apps.
#[napi]
pub fn ui_client_capability() -> Value {
    apps::ui_client_capability()
}

/// The extension's identifiers (`extension`, `mimeType`, `scheme`, `legacyResourceUriKey`).
#[napi]
pub fn ui_constants() -> Value {
    apps::ui_constants()
}

/// Forgets entries of the server's response caches: all, one method's, or one resource's
/// reads (`EmbeddedServer::invalidate_cache`).
#[napi]
pub fn invalidate_cache(
    server: &NativeServer,
    method: Option<String>,
    uri: Option<String>,
) -> napi::Result<()> {
    server
        .embedded()
        .invalidate_cache(method.as_deref(), uri.as_deref())
        .map_err(plain)
}
