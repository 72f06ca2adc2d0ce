//! Authorization per tool, resource and prompt: which items a principal may see in the lists
//! and call, read or get, decided from the scopes of its token (or client certificate) and
//! from a predicate of your own.
//!
//! [`Authorization`] is a middleware layer. For the list methods it reads the whole list from
//! the rest of the chain, drops what the caller may not see and pages the rest again (see
//! `listing.rs`), so pages stay full and cursors stay valid. For `tools/call`,
//! `resources/read`, `resources/subscribe`, `prompts/get` and `completion/complete` it refuses
//! a hidden item with exactly the error the server gives for one that does not exist
//! (`-32602 Unknown tool` / `Unknown prompt`, `-32002 Resource not found`): a caller cannot
//! tell a hidden item from a missing one, so the lists and the answers never disagree and
//! names cannot be probed. A server without this layer is not changed at all.
//!
//! A predicate is either a plain function of one item ([`Authorization::allow_if`]) or an
//! asynchronous one asked about many items at once ([`Authorization::allow_if_batch`]): the
//! form the bindings use for a predicate written in Python, JavaScript or Swift, which answers
//! for a whole list in one crossing, so that the decision, the re-paging and the refusals stay
//! here, written once, for every language.

use super::listing::{list_key, page_of, read_all_from_chain, requested_cursor};
use super::middleware::{BoxFuture, Middleware, MiddlewareRequest, MiddlewareResponse, Next};
use crate::session::{AuthInfo, RequestContext};
use crate::McpError;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// What kind of item a rule or a check is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ItemKind {
    /// A tool, by name.
    Tool,
    /// A resource by URI, or a resource template by URI template (in `resources/templates/list`
    /// and `completion/complete`); a read of a templated URI is checked against the URI read.
    Resource,
    /// A prompt, by name.
    Prompt,
}

/// One question the policy answers: may the caller of this request see and use this item?
#[non_exhaustive]
pub struct Access<'a> {
    /// The kind of item.
    pub kind: ItemKind,
    /// The tool's or prompt's name, the resource's URI or the template's URI template.
    pub name: &'a str,
    /// The caller's verified identity (bearer token, or client certificate), `None` when the
    /// request carried none.
    pub principal: Option<&'a AuthInfo>,
    /// The request's context (session, client info, `_meta`, HTTP headers).
    pub context: &'a RequestContext,
}

impl Access<'_> {
    /// Whether the principal was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.principal
            .is_some_and(|p| p.scopes.iter().any(|s| s == scope))
    }
}

/// How a request about a hidden item is answered: as the server answers one about an item it
/// does not have.
enum Refusal {
    Error(McpError),
    /// Completing a template the server does not know gives no values.
    NoValues,
}

/// A predicate of your own: `true` lets the caller see and use the item.
pub type AccessPredicate = Arc<dyn Fn(&Access<'_>) -> bool + Send + Sync>;

/// A predicate asked about many items of one kind at once, for the caller of a request (its
/// principal and context are the request's): it resolves to one `bool` per name, in order,
/// `true` letting the caller see and use the item. A missing answer counts as `false`.
pub type BatchAccessPredicate = Arc<
    dyn Fn(&MiddlewareRequest, ItemKind, Vec<String>) -> BoxFuture<'static, Vec<bool>>
        + Send
        + Sync,
>;

/// A rule: items of `kind` whose name matches `pattern` need every one of `scopes`.
#[derive(Clone, Debug)]
struct ScopeRule {
    kind: ItemKind,
    pattern: String,
    scopes: Vec<String>,
}

/// [`Authorization`]'s JSON form, as the bindings pass it (`{"name": "authorization", ...}` in
/// [`MiddlewareConfig`](super::middleware::MiddlewareConfig)):
/// `{"rules": [{"kind": "tool", "pattern": "admin_*", "scopes": ["admin"]}], "denyUnmatched":
/// false}`. Predicates have no JSON form.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct AuthorizationConfig {
    /// Scope rules (see [`Authorization::require_scopes`]).
    #[serde(default)]
    pub rules: Vec<ScopeRuleConfig>,
    /// See [`Authorization::deny_unmatched`].
    #[serde(default)]
    pub deny_unmatched: bool,
}

/// One rule of an [`AuthorizationConfig`].
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ScopeRuleConfig {
    /// `tool`, `resource` or `prompt`.
    pub kind: ItemKind,
    /// The name or URI, `*` standing for any run of characters.
    pub pattern: String,
    /// The scopes the principal must all hold.
    pub scopes: Vec<String>,
}

