//! The shapes Claude Desktop, Cursor and VS Code write, and the errors a bad document gets
//! (each naming the server and the key at fault).

use super::*;
use serde_json::json;

fn err(doc: Value) -> String {
    McpServersConfig::from_value(&doc)
        .expect_err("refused")
        .to_string()
}

#[test]
fn claude_desktop_cursor_and_vs_code_shapes_are_read() {
    let c = McpServersConfig::from_json_str(
        r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                      "env": {"DEBUG": "1", "PORT": 8080, "ON": true}, "autoApprove": []},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:9000/sse"},
            "old": {"command": "x", "disabled": true},
            "later": {"command": "y", "lazy": true, "type": "stdio", "sessions": "per-client"},
            "surf": {"serverUrl": "https://w.example/mcp", "transport": "streamable-http"}
        }}"#,
    )
    .unwrap();
    let names: Vec<&str> = c.servers.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["files", "later", "legacy", "remote", "surf"]);
    assert_eq!(
        c.servers[0].transport,
        ServerTransport::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "/tmp".into()
            ],
            env: vec![
                ("DEBUG".into(), "1".into()),
                ("ON".into(), "true".into()),
                ("PORT".into(), "8080".into())
            ],
            cwd: None,
        }
    );
    assert!(c.servers[1].lazy);
    assert!(c.servers[1].per_client);
    assert!(!c.servers[0].per_client);
    assert_eq!(
        c.servers[2].transport,
        ServerTransport::Sse {
            url: "http://127.0.0.1:9000/sse".into(),
            headers: vec![]
        }
    );
    assert_eq!(
        c.servers[3].transport,
        ServerTransport::Http {
            url: "https://example.com/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer t".into())]
        }
    );
    assert_eq!(c.servers[4].transport.kind(), "http");
    assert!(c.namespaced());
    assert_eq!(c.namespace(&c.servers[3]).name("t"), "remote_t");
    let vs = McpServersConfig::from_value(&json!({ "servers": {
        "gh": { "type": "http", "url": "https://api.example.com/mcp/" } } }))
    .unwrap();
    assert!(!vs.namespaced());
    assert_eq!(vs.namespace(&vs.servers[0]).name("t"), "t");
    assert!(matches!(
        vs.servers[0].transport,
        ServerTransport::Http { .. }
    ));
}

