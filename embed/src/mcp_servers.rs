//! The `mcpServers` configuration for the bindings' multi-server clients (Python's
//! `MultiClient.from_config`, Node's `MultiClient.fromConfig`, Swift's `MultiClient.fromConfig`):
//! one call that reads a configuration ([`ferromcp::client::mcp_servers`]) and answers its
//! normalized entries as JSON, so no binding parses the format itself. Each binding connects
//! the entries with its own `Client` (which carries its handlers) and names things with the
//! prefixes given here.

use ferromcp::client::mcp_servers::{ConfigError, McpServersConfig, ServerTransport};
use serde_json::{json, Map, Value};

/// Reads a configuration, given as its JSON text or as the path of a file holding it
/// ([`McpServersConfig::from_source`]), and answers its enabled servers, sorted by name:
///
/// ```json
/// {"namespaced": true, "servers": [
///   {"name": "files", "transport": "stdio", "command": "npx", "args": ["-y", "srv"],
///    "env": {"PORT": "8080"}, "cwd": null, "lazy": false, "perClient": false,
///    "namePrefix": "files_", "uriPrefix": "files+"},
///   {"name": "web", "transport": "http", "url": "https://h/mcp",
///    "headers": {"Authorization": "Bearer t"}, "lazy": false, "perClient": false,
///    "namePrefix": "web_", "uriPrefix": "web+"}]}
/// ```
///
/// `transport` is `"stdio"`, `"http"` (Streamable HTTP) or `"sse"` (legacy HTTP+SSE);
/// `namePrefix` goes in front of the server's tool and prompt names, `uriPrefix` in front of
/// its resource URIs (both empty with one server).
pub fn resolve_mcp_servers(source: &str) -> Result<Value, ConfigError> {
    let config = McpServersConfig::from_source(source)?;
    let servers: Vec<Value> = config
        .servers
        .iter()
        .map(|entry| {
            let ns = config.namespace(entry);
            let mut out = json!({
                "name": entry.name,
                "transport": entry.transport.kind(),
                "lazy": entry.lazy,
                "perClient": entry.per_client,
                "namePrefix": ns.name_prefix(),
                "uriPrefix": ns.uri_prefix(),
            });
            match &entry.transport {
                ServerTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    out["command"] = json!(command);
                    out["args"] = json!(args);
                    out["env"] = pairs(env);
                    out["cwd"] = json!(cwd);
                }
                ServerTransport::Http { url, headers } | ServerTransport::Sse { url, headers } => {
                    out["url"] = json!(url);
                    out["headers"] = pairs(headers);
                }
                // A transport added later: its kind is named above, its settings not yet.
                _ => {}
            }
            out
        })
        .collect();
    Ok(json!({ "namespaced": config.namespaced(), "servers": servers }))
}

/// [`resolve_mcp_servers`] as one JSON text for a binding to hand over unchanged: the answer,
/// or `{"error": {"path": "mcpServers.a.env.K", "message": "..."}}` for the binding to raise as
/// its `ConfigError`.
pub fn resolve_mcp_servers_json(source: &str) -> String {
    match resolve_mcp_servers(source) {
        Ok(v) => v.to_string(),
        Err(e) => json!({ "error": { "path": e.path, "message": e.message } }).to_string(),
    }
}

fn pairs(items: &[(String, String)]) -> Value {
    Value::Object(
        items
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect::<Map<String, Value>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_normalized_with_their_prefixes() {
        let v: Value = serde_json::from_str(&resolve_mcp_servers_json(
            r#"{"mcpServers": {
                "web": {"url": "https://h/mcp", "headers": {"A": "b"}},
                "files": {"command": "npx", "args": ["-y"], "env": {"PORT": 8080}, "cwd": "/srv"},
                "old": {"type": "sse", "url": "http://h/sse", "sessions": "per-client"}}}"#,
        ))
        .unwrap();
        assert_eq!(
            v,
            json!({"namespaced": true, "servers": [
                {"name": "files", "transport": "stdio", "command": "npx", "args": ["-y"],
                 "env": {"PORT": "8080"}, "cwd": "/srv", "lazy": false, "perClient": false,
                 "namePrefix": "files_", "uriPrefix": "files+"},
                {"name": "old", "transport": "sse", "url": "http://h/sse", "headers": {},
                 "lazy": false, "perClient": true, "namePrefix": "old_", "uriPrefix": "old+"},
                {"name": "web", "transport": "http", "url": "https://h/mcp", "headers": {"A": "b"},
                 "lazy": false, "perClient": false, "namePrefix": "web_", "uriPrefix": "web+"}]})
        );
        let one: Value = serde_json::from_str(&resolve_mcp_servers_json(
            r#"{"servers": {"a_b": {"command": "x"}}}"#,
        ))
        .unwrap();
        assert_eq!(one["namespaced"], json!(false));
        assert_eq!(one["servers"][0]["namePrefix"], json!(""));
        assert_eq!(one["servers"][0]["cwd"], Value::Null);
    }

    #[test]
    fn an_error_names_the_server_and_the_key() {
        let v: Value = serde_json::from_str(&resolve_mcp_servers_json(
            r#"{"mcpServers": {"a": {"command": "x", "env": {"K": {}}}}}"#,
        ))
        .unwrap();
        assert_eq!(v["error"]["path"], json!("mcpServers.a.env.K"));
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("must be a string"));
    }
}
