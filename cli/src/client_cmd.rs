//! `ferromcp list|call|read|prompt|inspect SERVER ...`: connect to a server given as a
//! command line or a URL, make the request, print the answer (readable, or `--json`), and
//! exit with 0, or 1 when the server answered with an error (or the tool reported one).

use crate::args::{Command, Listing, Target};
use crate::render;
use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::StderrMode;
use ferromcp::McpError;
use ferromcp_proxy::{BackendSpec, Transport};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// What went wrong, and the exit status it gives.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub status: i32,
}

impl From<McpError> for Failure {
    fn from(e: McpError) -> Self {
        let mut message = format!("error {}: {}", e.code, e.message);
        if let Some(d) = &e.data {
            message.push_str(&format!("\n  data: {d}"));
        }
        Failure { message, status: 1 }
    }
}

fn usage(message: String) -> Failure {
    Failure { message, status: 2 }
}

/// The environment variable whose value a client command sends as its bearer token to a URL
/// server, unless `--bearer` or an `Authorization` `--header` is given.
pub const BEARER_VAR: &str = "FERROMCP_BEARER";

/// The server's spec with the target's headers (and `FERROMCP_BEARER`'s token) for a URL; a
/// `--header` or `--bearer` given for a command line is a usage error.
fn target_spec(target: &Target, env_bearer: Option<String>) -> Result<BackendSpec, Failure> {
    let mut spec =
        BackendSpec::from_target("server", &target.server).map_err(|e| usage(e.to_string()))?;
    let mut extra = target.headers.clone();
    let has_authorization = extra
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("authorization"));
    match &mut spec.transport {
        Transport::Http { headers, .. } | Transport::Sse { headers, .. } => {
            if let Some(token) = env_bearer.filter(|t| !t.trim().is_empty()) {
                if !has_authorization {
                    if token.chars().any(char::is_control) {
                        return Err(usage(format!(
                            "{BEARER_VAR}: the token holds a control character"
                        )));
                    }
                    extra.push(("Authorization".into(), format!("Bearer {}", token.trim())));
                }
            }
            headers.append(&mut extra);
        }
        _ if !extra.is_empty() => {
            return Err(usage(
                "--header and --bearer apply to a URL server, not to a command line (give the command its own options)".into(),
            ))
        }
        _ => {}
    }
    Ok(spec)
}

async fn connect(target: &Target) -> Result<Client, Failure> {
    let spec = target_spec(target, std::env::var(BEARER_VAR).ok())?;
    let options = ClientOptions::new("ferromcp", env!("CARGO_PKG_VERSION"));
    ferromcp_proxy::connect(&spec, options, ClientHandlers::default(), StderrMode::Null)
        .await
        .map_err(|e| Failure {
            message: format!("cannot connect to {}: {}", spec.describe(), e.message),
            status: 1,
        })
}

/// Every item of a paginated list.
async fn list_all(client: &Client, method: &str, key: &str) -> Result<Vec<Value>, McpError> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor
            .as_ref()
            .map(|c| json!({ "cursor": c }))
            .unwrap_or(json!({}));
        let page = client
            .request(method, Some(params), RequestOptions::default())
            .await?;
        all.extend(
            page.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) if Some(c) != cursor.as_deref() => cursor = Some(c.to_string()),
            _ => return Ok(all),
        }
    }
}

fn has(client: &Client, capability: &str) -> bool {
    client
        .server_capabilities()
        .and_then(|c| c.get(capability))
        .is_some()
}

fn print_json(v: &Value) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// Runs a client command; returns the exit status.
pub async fn run(command: Command) -> Result<i32, Failure> {
    let server = match &command {
        Command::List { server, .. }
        | Command::Call { server, .. }
        | Command::Read { server, .. }
        | Command::Prompt { server, .. }
        | Command::Inspect { server, .. } => server,
        _ => unreachable!("not a client command"),
    };
    let client = connect(server).await?;
    let outcome = run_on(&client, command).await;
    client.close().await;
    outcome
}

