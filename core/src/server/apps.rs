//! MCP Apps: the `io.modelcontextprotocol/ui` extension (SEP-1865, stable 2026-01-26), which
//! lets a tool name an HTML user interface that a host renders in a sandboxed frame.
//!
//! What the extension asks of a server, and what this module gives for it:
//!
//! - a UI is a resource whose URI starts with `ui://` and whose MIME type is
//!   `text/html;profile=mcp-app` ([`UI_MIME_TYPE`]), served by `resources/read` with that MIME
//!   type and, under `_meta.ui`, the Content Security Policy domains (`csp`), the browser
//!   permissions (`permissions`), a dedicated origin (`domain`) and a border preference
//!   (`prefersBorder`) it needs: [`UiResource`], registered by [`ServerBuilder::ui_resource`]
//!   or [`Server::add_ui_resource`];
//! - a tool names its UI in `_meta.ui.resourceUri`, and who may call it in
//!   `_meta.ui.visibility` (`"model"`, `"app"`): [`UiToolMeta`], attached by
//!   [`ServerBuilder::ui_tool`] or [`Server::add_ui_tool`], which refuse a tool whose UI is not
//!   registered on the server (the extension: "Resource MUST exist on the server");
//! - a client that renders UIs says so under `capabilities.extensions`
//!   (`{"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}`):
//!   [`client_supports_ui`] reads it from a request's context (both protocol eras), so a tool
//!   can answer with text alone to a client that will not show the UI; [`ui_client_capability`]
//!   is that object for a client to advertise.
//!
//! Every check happens at registration, with an error naming the member and the rule
//! ([`check_ui_resource`], [`check_tool_ui_meta`], also usable on hand-built values). The
//! bindings (through `ferromcp-embed`) take the same checks on the wire forms they hold:
//! [`ui_resource_definition`] and [`Server::add_ui_resource_fn`] for a UI resource as a
//! `Resource` with HTML made per read, [`Server::ui_tool_meta`] for the `_meta` of a tool they
//! register themselves; no binding keeps a copy of a check. A
//! registered tool's `_meta` also carries the flat key `ui/resourceUri`, which the extension
//! keeps as deprecated for hosts written before the nested form.

use super::{resource_fn, Server, ServerBuilder, ToolFn};
use crate::protocol::{Resource, ResourceContents, TextResourceContents, Tool};
use crate::session::RequestContext;
use crate::McpError;
use serde_json::{json, Map, Value};

/// The extension's identifier, the key under `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML, on its resource and on what `resources/read` returns.
pub const UI_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The URI scheme every UI resource uses.
pub const UI_SCHEME: &str = "ui://";
/// The deprecated flat `_meta` key older hosts read a tool's UI from.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// The origins a UI may reach, which the host turns into its Content Security Policy. Empty
/// lists are left out: the host's restrictive default applies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiCsp {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media.
    pub resource_domains: Vec<String>,
    /// Origins for nested frames (`frame-src`).
    pub frame_domains: Vec<String>,
    /// Allowed base URIs (`base-uri`).
    pub base_uri_domains: Vec<String>,
}

ferromcp_protocol::with_setters!(UiCsp {
    connect_domains: Vec<String> => with_connect_domains,
    resource_domains: Vec<String> => with_resource_domains,
    frame_domains: Vec<String> => with_frame_domains,
    base_uri_domains: Vec<String> => with_base_uri_domains,
});

/// The browser permissions a UI asks for (the host may grant or not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiPermissions {
    /// `camera`.
    pub camera: bool,
    /// `microphone`.
    pub microphone: bool,
    /// `geolocation`.
    pub geolocation: bool,
    /// `clipboard-write`.
    pub clipboard_write: bool,
}

ferromcp_protocol::with_setters!(UiPermissions {
    camera: bool => with_camera,
    microphone: bool => with_microphone,
    geolocation: bool => with_geolocation,
    clipboard_write: bool => with_clipboard_write,
});

