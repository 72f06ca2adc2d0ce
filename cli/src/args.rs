//! The command line: which command, its operands and its options, parsed by hand (the
//! grammar is small) into [`Command`], with usage errors that say what was expected.

use std::collections::VecDeque;

/// The usage text (`ferromcp --help`).
pub const USAGE: &str = "\
ferromcp: a proxy in front of MCP servers, and a client for any MCP server

usage:
  ferromcp proxy --config mcp.json --stdio
  ferromcp proxy --config mcp.json --port N [--host ADDR] [HTTP options]
  ferromcp list SERVER [tools|resources|templates|prompts] [--json]
  ferromcp call SERVER TOOL [JSON-OBJECT | KEY=VALUE ...] [--json]
  ferromcp read SERVER URI [--json]
  ferromcp prompt SERVER NAME [KEY=VALUE ...] [--json]
  ferromcp inspect SERVER [--json]

SERVER is a command line in one argument (\"node server.js --flag\", started over stdio) or an
http(s) URL (Streamable HTTP; a URL ending in /sse is a legacy HTTP+SSE server).
Options of the client commands for a URL server:
  --header 'Name: value'   (or -H) a header sent with every request (repeatable)
  --bearer TOKEN           sends Authorization: Bearer TOKEN; without it (and without an
                           Authorization --header) the FERROMCP_BEARER environment variable's
                           value is sent when set
KEY=VALUE arguments take VALUE as JSON when the tool's schema says the argument is not a
string and VALUE parses as JSON, else as text.

HTTP options of `proxy` (the engine's HttpServerOptions):
  --path P                 endpoint path (default /mcp)
  --json-response          answer with one JSON body instead of an SSE stream
  --stateless              no sessions: each POST gets a fresh one
  --legacy-sse             also serve the 2024-11-05 HTTP+SSE endpoints (/sse, /messages)
  --max-sessions N         sessions alive at once (default 10000)
  --session-idle-timeout S seconds before an idle session is removed (default 1800)
  --max-body-size BYTES    largest request body (default 4 MiB)
  --max-connections N      connections served at once (default 1024)
  --allowed-host H         allowed Host value (repeatable; DNS-rebinding protection)
  --allowed-origin O       allowed Origin value (repeatable)
  --redis-url URL          sessions, events and the bus on Redis (needs the redis feature)
  --no-health              do not serve /healthz

Middleware of `proxy` (stdio and HTTP; docs/gateway.md, \"Middleware and rate limits\"):
  --middleware JSON|@FILE  the engine's built-in layers, outermost first, e.g.
                           '[{\"name\":\"rateLimit\",\"limit\":100,\"windowMs\":60000,
                             \"tools\":{\"search\":{\"limit\":5,\"windowMs\":1000}}},
                             {\"name\":\"requestLog\"},{\"name\":\"maskErrors\"}]'
                           (rateLimit, requestLog, maskErrors, responseCache, authorization,
                           openTelemetry in a build with the otel feature); replaces the
                           config file's \"middleware\" list when both are given

OAuth protection of `proxy --port` (docs/gateway.md, \"Auth\"; 401 with a
WWW-Authenticate resource_metadata challenge without a valid token):
  --auth-issuer URL        an accepted authorization server, the tokens' iss (repeatable)
  --auth-jwks-url URL      its JWKS: tokens are JWTs signed by one of these keys
  --auth-audience AUD      the aud tokens must carry (default: the resource)
  --auth-scopes A,B        scopes every request needs (403 insufficient_scope without)
  --auth-resource URL      this endpoint's URL as clients reach it (default
                           http://HOST:PORT/PATH; required with --port 0)
  --auth JSON|@FILE        instead of the flags above: the bindings' protection options,
                           {\"authorizationServers\": [...], \"requiredScopes\": [...],
                            \"jwt\": {\"jwksUrl\" | \"jwks\", \"issuer\", \"audience\", \"algorithms\",
                            \"leewaySeconds\"} or \"introspection\": {\"endpoint\", \"clientId\",
                            \"clientSecret\"}, \"resource\", \"scopesSupported\"}
                           (the config file's \"auth\" key takes the same JSON; any --auth*
                           option replaces it, --auth-resource alone only its resource)
  --oauth-proxy JSON|@FILE serve an OAuth proxy in front of an identity provider beside the
                           endpoint, which then takes the proxy's tokens unless --auth* is
                           given: {\"issuer\", \"resource\", \"upstream\": {\"preset\" |
                           \"authorizationEndpoint\", \"tokenEndpoint\", \"clientId\",
                           \"clientSecret\", ...}, ...} (docs/oauth-proxy.md)
";

/// A usage error: what was wrong on the command line.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

/// What `ferromcp proxy` serves on.
#[derive(Debug, PartialEq, Eq)]
pub enum Listen {
    /// stdin/stdout.
    Stdio,
    /// Streamable HTTP on `host:port`.
    Http {
        /// The address to bind.
        host: String,
        /// The port (0: any free one, printed on stderr).
        port: u16,
    },
}

/// `ferromcp proxy`'s options.
#[derive(Debug, PartialEq, Eq)]
pub struct ProxyArgs {
    pub config: String,
    pub listen: Listen,
    pub path: Option<String>,
    pub json_response: bool,
    pub stateless: bool,
    pub legacy_sse: bool,
    pub max_sessions: Option<usize>,
    pub session_idle_timeout: Option<u64>,
    pub max_body_size: Option<usize>,
    pub max_connections: Option<usize>,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub redis_url: Option<String>,
    pub no_health: bool,
    /// `--middleware`: JSON text or `@FILE`, read when the proxy starts.
    pub middleware: Option<String>,
    pub auth: AuthArgs,
    /// `--oauth-proxy`: JSON text or `@FILE` (embed's `OAuthProxySettings`).
    pub oauth_proxy: Option<String>,
}

/// `ferromcp proxy`'s OAuth options (built into a protection by `crate::auth`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AuthArgs {
    /// `--auth-issuer` (repeatable).
    pub issuers: Vec<String>,
    /// `--auth-jwks-url`.
    pub jwks_url: Option<String>,
    /// `--auth-audience`.
    pub audience: Option<String>,
    /// `--auth-scopes` (comma-separated, repeatable).
    pub scopes: Vec<String>,
    /// `--auth-resource`.
    pub resource: Option<String>,
    /// `--auth`: JSON text or `@FILE`.
    pub json: Option<String>,
}

impl AuthArgs {
    /// Whether any `--auth*` option was given.
    pub fn given(&self) -> bool {
        *self != Self::default()
    }
}

/// What to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    Tools,
    Resources,
    Templates,
    Prompts,
}

/// The server of a client command and how to reach it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// A command line or a URL, as given.
    pub server: String,
    /// `--header 'Name: value'` (repeatable) and `--bearer TOKEN` (as `Authorization`), in
    /// the order given; for a URL server only.
    pub headers: Vec<(String, String)>,
}

impl From<&str> for Target {
    fn from(server: &str) -> Self {
        Self {
            server: server.to_string(),
            headers: Vec::new(),
        }
    }
}

/// A parsed command.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Version,
    /// Boxed: the proxy's options are much larger than the other commands'.
    Proxy(Box<ProxyArgs>),
    List {
        server: Target,
        what: Listing,
        json: bool,
    },
    Call {
        server: Target,
        tool: String,
        args: Vec<String>,
        json: bool,
    },
    Read {
        server: Target,
        uri: String,
        json: bool,
    },
    Prompt {
        server: Target,
        name: String,
        args: Vec<String>,
        json: bool,
    },
    Inspect {
        server: Target,
        json: bool,
    },
}

/// Parses the arguments after the program name.
pub fn parse(args: Vec<String>) -> Result<Command, UsageError> {
    let mut args: VecDeque<String> = args.into();
    let Some(command) = args.pop_front() else {
        return Err(UsageError("no command given".into()));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" | "version" => Ok(Command::Version),
        "proxy" => parse_proxy(args).map(|a| Command::Proxy(Box::new(a))),
        "list" | "call" | "read" | "prompt" | "inspect" => parse_client(&command, args),
        other => Err(UsageError(format!("unknown command {other:?}"))),
    }
}

fn value(args: &mut VecDeque<String>, flag: &str) -> Result<String, UsageError> {
    args.pop_front()
        .ok_or_else(|| UsageError(format!("{flag} needs a value")))
}

fn number<T: std::str::FromStr>(args: &mut VecDeque<String>, flag: &str) -> Result<T, UsageError> {
    let v = value(args, flag)?;
    v.parse()
        .map_err(|_| UsageError(format!("{flag}: {v:?} is not a valid number")))
}

fn parse_proxy(mut args: VecDeque<String>) -> Result<ProxyArgs, UsageError> {
    let mut config = None;
    let (mut stdio, mut port, mut host) = (false, None, None);
    let mut p = ProxyArgs {
        config: String::new(),
        listen: Listen::Stdio,
        path: None,
        json_response: false,
        stateless: false,
        legacy_sse: false,
        max_sessions: None,
        session_idle_timeout: None,
        max_body_size: None,
        max_connections: None,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        redis_url: None,
        no_health: false,
        middleware: None,
        auth: AuthArgs::default(),
        oauth_proxy: None,
    };
    while let Some(a) = args.pop_front() {
        match a.as_str() {
            "--config" | "-c" => config = Some(value(&mut args, &a)?),
            "--stdio" => stdio = true,
            "--port" | "-p" => port = Some(number::<u16>(&mut args, &a)?),
            "--host" => host = Some(value(&mut args, &a)?),
            "--path" => p.path = Some(value(&mut args, &a)?),
            "--json-response" => p.json_response = true,
            "--stateless" => p.stateless = true,
            "--legacy-sse" => p.legacy_sse = true,
            "--max-sessions" => p.max_sessions = Some(number(&mut args, &a)?),
            "--session-idle-timeout" => p.session_idle_timeout = Some(number(&mut args, &a)?),
            "--max-body-size" => p.max_body_size = Some(number(&mut args, &a)?),
            "--max-connections" => p.max_connections = Some(number(&mut args, &a)?),
            "--allowed-host" => p.allowed_hosts.push(value(&mut args, &a)?),
            "--allowed-origin" => p.allowed_origins.push(value(&mut args, &a)?),
            "--redis-url" => p.redis_url = Some(value(&mut args, &a)?),
            "--no-health" => p.no_health = true,
            "--middleware" => p.middleware = Some(value(&mut args, &a)?),
            "--auth-issuer" => p.auth.issuers.push(value(&mut args, &a)?),
            "--auth-jwks-url" => p.auth.jwks_url = Some(value(&mut args, &a)?),
            "--auth-audience" => p.auth.audience = Some(value(&mut args, &a)?),
            "--auth-scopes" => p.auth.scopes.extend(
                value(&mut args, &a)?
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            ),
            "--auth-resource" => p.auth.resource = Some(value(&mut args, &a)?),
            "--auth" => p.auth.json = Some(value(&mut args, &a)?),
            "--oauth-proxy" => p.oauth_proxy = Some(value(&mut args, &a)?),
            other => return Err(UsageError(format!("proxy: unknown option {other:?}"))),
        }
    }
    p.config = config.ok_or_else(|| UsageError("proxy: --config FILE is required".into()))?;
    let host_given = host.is_some();
    p.listen = match (stdio, port) {
        (true, Some(_)) => {
            return Err(UsageError(
                "proxy: --stdio and --port exclude each other".into(),
            ))
        }
        (true, None) => Listen::Stdio,
        (false, Some(port)) => Listen::Http {
            host: host.unwrap_or_else(|| "127.0.0.1".into()),
            port,
        },
        (false, None) => {
            return Err(UsageError(
                "proxy: say where to serve: --stdio or --port N".into(),
            ))
        }
    };
    let http_only = p.path.is_some()
        || p.json_response
        || p.stateless
        || p.legacy_sse
        || p.max_sessions.is_some()
        || p.session_idle_timeout.is_some()
        || p.max_body_size.is_some()
        || p.max_connections.is_some()
        || !p.allowed_hosts.is_empty()
        || !p.allowed_origins.is_empty()
        || p.redis_url.is_some()
        || p.no_health
        || p.auth.given()
        || p.oauth_proxy.is_some();
    if p.listen == Listen::Stdio && (http_only || host_given) {
        return Err(UsageError(
            "proxy: HTTP options need --port (not --stdio)".into(),
        ));
    }
    Ok(p)
}

fn parse_client(command: &str, mut args: VecDeque<String>) -> Result<Command, UsageError> {
    let mut json = false;
    let mut headers = Vec::new();
    let mut operands = Vec::new();
    let mut only_operands = false;
    while let Some(a) = args.pop_front() {
        match a.as_str() {
            _ if only_operands => operands.push(a),
            "--json" => json = true,
            "--" => only_operands = true,
            "--header" | "-H" => headers.push(header(&value(&mut args, &a)?)?),
            "--bearer" => {
                let token = value(&mut args, &a)?;
                if token.trim().is_empty() || token.chars().any(char::is_control) {
                    return Err(UsageError(
                        "--bearer: the token is empty or holds a control character".into(),
                    ));
                }
                headers.push(("Authorization".into(), format!("Bearer {}", token.trim())));
            }
            s if s.starts_with("--") => {
                return Err(UsageError(format!("{command}: unknown option {s:?}")))
            }
            _ => operands.push(a),
        }
    }
    let authorizations = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
        .count();
    if authorizations > 1 {
        return Err(UsageError(
            "--bearer and --header 'Authorization: ...' give the Authorization header twice: give one".into(),
        ));
    }
    let mut operands = operands.into_iter();
    let server = operands.next().ok_or_else(|| {
        UsageError(format!(
            "{command}: SERVER (a command line or a URL) is required"
        ))
    })?;
    let server = Target { server, headers };
    let mut rest: Vec<String> = operands.collect();
    let one = |rest: &mut Vec<String>, what: &str| -> Result<String, UsageError> {
        if rest.is_empty() {
            return Err(UsageError(format!("{command}: {what} is required")));
        }
        Ok(rest.remove(0))
    };
    let cmd = match command {
        "list" => {
            let what = if rest.is_empty() {
                Listing::Tools
            } else {
                match one(&mut rest, "")?.as_str() {
                    "tools" => Listing::Tools,
                    "resources" => Listing::Resources,
                    "templates" => Listing::Templates,
                    "prompts" => Listing::Prompts,
                    other => {
                        return Err(UsageError(format!(
                            "list: {other:?} is not tools, resources, templates or prompts"
                        )))
                    }
                }
            };
            Command::List { server, what, json }
        }
        "call" => {
            let tool = one(&mut rest, "TOOL")?;
            return Ok(Command::Call {
                server,
                tool,
                args: rest,
                json,
            });
        }
        "read" => Command::Read {
            server,
            uri: one(&mut rest, "URI")?,
            json,
        },
        "prompt" => {
            let name = one(&mut rest, "NAME")?;
            return Ok(Command::Prompt {
                server,
                name,
                args: rest,
                json,
            });
        }
        _ => Command::Inspect { server, json },
    };
    if !rest.is_empty() {
        return Err(UsageError(format!(
            "{command}: unexpected argument {:?}",
            rest[0]
        )));
    }
    Ok(cmd)
}

/// `--header 'Name: value'`: a header's name (an HTTP token) and its value (no control
/// characters), split at the first colon and trimmed.
fn header(text: &str) -> Result<(String, String), UsageError> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(UsageError(format!(
            "--header: {text:?} is not 'Name: value'"
        )));
    };
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(UsageError(format!(
            "--header: {name:?} is not a header name"
        )));
    }
    let value = value.trim();
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(UsageError(format!(
            "--header: the value of {name} holds a control character"
        )));
    }
    Ok((name.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &[&str]) -> Result<Command, UsageError> {
        parse(s.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn proxy_needs_a_config_and_one_place_to_serve() {
        assert_eq!(
            p(&["proxy", "--stdio"]).unwrap_err().0,
            "proxy: --config FILE is required"
        );
        assert_eq!(
            p(&["proxy", "-c", "m.json"]).unwrap_err().0,
            "proxy: say where to serve: --stdio or --port N"
        );
        assert_eq!(
            p(&["proxy", "-c", "m.json", "--stdio", "--port", "1"])
                .unwrap_err()
                .0,
            "proxy: --stdio and --port exclude each other"
        );
        assert_eq!(
            p(&["proxy", "-c", "m.json", "--stdio", "--stateless"])
                .unwrap_err()
                .0,
            "proxy: HTTP options need --port (not --stdio)"
        );
        assert_eq!(
            p(&["proxy", "-c", "m.json", "--port", "x"]).unwrap_err().0,
            "--port: \"x\" is not a valid number"
        );
        let Command::Proxy(a) =
            p(&["proxy", "-c", "m.json", "--port", "8080", "--stateless"]).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            a.listen,
            Listen::Http {
                host: "127.0.0.1".into(),
                port: 8080
            }
        );
        assert!(a.stateless);
        assert_eq!(
            p(&[
                "proxy",
                "-c",
                "m.json",
                "--stdio",
                "--auth-issuer",
                "https://as"
            ])
            .unwrap_err()
            .0,
            "proxy: HTTP options need --port (not --stdio)"
        );
        let Command::Proxy(a) = p(&[
            "proxy",
            "-c",
            "m.json",
            "--stdio",
            "--middleware",
            "@mw.json",
        ])
        .unwrap() else {
            panic!()
        };
        assert_eq!(a.middleware.as_deref(), Some("@mw.json"));
        let Command::Proxy(a) = p(&[
            "proxy",
            "-c",
            "m.json",
            "--port",
            "1",
            "--auth-issuer",
            "https://as",
            "--auth-scopes",
            "a, b",
            "--auth-scopes",
            "c",
        ])
        .unwrap() else {
            panic!()
        };
        assert_eq!(a.auth.issuers, ["https://as"]);
        assert_eq!(a.auth.scopes, ["a", "b", "c"]);
    }

    #[test]
    fn client_commands_take_a_server_and_their_operands() {
        assert_eq!(
            p(&["call", "node s.js", "add", "a=1", "--json"]).unwrap(),
            Command::Call {
                server: "node s.js".into(),
                tool: "add".into(),
                args: vec!["a=1".into()],
                json: true
            }
        );
        assert_eq!(
            p(&["call", "node s.js", "--", "add", "--json"]).unwrap(),
            Command::Call {
                server: "node s.js".into(),
                tool: "add".into(),
                args: vec!["--json".into()],
                json: false
            }
        );
        assert_eq!(p(&["read", "x"]).unwrap_err().0, "read: URI is required");
        assert_eq!(
            p(&["list"]).unwrap_err().0,
            "list: SERVER (a command line or a URL) is required"
        );
        assert_eq!(
            p(&["list", "x", "widgets"]).unwrap_err().0,
            "list: \"widgets\" is not tools, resources, templates or prompts"
        );
        assert_eq!(
            p(&["inspect", "x", "y"]).unwrap_err().0,
            "inspect: unexpected argument \"y\""
        );
        assert_eq!(
            p(&["frobnicate"]).unwrap_err().0,
            "unknown command \"frobnicate\""
        );
    }

    #[test]
    fn headers_and_a_bearer_token_go_with_the_server() {
        let Command::List { server, .. } = p(&[
            "list",
            "https://h/mcp",
            "--header",
            "X-Team:  blue ",
            "-H",
            "x-trace: 1: 2",
            "--bearer",
            "tok",
        ])
        .unwrap() else {
            panic!()
        };
        assert_eq!(server.server, "https://h/mcp");
        assert_eq!(
            server.headers,
            [
                ("X-Team".to_string(), "blue".to_string()),
                ("x-trace".to_string(), "1: 2".to_string()),
                ("Authorization".to_string(), "Bearer tok".to_string()),
            ]
        );
        let e = |args: &[&str]| p(args).unwrap_err().0;
        assert_eq!(
            e(&["list", "u", "--header", "novalue"]),
            "--header: \"novalue\" is not 'Name: value'"
        );
        assert_eq!(
            e(&["list", "u", "--header", "bad name: v"]),
            "--header: \"bad name\" is not a header name"
        );
        assert_eq!(
            e(&["list", "u", "--header", "X: a\nb"]),
            "--header: the value of X holds a control character"
        );
        assert_eq!(e(&["list", "u", "--bearer"]), "--bearer needs a value");
        assert_eq!(
            e(&["list", "u", "--bearer", " "]),
            "--bearer: the token is empty or holds a control character"
        );
        assert!(e(&["list", "u", "--bearer", "a", "-H", "authorization: b"])
            .contains("Authorization header twice"));
    }
}