#[test]
fn bad_configurations_are_refused_with_the_key_at_fault() {
    let cases = [
        (
            json!([]),
            "the configuration must be a JSON object with an \"mcpServers\" object",
        ),
        (
            json!({ "mcp": {} }),
            "no \"mcpServers\" object (nor VS Code's \"servers\")",
        ),
        (
            json!({ "mcpServers": [] }),
            "mcpServers: must be an object of server entries",
        ),
        (
            json!({ "mcpServers": {} }),
            "mcpServers: no enabled server: add at least one entry",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "disabled": true } } }),
            "mcpServers: no enabled server: add at least one entry",
        ),
        (
            json!({ "mcpServers": { "a": {} } }),
            "mcpServers.a: needs \"command\" (a server to start) or \"url\" (a server to reach)",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "url": "http://h/mcp" } } }),
            "mcpServers.a: has both \"command\" and \"url\": a server is either started (command) or reached (url)",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "args": ["ok", 3] } } }),
            "mcpServers.a.args[1]: must be a string",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "args": "--flag" } } }),
            "mcpServers.a.args: must be an array of strings",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "env": { "K": ["v"] } } } }),
            "mcpServers.a.env.K: must be a string (or a number or boolean, taken as its text), not an array",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "env": { "K": null } } } }),
            "mcpServers.a.env.K: must be a string (or a number or boolean, taken as its text), not null",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "env": ["K=v"] } } }),
            "mcpServers.a.env: must be an object of string values, not an array",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "http://h/mcp", "headers": "x" } } }),
            "mcpServers.a.headers: must be an object of string values, not a string",
        ),
        (
            json!({ "mcpServers": { "a": { "command": 7 } } }),
            "mcpServers.a.command: must be a string",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "  " } } }),
            "mcpServers.a.command: must not be empty",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "cwd": 1 } } }),
            "mcpServers.a.cwd: must be a string",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "ftp://h/mcp" } } }),
            "mcpServers.a.url: \"ftp://h/mcp\" is not an http:// or https:// URL",
        ),
        (
            json!({ "mcpServers": { "a": { "serverUrl": "h/mcp" } } }),
            "mcpServers.a.serverUrl: \"h/mcp\" is not an http:// or https:// URL",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "http://h/mcp", "type": "websocket" } } }),
            "mcpServers.a.type: unknown transport \"websocket\": use \"stdio\", \"http\" or \"sse\"",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "http://h/mcp", "transport": 1 } } }),
            "mcpServers.a.transport: must be a string: \"stdio\", \"http\" or \"sse\"",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "http://h/mcp", "type": "http", "transport": "http" } } }),
            "mcpServers.a: both \"type\" and \"transport\" are present; keep one",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "http://h/mcp", "type": "stdio" } } }),
            "mcpServers.a: has \"url\" but type \"stdio\"; use \"command\" or type \"http\"",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "type": "http" } } }),
            "mcpServers.a: has \"command\" but a network transport type; use \"url\" or type \"stdio\"",
        ),
        (
            json!({ "mcpServers": { "a": { "url": "http://h/mcp", "env": {} } } }),
            "mcpServers.a.env: applies to started servers (\"command\"), not to a URL",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "headers": {} } } }),
            "mcpServers.a.headers: applies to URL servers, not to a command",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "lazy": "yes" } } }),
            "mcpServers.a.lazy: must be true or false",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x", "sessions": "each" } } }),
            "mcpServers.a.sessions: unknown value \"each\": use \"shared\" or \"per-client\"",
        ),
        (
            json!({ "mcpServers": { "a": 1 } }),
            "mcpServers.a: a server entry must be an object",
        ),
        (
            json!({ "mcpServers": { " ": { "command": "x" } } }),
            "mcpServers. : a server name must not be empty",
        ),
        (
            json!({ "mcpServers": { "a": { "command": "x" } }, "servers": {} }),
            "both \"mcpServers\" and \"servers\" are present; keep one",
        ),
    ];
    for (doc, message) in cases {
        assert_eq!(err(doc.clone()), message, "for {doc}");
    }
    assert!(McpServersConfig::from_json_str("{\"mcpServers\": ")
        .unwrap_err()
        .message
        .starts_with("not valid JSON"));
}

#[test]
fn with_several_servers_each_name_must_be_a_namespace() {
    // One server is not namespaced: any name goes.
    McpServersConfig::from_value(&json!({ "mcpServers": { "my_server": { "command": "x" } } }))
        .unwrap();
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
fn a_source_is_json_text_or_the_path_of_a_file() {
    let text = r#"{"mcpServers": {"a": {"command": "x"}}}"#;
    assert_eq!(
        McpServersConfig::from_source(&format!("  {text}")).unwrap(),
        McpServersConfig::from_json_str(text).unwrap()
    );
    let path =
        std::env::temp_dir().join(format!("ferromcp-mcp-servers-{}.json", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let from_file = McpServersConfig::from_source(path.to_str().unwrap());
    std::fs::remove_file(&path).unwrap();
    assert_eq!(from_file.unwrap().servers[0].name, "a");
    let missing = McpServersConfig::from_source("/nonexistent/mcp.json").unwrap_err();
    assert!(
        missing
            .message
            .starts_with("cannot read /nonexistent/mcp.json"),
        "{missing}"
    );
    assert_eq!(
        McpServersConfig::from_source("[1]").unwrap_err().message,
        "the configuration must be a JSON object with an \"mcpServers\" object"
    );
}

#[test]
fn a_command_line_or_url_target_is_one_server() {
    let url = ServerEntry::from_target("s", "http://127.0.0.1:3000/mcp").unwrap();
    assert!(matches!(url.transport, ServerTransport::Http { .. }));
    let sse = ServerEntry::from_target("s", "http://127.0.0.1:3000/sse/").unwrap();
    assert!(matches!(sse.transport, ServerTransport::Sse { .. }));
    let cmd = ServerEntry::from_target("s", "node 'my server.js' --x").unwrap();
    assert_eq!(cmd.describe(), "node my server.js --x");
    assert!(ServerEntry::from_target("s", "   ").is_err());
    assert!(ServerEntry::from_target("s", "node 'open").is_err());
}
