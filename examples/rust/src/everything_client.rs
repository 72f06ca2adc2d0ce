//! The "everything" client, in two modes.
//!
//! * Conformance client: `everything-client URL` with `MCP_CONFORMANCE_SCENARIO` set, as the
//!   official conformance suite runs it (client mode, `core` suite; see
//!   `tests/conformance/SCENARIOS.md`). Unknown scenario: prints the known ones, exits 1.
//! * Interop client: `everything-client --interop --stdio CMD ARGS...` or
//!   `everything-client --interop --http URL` checks a server exposing the interop surface
//!   (`tests/interop/SURFACE.md`) and prints a JSON report `{ok, checks: [{name, ok, detail}]}`;
//!   exits 0 only if every check passed.

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::protocol::{CreateMessageResult, ElicitRequestParams, ElicitResult, LoggingLevel};
use ferromcp::session::RequestOptions;
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use ferromcp::McpError;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Scenarios of the conformance suite's `core` client suite this client knows, and the
/// alpha's 2026-07-28 client scenarios (run in `Auto` mode like every other one).
const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
];

/// The `auth/*` scenarios (OAuth against the suite's mock authorization server).
const AUTH_SCENARIOS: &[&str] = &[
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/client-credentials-basic",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
];

/// The Client ID Metadata Document URL the suite expects (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth client for an `auth/*` scenario: the mock authorization server approves at once,
/// so the redirect step just reads its `Location`. Pre-registered credentials and client
/// credentials come from `MCP_CONFORMANCE_CONTEXT`.
fn conformance_auth() -> std::sync::Arc<ferromcp::auth::OAuthClient> {
    use ferromcp::auth::{AutoApprove, OAuthClient, OAuthConfig};
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let id = context["client_id"].as_str();
    let secret = context["client_secret"].as_str();
    let config = match (context["name"].as_str(), id, secret) {
        (Some(n), Some(id), Some(secret)) if n.starts_with("auth/client-credentials") => {
            OAuthConfig::client_credentials(id, secret)
        }
        (_, Some(id), secret) => {
            OAuthConfig::new(Arc::new(AutoApprove::new("http://localhost:3000/callback")))
                .pre_registered(id, secret.map(str::to_string))
        }
        _ => OAuthConfig::new(Arc::new(AutoApprove::new("http://localhost:3000/callback"))),
    };
    let config = config
        .client_name("ferromcp-everything-client")
        .client_metadata_url(CLIENT_METADATA_URL);
    Arc::new(OAuthClient::new(config))
}

/// An `auth/*` scenario: connect (authorizing on the first 401), list the tools, call each.
async fn run_auth_scenario(url: &str) -> Result<(), McpError> {
    use ferromcp::client::http::connect;
    use ferromcp::transport::http::HttpClientOptions;
    let http = HttpClientOptions::default()
        .with_legacy_fallback(false)
        .with_open_get_stream(false)
        .auth(conformance_auth());
    let mut options = ClientOptions::new("ferromcp-everything-client", env!("CARGO_PKG_VERSION"));
    // The revision the suite runs at: a per-request one (2026-07-28) is spoken as such
    // (server/discover, MCP-Protocol-Version on every request), with the handshake as fallback.
    let revision = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok();
    if let Some(v) = revision
        .as_deref()
        .and_then(ferromcp::ProtocolVersion::parse)
    {
        if v.is_per_request() {
            options.protocol_version = v;
            options.mode = ferromcp::client::ProtocolMode::Auto;
        }
    }
    let client = connect(url, options, ClientHandlers::default(), http).await?;
    let outcome = async {
        let tools = client.list_all_tools().await?;
        for tool in tools {
            client.call_tool(&tool.name, json!({})).await?;
        }
        Ok::<(), McpError>(())
    }
    .await;
    client.close().await;
    outcome
}

/// Where the server is.
enum Target {
    /// Spawn a server process and talk over its stdio.
    Stdio(Vec<String>),
    /// A Streamable HTTP endpoint.
    Http(String),
}

async fn connect(
    target: &Target,
    options: ClientOptions,
    handlers: ClientHandlers,
) -> Result<Client, McpError> {
    match target {
        Target::Stdio(cmd) => {
            let (program, args) = cmd
                .split_first()
                .ok_or_else(|| McpError::invalid_params("--stdio needs a command"))?;
            let process = ChildProcessOptions::new(program)
                .args(args.to_vec())
                .stderr(StderrMode::Inherit);
            Client::spawn(process, options, handlers).await
        }
        Target::Http(url) => connect_http(url, options, handlers).await,
    }
}

/// Whether this build has a Streamable HTTP client transport.
const HAS_HTTP_CLIENT: bool = true;

