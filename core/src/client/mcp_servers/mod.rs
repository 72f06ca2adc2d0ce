//! The `mcpServers` configuration: the JSON that Claude Desktop, Cursor and VS Code read to
//! start or reach MCP servers, read once here for every consumer: the proxy and the `ferromcp`
//! command (`ferromcp-proxy`), and the multi-server clients of Python, Node and Swift (through
//! `ferromcp_embed::resolve_mcp_servers`, in the crate above this one). Each gets the same
//! entries, the same errors and the same namespacing ([`Namespace`]).
//!
//! Accepted shapes (one file may use any mix):
//! - `{"mcpServers": {"NAME": {"command": "npx", "args": [...], "env": {...}, "cwd": "..."}}}`
//!   (Claude Desktop, Cursor): a stdio server started as a child process;
//! - `{"mcpServers": {"NAME": {"url": "https://...", "headers": {...}}}}`: a Streamable HTTP
//!   server (`"type"`/`"transport"`: `"http"`, `"streamable-http"`, `"streamableHttp"`), or a
//!   legacy HTTP+SSE one with `"sse"`; Windsurf's `"serverUrl"` is read as `"url"`;
//! - VS Code's `{"servers": {...}}` with `"type": "stdio" | "http" | "sse"`.
//!
//! `"disabled": true` leaves an entry out; `"lazy": true` (ferromcp's) starts it only when a
//! client first connects to the proxy; `"sessions": "per-client"` (ferromcp's) gives each client
//! session of the proxy its own backend session. Other keys that clients keep in these files
//! (`autoApprove`, `alwaysAllow`, ...) are ignored; a wrong type or a contradiction is a
//! [`ConfigError`] naming the key (`mcpServers.files.env.PORT`).

mod command_line;
mod namespace;
#[cfg(test)]
mod tests;

pub use command_line::split_command_line;
pub use namespace::Namespace;

use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// A configuration error: where in the document (`mcpServers.NAME.args[2]`) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigError {
    /// The path of the offending value inside the JSON document (empty: the document).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl ConfigError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// How a server is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerTransport {
    /// A child process speaking MCP over its stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (the parent's own environment is inherited).
        env: Vec<(String, String)>,
        /// Working directory (default: the parent's).
        cwd: Option<String>,
    },
    /// A Streamable HTTP endpoint (falls back to legacy HTTP+SSE when the server refuses it).
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (e.g. `Authorization`).
        headers: Vec<(String, String)>,
    },
    /// A legacy HTTP+SSE endpoint (2024-11-05): the SSE stream's URL.
    Sse {
        /// The SSE endpoint URL.
        url: String,
        /// Headers sent with every request.
        headers: Vec<(String, String)>,
    },
}

impl ServerTransport {
    /// The transport's name in a configuration: `"stdio"`, `"http"` or `"sse"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
            Self::Sse { .. } => "sse",
        }
    }
}

/// One server: its name (the namespace of its features) and how to reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerEntry {
    /// The key of the entry in `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: ServerTransport,
    /// Start it only once a client has connected to the proxy (default: at proxy start).
    pub lazy: bool,
    /// One backend session per client session of the proxy (`"sessions": "per-client"`), for
    /// servers whose requests to the client (roots, sampling, elicitation) or whose state must
    /// belong to one client; default: one session shared by every client (`"shared"`).
    pub per_client: bool,
}

impl ServerEntry {
    /// A server from a command-line target: an `http://` or `https://` URL (Streamable HTTP,
    /// or legacy SSE when it ends in `/sse`), else a command line split like a shell does
    /// ([`split_command_line`]).
    pub fn from_target(name: &str, target: &str) -> Result<Self, ConfigError> {
        let target = target.trim();
        let transport = if is_url(target) {
            if target.trim_end_matches('/').ends_with("/sse") {
                ServerTransport::Sse {
                    url: target.to_string(),
                    headers: Vec::new(),
                }
            } else {
                ServerTransport::Http {
                    url: target.to_string(),
                    headers: Vec::new(),
                }
            }
        } else {
            let mut words = split_command_line(target).map_err(|m| ConfigError::new("", m))?;
            if words.is_empty() {
                return Err(ConfigError::new(
                    "",
                    "the server is empty: give a command line or an http(s) URL",
                ));
            }
            let command = words.remove(0);
            ServerTransport::Stdio {
                command,
                args: words,
                env: Vec::new(),
                cwd: None,
            }
        };
        Ok(Self {
            name: name.to_string(),
            transport,
            lazy: false,
            per_client: false,
        })
    }