/// Who may call a tool that has a UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Visibility {
    /// The model (the agent's tool list).
    Model,
    /// The tool's UI, from the same server connection.
    App,
}

impl Visibility {
    fn as_str(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }
}

/// A tool's `_meta.ui`: the UI it renders its results with, and who may call it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiToolMeta {
    /// The `ui://` URI of a UI resource registered on the same server.
    pub resource_uri: String,
    /// Who may call it; `None` leaves the extension's default (`["model", "app"]`).
    pub visibility: Option<Vec<Visibility>>,
}

impl UiToolMeta {
    /// A tool rendered with the UI at `resource_uri`, visible to model and app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        UiToolMeta {
            resource_uri: resource_uri.into(),
            visibility: None,
        }
    }

    /// Sets who may call the tool (`[Visibility::App]` hides it from the model).
    pub fn with_visibility(mut self, visibility: Vec<Visibility>) -> Self {
        self.visibility = Some(visibility);
        self
    }

    /// The `_meta.ui` object.
    pub fn to_json(&self) -> Value {
        let mut ui = Map::new();
        ui.insert("resourceUri".into(), self.resource_uri.clone().into());
        if let Some(v) = &self.visibility {
            ui.insert(
                "visibility".into(),
                v.iter().map(|v| Value::from(v.as_str())).collect(),
            );
        }
        Value::Object(ui)
    }
}

/// An MCP App's UI: a `ui://` resource serving one HTML document, with its `_meta.ui`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiResource {
    /// The `ui://` URI.
    pub uri: String,
    /// The resource's name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What the UI does.
    pub description: Option<String>,
    /// The HTML document served by `resources/read`.
    pub html: String,
    /// Origins the UI reaches (`_meta.ui.csp`).
    pub csp: Option<UiCsp>,
    /// Permissions it asks for (`_meta.ui.permissions`).
    pub permissions: UiPermissions,
    /// A dedicated sandbox origin (`_meta.ui.domain`; its format is the host's).
    pub domain: Option<String>,
    /// Whether the host should draw a border and background (`_meta.ui.prefersBorder`).
    pub prefers_border: Option<bool>,
}

impl UiResource {
    /// A UI at `uri` named `name` serving `html`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>, html: impl Into<String>) -> Self {
        UiResource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            html: html.into(),
            csp: None,
            permissions: UiPermissions::default(),
            domain: None,
            prefers_border: None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the display name.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the origins the UI reaches.
    pub fn with_csp(mut self, csp: UiCsp) -> Self {
        self.csp = Some(csp);
        self
    }

    /// Sets the permissions the UI asks for.
    pub fn with_permissions(mut self, permissions: UiPermissions) -> Self {
        self.permissions = permissions;
        self
    }

    /// Sets the dedicated sandbox origin.
    pub fn with_domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Sets the border preference.
    pub fn with_prefers_border(mut self, prefers_border: bool) -> Self {
        self.prefers_border = Some(prefers_border);
        self
    }

    /// The `_meta.ui` object (empty when nothing is set).
    pub fn ui_meta(&self) -> Map<String, Value> {
        let mut ui = Map::new();
        if let Some(csp) = &self.csp {
            let mut c = Map::new();
            for (key, list) in [
                ("connectDomains", &csp.connect_domains),
                ("resourceDomains", &csp.resource_domains),
                ("frameDomains", &csp.frame_domains),
                ("baseUriDomains", &csp.base_uri_domains),
            ] {
                if !list.is_empty() {
                    c.insert(key.into(), json!(list));
                }
            }
            ui.insert("csp".into(), Value::Object(c));
        }
        let p = self.permissions;
        let mut perms = Map::new();
        for (key, on) in [
            ("camera", p.camera),
            ("microphone", p.microphone),
            ("geolocation", p.geolocation),
            ("clipboardWrite", p.clipboard_write),
        ] {
            if on {
                perms.insert(key.into(), json!({}));
            }
        }
        if !perms.is_empty() {
            ui.insert("permissions".into(), Value::Object(perms));
        }
        if let Some(d) = &self.domain {
            ui.insert("domain".into(), d.clone().into());
        }
        if let Some(b) = self.prefers_border {
            ui.insert("prefersBorder".into(), b.into());
        }
        ui
    }