async fn connect_http(
    url: &str,
    options: ClientOptions,
    handlers: ClientHandlers,
) -> Result<Client, McpError> {
    use ferromcp::client::http::connect;
    use ferromcp::transport::http::HttpClientOptions;
    let http = HttpClientOptions::default().with_legacy_fallback(false);
    connect(url, options, handlers, http).await
}

/// Fills every field the user left out with the schema's `default` (SEP-1034, `applyDefaults`).
fn apply_defaults(schema: &Value, content: &mut Map<String, Value>) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            if let Some(d) = prop.get("default") {
                if !content.contains_key(name) {
                    content.insert(name.clone(), d.clone());
                }
            }
        }
    }
}

/// Handlers that answer sampling with a canned reply and accept elicitations with defaults.
fn conformance_handlers() -> ClientHandlers {
    ClientHandlers::default()
        .with_sampling(Some(Arc::new(|_params, _ctx| {
            Box::pin(async {
                Ok(serde_json::from_value::<CreateMessageResult>(json!({
                    "role": "assistant",
                    "content": { "type": "text", "text": "This is a test response from the client" },
                    "model": "test-model",
                    "stopReason": "endTurn"
                }))
                .expect("valid sampling result"))
            })
        })))
        .with_elicitation(Some(Arc::new(|params, _ctx| {
            Box::pin(async move {
                let mut content = Map::new();
                if let ElicitRequestParams::Form(form) = &params {
                    let schema = serde_json::to_value(&form.requested_schema)
                        .map_err(|e| McpError::internal(e.to_string()))?;
                    apply_defaults(&schema, &mut content);
                }
                Ok(ElicitResult::accept(content))
            })
        })))
}

/// The tool calls a scenario's `MCP_CONFORMANCE_CONTEXT` asks for (`toolCalls: [{name,
/// arguments}]`), if any.
fn context_tool_calls() -> Option<Vec<(String, Value)>> {
    let context: Value =
        serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let calls = context.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|c| {
                Some((
                    c.get("name")?.as_str()?.to_string(),
                    c.get("arguments").cloned().unwrap_or_else(|| json!({})),
                ))
            })
            .collect(),
    )
}

/// The 2026-07-28 client scenarios' common run: the tool calls the context names, or else every
/// listed tool called with `{}`, then every resource read and every prompt got where the server
/// offers them.
async fn exercise(client: &Client) -> Result<(), McpError> {
    let tools = client.list_all_tools().await?;
    match context_tool_calls() {
        Some(calls) => {
            for (name, arguments) in calls {
                client.call_tool(&name, arguments).await?;
            }
        }
        None => {
            for tool in &tools {
                client.call_tool(&tool.name, json!({})).await?;
            }
        }
    }
    let caps = client.server_capabilities().cloned().unwrap_or_default();
    if caps.get("resources").is_some() {
        for r in client.list_resources(None).await?.resources {
            client.read_resource(&r.uri).await?;
        }
    }
    if caps.get("prompts").is_some() {
        for p in client.list_prompts(None).await?.prompts {
            client.get_prompt(&p.name, Map::new()).await?;
        }
    }
    Ok(())
}

async fn run_scenario(scenario: &str, url: &str) -> Result<(), McpError> {
    let target = Target::Http(url.to_string());
    let mut options = ClientOptions::new("ferromcp-everything-client", env!("CARGO_PKG_VERSION"));
    // Both eras: server/discover first, the initialize handshake where it is not offered.
    options.mode = ferromcp::client::ProtocolMode::Auto;
    let client = connect(&target, options, conformance_handlers()).await?;
    let outcome = async {
        match scenario {
            "initialize" => {
                // The handshake is the scenario; list tools only where the server offers them.
                if client
                    .server_capabilities()
                    .is_some_and(|c| c.get("tools").is_some())
                {
                    client.list_tools(None).await?;
                }
            }
            "tools_call" => {
                let tools = client.list_all_tools().await?;
                eprintln!(
                    "tools: {:?}",
                    tools.iter().map(|t| &t.name).collect::<Vec<_>>()
                );
                let r = client
                    .call_tool("add_numbers", json!({ "a": 5, "b": 3 }))
                    .await?;
                eprintln!(
                    "add_numbers -> {:?}",
                    r.content.first().and_then(|c| c.as_text())
                );
            }
            "elicitation-sep1034-client-defaults" => {
                client.list_all_tools().await?;
                let r = client
                    .call_tool("test_client_elicitation_defaults", json!({}))
                    .await?;
                eprintln!(
                    "result -> {:?}",
                    r.content.first().and_then(|c| c.as_text())
                );
            }
            "sse-retry" => {
                client.list_all_tools().await?;
                let r = client.call_tool("test_reconnection", json!({})).await?;
                eprintln!(
                    "result -> {:?}",
                    r.content.first().and_then(|c| c.as_text())
                );
            }
            "json-schema-ref-no-deref" => {
                // Listing is the scenario: the schema's network `$ref` must not be fetched.
                client.list_all_tools().await?;
            }
            "json-schema-2020-12-preservation" => {
                let tools = client.list_all_tools().await?;
                let schema = tools
                    .iter()
                    .find(|t| t.name == "json_schema_2020_12_tool")
                    .map(|t| t.input_schema.clone())
                    .ok_or_else(|| McpError::internal("json_schema_2020_12_tool not listed"))?;
                client
                    .call_tool("json_schema_echo", json!({ "schema": schema }))
                    .await?;
            }
            "request-metadata"
            | "sep-2322-client-request-state"
            | "http-standard-headers"
            | "http-custom-headers"
            | "http-invalid-tool-headers" => exercise(&client).await?,
            _ => unreachable!("checked by the caller"),
        }
        Ok::<(), McpError>(())
    }
    .await;
    client.close().await;
    outcome
}