    /// What the server is, for messages: the command line or the URL.
    pub fn describe(&self) -> String {
        match &self.transport {
            ServerTransport::Stdio { command, args, .. } => {
                let mut s = command.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            ServerTransport::Http { url, .. } | ServerTransport::Sse { url, .. } => url.clone(),
        }
    }
}

/// The enabled servers of an `mcpServers` document, sorted by name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServersConfig {
    /// The enabled servers, sorted by name.
    pub servers: Vec<ServerEntry>,
}

impl McpServersConfig {
    /// Reads and checks a configuration file.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::new("", format!("cannot read {}: {e}", path.display())))?;
        Self::from_json_str(&text)
    }

    /// A configuration given either as its JSON text (the first non-blank character is `{` or
    /// `[`) or as the path of a file holding it: what the bindings' `from_config` accept.
    pub fn from_source(source: &str) -> Result<Self, ConfigError> {
        if source.trim_start().starts_with(['{', '[']) {
            Self::from_json_str(source)
        } else {
            Self::from_file(Path::new(source))
        }
    }

    /// Parses and checks a configuration document.
    pub fn from_json_str(text: &str) -> Result<Self, ConfigError> {
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| ConfigError::new("", format!("not valid JSON: {e}")))?;
        Self::from_value(&doc)
    }

    /// Checks a parsed configuration document.
    pub fn from_value(doc: &Value) -> Result<Self, ConfigError> {
        let Some(top) = doc.as_object() else {
            return Err(ConfigError::new(
                "",
                "the configuration must be a JSON object with an \"mcpServers\" object",
            ));
        };
        let (key, servers) = match (top.get("mcpServers"), top.get("servers")) {
            (Some(_), Some(_)) => {
                return Err(ConfigError::new(
                    "",
                    "both \"mcpServers\" and \"servers\" are present; keep one",
                ))
            }
            (Some(s), None) => ("mcpServers", s),
            (None, Some(s)) => ("servers", s),
            (None, None) => {
                return Err(ConfigError::new(
                    "",
                    "no \"mcpServers\" object (nor VS Code's \"servers\")",
                ))
            }
        };
        let Some(servers) = servers.as_object() else {
            return Err(ConfigError::new(key, "must be an object of server entries"));
        };
        let mut entries = Vec::new();
        for (name, entry) in servers {
            let path = format!("{key}.{name}");
            if name.trim().is_empty() {
                return Err(ConfigError::new(path, "a server name must not be empty"));
            }
            if let Some(spec) = parse_entry(&path, name, entry)? {
                entries.push(spec);
            }
        }
        if entries.is_empty() {
            return Err(ConfigError::new(
                key,
                "no enabled server: add at least one entry",
            ));
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let config = Self { servers: entries };
        if config.namespaced() {
            for s in &config.servers {
                check_namespace(&format!("{key}.{}", s.name), &s.name)?;
            }
        }
        Ok(config)
    }

    /// Whether names are prefixed with their server's (more than one server).
    pub fn namespaced(&self) -> bool {
        self.servers.len() > 1
    }

    /// The namespace of `entry`'s tools, prompts and resources in the combined view.
    pub fn namespace(&self, entry: &ServerEntry) -> Namespace {
        Namespace::new(&entry.name, self.namespaced())
    }
}

fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://")
}

/// A server's name as a namespace: it prefixes tool and prompt names (`NAME_tool`) and
/// resource URIs as a URI scheme (`NAME+scheme:...`), so it must be a valid scheme start.
pub fn check_namespace(path: &str, name: &str) -> Result<(), ConfigError> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
        return Err(ConfigError::new(
            path,
            format!(
                "the server name {name:?} is used as a namespace (tools NAME_tool, resources NAME+uri) \
                 and must start with a letter and hold only letters, digits, '-' and '.'"
            ),
        ));
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Http,
    Sse,
}

/// The transport an entry names with `"type"` or `"transport"`, if it names one.
fn declared_kind(obj: &Map<String, Value>, path: &str) -> Result<Option<Kind>, ConfigError> {
    let (key, v) = match (obj.get("type"), obj.get("transport")) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::new(
                path,
                "both \"type\" and \"transport\" are present; keep one",
            ))
        }
        (Some(v), None) => ("type", v),
        (None, Some(v)) => ("transport", v),
        (None, None) => return Ok(None),
    };
    let Some(s) = v.as_str() else {
        return Err(ConfigError::new(
            format!("{path}.{key}"),
            "must be a string: \"stdio\", \"http\" or \"sse\"",
        ));
    };
    Ok(Some(match s {
        "stdio" => Kind::Stdio,
        "http" | "streamable-http" | "streamableHttp" | "streamable_http" => Kind::Http,
        "sse" => Kind::Sse,
        other => {
            return Err(ConfigError::new(
                format!("{path}.{key}"),
                format!("unknown transport {other:?}: use \"stdio\", \"http\" or \"sse\""),
            ))
        }
    }))
}