    fn meta(&self) -> Option<Map<String, Value>> {
        let ui = self.ui_meta();
        (!ui.is_empty()).then(|| {
            let mut meta = Map::new();
            meta.insert("ui".into(), Value::Object(ui));
            meta
        })
    }

    /// The resource as `resources/list` shows it, checked ([`check_ui_resource`]).
    pub fn resource(&self) -> Result<Resource, McpError> {
        let mut r = Resource::new(self.uri.clone(), self.name.clone()).with_mime_type(UI_MIME_TYPE);
        r.title = self.title.clone();
        r.description = self.description.clone();
        r.meta = self.meta();
        check_ui_resource(&r)?;
        Ok(r)
    }

    /// What `resources/read` returns for it: the HTML with the MIME type and `_meta.ui`.
    pub fn contents(&self) -> ResourceContents {
        ui_contents(self.uri.clone(), self.html.clone(), self.meta())
    }
}

fn ui_contents(uri: String, html: String, meta: Option<Map<String, Value>>) -> ResourceContents {
    let mut text = TextResourceContents::new(uri, html).with_mime_type(UI_MIME_TYPE);
    text.meta = meta;
    ResourceContents::Text(text)
}

/// What `resources/read` returns for a UI resource given in its wire form (as
/// [`ui_resource_definition`] checked it): `html` with the MIME type [`UI_MIME_TYPE`] and the
/// resource's `_meta` (so `_meta.ui` is on the listing and on the read alike).
pub fn ui_resource_contents(resource: &Resource, html: String) -> ResourceContents {
    ui_contents(resource.uri.clone(), html, resource.meta.clone())
}

/// A UI resource in its wire form (a `Resource`, as a binding's JSON gives it), made ready to
/// register: a missing MIME type becomes [`UI_MIME_TYPE`], then [`check_ui_resource`] (URI,
/// MIME type, `_meta.ui`). Other `_meta` members are kept as they are.
pub fn ui_resource_definition(mut resource: Resource) -> Result<Resource, McpError> {
    if resource.mime_type.is_none() {
        resource.mime_type = Some(UI_MIME_TYPE.to_string());
    }
    check_ui_resource(&resource)?;
    Ok(resource)
}

fn invalid(what: String) -> McpError {
    McpError::invalid_params(what)
}

/// Checks a `ui://` URI: the scheme, then at least one character, no whitespace.
pub fn check_ui_uri(uri: &str) -> Result<(), McpError> {
    match uri.strip_prefix(UI_SCHEME) {
        Some(rest) if !rest.is_empty() && !rest.chars().any(char::is_whitespace) => Ok(()),
        Some(_) => Err(invalid(format!(
            "UI resource URI {uri:?} has nothing after ui:// or contains whitespace"
        ))),
        None => Err(invalid(format!(
            "UI resource URI {uri:?} must use the ui:// scheme (MCP Apps)"
        ))),
    }
}

/// Checks a resource declared as an MCP App's UI: a `ui://` URI, the MIME type
/// [`UI_MIME_TYPE`] and, if present, a well-formed `_meta.ui` ([`check_ui_resource_meta`]).
pub fn check_ui_resource(resource: &Resource) -> Result<(), McpError> {
    check_ui_uri(&resource.uri)?;
    match resource.mime_type.as_deref() {
        Some(UI_MIME_TYPE) => {}
        other => {
            return Err(invalid(format!(
                "UI resource {:?} has MIME type {:?}; MCP Apps require {UI_MIME_TYPE:?}",
                resource.uri,
                other.unwrap_or("(none)")
            )))
        }
    }
    if let Some(ui) = resource.meta.as_ref().and_then(|m| m.get("ui")) {
        check_ui_resource_meta(ui)
            .map_err(|e| invalid(format!("UI resource {:?}: {}", resource.uri, e.message)))?;
    }
    Ok(())
}