/// One interop check.
struct Checks {
    items: Vec<Value>,
}

impl Checks {
    fn add(&mut self, name: &str, ok: bool, detail: Value) {
        self.items
            .push(json!({ "name": name, "ok": ok, "detail": detail }));
    }
    fn ok(&self) -> bool {
        self.items.iter().all(|c| c["ok"] == json!(true))
    }
}

fn first_text(r: &ferromcp::protocol::CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("")
}

async fn interop(target: &Target, checks: &mut Checks) -> Result<(), McpError> {
    let logs: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = logs.clone();
    let handlers = ClientHandlers::default().with_on_notification(Some(Arc::new(move |n| {
        if n.method == "notifications/message" {
            sink.lock().unwrap().push(n.params.unwrap_or(Value::Null));
        }
    })));
    let client = connect(
        target,
        ClientOptions::new("interop-rust-client", "1.0.0"),
        handlers,
    )
    .await?;
    let outcome = interop_checks(&client, &logs, checks).await;
    client.close().await;
    outcome
}

async fn interop_checks(
    client: &Client,
    logs: &Arc<Mutex<Vec<Value>>>,
    checks: &mut Checks,
) -> Result<(), McpError> {
    // 1. handshake and tools/list
    let tools: Vec<String> = client
        .list_all_tools()
        .await?
        .into_iter()
        .map(|t| t.name)
        .collect();
    let want = ["echo", "add", "progress", "log", "fail"];
    checks.add(
        "tools/list",
        want.iter().all(|w| tools.iter().any(|t| t == w)),
        json!({ "tools": tools, "protocolVersion": client.protocol_version().as_str() }),
    );

    // 2. echo
    let text = "interop ✓ text";
    let r = client.call_tool("echo", json!({ "text": text })).await?;
    let got = first_text(&r);
    checks.add("echo", got == text, json!({ "got": got }));

    // 3. add
    let r = client.call_tool("add", json!({ "a": 2, "b": 0.5 })).await?;
    let got = first_text(&r);
    checks.add("add", got == "2.5", json!({ "got": got }));

    // 4. progress
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    let opts = RequestOptions::default()
        .with_on_progress(Some(Arc::new(move |p| sink.lock().unwrap().push(p))));
    let r = client
        .call_tool_with("progress", json!({ "steps": 3 }), opts)
        .await?;
    let got = first_text(&r);
    let seen = seen.lock().unwrap().clone();
    let values: Vec<f64> = seen.iter().filter_map(|p| p["progress"].as_f64()).collect();
    let totals_ok = seen.iter().all(|p| p["total"].as_f64() == Some(3.0));
    checks.add(
        "progress",
        values == [1.0, 2.0, 3.0] && totals_ok && got == "done",
        json!({ "notifications": seen, "result": got }),
    );

    // 5. logging
    client.set_logging_level(LoggingLevel::Debug).await?;
    let r = client
        .call_tool(
            "log",
            json!({ "message": "interop log line", "level": "info" }),
        )
        .await?;
    let got = first_text(&r);
    // Over stdio the notification may be read just after the result: give it a moment.
    for _ in 0..20 {
        if !logs.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let seen = logs.lock().unwrap().clone();
    let ok = seen
        .iter()
        .any(|l| l["level"] == json!("info") && l["data"] == json!("interop log line"));
    checks.add(
        "log",
        ok && got == "logged",
        json!({ "messages": seen, "result": got }),
    );

    // 6. fail
    let r = client.call_tool("fail", json!({})).await?;
    let got = first_text(&r);
    checks.add(
        "fail",
        r.is_error() && got.contains("intentional failure"),
        json!({ "isError": r.is_error(), "text": got }),
    );

    // 7. resources
    let list = client.list_resources(None).await?;
    let uris: Vec<&str> = list.resources.iter().map(|r| r.uri.as_str()).collect();
    let read = client.read_resource("mem://greeting").await?;
    let texts = contents_texts(&read);
    checks.add(
        "resources",
        uris.contains(&"mem://greeting") && texts == ["hello"],
        json!({ "uris": uris, "texts": texts }),
    );

    // 8. templates
    let list = client.list_resource_templates(None).await?;
    let templates: Vec<&str> = list
        .resource_templates
        .iter()
        .map(|t| t.uri_template.as_str())
        .collect();
    let read = client.read_resource("mem://items/42").await?;
    let texts = contents_texts(&read);
    checks.add(
        "resource-templates",
        templates.contains(&"mem://items/{id}") && texts == ["item 42"],
        json!({ "templates": templates, "texts": texts }),
    );

    // 9. prompts
    let list = client.list_prompts(None).await?;
    let names: Vec<&str> = list.prompts.iter().map(|p| p.name.as_str()).collect();
    let mut args = Map::new();
    args.insert("name".into(), json!("Ferris"));
    let prompt = client.get_prompt("greet", args).await?;
    let msgs = serde_json::to_value(&prompt.messages).unwrap_or(Value::Null);
    let ok = msgs.as_array().is_some_and(|m| {
        m.iter().any(|m| {
            m["role"] == json!("user")
                && m["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Ferris"))
        })
    });
    checks.add(
        "prompts",
        names.contains(&"greet") && ok,
        json!({ "prompts": names, "messages": msgs }),
    );
    Ok(())
}