fn parse_entry(path: &str, name: &str, entry: &Value) -> Result<Option<ServerEntry>, ConfigError> {
    let Some(obj) = entry.as_object() else {
        return Err(ConfigError::new(path, "a server entry must be an object"));
    };
    if get_bool(obj, path, "disabled")?.unwrap_or(false) {
        return Ok(None);
    }
    let lazy = get_bool(obj, path, "lazy")?.unwrap_or(false);
    let per_client = match get_str(obj, path, "sessions")?.as_deref() {
        None | Some("shared") => false,
        Some("per-client") => true,
        Some(other) => {
            return Err(ConfigError::new(
                format!("{path}.sessions"),
                format!("unknown value {other:?}: use \"shared\" or \"per-client\""),
            ))
        }
    };
    let declared = declared_kind(obj, path)?;
    let command = get_str(obj, path, "command")?;
    let url = match get_str(obj, path, "url")? {
        Some(u) => Some(u),
        None => get_str(obj, path, "serverUrl")?,
    };
    let kind = match (command.is_some(), url.is_some(), declared) {
        (true, true, _) => {
            return Err(ConfigError::new(
                path,
                "has both \"command\" and \"url\": a server is either started (command) or reached (url)",
            ))
        }
        (false, false, _) => {
            return Err(ConfigError::new(
                path,
                "needs \"command\" (a server to start) or \"url\" (a server to reach)",
            ))
        }
        (true, false, None | Some(Kind::Stdio)) => Kind::Stdio,
        (true, false, Some(_)) => {
            return Err(ConfigError::new(
                path,
                "has \"command\" but a network transport type; use \"url\" or type \"stdio\"",
            ))
        }
        (false, true, Some(Kind::Stdio)) => {
            return Err(ConfigError::new(
                path,
                "has \"url\" but type \"stdio\"; use \"command\" or type \"http\"",
            ))
        }
        (false, true, None) => Kind::Http,
        (false, true, Some(k)) => k,
    };
    let transport = match kind {
        Kind::Stdio => {
            let command = command.unwrap_or_default();
            if command.trim().is_empty() {
                return Err(ConfigError::new(
                    format!("{path}.command"),
                    "must not be empty",
                ));
            }
            if obj.contains_key("headers") {
                return Err(ConfigError::new(
                    format!("{path}.headers"),
                    "applies to URL servers, not to a command",
                ));
            }
            ServerTransport::Stdio {
                command,
                args: get_str_array(obj, path, "args")?,
                env: get_str_map(obj, path, "env")?,
                cwd: get_str(obj, path, "cwd")?,
            }
        }
        Kind::Http | Kind::Sse => {
            let url = url.unwrap_or_default();
            if !is_url(&url) {
                let key = if obj.contains_key("url") {
                    "url"
                } else {
                    "serverUrl"
                };
                return Err(ConfigError::new(
                    format!("{path}.{key}"),
                    format!("{url:?} is not an http:// or https:// URL"),
                ));
            }
            for key in ["args", "env", "cwd"] {
                if obj.contains_key(key) {
                    return Err(ConfigError::new(
                        format!("{path}.{key}"),
                        "applies to started servers (\"command\"), not to a URL",
                    ));
                }
            }
            let headers = get_str_map(obj, path, "headers")?;
            if kind == Kind::Sse {
                ServerTransport::Sse { url, headers }
            } else {
                ServerTransport::Http { url, headers }
            }
        }
    };
    Ok(Some(ServerEntry {
        name: name.to_string(),
        transport,
        lazy,
        per_client,
    }))
}

fn get_bool(obj: &Map<String, Value>, path: &str, key: &str) -> Result<Option<bool>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ConfigError::new(
            format!("{path}.{key}"),
            "must be true or false",
        )),
    }
}

fn get_str(obj: &Map<String, Value>, path: &str, key: &str) -> Result<Option<String>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ConfigError::new(
            format!("{path}.{key}"),
            "must be a string",
        )),
    }
}

fn get_str_array(
    obj: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Vec<String>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    ConfigError::new(format!("{path}.{key}[{i}]"), "must be a string")
                })
            })
            .collect(),
        Some(_) => Err(ConfigError::new(
            format!("{path}.{key}"),
            "must be an array of strings",
        )),
    }
}

/// `env` and `headers`: an object of strings. Numbers and booleans are written unquoted often
/// enough (`"PORT": 8080`) that they are taken as their text; anything else is refused.
fn get_str_map(
    obj: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Vec<(String, String)>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(ConfigError::new(
                    format!("{path}.{key}.{k}"),
                    format!(
                        "must be a string (or a number or boolean, taken as its text), not {}",
                        json_type(v)
                    ),
                )),
            })
            .collect(),
        Some(v) => Err(ConfigError::new(
            format!("{path}.{key}"),
            format!("must be an object of string values, not {}", json_type(v)),
        )),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