fn string_list(value: &Value, path: &str) -> Result<(), McpError> {
    match value.as_array() {
        Some(items)
            if items
                .iter()
                .all(|i| i.as_str().is_some_and(|s| !s.is_empty())) =>
        {
            Ok(())
        }
        _ => Err(invalid(format!(
            "{path} must be a list of non-empty strings"
        ))),
    }
}

/// Checks a resource's `_meta.ui` against the extension's `UIResourceMeta`: `csp` an object of
/// string lists (`connectDomains`, `resourceDomains`, `frameDomains`, `baseUriDomains`),
/// `permissions` an object of empty objects (`camera`, `microphone`, `geolocation`,
/// `clipboardWrite`), `domain` a string, `prefersBorder` a boolean. Unknown members are let
/// through (the extension may add some; a host ignores what it does not know).
pub fn check_ui_resource_meta(ui: &Value) -> Result<(), McpError> {
    let Some(ui) = ui.as_object() else {
        return Err(invalid("_meta.ui must be an object".into()));
    };
    if let Some(csp) = ui.get("csp") {
        let Some(csp) = csp.as_object() else {
            return Err(invalid("_meta.ui.csp must be an object".into()));
        };
        for (key, list) in csp {
            match key.as_str() {
                "connectDomains" | "resourceDomains" | "frameDomains" | "baseUriDomains" => {
                    string_list(list, &format!("_meta.ui.csp.{key}"))?
                }
                _ => {
                    return Err(invalid(format!(
                        "_meta.ui.csp.{key} is not a CSP member of MCP Apps (connectDomains, \
                         resourceDomains, frameDomains, baseUriDomains)"
                    )))
                }
            }
        }
    }
    if let Some(perms) = ui.get("permissions") {
        let Some(perms) = perms.as_object() else {
            return Err(invalid("_meta.ui.permissions must be an object".into()));
        };
        for (key, v) in perms {
            if !matches!(
                key.as_str(),
                "camera" | "microphone" | "geolocation" | "clipboardWrite"
            ) {
                return Err(invalid(format!(
                    "_meta.ui.permissions.{key} is not a permission of MCP Apps (camera, \
                     microphone, geolocation, clipboardWrite)"
                )));
            }
            // The extension's schema: an empty object (`additionalProperties: false`).
            if !v.as_object().is_some_and(Map::is_empty) {
                return Err(invalid(format!(
                    "_meta.ui.permissions.{key} must be an empty object ({{}})"
                )));
            }
        }
    }
    if ui.get("domain").is_some_and(|d| !d.is_string()) {
        return Err(invalid("_meta.ui.domain must be a string".into()));
    }
    if ui.get("prefersBorder").is_some_and(|b| !b.is_boolean()) {
        return Err(invalid("_meta.ui.prefersBorder must be a boolean".into()));
    }
    Ok(())
}

/// Checks a tool's `_meta.ui` (if any) against the extension's `McpUiToolMeta`:
/// `resourceUri` a `ui://` URI, `visibility` a non-empty list of `"model"` and `"app"`.
pub fn check_tool_ui_meta(tool: &Tool) -> Result<(), McpError> {
    let Some(ui) = tool.meta.as_ref().and_then(|m| m.get("ui")) else {
        return Ok(());
    };
    check_tool_ui(ui).map_err(|e| invalid(format!("tool {:?}: {}", tool.name, e.message)))
}

