//! Checks shared by the tests of `subscriptions/listen`.

use ferromcp::client::Subscription;
use serde_json::Value;

/// The `_meta` key that carries a subscription's id.
pub const SUB_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Asserts that `sub` (already at its end) ended gracefully: the server answered the listen
/// request with its completion result (2026-07-28 "Graceful Closure") tagged with the
/// subscription's id, rather than the connection dropping. Returns that result.
pub fn assert_graceful_end(sub: &Subscription) -> Value {
    let result = match sub.end() {
        Some(Ok(v)) => v.clone(),
        other => panic!("expected the server's completion result, got {other:?}"),
    };
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["_meta"][SUB_ID], *sub.id(), "{result}");
    result
}
