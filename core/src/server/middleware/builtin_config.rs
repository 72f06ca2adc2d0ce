//! The built-in middleware by name and options, as the bindings configure it from JSON:
//! `[{"name": "maskErrors"}, {"name": "rateLimit", "limit": 10, "windowMs": 1000}]`.

use super::{MaskErrors, MaskErrorsConfig, Middleware, RateLimit, RateLimitConfig};
use super::{RequestLog, RequestLogConfig};
use crate::McpError;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// One built-in middleware layer, named by `name`, with its options beside it. Unknown names
/// and unknown options are errors.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "name", rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub enum MiddlewareConfig {
    /// [`RateLimit`], its buckets in this process.
    RateLimit(RateLimitConfig),
    /// [`RequestLog`].
    RequestLog(RequestLogConfig),
    /// [`MaskErrors`].
    MaskErrors(MaskErrorsConfig),
    /// [`Authorization`](crate::server::authorization::Authorization) by scope rules.
    Authorization(crate::server::authorization::AuthorizationConfig),
    /// [`ResponseCache`](super::ResponseCache).
    ResponseCache(super::ResponseCacheConfig),
}

impl MiddlewareConfig {
    /// Reads a list of layers (outermost first) from JSON; errors name the layer's place and
    /// serde's reason.
    pub fn list_from_json(v: Value) -> Result<Vec<Self>, McpError> {
        let Value::Array(items) = v else {
            return Err(McpError::invalid_params(
                "middleware must be an array of {\"name\": ..., options}",
            ));
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                serde_json::from_value(item)
                    .map_err(|e| McpError::invalid_params(format!("middleware[{i}]: {e}")))
            })
            .collect()
    }

    /// The layer this configures; fails on options out of range.
    pub fn build(&self) -> Result<Arc<dyn Middleware>, McpError> {
        Ok(match self {
            MiddlewareConfig::RateLimit(c) => Arc::new(RateLimit::new(c.clone())?),
            MiddlewareConfig::RequestLog(c) => Arc::new(RequestLog::from_config(c)?),
            MiddlewareConfig::MaskErrors(c) => Arc::new(MaskErrors::from_config(c)),
            MiddlewareConfig::Authorization(c) => {
                Arc::new(crate::server::authorization::Authorization::from_config(c))
            }
            MiddlewareConfig::ResponseCache(c) => Arc::new(super::ResponseCache::new(c.clone())?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn layers_are_read_by_name_and_unknown_keys_refused() {
        let list = MiddlewareConfig::list_from_json(json!([
            { "name": "maskErrors", "message": "oops" },
            { "name": "rateLimit", "limit": 5, "windowMs": 1000, "by": ["principal", "tool"],
              "tools": { "slow": { "limit": 1, "windowMs": 60000 } } },
            { "name": "requestLog", "level": "debug" },
            { "name": "responseCache", "ttlMs": 5000, "tools": ["slow"], "scope": "session" },
        ]))
        .unwrap();
        assert_eq!(list.len(), 4);
        let MiddlewareConfig::RateLimit(rl) = &list[1] else {
            panic!("rateLimit second");
        };
        assert_eq!(rl.limit, 5);
        assert_eq!(rl.tools["slow"].window_ms, 60000);
        for layer in &list {
            layer.build().unwrap();
        }
        let e = MiddlewareConfig::list_from_json(json!([{ "name": "rateLimit", "limit": 1,
            "windowMs": 1, "windw": 3 }]))
        .unwrap_err();
        assert!(
            e.message.contains("middleware[0]") && e.message.contains("windw"),
            "{}",
            e.message
        );
        let e = MiddlewareConfig::list_from_json(json!([{ "name": "cache" }])).unwrap_err();
        assert!(e.message.contains("cache"), "{}", e.message);
        let bad =
            MiddlewareConfig::list_from_json(json!([{ "name": "requestLog", "level": "loud" }]))
                .unwrap();
        assert!(bad[0].build().is_err());
    }
}