impl ScopeRuleConfig {
    /// Items of `kind` named (or with a URI) matching `pattern` need all of `scopes`.
    pub fn new(kind: ItemKind, pattern: impl Into<String>, scopes: Vec<String>) -> Self {
        Self {
            kind,
            pattern: pattern.into(),
            scopes,
        }
    }
}

/// The authorization layer. An item is visible, and usable, when every scope rule that matches
/// it is met (the principal holds all the rule's scopes), and the predicates agree.
///
/// ```
/// use ferromcp::server::authorization::{Authorization, ItemKind};
/// use ferromcp::server::Server;
///
/// let authz = Authorization::new()
///     .require_scopes(ItemKind::Tool, "admin_*", ["admin"])
///     .require_scopes(ItemKind::Resource, "secret://*", ["secrets:read"])
///     .allow_if(|a| a.kind != ItemKind::Prompt || a.principal.is_some());
/// let server = Server::builder("demo", "1").middleware(authz).build().unwrap();
/// # let _ = server;
/// ```
#[derive(Clone, Default)]
pub struct Authorization {
    rules: Vec<ScopeRule>,
    predicates: Vec<AccessPredicate>,
    batch_predicates: Vec<BatchAccessPredicate>,
    deny_unmatched: bool,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorization")
            .field("rules", &self.rules)
            .field("predicates", &self.predicates.len())
            .field("batch_predicates", &self.batch_predicates.len())
            .field("deny_unmatched", &self.deny_unmatched)
            .finish()
    }
}

impl Authorization {
    /// A policy that allows everything until rules are added.
    pub fn new() -> Self {
        Self::default()
    }

    /// The policy an [`AuthorizationConfig`] describes.
    pub fn from_config(config: &AuthorizationConfig) -> Self {
        let mut a = Self::new();
        for r in &config.rules {
            a = a.require_scopes(r.kind, r.pattern.clone(), r.scopes.iter().cloned());
        }
        a.deny_unmatched = config.deny_unmatched;
        a
    }

