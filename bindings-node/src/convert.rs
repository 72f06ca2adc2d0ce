//! Conversions between JavaScript values and the engine's JSON values.
//!
//! Values cross as `serde_json::Value` (napi's `serde-json` feature converts them to and from
//! plain JavaScript objects). This module holds the few shapes that need more than that.

use ferromcp::McpError;
use serde_json::Value;
use std::collections::HashMap;

/// The envelope the facade resolves a handler call with: `{ok: true, value}` or
/// `{ok: false, error: {code, message, data, exception}}` (`exception`: the handler threw
/// something that is not an `McpError`).
pub fn from_envelope(v: Value) -> Result<Value, McpError> {
    let Value::Object(mut m) = v else {
        return Err(McpError::internal("handler call returned no envelope"));
    };
    if m.get("ok").and_then(Value::as_bool) == Some(true) {
        return Ok(m.remove("value").unwrap_or(Value::Null));
    }
    let err = m.remove("error").unwrap_or(Value::Null);
    let code = err
        .get("code")
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(ferromcp::error::codes::INTERNAL_ERROR);
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("handler failed")
        .to_string();
    // Anything thrown that is not an McpError (see `toErrorObject`).
    let mut e = if err.get("exception").and_then(Value::as_bool) == Some(true) {
        McpError::handler_exception(message)
    } else {
        McpError::new(code, message)
    };
    if let Some(data) = err.get("data").filter(|d| !d.is_null()) {
        e = e.with_data(data.clone());
    }
    Err(e)
}

/// An optional JSON value where JavaScript `undefined`/`null` mean "none".
pub fn opt(v: Option<Value>) -> Option<Value> {
    v.filter(|v| !v.is_null())
}

/// A string map (headers, environment) as ordered pairs.
pub fn pairs(map: Option<HashMap<String, String>>) -> Vec<(String, String)> {
    let mut v: Vec<_> = map.unwrap_or_default().into_iter().collect();
    v.sort();
    v
}