/// Checks the value of a tool's `_meta.ui` (as [`check_tool_ui_meta`] does, its messages
/// without the tool's name): an object, `resourceUri` a `ui://` URI, `visibility` a non-empty
/// list of `"model"` and `"app"`, and no `csp` or `permissions` (the extension's
/// `McpUiToolMeta` forbids them there: they belong on the UI resource's `_meta.ui`).
pub fn check_tool_ui(ui: &Value) -> Result<(), McpError> {
    let Some(ui) = ui.as_object() else {
        return Err(invalid("_meta.ui must be an object".into()));
    };
    for key in ["csp", "permissions"] {
        if ui.contains_key(key) {
            return Err(invalid(format!(
                "_meta.ui.{key} belongs on the UI resource's _meta.ui, not on a tool's \
                 (MCP Apps)"
            )));
        }
    }
    if let Some(uri) = ui.get("resourceUri") {
        let Some(uri) = uri.as_str() else {
            return Err(invalid("_meta.ui.resourceUri must be a string".into()));
        };
        check_ui_uri(uri)?;
    }
    if let Some(v) = ui.get("visibility") {
        let ok = v.as_array().is_some_and(|items| {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i.as_str(), Some("model") | Some("app")))
        });
        if !ok {
            return Err(invalid(
                "_meta.ui.visibility must be a non-empty list of \"model\" and \"app\"".into(),
            ));
        }
    }
    Ok(())
}

/// A tool's `_meta` naming its UI, checked and completed for registration: `meta["ui"]` must
/// be a well-formed `_meta.ui` ([`check_tool_ui`]) with a `resourceUri`; the deprecated flat
/// key [`LEGACY_RESOURCE_URI_KEY`] is set from it. Errors name the tool when `tool_name` is
/// given. Whether the UI is registered is the server's part ([`Server::ui_tool_meta`]).
pub fn tool_ui_meta(
    tool_name: Option<&str>,
    mut meta: Map<String, Value>,
) -> Result<Map<String, Value>, McpError> {
    let named = |e: McpError| match tool_name {
        Some(name) => invalid(format!("tool {name:?}: {}", e.message)),
        None => e,
    };
    let uri = match meta.get("ui") {
        None => return Err(named(invalid("_meta.ui must be an object".into()))),
        Some(ui) => {
            check_tool_ui(ui).map_err(named)?;
            match ui.get("resourceUri").and_then(Value::as_str) {
                Some(uri) => uri.to_string(),
                None => {
                    return Err(named(invalid(
                        "_meta.ui.resourceUri is required (the ui:// URI of the tool's UI)".into(),
                    )))
                }
            }
        }
    };
    meta.insert(LEGACY_RESOURCE_URI_KEY.into(), uri.into());
    Ok(meta)
}

/// Whether a client's capabilities object says it renders MCP Apps: it lists
/// [`UI_MIME_TYPE`] in `extensions["io.modelcontextprotocol/ui"].mimeTypes`.
pub fn capabilities_support_ui(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(UI_EXTENSION))
        .and_then(|u| u.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(UI_MIME_TYPE)))
}

/// Whether the client behind this request renders MCP Apps (what it declared at initialize, or
/// with this request in the 2026-07-28 era). A tool with a UI still answers meaningful
/// `content`; a server may also leave the UI out for a client that says no.
pub fn client_supports_ui(ctx: &RequestContext) -> bool {
    ctx.session()
        .negotiated()
        .is_some_and(|n| capabilities_support_ui(&n.peer_capabilities))
}

/// The capabilities a client merges into its own to say it renders MCP Apps (for
/// `ClientHandlers::extra_capabilities`).
pub fn ui_client_capability() -> Value {
    json!({ "extensions": { UI_EXTENSION: { "mimeTypes": [UI_MIME_TYPE] } } })
}

fn ui_tool_checked(server: &Server, mut tool: Tool, ui: &UiToolMeta) -> Result<Tool, McpError> {
    let mut meta = tool.meta.take().unwrap_or_default();
    meta.insert("ui".into(), ui.to_json());
    tool.meta = Some(server.ui_tool_meta(&tool.name, meta)?);
    Ok(tool)
}

