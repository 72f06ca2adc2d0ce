//! Bounds on what a peer can make a session keep for its whole life.
//!
//! A session stores what its client sent at `initialize` (`clientInfo`, `capabilities`) and the
//! resources it subscribed to, for as long as the session lives. Without a bound, that is the
//! peer's to choose: one client sending a 4 MB `clientInfo` per session made a server hold
//! gigabytes. These limits make an idle session's worst case a small, documented number; what
//! is over a limit is refused with -32602 (Invalid params) naming the limit.

use crate::McpError;
use serde_json::Value;

/// What one session may keep of what its peer sent.
///
/// The defaults are far above what real clients send (a `clientInfo` with a title, website and
/// a few icons is well under 2 KiB) and keep an idle session's worst case near 100 KiB on top
/// of its own ~1.4 KiB.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerLimits {
    /// Largest `clientInfo` accepted at `initialize`, in bytes of its JSON text (default 16 KiB).
    pub max_client_info_bytes: usize,
    /// Largest `capabilities` object accepted at `initialize`, in bytes of its JSON text
    /// (default 16 KiB).
    pub max_capabilities_bytes: usize,
    /// Most resources one session may be subscribed to at once (default 256).
    pub max_subscriptions: usize,
    /// Most bytes of subscribed resource URIs one session may hold (default 64 KiB).
    pub max_subscription_bytes: usize,
}

impl Default for PeerLimits {
    fn default() -> Self {
        Self {
            max_client_info_bytes: 16 * 1024,
            max_capabilities_bytes: 16 * 1024,
            max_subscriptions: 256,
            max_subscription_bytes: 64 * 1024,
        }
    }
}

impl PeerLimits {
    /// The most bytes of peer-sent values one idle session can hold under these limits.
    pub fn per_session_bytes(&self) -> usize {
        self.max_client_info_bytes + self.max_capabilities_bytes + self.max_subscription_bytes
    }

    /// Checks the `clientInfo` and `capabilities` an `initialize` carries.
    pub(crate) fn check_handshake(
        &self,
        client_info: &Value,
        capabilities: &Value,
    ) -> Result<(), McpError> {
        check_size(
            "initialize: params.clientInfo",
            client_info,
            self.max_client_info_bytes,
        )?;
        check_size(
            "initialize: params.capabilities",
            capabilities,
            self.max_capabilities_bytes,
        )
    }

    /// Checks that a session holding `held` subscriptions (`held_bytes` bytes of URIs) may
    /// subscribe to `uri` as well.
    pub(crate) fn check_subscription(
        &self,
        held: usize,
        held_bytes: usize,
        uri: &str,
    ) -> Result<(), McpError> {
        if held >= self.max_subscriptions {
            return Err(McpError::invalid_params(format!(
                "resources/subscribe: this session already holds {held} subscriptions, the most \
                 allowed ({}); unsubscribe from one first",
                self.max_subscriptions
            ))
            .with_data(serde_json::json!({ "limit": self.max_subscriptions })));
        }
        if held_bytes + uri.len() > self.max_subscription_bytes {
            return Err(McpError::invalid_params(format!(
                "resources/subscribe: the session's subscribed URIs would take {} bytes, over the \
                 limit of {} bytes",
                held_bytes + uri.len(),
                self.max_subscription_bytes
            ))
            .with_data(serde_json::json!({ "limitBytes": self.max_subscription_bytes })));
        }
        Ok(())
    }
}

/// Refuses `value` when its JSON text is longer than `limit` bytes (measured without writing
/// it, and without walking further than the limit).
fn check_size(what: &str, value: &Value, limit: usize) -> Result<(), McpError> {
    if json_len_at_most(value, limit) {
        return Ok(());
    }
    Err(McpError::invalid_params(format!(
        "{what} is larger than the server's limit of {limit} bytes"
    ))
    .with_data(serde_json::json!({ "limitBytes": limit })))
}

/// Whether `value`'s compact JSON text is at most `budget` bytes, counting strings by their
/// unescaped length (what the session keeps in memory).
pub(crate) fn json_len_at_most(value: &Value, budget: usize) -> bool {
    fn spend(left: &mut usize, cost: usize) -> bool {
        match left.checked_sub(cost) {
            Some(rest) => {
                *left = rest;
                true
            }
            None => false,
        }
    }
    fn walk(value: &Value, left: &mut usize) -> bool {
        match value {
            Value::String(s) => spend(left, s.len() + 2),
            Value::Array(items) => {
                spend(left, 2 + items.len().saturating_sub(1))
                    && items.iter().all(|v| walk(v, left))
            }
            Value::Object(map) => {
                spend(left, 2 + map.len().saturating_sub(1))
                    && map
                        .iter()
                        .all(|(k, v)| spend(left, k.len() + 3) && walk(v, left))
            }
            Value::Number(n) => spend(left, n.to_string().len()),
            Value::Bool(true) => spend(left, 4),
            Value::Bool(false) => spend(left, 5),
            Value::Null => spend(left, 4),
        }
    }
    let mut left = budget;
    walk(value, &mut left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_size_estimate_is_the_compact_json_length() {
        for v in [
            json!({"name": "c", "version": "1"}),
            json!([1, 2.5, true, false, null, "x", {"a": []}]),
            json!({}),
            json!([]),
        ] {
            let len = v.to_string().len();
            assert!(json_len_at_most(&v, len), "{v}");
            assert!(!json_len_at_most(&v, len - 1), "{v}");
        }
    }

    #[test]
    fn a_subscription_over_either_limit_is_refused() {
        let l = PeerLimits {
            max_subscriptions: 2,
            max_subscription_bytes: 10,
            ..Default::default()
        };
        assert!(l.check_subscription(1, 0, "a://b").is_ok());
        assert_eq!(l.check_subscription(2, 0, "a").unwrap_err().code, -32602);
        assert_eq!(
            l.check_subscription(1, 8, "a://b").unwrap_err().code,
            -32602
        );
    }
}
