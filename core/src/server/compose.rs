//! Server composition: one server offering the tools, resources, templates, prompts and
//! completions of others under a prefix, either live ([`Server::mount`]) or copied once
//! ([`Server::import_server`]).
//!
//! Names are namespaced as FastMCP does: a tool or prompt `name` of a server mounted at
//! `weather` is `weather_name`; a resource URI `scheme://path` is `scheme://weather/path` (and
//! a template's likewise); URIs without `://` (`urn:...`) and an empty prefix are left as they
//! are.
//!
//! A mount keeps the other server: what is added to or removed from it later shows in the
//! lists, its `list_changed` notifications reach the sessions of the server it is mounted on
//! (and its resource updates, with the URI namespaced), and requests for its items (calls,
//! reads, gets, completions) run through its own middleware chain and dispatch. It is served by
//! a middleware layer the first mount installs (`MountRouter`), so mount before the server
//! handles its first request; a server that mounts nothing is not changed at all.

use super::api::{CompletionRef, Mounted};
use super::listing::{list_key, page_of, read_all_from_chain, read_all_from_server, serve_in};
use super::middleware::{BoxFuture, Middleware, MiddlewareRequest, MiddlewareResponse, Next};
use super::{ReadRequest, Server};
use crate::jsonrpc::Request;
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};
use crate::McpError;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Weak};

impl Server {
    /// Mounts `other` under `prefix`, live: its tools and prompts are offered as
    /// `prefix_name`, its resources and templates as `scheme://prefix/path`, requests for them
    /// are answered by `other` (its own middleware included), what is added to it later shows,
    /// and its `list_changed` notifications are passed on. An empty prefix keeps the names.
    ///
    /// Refused once this server has handled its first request (the layer that routes to the
    /// mounted servers is then too late to join the middleware chain), for a prefix holding
    /// `/`, `:`, `{`, `}` or white space, for a prefix already mounted, and for a cycle
    /// (`other` is this server or has it mounted).
    ///
    /// Middleware layers added before the first mount run around the mounted servers' items
    /// too; layers added after it see this server's own items only.
    pub fn mount(&self, prefix: impl Into<String>, other: &Server) -> Result<(), McpError> {
        let prefix = prefix.into();
        check_prefix(&prefix)?;
        if other.reaches(self) {
            return Err(McpError::invalid_params(format!(
                "mounting {:?} at {prefix:?} would make a cycle: it is this server or mounts it",
                other.options().name
            )));
        }
        {
            let mut mounts = self.inner.mounts.write().unwrap();
            if mounts.iter().any(|m| m.prefix == prefix) {
                return Err(McpError::invalid_params(format!(
                    "a server is already mounted at {prefix:?}"
                )));
            }
            if mounts.is_empty() {
                self.add_middleware(MountRouter)?;
            }
            mounts.push(Mounted {
                prefix: prefix.clone(),
                server: other.clone(),
            });
        }
        other.add_fanout(relay_to(self, prefix));
        self.capabilities_changed();
        self.relay("notifications/tools/list_changed", None);
        self.relay("notifications/prompts/list_changed", None);
        self.relay("notifications/resources/list_changed", None);
        Ok(())
    }