impl Server {
    /// A tool's `_meta` naming its UI, ready to register the tool with ([`tool_ui_meta`]:
    /// checked, the deprecated flat key set); refused unless `_meta.ui.resourceUri` is a UI
    /// resource (MIME type [`UI_MIME_TYPE`]) already registered on this server (the extension:
    /// "Resource MUST exist on the server"). For a tool registered by other means than
    /// [`Self::add_ui_tool`] (the bindings' own tool registration).
    pub fn ui_tool_meta(
        &self,
        tool_name: &str,
        meta: Map<String, Value>,
    ) -> Result<Map<String, Value>, McpError> {
        let meta = tool_ui_meta(Some(tool_name), meta)?;
        let uri = meta[LEGACY_RESOURCE_URI_KEY].as_str().unwrap_or_default();
        let registered = self
            .inner
            .resources
            .read()
            .unwrap()
            .get(uri)
            .is_some_and(|e| e.resource.mime_type.as_deref() == Some(UI_MIME_TYPE));
        if !registered {
            return Err(invalid(format!(
                "tool {tool_name:?} names UI resource {uri:?}, which is not registered on this \
                 server as a UI resource: register the UI resource first"
            )));
        }
        Ok(meta)
    }

    /// Registers (or replaces) an MCP App's UI resource given in its wire form (`resource`,
    /// made ready by [`ui_resource_definition`]: `ui://` URI, MIME type, `_meta.ui` checked)
    /// whose HTML `html` produces at each read (a binding's dynamic UI); `resources/read`
    /// answers [`ui_resource_contents`].
    pub fn add_ui_resource_fn<F, Fut>(&self, resource: Resource, html: F) -> Result<(), McpError>
    where
        F: Fn(super::ReadRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<String, McpError>> + Send + 'static,
    {
        let resource = ui_resource_definition(resource)?;
        let shown = resource.clone();
        self.add_resource(
            resource,
            resource_fn(move |req, ctx| {
                let page = html(req, ctx);
                let shown = shown.clone();
                async move { Ok(vec![ui_resource_contents(&shown, page.await?)]) }
            }),
        );
        Ok(())
    }

    /// Registers (or replaces) an MCP App's UI resource; refused unless its URI is `ui://` and
    /// its `_meta.ui` is well formed.
    pub fn add_ui_resource(&self, ui: UiResource) -> Result<(), McpError> {
        let resource = ui.resource()?;
        let contents = ui.contents();
        self.add_resource(
            resource,
            resource_fn(move |_, _| {
                let contents = contents.clone();
                async move { Ok(vec![contents]) }
            }),
        );
        Ok(())
    }

    /// Registers a tool whose results an MCP App's UI renders: sets `_meta.ui` (and the
    /// deprecated `ui/resourceUri`) from `ui`; refused unless `ui.resource_uri` is a UI
    /// resource already registered on this server.
    pub fn add_ui_tool(&self, tool: Tool, ui: UiToolMeta, handler: ToolFn) -> Result<(), McpError> {
        let tool = ui_tool_checked(self, tool, &ui)?;
        self.add_tool(tool, handler)
    }
}

impl ServerBuilder {
    /// Adds an MCP App's UI resource ([`Server::add_ui_resource`]); an invalid one makes
    /// [`build`](Self::build) fail with the reason.
    ///
    /// ```
    /// use ferromcp::protocol::{CallToolResult, Tool};
    /// use ferromcp::server::apps::{client_supports_ui, UiCsp, UiResource, UiToolMeta, UI_MIME_TYPE};
    /// use ferromcp::server::{tool_fn, Server};
    ///
    /// let server = Server::builder("weather", "1.0")
    ///     .ui_resource(
    ///         UiResource::new("ui://weather/dashboard", "dashboard", "<!doctype html><p>…</p>")
    ///             .with_csp(UiCsp::default().with_connect_domains(vec!["https://api.example.com".into()])),
    ///     )
    ///     .ui_tool(
    ///         Tool::new("get_weather"),
    ///         UiToolMeta::new("ui://weather/dashboard"),
    ///         tool_fn(|_, ctx| async move {
    ///             let shown = if client_supports_ui(&ctx) { "dashboard" } else { "text" };
    ///             Ok(CallToolResult::text(format!("Sunny ({shown})")))
    ///         }),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// # let _ = (server, UI_MIME_TYPE);
    ///
    /// // A UI outside ui:// is refused when the server is built.
    /// let refused = Server::builder("bad", "1.0")
    ///     .ui_resource(UiResource::new("https://example.com/ui", "ui", "<p>"))
    ///     .build()
    ///     .unwrap_err();
    /// assert!(refused.message.contains("ui:// scheme"));
    /// ```
    pub fn ui_resource(mut self, ui: UiResource) -> Self {
        let r = self.server().add_ui_resource(ui);
        self.record(r);
        self
    }

