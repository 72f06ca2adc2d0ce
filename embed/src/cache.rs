//! Explicit invalidation of a server's response caches from the bindings.
//!
//! Why a seam of its own: a binding turns the engine's [`ResponseCache`] on by name and options
//! (`{"name": "responseCache", "ttlMs": ...}` in the server's `middleware` or
//! [`EmbeddedServer::add_middleware_config`]), so it never holds the cache to call
//! [`ResponseCache::invalidate_all`] and its siblings on. The server keeps the handles of the
//! caches built from its configs ([`CacheHandles`]) and [`EmbeddedServer::invalidate_cache`]
//! forgets their entries the way Rust's methods do: all, one method's, or one resource's reads.

use super::EmbeddedServer;
use ferromcp::server::middleware::{Middleware, MiddlewareConfig, ResponseCache};
use ferromcp::McpError;
use std::sync::{Arc, Mutex};

/// The response caches built from a server's middleware configs; clones share the list.
#[derive(Clone, Default)]
pub(crate) struct CacheHandles(Arc<Mutex<Vec<ResponseCache>>>);

impl std::fmt::Debug for CacheHandles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CacheHandles")
            .field(&self.0.lock().unwrap().len())
            .finish()
    }
}

impl CacheHandles {
    /// The layer `config` configures ([`MiddlewareConfig::build`]), keeping a handle on it when
    /// it is a response cache.
    pub(crate) fn layer(&self, config: &MiddlewareConfig) -> Result<Arc<dyn Middleware>, McpError> {
        if let MiddlewareConfig::ResponseCache(c) = config {
            let cache = ResponseCache::new(c.clone())?;
            self.0.lock().unwrap().push(cache.clone());
            return Ok(Arc::new(cache));
        }
        config.build()
    }
}

impl EmbeddedServer {
    /// Forgets entries of every response cache configured on this server: with neither
    /// argument, all of them ([`ResponseCache::invalidate_all`]); with `method` (`"tools/list"`,
    /// `"resources/read"`, `"tools/call"`, ...), that method's ([`ResponseCache::invalidate`]);
    /// with `uri`, the cached reads of that resource ([`ResponseCache::invalidate_resource`]).
    /// Refused when both are given, or when no `responseCache` layer is configured here (an
    /// invalidation that could do nothing is a mistake worth hearing about). Served over HTTP
    /// by replicas sharing a bus (`redisUrl`), it reaches every replica's caches: the engine's
    /// methods called here publish it (`ferromcp::server::middleware::ResponseCache`, "Across
    /// replicas"), so Python's `invalidate_cache`, Node's `invalidateCache` and Swift's
    /// `invalidateCache` need nothing of their own.
    pub fn invalidate_cache(
        &self,
        method: Option<&str>,
        uri: Option<&str>,
    ) -> Result<(), McpError> {
        if method.is_some() && uri.is_some() {
            return Err(McpError::invalid_params(
                "invalidate_cache: give a method or a resource URI, not both",
            ));
        }
        let caches = self.caches.0.lock().unwrap().clone();
        if caches.is_empty() {
            return Err(McpError::invalid_params(
                "invalidate_cache: this server has no responseCache middleware",
            ));
        }
        for cache in &caches {
            match (method, uri) {
                (None, None) => cache.invalidate_all(),
                (Some(method), None) => cache.invalidate(method),
                (_, Some(uri)) => cache.invalidate_resource(uri),
            }
        }
        Ok(())
    }
}