async fn run_on(client: &Client, command: Command) -> Result<i32, Failure> {
    match command {
        Command::List { what, json, .. } => {
            let (method, key, capability) = match what {
                Listing::Tools => ("tools/list", "tools", "tools"),
                Listing::Resources => ("resources/list", "resources", "resources"),
                Listing::Templates => {
                    ("resources/templates/list", "resourceTemplates", "resources")
                }
                Listing::Prompts => ("prompts/list", "prompts", "prompts"),
            };
            let items = if has(client, capability) {
                list_all(client, method, key).await?
            } else {
                Vec::new()
            };
            if json {
                print_json(&json!({ key: items }));
            } else {
                print!(
                    "{}",
                    match what {
                        Listing::Tools => render::tools(&items),
                        Listing::Resources => render::resources(&items),
                        Listing::Templates => render::templates(&items),
                        Listing::Prompts => render::prompts(&items),
                    }
                );
            }
            Ok(0)
        }
        Command::Call {
            tool, args, json, ..
        } => {
            let tools = list_all(client, "tools/list", "tools").await?;
            let Some(def) = tools.iter().find(|t| t["name"] == tool.as_str()) else {
                let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
                return Err(usage(format!(
                    "call: the server has no tool {tool:?}; it has: {}",
                    names.join(", ")
                )));
            };
            let arguments = tool_arguments(def, &args).map_err(usage)?;
            let opts = RequestOptions::default().with_on_progress(Some(Arc::new(|p: Value| {
                eprintln!("{}", progress_line(&p))
            })));
            let result = client
                .request(
                    "tools/call",
                    Some(json!({ "name": tool, "arguments": arguments })),
                    opts,
                )
                .await?;
            if json {
                print_json(&result);
            } else {
                print!("{}", render::call_result(&result));
            }
            if result.get("isError").and_then(Value::as_bool) == Some(true) {
                eprintln!("the tool reported an error");
                return Ok(1);
            }
            Ok(0)
        }
        Command::Read { uri, json, .. } => {
            let result = client
                .request(
                    "resources/read",
                    Some(json!({ "uri": uri })),
                    RequestOptions::default(),
                )
                .await?;
            if json {
                print_json(&result);
            } else {
                print!("{}", render::read_result(&result));
            }
            Ok(0)
        }
        Command::Prompt {
            name, args, json, ..
        } => {
            let mut arguments = Map::new();
            for a in &args {
                let (k, v) = a
                    .split_once('=')
                    .ok_or_else(|| usage(format!("prompt: argument {a:?} is not KEY=VALUE")))?;
                arguments.insert(k.to_string(), Value::String(v.to_string()));
            }
            let result = client
                .request(
                    "prompts/get",
                    Some(json!({ "name": name, "arguments": arguments })),
                    RequestOptions::default(),
                )
                .await?;
            if json {
                print_json(&result);
            } else {
                print!("{}", render::prompt_result(&result));
            }
            Ok(0)
        }
        Command::Inspect { json, .. } => {
            let s = surface(client).await?;
            if json {
                print_json(&s);
            } else {
                print!("{}", render::surface(&s));
            }
            Ok(0)
        }
        _ => unreachable!("not a client command"),
    }
}

/// Everything a server offers, as one object.
async fn surface(client: &Client) -> Result<Value, McpError> {
    let mut s = Map::new();
    s.insert(
        "serverInfo".into(),
        client.server_info().cloned().unwrap_or(Value::Null),
    );
    s.insert(
        "protocolVersion".into(),
        json!(client.protocol_version().as_str()),
    );
    s.insert(
        "capabilities".into(),
        client.server_capabilities().cloned().unwrap_or(json!({})),
    );
    if let Some(i) = client.instructions() {
        s.insert("instructions".into(), json!(i));
    }
    let lists = [
        ("tools", "tools/list", "tools"),
        ("resources", "resources/list", "resources"),
        ("resources", "resources/templates/list", "resourceTemplates"),
        ("prompts", "prompts/list", "prompts"),
    ];
    for (capability, method, key) in lists {
        let items = if has(client, capability) {
            list_all(client, method, key).await?
        } else {
            Vec::new()
        };
        s.insert(key.into(), Value::Array(items));
    }
    Ok(Value::Object(s))
}

