//! MCP Apps (the `io.modelcontextprotocol/ui` extension) for the bindings: the engine's checks
//! and shapes (`ferromcp::server::apps`) taking and answering JSON, so that Python, Node and
//! Swift keep no copy of them.
//!
//! Why a seam of its own: every decision of the extension (the `ui://` URI, the MIME type
//! `text/html;profile=mcp-app`, the members of a resource's `_meta.ui`, a tool's
//! `_meta.ui.resourceUri` and `visibility`, the deprecated flat `ui/resourceUri`, refusing a
//! tool whose UI is not registered, whether a client renders UIs) is made once, in the engine;
//! a binding converts its own arguments to the wire form and calls here:
//!
//! - [`EmbeddedServer::add_ui_resource_json`] registers a UI resource from its wire form (a
//!   `Resource` plus `html`, or a handler answering the HTML at each read);
//! - [`EmbeddedServer::ui_tool_meta_json`] checks a tool's `_meta` naming its UI against this
//!   server and answers the `_meta` to register the tool with (by the binding's own tool
//!   registration, which builds schemas and wraps handlers);
//! - [`check_ui_uri`], [`check_ui_resource_meta`], [`tool_ui_meta_json`] are the checks alone,
//!   for a binding's public check functions; [`capabilities_support_ui`] reads a client's
//!   capabilities; [`ui_constants`] names the extension's identifiers.

use super::{decode, EmbeddedServer, ForeignContext, ForeignHandler, ForeignRequest};
use ferromcp::protocol::Resource;
use ferromcp::server::apps;
use ferromcp::McpError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

pub use ferromcp::server::apps::{capabilities_support_ui, check_ui_uri, ui_client_capability};

/// Checks a resource's `_meta.ui` against the extension's `UIResourceMeta`
/// ([`apps::check_ui_resource_meta`]); the error names the member and the rule.
pub fn check_ui_resource_meta(ui: &Value) -> Result<(), McpError> {
    apps::check_ui_resource_meta(ui)
}

/// A tool's `_meta` naming its UI, checked and completed without a server: `meta` is an object
/// whose `ui` holds `resourceUri` (a `ui://` URI) and optionally `visibility`; the answer has
/// the deprecated flat `ui/resourceUri` too. With `tool_name` the errors name the tool.
pub fn tool_ui_meta_json(tool_name: Option<&str>, meta: Value) -> Result<Value, McpError> {
    apps::tool_ui_meta(tool_name, meta_object(meta)?).map(Value::Object)
}

fn meta_object(meta: Value) -> Result<Map<String, Value>, McpError> {
    match meta {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        other => Err(McpError::invalid_params(format!(
            "a tool's _meta must be an object, not {}",
            ferromcp::schema::json_type_name(&other)
        ))),
    }
}

/// The extension's identifiers: `{"extension": "io.modelcontextprotocol/ui", "mimeType":
/// "text/html;profile=mcp-app", "scheme": "ui://", "legacyResourceUriKey": "ui/resourceUri"}`.
pub fn ui_constants() -> Value {
    json!({
        "extension": apps::UI_EXTENSION,
        "mimeType": apps::UI_MIME_TYPE,
        "scheme": apps::UI_SCHEME,
        "legacyResourceUriKey": apps::LEGACY_RESOURCE_URI_KEY,
    })
}

impl EmbeddedServer {
    /// Registers (or replaces) an MCP App's UI resource from its wire form: the `Resource`
    /// members (`uri`, `name`, `title`, `description`, `_meta` with its `ui`; `mimeType` may be
    /// left out, it is the app MIME type) plus either `html` (the document, served as it is) or
    /// `handler`, which gets [`ForeignRequest::ReadResource`] at each read and answers the
    /// HTML as a string. Refused, with the engine's message, unless the URI is `ui://`, the MIME
    /// type the app one and `_meta.ui` well formed. `resources/read` answers the HTML with the
    /// app MIME type and the resource's `_meta`.
    pub fn add_ui_resource_json(
        &self,
        definition: Value,
        handler: Option<Arc<dyn ForeignHandler>>,
    ) -> Result<(), McpError> {
        let Value::Object(mut definition) = definition else {
            return Err(McpError::invalid_params(
                "UI resource definition must be an object",
            ));
        };
        let html = match definition.remove("html") {
            None => None,
            Some(Value::String(h)) => Some(h),
            Some(other) => {
                return Err(McpError::invalid_params(format!(
                    "UI resource definition: html must be a string, not {}",
                    ferromcp::schema::json_type_name(&other)
                )))
            }
        };
        let resource: Resource = decode("UI resource definition", Value::Object(definition))?;
        match (html, handler) {
            (Some(html), None) => self.server().add_ui_resource_fn(resource, move |_, _| {
                let html = html.clone();
                async move { Ok(html) }
            }),
            (None, Some(handler)) => self.server().add_ui_resource_fn(resource, move |req, ctx| {
                let request = ForeignRequest::ReadResource {
                    uri: req.uri,
                    variables: json!({}),
                };
                let fut = ferromcp::wait::handover(handler.call(request, ForeignContext::new(ctx)));
                async move {
                    match fut.await?.into_value("resources/read")? {
                        Value::String(html) => Ok(html),
                        other => Err(McpError::internal(format!(
                            "a UI resource's handler must answer its HTML as a string, not {}",
                            ferromcp::schema::json_type_name(&other)
                        ))),
                    }
                }
            }),
            (Some(_), Some(_)) => Err(McpError::invalid_params(
                "UI resource definition: html and a handler are exclusive",
            )),
            (None, None) => Err(McpError::invalid_params(
                "UI resource definition: give html or a handler answering it",
            )),
        }
    }

    /// A tool's `_meta` naming its UI, checked against this server
    /// ([`ferromcp::server::Server::ui_tool_meta`]): `meta["ui"]` holds `resourceUri` and
    /// optionally `visibility`; refused unless the URI names a UI resource registered here.
    /// Answers the `_meta` (the deprecated flat `ui/resourceUri` added) to register the tool
    /// with.
    pub fn ui_tool_meta_json(&self, tool_name: &str, meta: Value) -> Result<Value, McpError> {
        self.server()
            .ui_tool_meta(tool_name, meta_object(meta)?)
            .map(Value::Object)
    }
}
