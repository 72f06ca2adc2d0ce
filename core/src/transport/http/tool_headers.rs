//! The client's memory of which tool arguments travel as `Mcp-Param-{Name}` headers
//! (2026-07-28 Streamable HTTP, `x-mcp-header`). A client must mirror those arguments on every
//! `tools/call`, and it learns them from the tools' input schemas in `tools/list` results. The
//! HTTP transport watches its own per-request-era `tools/list` requests and their answers, so
//! every client of one server (in any binding) shares one cache without any API of its own.

use crate::protocol::{checked_header_params, HeaderParam};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// At most this many tools are remembered per server (a hostile server cannot grow it further).
const MAX_TOOLS: usize = 65_536;
/// At most this many `tools/list` requests are awaited at once (older ones are forgotten).
const MAX_PENDING: usize = 1_024;

/// The `x-mcp-header` parameters of one server's tools, as its last `tools/list` answers gave them.
#[derive(Debug, Default)]
pub(crate) struct ToolHeaders {
    /// Ids (as JSON text) of per-request-era `tools/list` requests sent and not yet answered.
    pending: Mutex<HashSet<String>>,
    /// Tool name to its header parameters (tools without any, or with invalid ones, are absent).
    tools: Mutex<HashMap<String, Vec<HeaderParam>>>,
}

impl ToolHeaders {
    /// Notes a request about to be sent: a per-request-era `tools/list` is awaited.
    pub(crate) fn sent(&self, body: &Value) {
        if body.get("method").and_then(Value::as_str) != Some("tools/list")
            || crate::session::per_request::meta_version(body.get("params")).is_none()
        {
            return;
        }
        if let Some(id) = body.get("id") {
            let mut pending = self.pending.lock().unwrap();
            if pending.len() >= MAX_PENDING {
                pending.clear();
            }
            pending.insert(id.to_string());
        }
    }

    /// Reads a message from the server: the answer to an awaited `tools/list` updates the
    /// cache (each tool listed replaces what was known of it).
    pub(crate) fn received(&self, data: &[u8]) {
        if self.pending.lock().unwrap().is_empty() || !contains(data, b"\"tools\"") {
            return;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(data) else {
            return;
        };
        let Some(id) = msg.get("id") else { return };
        if !self.pending.lock().unwrap().remove(&id.to_string()) {
            return;
        }
        let Some(tools) = msg
            .get("result")
            .and_then(|r| r.get("tools"))
            .and_then(Value::as_array)
        else {
            return;
        };
        let mut cache = self.tools.lock().unwrap();
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            match tool
                .get("inputSchema")
                .map(checked_header_params)
                .unwrap_or(Ok(Vec::new()))
            {
                Ok(params) if !params.is_empty() => {
                    if cache.len() < MAX_TOOLS || cache.contains_key(name) {
                        cache.insert(name.to_string(), params);
                    }
                }
                _ => {
                    cache.remove(name);
                }
            }
        }
    }

    /// The `Mcp-Param-{Name}` headers of a `tools/call` body: one for each known parameter of
    /// the tool whose argument is present and not `null`.
    pub(crate) fn headers(&self, body: &Value) -> Vec<(String, String)> {
        if body.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Vec::new();
        }
        let params = body.get("params");
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Vec::new();
        };
        let cache = self.tools.lock().unwrap();
        let Some(tool) = cache.get(name) else {
            return Vec::new();
        };
        let arguments = params.and_then(|p| p.get("arguments"));
        tool.iter()
            .filter_map(|p| {
                let value = HeaderParam::header_value(p.value_in(arguments)?)?;
                Some((format!("mcp-param-{}", p.name.to_ascii_lowercase()), value))
            })
            .collect()
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Value {
        json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" })
    }

    #[test]
    fn learns_from_the_answer_to_its_own_tools_list() {
        let cache = ToolHeaders::default();
        let list = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list",
            "params": { "_meta": meta() } });
        let answer = json!({ "jsonrpc": "2.0", "id": 7, "result": { "tools": [
            { "name": "sql", "inputSchema": { "type": "object", "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "n": { "type": "integer", "x-mcp-header": "N" },
                "q": { "type": "string" } } } },
            { "name": "bad", "inputSchema": { "properties": {
                "v": { "type": "number", "x-mcp-header": "V" } } } } ] } });
        // An answer nobody asked for is ignored.
        cache.received(answer.to_string().as_bytes());
        let call = |name: &str, args: Value| {
            json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/call",
                "params": { "_meta": meta(), "name": name, "arguments": args } })
        };
        assert!(cache
            .headers(&call("sql", json!({ "region": "x" })))
            .is_empty());
        cache.sent(&list);
        cache.received(answer.to_string().as_bytes());
        let mut h = cache.headers(&call(
            "sql",
            json!({ "region": "eu west ", "n": 3, "q": "select" }),
        ));
        h.sort();
        assert_eq!(
            h,
            vec![
                ("mcp-param-n".to_string(), "3".to_string()),
                (
                    "mcp-param-region".to_string(),
                    "=?base64?ZXUgd2VzdCA=?=".to_string()
                ),
            ]
        );
        assert!(cache
            .headers(&call("sql", json!({ "region": null, "n": null })))
            .is_empty());
        assert!(cache.headers(&call("bad", json!({ "v": 1 }))).is_empty());
    }
}