/// A progress notification as a line: `progress 50/100: message`.
pub fn progress_line(p: &Value) -> String {
    let num = |v: &Value| match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        Some(f) => format!("{f}"),
        None => "?".into(),
    };
    let mut line = format!("progress {}", num(&p["progress"]));
    if let Some(t) = p.get("total") {
        line.push_str(&format!("/{}", num(t)));
    }
    if let Some(m) = p.get("message").and_then(Value::as_str) {
        line.push_str(&format!(": {m}"));
    }
    line
}

/// The `arguments` of a call: one JSON object operand as it is, or `KEY=VALUE` operands,
/// each VALUE taken as JSON when the tool's schema does not say the argument is a string and
/// it parses, else as text.
pub fn tool_arguments(tool: &Value, args: &[String]) -> Result<Map<String, Value>, String> {
    if let [only] = args {
        if only.trim_start().starts_with('{') {
            return match serde_json::from_str::<Value>(only) {
                Ok(Value::Object(m)) => Ok(m),
                _ => Err(format!("call: {only:?} is not a JSON object")),
            };
        }
    }
    let props = tool
        .pointer("/inputSchema/properties")
        .cloned()
        .unwrap_or(json!({}));
    let mut out = Map::new();
    for a in args {
        let (k, v) = a.split_once('=').ok_or_else(|| {
            format!("call: argument {a:?} is neither KEY=VALUE nor a JSON object")
        })?;
        let is_string = match props.get(k).and_then(|p| p.get("type")) {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(ts)) => ts.iter().all(|t| t == "string"),
            _ => false,
        };
        let value = if is_string {
            Value::String(v.to_string())
        } else {
            serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()))
        };
        out.insert(k.to_string(), value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_value_arguments_follow_the_schema() {
        let tool = json!({ "name": "t", "inputSchema": { "type": "object", "properties": {
            "s": { "type": "string" }, "n": { "type": "number" }, "o": {} } } });
        let args: Vec<String> = ["s=42", "n=42", "o=[1,2]", "x=plain text"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            Value::Object(tool_arguments(&tool, &args).unwrap()),
            json!({ "s": "42", "n": 42, "o": [1, 2], "x": "plain text" })
        );
        assert_eq!(
            Value::Object(tool_arguments(&tool, &["{\"n\": 1}".to_string()]).unwrap()),
            json!({ "n": 1 })
        );
        assert!(tool_arguments(&tool, &["nokey".to_string()])
            .unwrap_err()
            .contains("neither KEY=VALUE"));
    }

    #[test]
    fn headers_and_the_bearer_variable_reach_a_url_server_only() {
        let t = |server: &str, headers: &[(&str, &str)]| Target {
            server: server.into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        };
        let headers = |spec: BackendSpec| match spec.transport {
            Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
            other => panic!("{other:?}"),
        };
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        let spec = target_spec(&t("http://h/mcp", &[("X-A", "1")]), Some("env".into())).unwrap();
        assert_eq!(
            headers(spec),
            [pair("X-A", "1"), pair("Authorization", "Bearer env")]
        );
        // --bearer (an Authorization header) wins over the variable.
        let spec = target_spec(
            &t("http://h/sse", &[("Authorization", "Bearer flag")]),
            Some("env".into()),
        )
        .unwrap();
        assert_eq!(headers(spec), [pair("Authorization", "Bearer flag")]);
        // The variable is not for command lines, and is ignored there.
        assert!(target_spec(&t("node s.js", &[]), Some("env".into())).is_ok());
        let e = target_spec(&t("node s.js", &[("X-A", "1")]), None).unwrap_err();
        assert_eq!(e.status, 2);
        assert!(e
            .message
            .starts_with("--header and --bearer apply to a URL server"));
    }

    #[test]
    fn progress_lines_show_progress_total_and_message() {
        assert_eq!(
            progress_line(&json!({ "progress": 50.0, "total": 100, "message": "half" })),
            "progress 50/100: half"
        );
        assert_eq!(progress_line(&json!({ "progress": 0.25 })), "progress 0.25");
    }
}
