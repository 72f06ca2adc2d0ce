//! The `mcpServers` configuration: the shapes Claude Desktop, Cursor and VS Code write, and
//! the errors a bad file gets (each naming the key at fault).

use ferromcp_proxy::config::split_command_line;
use ferromcp_proxy::{BackendSpec, ProxyConfig, Transport};
use serde_json::json;

fn err(doc: serde_json::Value) -> String {
    ProxyConfig::from_value(&doc)
        .expect_err("refused")
        .to_string()
}

#[test]
fn claude_desktop_cursor_and_vs_code_shapes_are_read() {
    let c = ProxyConfig::from_json_str(
        r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                      "env": {"DEBUG": "1", "PORT": 8080}, "autoApprove": []},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:9000/sse"},
            "old": {"command": "x", "disabled": true},
            "later": {"command": "y", "lazy": true, "type": "stdio", "sessions": "per-client"}
        }}"#,
    )
    .unwrap();
    let names: Vec<&str> = c.backends.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["files", "later", "legacy", "remote"]);
    assert_eq!(
        c.backends[0].transport,
        Transport::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "/tmp".into()
            ],
            env: vec![("DEBUG".into(), "1".into()), ("PORT".into(), "8080".into())],
            cwd: None,
        }
    );
    assert!(c.backends[1].lazy);
    assert!(c.backends[1].per_client);
    assert!(!c.backends[0].per_client);
    assert_eq!(
        c.backends[2].transport,
        Transport::Sse {
            url: "http://127.0.0.1:9000/sse".into(),
            headers: vec![]
        }
    );
    assert_eq!(
        c.backends[3].transport,
        Transport::Http {
            url: "https://example.com/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer t".into())]
        }
    );
    assert!(c.namespaced());
    let vs = ProxyConfig::from_value(&json!({ "servers": {
        "gh": { "type": "http", "url": "https://api.example.com/mcp/" } } }))
    .unwrap();
    assert!(!vs.namespaced());
    assert!(matches!(vs.backends[0].transport, Transport::Http { .. }));
}

#[test]
fn bad_configurations_are_refused_with_the_key_at_fault() {
    assert_eq!(
        err(json!([])),
        "the configuration must be a JSON object with an \"mcpServers\" object"
    );
    assert_eq!(
        err(json!({ "mcp": {} })),
        "no \"mcpServers\" object (nor VS Code's \"servers\")"
    );
    assert_eq!(
        err(json!({ "mcpServers": [] })),
        "mcpServers: must be an object of server entries"
    );
    assert_eq!(
        err(json!({ "mcpServers": {} })),
        "mcpServers: no enabled server: add at least one entry"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "disabled": true } } })),
        "mcpServers: no enabled server: add at least one entry"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": {} } })),
        "mcpServers.a: needs \"command\" (a server to start) or \"url\" (a server to reach)"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "url": "http://h/mcp" } } })),
        "mcpServers.a: has both \"command\" and \"url\": a server is either started (command) or reached (url)"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "args": ["ok", 3] } } })),
        "mcpServers.a.args[1]: must be a string"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "args": "--flag" } } })),
        "mcpServers.a.args: must be an array of strings"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "env": { "K": ["v"] } } } })),
        "mcpServers.a.env.K: must be a string"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "  " } } })),
        "mcpServers.a.command: must not be empty"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "url": "ftp://h/mcp" } } })),
        "mcpServers.a.url: \"ftp://h/mcp\" is not an http:// or https:// URL"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "url": "http://h/mcp", "type": "websocket" } } })),
        "mcpServers.a.type: unknown transport \"websocket\": use \"stdio\", \"http\" or \"sse\""
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "url": "http://h/mcp", "type": "stdio" } } })),
        "mcpServers.a: has \"url\" but type \"stdio\"; use \"command\" or type \"http\""
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "type": "http" } } })),
        "mcpServers.a: has \"command\" but a network transport type; use \"url\" or type \"stdio\""
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "url": "http://h/mcp", "env": {} } } })),
        "mcpServers.a.env: applies to started servers (\"command\"), not to a URL"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "headers": {} } } })),
        "mcpServers.a.headers: applies to URL servers, not to a command"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "lazy": "yes" } } })),
        "mcpServers.a.lazy: must be true or false"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x", "sessions": "each" } } })),
        "mcpServers.a.sessions: unknown value \"each\": use \"shared\" or \"per-client\""
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": 1 } })),
        "mcpServers.a: a server entry must be an object"
    );
    assert_eq!(
        err(json!({ "mcpServers": { "a": { "command": "x" } }, "servers": {} })),
        "both \"mcpServers\" and \"servers\" are present; keep one"
    );
    assert!(ProxyConfig::from_json_str("{\"mcpServers\": ")
        .unwrap_err()
        .message
        .starts_with("not valid JSON"));
}

#[test]
fn with_several_servers_each_name_must_be_a_namespace() {
    // One server is not namespaced: any name goes.
    ProxyConfig::from_value(&json!({ "mcpServers": { "my_server": { "command": "x" } } })).unwrap();
    assert_eq!(
        err(json!({ "mcpServers": { "my_server": { "command": "x" }, "b": { "command": "y" } } })),
        "mcpServers.my_server: the server name \"my_server\" is used as a namespace (tools NAME_tool, \
         resources NAME+uri) and must start with a letter and hold only letters, digits, '-' and '.'"
    );
    assert!(
        err(json!({ "mcpServers": { "1a": { "command": "x" }, "b": { "command": "y" } } }))
            .contains("\"1a\"")
    );
}

#[test]
fn a_command_line_target_is_split_like_a_shell_does() {
    assert_eq!(
        split_command_line(r#"node "my server.js" --name 'a b' c\ d "q\"x""#).unwrap(),
        ["node", "my server.js", "--name", "a b", "c d", "q\"x"]
    );
    assert!(split_command_line("node 'open")
        .unwrap_err()
        .contains("single quote"));
    let url = BackendSpec::from_target("s", "http://127.0.0.1:3000/mcp").unwrap();
    assert!(matches!(url.transport, Transport::Http { .. }));
    let sse = BackendSpec::from_target("s", "http://127.0.0.1:3000/sse").unwrap();
    assert!(matches!(sse.transport, Transport::Sse { .. }));
    assert!(BackendSpec::from_target("s", "   ").is_err());
}