fn contents_texts(r: &ferromcp::protocol::ReadResourceResult) -> Vec<String> {
    serde_json::to_value(&r.contents)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|c| c["text"].as_str().map(str::to_string))
        .collect()
}

fn usage() -> ! {
    eprintln!(
        "usage: everything-client URL               (MCP_CONFORMANCE_SCENARIO selects the scenario)\n       \
         everything-client --interop --stdio CMD ARGS... | --interop --http URL"
    );
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--has-http-client") {
        // For the test scripts: exit 0 when this build can connect over Streamable HTTP.
        std::process::exit(if HAS_HTTP_CLIENT { 0 } else { 1 });
    }
    if args.first().map(String::as_str) == Some("--interop") {
        let target = match (args.get(1).map(String::as_str), args.get(2)) {
            (Some("--stdio"), Some(_)) => Target::Stdio(args[2..].to_vec()),
            (Some("--http"), Some(url)) => Target::Http(url.clone()),
            _ => usage(),
        };
        let mut checks = Checks { items: Vec::new() };
        let run =
            tokio::time::timeout(Duration::from_secs(30), interop(&target, &mut checks)).await;
        let error = match run {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e.to_string()),
            Err(_) => Some("timed out after 30 s".to_string()),
        };
        let ok = error.is_none() && checks.ok() && !checks.items.is_empty();
        let mut report = json!({ "ok": ok, "checks": checks.items });
        if let Some(e) = error {
            report["error"] = json!(e);
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("report serializes")
        );
        std::process::exit(if ok { 0 } else { 1 });
    }

    let Some(url) = args.last().filter(|a| !a.starts_with('-')) else {
        usage()
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    // Every `auth/*` scenario runs the same OAuth client; the list names the ones checked.
    let run = if AUTH_SCENARIOS.contains(&scenario.as_str()) || scenario.starts_with("auth/") {
        run_auth_scenario(url).await
    } else if SCENARIOS.contains(&scenario.as_str()) {
        run_scenario(&scenario, url).await
    } else {
        eprintln!(
            "everything-client: unknown or unsupported scenario {scenario:?}; known: {}, {}",
            SCENARIOS.join(", "),
            AUTH_SCENARIOS.join(", ")
        );
        std::process::exit(1);
    };
    match run {
        Ok(()) => {
            eprintln!("everything-client: scenario {scenario} done");
        }
        Err(e) => {
            eprintln!("everything-client: scenario {scenario} failed: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferromcp::protocol::ElicitAction;

    #[test]
    fn defaults_fill_only_missing_fields() {
        let schema = json!({ "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "plain": { "type": "string" }
        } });
        let mut content = Map::new();
        content.insert("age".into(), json!(41));
        apply_defaults(&schema, &mut content);
        assert_eq!(
            Value::Object(content),
            json!({ "name": "John Doe", "age": 41 })
        );
    }

    #[test]
    fn accept_action_is_accept() {
        assert!(matches!(
            ElicitResult::accept(Map::new()).action,
            ElicitAction::Accept
        ));
    }
}
