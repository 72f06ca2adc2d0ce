//! The caching hints a server puts on its cacheable 2026-07-28 results (`ttlMs` and
//! `cacheScope`: `server/discover`, the four list methods and `resources/read`), as a setting:
//! one default and, per method, an override. The spec lets a server choose them per result;
//! a handler that writes them into its own result still wins, and the results of a multi
//! round-trip retry, which the spec forbids caching, always say `0` / `"private"`.

use super::per_request::is_cacheable;
use crate::McpError;
use serde::Deserialize;
use std::collections::HashMap;

/// Who may cache a result (`cacheScope`), as HTTP's `Cache-Control: public` / `private`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Only within the same authorization context (the default).
    #[default]
    Private,
    /// Anyone, shared gateways and proxies included: no user-specific data.
    Public,
}

impl CacheScope {
    /// The wire form: `"private"` or `"public"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Private => "private",
            Self::Public => "public",
        }
    }
}

/// The hints of one result: `ttlMs` (how long the client may consider it fresh; 0 is
/// immediately stale) and `cacheScope`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheHint {
    /// `ttlMs`.
    pub ttl_ms: u64,
    /// `cacheScope`.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl_ms` milliseconds for `scope`.
    pub const fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHint { ttl_ms, scope }
    }

    /// `ttlMs: 0`, `cacheScope: "private"`: what a result that must not be cached says.
    pub const UNCACHED: CacheHint = CacheHint {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };
}

/// A server's caching hints: [`CacheHints::default`] for every cacheable method, unless
/// [`CacheHints::set_method`] gave that method its own. The engine's default is
/// [`CacheHint::UNCACHED`] everywhere.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheHints {
    /// The hints of every cacheable method without an override.
    pub default: CacheHint,
    methods: HashMap<String, CacheHint>,
}

impl CacheHints {
    /// Gives `method` its own hints. Only the methods whose results are cacheable
    /// (`server/discover`, `tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`, `resources/read`) take hints; any other name is an error.
    /// Every page of a list gets the same hints, as the spec asks of `cacheScope`.
    pub fn set_method(&mut self, method: &str, hint: CacheHint) -> Result<(), McpError> {
        if !is_cacheable(method) {
            return Err(McpError::invalid_params(format!(
                "cache hints: {method:?} has no cacheable result (server/discover, tools/list, \
                 prompts/list, resources/list, resources/templates/list, resources/read)"
            )));
        }
        self.methods.insert(method.to_string(), hint);
        Ok(())
    }

    /// The hints of a result of `method`.
    pub fn for_method(&self, method: &str) -> CacheHint {
        self.methods.get(method).copied().unwrap_or(self.default)
    }
}