    /// Items of `kind` whose name (URI for resources) matches `pattern` need all of `scopes`.
    /// A pattern is the exact name, or has `*` standing for any run of characters
    /// (`admin_*`, `secret://*`, `*`).
    pub fn require_scopes<S: Into<String>>(
        mut self,
        kind: ItemKind,
        pattern: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.rules.push(ScopeRule {
            kind,
            pattern: pattern.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Adds a predicate: an item is shown only if it returns `true` (as well as meeting the
    /// scope rules). Runs once per item and list request, and once per call: keep it cheap.
    pub fn allow_if(
        mut self,
        predicate: impl Fn(&Access<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.predicates.push(Arc::new(predicate));
        self
    }

    /// Adds an asynchronous predicate asked about many items at once (see
    /// [`BatchAccessPredicate`]): once per list request with the names of the items the scope
    /// rules and the other predicates let through, and once per call, read or get with the one
    /// name. An item is shown only if it answers `true` for it. The bindings hand a predicate
    /// written in their language to the engine this way.
    ///
    /// ```
    /// use ferromcp::server::authorization::Authorization;
    ///
    /// let authz = Authorization::new().allow_if_batch(|_request, _kind, names| {
    ///     let answers = names.iter().map(|n| !n.starts_with("admin_")).collect();
    ///     Box::pin(async move { answers })
    /// });
    /// # let _ = authz;
    /// ```
    pub fn allow_if_batch(
        mut self,
        predicate: impl Fn(&MiddlewareRequest, ItemKind, Vec<String>) -> BoxFuture<'static, Vec<bool>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.batch_predicates.push(Arc::new(predicate));
        self
    }

    /// Hides every item that no scope rule matches (default: such items are shown to
    /// everyone, subject to the predicates).
    pub fn deny_unmatched(mut self) -> Self {
        self.deny_unmatched = true;
        self
    }

    /// Whether the caller described by `access` may see and use the item, by the scope rules
    /// and the predicates of [`Self::allow_if`] (those of [`Self::allow_if_batch`] are asked
    /// by the layer itself).
    pub fn allows(&self, access: &Access<'_>) -> bool {
        let mut matched = false;
        for rule in &self.rules {
            if rule.kind == access.kind && glob_match(&rule.pattern, access.name) {
                matched = true;
                if !rule.scopes.iter().all(|s| access.has_scope(s)) {
                    return false;
                }
            }
        }
        if self.deny_unmatched && !matched {
            return false;
        }
        self.predicates.iter().all(|p| p(access))
    }

    fn allows_in(&self, kind: ItemKind, name: &str, ctx: &RequestContext) -> bool {
        self.allows(&Access {
            kind,
            name,
            principal: ctx.auth(),
            context: ctx,
        })
    }

    /// The list method answered from the whole list, filtered.
    async fn list(
        &self,
        request: MiddlewareRequest,
        next: Next<'_>,
        key: &str,
    ) -> Result<MiddlewareResponse, McpError> {
        let cursor = requested_cursor(request.params())?;
        let items = read_all_from_chain(next, &request, key).await?;
        let (kind, field) = match key {
            "tools" => (ItemKind::Tool, "name"),
            "prompts" => (ItemKind::Prompt, "name"),
            "resources" => (ItemKind::Resource, "uri"),
            _ => (ItemKind::Resource, "uriTemplate"),
        };
        let ctx = request.context();
        let name_of = |item: &Value| {
            item.get(field)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let mut visible: Vec<Value> = items
            .into_iter()
            .filter(|item| self.allows_in(kind, &name_of(item), ctx))
            .collect();
        for predicate in &self.batch_predicates {
            if visible.is_empty() {
                break;
            }
            let names = visible.iter().map(name_of).collect();
            let answers = predicate(&request, kind, names).await;
            let mut answers = answers.into_iter();
            visible.retain(|_| answers.next() == Some(true));
        }
        page_of(next.server(), key, visible, cursor.as_deref()).map(MiddlewareResponse::json)
    }

    /// Whether the item a call, read or get names is visible to its caller: the scope rules,
    /// the predicates, then each batch predicate asked about the one name.
    async fn allows_target(&self, request: &MiddlewareRequest, kind: ItemKind, name: &str) -> bool {
        if !self.allows_in(kind, name, request.context()) {
            return false;
        }
        for predicate in &self.batch_predicates {
            let answers = predicate(request, kind, vec![name.to_string()]).await;
            if answers.first() != Some(&true) {
                return false;
            }
        }
        true
    }

    /// The item a call, read or get names, and the error the server gives when it does not
    /// exist; `None` for requests about no particular item.
    fn target(request: &MiddlewareRequest) -> Option<(ItemKind, String, Refusal)> {
        // A typed `tools/call` is named without making its params JSON.
        if request.method() == "tools/call" {
            let name = request.tool_name()?.to_string();
            let e = McpError::invalid_params(format!("Unknown tool: {name}"))
                .with_data(json!({ "tool": name }));
            return Some((ItemKind::Tool, name, Refusal::Error(e)));
        }
        let p = request.params()?;
        let str_of = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        match request.method() {
            "prompts/get" => {
                let name = str_of(p.get("name"))?;
                let e = McpError::invalid_params(format!("Unknown prompt: {name}"))
                    .with_data(json!({ "prompt": name }));
                Some((ItemKind::Prompt, name, Refusal::Error(e)))
            }
            "resources/read" | "resources/subscribe" => {
                let uri = str_of(p.get("uri"))?;
                let e = McpError::resource_not_found(&uri);
                Some((ItemKind::Resource, uri, Refusal::Error(e)))
            }
            "completion/complete" => {
                let r = p.get("ref")?;
                match r.get("type")?.as_str()? {
                    "ref/prompt" => {
                        let name = str_of(r.get("name"))?;
                        let e = McpError::invalid_params(format!("Unknown prompt: {name}"));
                        Some((ItemKind::Prompt, name, Refusal::Error(e)))
                    }
                    "ref/resource" => {
                        let uri = str_of(r.get("uri"))?;
                        Some((ItemKind::Resource, uri, Refusal::NoValues))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl Middleware for Authorization {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            if let Some(key) = list_key(request.method()) {
                return self.list(request, next, key).await;
            }
            if let Some((kind, name, refusal)) = Self::target(&request) {
                if !self.allows_target(&request, kind, &name).await {
                    return match refusal {
                        Refusal::Error(e) => Err(e),
                        Refusal::NoValues => Ok(json!({ "completion": { "values": [] } }).into()),
                    };
                }
            }
            next.run(request).await
        })
    }
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
pub(crate) fn glob_match(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: an exact match
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn glob_matches_exact_names_and_stars() {
        assert!(glob_match("admin", "admin"));
        assert!(!glob_match("admin", "admin2"));
        assert!(glob_match("admin_*", "admin_delete"));
        assert!(glob_match("admin_*", "admin_"));
        assert!(!glob_match("admin_*", "user_admin_x"));
        assert!(glob_match("*", ""));
        assert!(glob_match("*_write", "db_write"));
        assert!(!glob_match("*_write", "db_write_x"));
        assert!(glob_match("secret://*/key", "secret://a/b/key"));
        assert!(!glob_match("a*a", "a"));
        assert!(glob_match("a*b*c", "aXbYc"));
        assert!(!glob_match("a*b*c", "aXcYb"));
    }
}