    /// Adds a tool rendered by a UI registered before it ([`Server::add_ui_tool`]); an invalid
    /// one makes [`build`](Self::build) fail with the reason.
    pub fn ui_tool(mut self, tool: Tool, ui: UiToolMeta, handler: ToolFn) -> Self {
        let r = self.server().add_ui_tool(tool, ui, handler);
        self.record(r);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui_meta_leaves_out_what_is_not_set() {
        let ui = UiResource::new("ui://a/b", "b", "<p>")
            .with_csp(UiCsp {
                resource_domains: vec!["https://cdn.example".into()],
                ..Default::default()
            })
            .with_permissions(UiPermissions {
                clipboard_write: true,
                ..Default::default()
            })
            .with_prefers_border(false);
        assert_eq!(
            Value::Object(ui.ui_meta()),
            json!({
                "csp": { "resourceDomains": ["https://cdn.example"] },
                "permissions": { "clipboardWrite": {} },
                "prefersBorder": false
            })
        );
        assert!(UiResource::new("ui://a/b", "b", "<p>").meta().is_none());
    }

    #[test]
    fn resource_meta_checks_name_the_member() {
        let bad = [
            (
                json!({ "csp": { "connectDomains": "x" } }),
                "connectDomains",
            ),
            (json!({ "csp": { "scriptDomains": [] } }), "scriptDomains"),
            (json!({ "permissions": { "camera": true } }), "camera"),
            (json!({ "permissions": { "usb": {} } }), "usb"),
            (
                json!({ "permissions": { "camera": { "always": true } } }),
                "camera must be an empty object",
            ),
            (json!({ "domain": 3 }), "domain"),
            (json!({ "prefersBorder": "yes" }), "prefersBorder"),
            (json!([]), "object"),
        ];
        for (meta, word) in bad {
            let e = check_ui_resource_meta(&meta).unwrap_err();
            assert!(e.message.contains(word), "{meta}: {}", e.message);
        }
        check_ui_resource_meta(&json!({ "csp": {}, "permissions": { "camera": {} }, "x": 1 }))
            .unwrap();
    }

    #[test]
    fn tool_meta_refuses_what_belongs_on_the_resource() {
        // The extension's McpUiToolMeta has `csp` and `permissions` as `not: {}`.
        for key in ["csp", "permissions"] {
            let e = check_tool_ui(&json!({ "resourceUri": "ui://a/b", key: {} })).unwrap_err();
            assert!(
                e.message
                    .contains(&format!("_meta.ui.{key} belongs on the UI resource")),
                "{}",
                e.message
            );
        }
        check_tool_ui(&json!({ "resourceUri": "ui://a/b", "visibility": ["app"] })).unwrap();
    }

    #[test]
    fn capability_needs_the_app_mime_type() {
        assert!(capabilities_support_ui(&ui_client_capability()));
        assert!(!capabilities_support_ui(&json!({})));
        assert!(!capabilities_support_ui(
            &json!({ "extensions": { UI_EXTENSION: { "mimeTypes": ["text/html"] } } })
        ));
        assert!(!capabilities_support_ui(
            &json!({ "extensions": { UI_EXTENSION: {} } })
        ));
    }
}