    /// Copies `other`'s tools, resources, templates, prompts and completion handlers into this
    /// server once, namespaced under `prefix` as [`Server::mount`] does (same handlers; later
    /// changes to `other` do not show). `other`'s middleware does not run for the copies.
    /// Servers mounted on `other` are mounted here under the joined prefix (`prefix_theirs`).
    pub fn import_server(&self, prefix: impl Into<String>, other: &Server) -> Result<(), McpError> {
        let prefix = prefix.into();
        check_prefix(&prefix)?;
        if other.reaches(self) {
            return Err(McpError::invalid_params(
                "importing a server into itself (or one that mounts it) would make a cycle",
            ));
        }
        let tools: Vec<_> = other.inner.tools.read().unwrap().iter().cloned().collect();
        for e in tools {
            let mut tool: Tool = e.tool.clone();
            tool.name = prefixed_name(&prefix, &tool.name);
            self.add_tool(tool, e.handler.clone())?;
        }
        let resources: Vec<_> = other
            .inner
            .resources
            .read()
            .unwrap()
            .iter()
            .cloned()
            .collect();
        for e in resources {
            let mut resource: Resource = e.resource.clone();
            resource.uri = prefixed_uri(&prefix, &resource.uri);
            self.add_resource(resource, unprefixing(&prefix, e.handler.clone()));
        }
        let templates: Vec<_> = other
            .inner
            .templates
            .read()
            .unwrap()
            .iter()
            .cloned()
            .collect();
        for e in templates {
            let mut template: ResourceTemplate = e.template.clone();
            template.uri_template = prefixed_uri(&prefix, &template.uri_template);
            self.add_resource_template(template, unprefixing(&prefix, e.handler.clone()))?;
        }
        let prompts: Vec<_> = other
            .inner
            .prompts
            .read()
            .unwrap()
            .iter()
            .cloned()
            .collect();
        for e in prompts {
            let mut prompt: Prompt = e.prompt.clone();
            prompt.name = prefixed_name(&prefix, &prompt.name);
            self.add_prompt(prompt, e.handler.clone());
        }
        let completions: Vec<_> = other
            .inner
            .completions
            .read()
            .unwrap()
            .iter()
            .map(|(k, h)| (k.clone(), h.clone()))
            .collect();
        for ((target, argument), handler) in completions {
            let target = match target {
                CompletionRef::Prompt(n) => CompletionRef::Prompt(prefixed_name(&prefix, &n)),
                CompletionRef::Resource(u) => CompletionRef::Resource(prefixed_uri(&prefix, &u)),
            };
            self.add_completion(target, argument, handler);
        }
        let nested: Vec<Mounted> = other.inner.mounts.read().unwrap().clone();
        for m in nested {
            self.mount(joined_prefix(&prefix, &m.prefix), &m.server)?;
        }
        Ok(())
    }

    /// Whether `target` is this server or is mounted on it, at any depth.
    fn reaches(&self, target: &Server) -> bool {
        if Arc::ptr_eq(&self.inner, &target.inner) {
            return true;
        }
        let mounts = self.inner.mounts.read().unwrap().clone();
        mounts.iter().any(|m| m.server.reaches(target))
    }
}

/// Refuses a prefix that would make names or URIs ambiguous.
fn check_prefix(prefix: &str) -> Result<(), McpError> {
    if prefix
        .chars()
        .any(|c| matches!(c, '/' | ':' | '{' | '}') || c.is_whitespace())
    {
        return Err(McpError::invalid_params(format!(
            "mount prefix {prefix:?} must not hold '/', ':', '{{', '}}' or white space"
        )));
    }
    Ok(())
}

fn joined_prefix(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (true, _) => inner.to_string(),
        (_, true) => outer.to_string(),
        _ => format!("{outer}_{inner}"),
    }
}

/// `prefix_name` (the name itself for an empty prefix).
pub fn prefixed_name(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}_{name}")
    }
}

/// The mounted server's name for `name`, when `name` is under `prefix`.
fn unprefixed_name<'a>(prefix: &str, name: &'a str) -> Option<&'a str> {
    if prefix.is_empty() {
        return Some(name);
    }
    name.strip_prefix(prefix)?.strip_prefix('_')
}

/// `scheme://prefix/path` for `scheme://path` (the URI itself for an empty prefix or a URI
/// without `://`). Works on URI templates alike.
pub fn prefixed_uri(prefix: &str, uri: &str) -> String {
    match uri.split_once("://") {
        Some((scheme, path)) if !prefix.is_empty() => format!("{scheme}://{prefix}/{path}"),
        _ => uri.to_string(),
    }
}

/// The mounted server's URI for `uri`, when `uri` is under `prefix`.
fn unprefixed_uri(prefix: &str, uri: &str) -> Option<String> {
    if prefix.is_empty() {
        return Some(uri.to_string());
    }
    match uri.split_once("://") {
        Some((scheme, rest)) => {
            let path = rest.strip_prefix(prefix)?.strip_prefix('/')?;
            Some(format!("{scheme}://{path}"))
        }
        None => Some(uri.to_string()),
    }
}

/// An imported resource's handler: it is given the URI as its own server named it.
fn unprefixing(prefix: &str, handler: super::ResourceFn) -> super::ResourceFn {
    let prefix = prefix.to_string();
    Arc::new(move |mut req: ReadRequest, ctx| {
        if let Some(uri) = unprefixed_uri(&prefix, &req.uri) {
            req.uri = uri;
        }
        handler(req, ctx)
    })
}

