//! Helpers of the per-request-era (2026-07-28) HTTP tests: requests with `_meta` and the
//! request metadata headers.
#![allow(dead_code)]

use crate::common_http::{send, Resp, JSON_SSE};
use serde_json::{json, Value};

pub const V: &str = "2026-07-28";

/// The `_meta` a per-request-era client sends, with client capabilities `caps`.
pub fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { "name": "modern-test", "version": "1.0" },
    })
}

/// A request body with `params` (given `_meta` kept, else [`meta`] with no capabilities).
pub fn request(id: u64, method: &str, params: Value) -> Value {
    let mut params = params;
    if params.get("_meta").is_none() {
        params["_meta"] = meta(json!({}));
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// The request metadata headers a conforming client sends for `body`.
pub fn headers_for(body: &Value) -> Vec<(String, String)> {
    let method = body["method"].as_str().unwrap_or_default().to_string();
    let mut h: Vec<(String, String)> = JSON_SSE
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    h.push(("mcp-protocol-version".into(), V.into()));
    h.push(("mcp-method".into(), method.clone()));
    let name = match method.as_str() {
        "tools/call" | "prompts/get" => body["params"]["name"].as_str(),
        "resources/read" => body["params"]["uri"].as_str(),
        "tasks/get" | "tasks/update" | "tasks/cancel" => body["params"]["taskId"].as_str(),
        _ => None,
    };
    if let Some(n) = name {
        h.push(("mcp-name".into(), n.into()));
    }
    h
}

/// POSTs `body` with `headers`.
pub async fn post_with(url: &str, headers: &[(String, String)], body: &Value) -> Resp {
    let h: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    send("POST", url, &h, &body.to_string()).await
}

/// POSTs `body` as a conforming per-request-era client does.
pub async fn post_modern(url: &str, body: &Value) -> Resp {
    post_with(url, &headers_for(body), body).await
}

/// `headers` with header `name` replaced by `value` (`None`: removed).
pub fn with_header(
    mut headers: Vec<(String, String)>,
    name: &str,
    value: Option<&str>,
) -> Vec<(String, String)> {
    headers.retain(|(k, _)| k != name);
    if let Some(v) = value {
        headers.push((name.into(), v.into()));
    }
    headers
}

/// The JSON-RPC answer of a response: its JSON body, or the last SSE message with an id.
pub fn answer(r: &Resp) -> Value {
    let j = r.json();
    if !j.is_null() {
        return j;
    }
    r.sse_messages()
        .into_iter()
        .rev()
        .find(|m| m.get("id").is_some())
        .unwrap_or(Value::Null)
}