/// The fan-out hook a mounted server gets: its list changes and resource updates are passed
/// on to the server it is mounted on (resource URIs namespaced), until that server is gone.
fn relay_to(parent: &Server, prefix: String) -> super::api::Fanout {
    let parent: Weak<super::api::ServerInner> = Arc::downgrade(&parent.inner);
    Arc::new(move |method: &str, params: Option<&Value>| {
        let Some(inner) = parent.upgrade() else {
            return false;
        };
        let parent = Server { inner };
        match method {
            "" => {}
            "notifications/resources/updated" => {
                let mut params = params.cloned();
                if let Some(Value::String(uri)) = params.as_mut().and_then(|p| p.get_mut("uri")) {
                    *uri = prefixed_uri(&prefix, uri);
                }
                parent.relay(method, params.as_ref());
            }
            m if m.ends_with("/list_changed") => {
                parent.capabilities_changed();
                parent.relay(method, params);
            }
            _ => {}
        }
        true
    })
}

/// The layer the first mount installs: lists hold the mounted servers' items, namespaced, and
/// requests for them go to their server.
struct MountRouter;

impl MountRouter {
    /// This server's own list and each mounted server's, namespaced, paged again. An item
    /// whose namespaced name is already listed (by this server or an earlier mount) is left
    /// out, as requests for that name reach the item listed.
    async fn list(
        &self,
        request: MiddlewareRequest,
        next: Next<'_>,
        key: &str,
    ) -> Result<MiddlewareResponse, McpError> {
        let cursor = super::listing::requested_cursor(request.params())?;
        let server = next.server();
        let mut items = match read_all_from_chain(next, &request, key).await {
            Ok(items) => items,
            // This server offers none of these itself.
            Err(e) if e.code == crate::error::codes::METHOD_NOT_FOUND => Vec::new(),
            Err(e) => return Err(e),
        };
        let field = match key {
            "tools" | "prompts" => "name",
            "resources" => "uri",
            _ => "uriTemplate",
        };
        let name_of = |item: &Value| item.get(field).and_then(Value::as_str).map(str::to_string);
        let mut seen: HashSet<String> = items.iter().filter_map(name_of).collect();
        let mounts = server.inner.mounts.read().unwrap().clone();
        for m in mounts {
            let theirs = m.server.capabilities_shared(
                request
                    .context()
                    .protocol_version()
                    .unwrap_or(crate::ProtocolVersion::LATEST),
            );
            let feature = if key == "resourceTemplates" {
                "resources"
            } else {
                key
            };
            if theirs.get(feature).is_none() {
                continue;
            }
            let method = request.method().to_string();
            for mut item in read_all_from_server(&m.server, &method, &request, key).await? {
                let Some(Value::String(name)) = item.get_mut(field) else {
                    continue;
                };
                *name = if field == "name" {
                    prefixed_name(&m.prefix, name)
                } else {
                    prefixed_uri(&m.prefix, name)
                };
                if seen.insert(name.clone()) {
                    items.push(item);
                }
            }
        }
        page_of(server, key, items, cursor.as_deref()).map(MiddlewareResponse::json)
    }

    /// A request for one item: this server's own when it has it, else the first mounted
    /// server that has it under its name there; the dispatch's answer (unknown name) otherwise.
    async fn route(
        &self,
        request: MiddlewareRequest,
        next: Next<'_>,
        target: Target,
    ) -> Result<MiddlewareResponse, McpError> {
        let server = next.server();
        if target.is_own(server) {
            return next.run(request).await;
        }
        let mounts = server.inner.mounts.read().unwrap().clone();
        for m in mounts {
            let Some(params) = target.for_mount(&m.prefix, request.params()) else {
                continue;
            };
            let inner = Request {
                id: request.id().clone(),
                method: request.method().to_string(),
                params: Some(params),
            };
            match serve_in(&m.server, inner, request.context().clone()).await {
                Err(e) if target.is_unknown(&e) => continue,
                answer => return answer.map(MiddlewareResponse::json),
            }
        }
        next.run(request).await
    }
}

/// What a request for one item names.
enum Target {
    Tool(String),
    Prompt(String),
    Resource(String),
    CompletePrompt(String),
    CompleteTemplate(String),
}

impl Target {
    fn of(request: &MiddlewareRequest) -> Option<Self> {
        // A typed `tools/call` is named without making its params JSON.
        if request.method() == "tools/call" {
            return Some(Target::Tool(request.tool_name()?.to_string()));
        }
        let p = request.params()?;
        let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        Some(match request.method() {
            "prompts/get" => Target::Prompt(s(p.get("name"))?),
            "resources/read" => Target::Resource(s(p.get("uri"))?),
            "completion/complete" => {
                let r = p.get("ref")?;
                match r.get("type")?.as_str()? {
                    "ref/prompt" => Target::CompletePrompt(s(r.get("name"))?),
                    "ref/resource" => Target::CompleteTemplate(s(r.get("uri"))?),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// Whether the server itself registered the item.
    fn is_own(&self, server: &Server) -> bool {
        let i = &server.inner;
        match self {
            Target::Tool(n) => i.tools.read().unwrap().get(n).is_some(),
            Target::Prompt(n) | Target::CompletePrompt(n) => {
                i.prompts.read().unwrap().get(n).is_some()
            }
            Target::Resource(u) => {
                i.resources.read().unwrap().get(u).is_some()
                    || i.templates
                        .read()
                        .unwrap()
                        .iter()
                        .any(|t| t.matcher.match_uri(u).is_some())
            }
            Target::CompleteTemplate(u) => i.templates.read().unwrap().get(u).is_some(),
        }
    }

    /// The params for the server mounted at `prefix`, when the item is under its prefix.
    fn for_mount(&self, prefix: &str, params: Option<&Value>) -> Option<Value> {
        let mut p = params?.clone();
        match self {
            Target::Tool(n) | Target::Prompt(n) => {
                p["name"] = Value::String(unprefixed_name(prefix, n)?.to_string());
            }
            Target::Resource(u) => p["uri"] = Value::String(unprefixed_uri(prefix, u)?),
            Target::CompletePrompt(n) => {
                p["ref"]["name"] = Value::String(unprefixed_name(prefix, n)?.to_string());
            }
            Target::CompleteTemplate(u) => {
                p["ref"]["uri"] = Value::String(unprefixed_uri(prefix, u)?)
            }
        }
        Some(p)
    }

    /// Whether a mounted server's error says it has no such item (then the next is asked).
    fn is_unknown(&self, e: &McpError) -> bool {
        use crate::error::codes::{INVALID_PARAMS, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND};
        match self {
            Target::Tool(_) => {
                e.code == METHOD_NOT_FOUND
                    || (e.code == INVALID_PARAMS && e.message.starts_with("Unknown tool: "))
            }
            Target::Prompt(_) | Target::CompletePrompt(_) => {
                e.code == METHOD_NOT_FOUND
                    || (e.code == INVALID_PARAMS && e.message.starts_with("Unknown prompt: "))
            }
            Target::Resource(_) => e.code == RESOURCE_NOT_FOUND || e.code == METHOD_NOT_FOUND,
            Target::CompleteTemplate(_) => e.code == METHOD_NOT_FOUND,
        }
    }
}

impl Middleware for MountRouter {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            if let Some(key) = list_key(request.method()) {
                return self.list(request, next, key).await;
            }
            match Target::of(&request) {
                Some(target) => self.route(request, next, target).await,
                None => next.run(request).await,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris_are_namespaced_and_back() {
        assert_eq!(prefixed_name("w", "forecast"), "w_forecast");
        assert_eq!(unprefixed_name("w", "w_forecast"), Some("forecast"));
        assert_eq!(unprefixed_name("w", "wx_forecast"), None);
        assert_eq!(unprefixed_name("w", "w"), None);
        assert_eq!(prefixed_uri("w", "data://users"), "data://w/users");
        assert_eq!(prefixed_uri("w", "file:///etc/x"), "file://w//etc/x");
        assert_eq!(prefixed_uri("w", "w://{city}/now"), "w://w/{city}/now");
        assert_eq!(prefixed_uri("w", "urn:isbn:1"), "urn:isbn:1");
        assert_eq!(
            unprefixed_uri("w", "data://w/users").as_deref(),
            Some("data://users")
        );
        assert_eq!(
            unprefixed_uri("w", "file://w//etc/x").as_deref(),
            Some("file:///etc/x")
        );
        assert_eq!(unprefixed_uri("w", "data://users"), None);
        assert_eq!(prefixed_name("", "x"), "x");
        assert_eq!(prefixed_uri("", "data://x"), "data://x");
        assert_eq!(joined_prefix("a", "b"), "a_b");
    }

    #[test]
    fn prefixes_that_would_be_ambiguous_are_refused() {
        for bad in ["a/b", "a:b", "{x}", "a b"] {
            assert!(check_prefix(bad).is_err(), "{bad}");
        }
        assert!(check_prefix("weather").is_ok());
        assert!(check_prefix("").is_ok());
    }
}
