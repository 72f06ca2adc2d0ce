//! `ferromcp proxy`'s middleware and OAuth options, on the running command in front of the Rust
//! everything-server: a rate limit from `--middleware` (or the config file's `"middleware"`)
//! refuses the call over it with `-32004` and `retryAfter`; a bad middleware list stops the
//! command with exit status 2 and a message naming the entry; with `--auth-*` a request
//! without a token gets 401 and the `resource_metadata` challenge, a JWT signed by a key of the
//! JWKS served here gets through, and one without the required scope gets 403; the config
//! file's `"auth"` does the same unless `--auth*` is given; the client commands reach such an
//! endpoint with `--bearer`, `--header` or `FERROMCP_BEARER`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The everything-server, as in cli_output.rs: `$FERROMCP_EVERYTHING_SERVER`, else beside
/// this test's target dir.
fn everything_server() -> String {
    if let Some(p) = std::env::var_os("FERROMCP_EVERYTHING_SERVER") {
        return PathBuf::from(p).display().to_string();
    }
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("everything-server");
    assert!(
        bin.exists(),
        "{} is missing: cargo build -p ferromcp-examples --bin everything-server",
        bin.display()
    );
    bin.display().to_string()
}

/// A config file (one backend: the everything-server, its names unchanged) with `extra` keys
/// at its top, in a directory of its own.
fn config(test: &str, extra: Value) -> String {
    let dir = std::env::temp_dir().join(format!("ferromcp-cli-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut doc = json!({ "mcpServers": { "everything": { "command": everything_server() } } });
    for (k, v) in extra.as_object().unwrap() {
        doc[k] = v.clone();
    }
    let path = dir.join("mcp.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path.display().to_string()
}

/// `ferromcp proxy --stdio`, spoken to with JSON-RPC lines.
struct StdioProxy {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl StdioProxy {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferromcp"))
            .args(["proxy", "--stdio"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ferromcp runs");
        // Read stderr all along, so the proxy never blocks on a full pipe.
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut p = Self {
            child,
            stdin,
            stdout,
            stderr: Some(stderr),
        };
        let init = p.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cli-test", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        p.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        p
    }

    fn send(&mut self, msg: Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and reads lines until its answer (notifications are skipped).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the proxy closed stdout before answering {method}"
            );
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    fn call(&mut self, id: u64, tool: &str) -> Value {
        self.request(id, "tools/call", json!({"name": tool, "arguments": {}}))
    }

    /// Stops the proxy (kills it) and returns what it wrote on stderr.
    fn stderr(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr.take().unwrap().join().unwrap()
    }
}

impl Drop for StdioProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One call of `test_simple_text` a minute; everything else 100 a minute.
fn one_simple_text_a_minute() -> Value {
    json!([
        {"name": "requestLog"},
        {"name": "rateLimit", "limit": 100, "windowMs": 60000,
         "tools": {"test_simple_text": {"limit": 1, "windowMs": 60000}}},
    ])
}

fn assert_rate_limited(answer: &Value) {
    let e = &answer["error"];
    assert_eq!(e["code"], -32004, "{answer}");
    assert_eq!(e["message"], "Rate limited");
    let retry = e["data"]["retryAfter"].as_f64().expect("retryAfter");
    assert!(retry > 0.0 && retry <= 60.0, "{answer}");
    assert_eq!(e["data"]["limit"], 1);
    assert_eq!(e["data"]["window"], 60.0);
}

#[test]
fn a_rate_limit_from_middleware_refuses_the_call_over_it_with_retry_after() {
    let cfg = config("rate-limit", json!({}));
    let mw = one_simple_text_a_minute().to_string();
    let mut p = StdioProxy::start(&["--config", &cfg, "--middleware", &mw]);
    let first = p.call(1, "test_simple_text");
    assert_eq!(first["result"]["isError"], json!(null), "{first}");
    assert_rate_limited(&p.call(2, "test_simple_text"));
    // Another tool has its bucket under the global limit.
    let other = p.call(3, "test_error_handling");
    assert!(other.get("result").is_some(), "{other}");
    // The requestLog layer's lines reach stderr (FERROMCP_LOG unset: info and above).
    let log = p.stderr();
    assert!(
        log.contains(
            "ferromcp INFO ferromcp.request: request method=tools/call tool=test_simple_text id=1 "
        ) && log.contains(
            "ferromcp WARN ferromcp.request: request method=tools/call tool=test_simple_text id=2 "
        ) && log.contains("outcome=error code=-32004"),
        "{log}"
    );
}

#[test]
fn the_config_files_middleware_applies_and_the_command_line_replaces_it() {
    let cfg = config(
        "config-middleware",
        json!({ "middleware": one_simple_text_a_minute() }),
    );
    let mut p = StdioProxy::start(&["--config", &cfg]);
    assert!(p.call(1, "test_simple_text").get("result").is_some());
    assert_rate_limited(&p.call(2, "test_simple_text"));
    drop(p);
    // `--middleware` given: the file's list is not used, so no limit.
    let mut p = StdioProxy::start(&[
        "--config",
        &cfg,
        "--middleware",
        r#"[{"name":"maskErrors"}]"#,
    ]);
    for id in 1..=3 {
        let r = p.call(id, "test_simple_text");
        assert!(r.get("result").is_some(), "{r}");
    }
}

fn refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ferromcp"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("ferromcp runs");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    stderr
}

#[test]
fn a_bad_middleware_list_is_refused_at_start_naming_the_entry() {
    let cfg = config("bad-middleware", json!({}));
    let e = refused(&[
        "proxy",
        "--config",
        &cfg,
        "--stdio",
        "--middleware",
        r#"[{"name":"requestLog"},{"name":"rateLimit","limit":5,"windw":1000}]"#,
    ]);
    assert!(
        e.starts_with(
            "ferromcp: --middleware: middleware[1] (rateLimit): unknown field `windw`, expected one of"
        ),
        "{e}"
    );
    let e = refused(&[
        "proxy",
        "--config",
        &cfg,
        "--stdio",
        "--middleware",
        r#"[{"name":"rateLimit","limit":0,"windowMs":1000}]"#,
    ]);
    assert!(
        e.starts_with("ferromcp: --middleware: middleware[0] (rateLimit): "),
        "{e}"
    );
    let e = refused(&["proxy", "--config", &cfg, "--stdio", "--middleware", "[{"]);
    assert!(
        e.starts_with("ferromcp: --middleware: not valid JSON: "),
        "{e}"
    );
    let bad_file = config(
        "bad-config-middleware",
        json!({ "middleware": [{"name": "throttle"}] }),
    );
    let e = refused(&["proxy", "--config", &bad_file, "--stdio"]);
    assert!(
        e.starts_with(&format!(
            "ferromcp: {bad_file}: middleware[0] (throttle): unknown variant `throttle`"
        )),
        "{e}"
    );
}

// ---- OAuth ----

const ISSUER: &str = "http://as.test";

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An EdDSA access token for `aud` with `scope`, signed by `key` (kid `k1`).
fn token(key: &Ed25519KeyPair, aud: &str, scope: &str) -> String {
    let header = json!({"alg": "EdDSA", "typ": "at+jwt", "kid": "k1"});
    let claims = json!({"iss": ISSUER, "sub": "alice", "aud": aud, "scope": scope,
                        "iat": now(), "exp": now() + 600});
    let signed = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    format!("{signed}.{}", b64(key.sign(signed.as_bytes()).as_ref()))
}

/// Serves `doc` to every request on a port of its own; its URL.
fn serve_jwks(doc: Value) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let body = doc.to_string();
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// A free port on the loopback interface (bound, then released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An HTTP/1.1 exchange: the status, the head (lower-cased names) and the body as received.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

fn http(port: u16, method: &str, path: &str, token: Option<&str>, body: &str) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let auth = token
        .map(|t| format!("authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\n{auth}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {raw:?}"));
    Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// `ferromcp proxy --port PORT` with `args`, once it says it listens.
fn http_proxy(port: u16, args: &[&str]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferromcp"))
        .args(["proxy", "--port", &port.to_string()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ferromcp runs");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 || Instant::now() > deadline {
            let _ = child.kill();
            panic!("the proxy did not start listening: {seen}");
        }
        seen.push_str(&line);
        if line.contains("listening on") {
            break;
        }
    }
    // Keep reading stderr so the proxy never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    child
}

#[test]
fn auth_options_protect_the_endpoint_with_a_challenge_and_let_a_valid_token_through() {
    let pk8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
    let key = Ed25519KeyPair::from_pkcs8(pk8.as_ref()).unwrap();
    let jwks = serve_jwks(
        json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
        "use": "sig", "x": b64(key.public_key().as_ref())}]}),
    );
    let cfg = config("auth", json!({}));
    let port = free_port();
    let mut child = http_proxy(
        port,
        &[
            "--config",
            &cfg,
            "--auth-issuer",
            ISSUER,
            "--auth-jwks-url",
            &jwks,
            "--auth-scopes",
            "mcp:tools",
        ],
    );
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cli-test", "version": "1"}}})
    .to_string();

    let a = http(port, "POST", "/mcp", None, &initialize);
    assert_eq!(a.status, 401, "{}{}", a.head, a.body);
    let metadata_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        a.header("www-authenticate"),
        Some(format!(r#"Bearer resource_metadata="{metadata_url}", scope="mcp:tools""#).as_str()),
        "{}",
        a.head
    );
    let m = http(
        port,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        None,
        "",
    );
    assert_eq!(m.status, 200, "{}", m.head);
    let doc: Value = serde_json::from_str(&m.body).unwrap();
    assert_eq!(doc["resource"], resource.as_str());
    assert_eq!(doc["authorization_servers"], json!([ISSUER]));

    let good = token(&key, &resource, "mcp:tools");
    let a = http(port, "POST", "/mcp", Some(&good), &initialize);
    assert_eq!(a.status, 200, "{}{}", a.head, a.body);
    assert!(a.body.contains("\"serverInfo\""), "{}", a.body);

    let narrow = token(&key, &resource, "mcp:read");
    let a = http(port, "POST", "/mcp", Some(&narrow), &initialize);
    assert_eq!(a.status, 403, "{}{}", a.head, a.body);
    assert!(
        a.header("www-authenticate")
            .is_some_and(|h| h.contains(r#"error="insufficient_scope""#)),
        "{}",
        a.head
    );
    let elsewhere = token(&key, "http://other.test/mcp", "mcp:tools");
    let a = http(port, "POST", "/mcp", Some(&elsewhere), &initialize);
    assert_eq!(a.status, 401, "{}{}", a.head, a.body);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn auth_options_without_a_port_or_with_missing_pieces_are_usage_errors() {
    let cfg = config("auth-usage", json!({}));
    let e = refused(&[
        "proxy",
        "--config",
        &cfg,
        "--stdio",
        "--auth-issuer",
        ISSUER,
    ]);
    assert!(
        e.starts_with("ferromcp: proxy: HTTP options need --port (not --stdio)"),
        "{e}"
    );
    let e = refused(&[
        "proxy",
        "--config",
        &cfg,
        "--port",
        "0",
        "--auth-issuer",
        ISSUER,
        "--auth-jwks-url",
        "http://127.0.0.1:9/jwks",
    ]);
    assert!(
        e.starts_with("ferromcp: --auth-resource URL is required"),
        "{e}"
    );
    let e = refused(&[
        "proxy",
        "--config",
        &cfg,
        "--port",
        "0",
        "--auth-issuer",
        ISSUER,
    ]);
    assert!(
        e.starts_with("ferromcp: --auth-issuer needs --auth-jwks-url"),
        "{e}"
    );
}

#[test]
fn an_oauth_proxy_is_served_beside_the_endpoint_and_protects_it() {
    let cfg = config("oauth-proxy", json!({}));
    let settings = json!({
        "issuer": "https://mcp.example.com",
        "resource": "https://mcp.example.com/mcp",
        "upstream": {"authorizationEndpoint": "https://idp.example.com/authorize",
                     "tokenEndpoint": "https://idp.example.com/token",
                     "clientId": "proxy-app", "clientSecret": "s3cret"},
    })
    .to_string();
    let port = free_port();
    let mut child = http_proxy(port, &["--config", &cfg, "--oauth-proxy", &settings]);
    let m = http(
        port,
        "GET",
        "/.well-known/oauth-authorization-server",
        None,
        "",
    );
    assert_eq!(m.status, 200, "{}{}", m.head, m.body);
    let doc: Value = serde_json::from_str(&m.body).unwrap();
    assert_eq!(doc["issuer"], "https://mcp.example.com");
    assert_eq!(doc["token_endpoint"], "https://mcp.example.com/token");
    let a = http(port, "POST", "/mcp", None, "{}");
    assert_eq!(a.status, 401, "{}{}", a.head, a.body);
    assert_eq!(
        a.header("www-authenticate"),
        Some(
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#
        ),
        "{}",
        a.head
    );
    let _ = child.kill();
    let _ = child.wait();

    let e = refused(&[
        "proxy",
        "--config",
        &cfg,
        "--port",
        "0",
        "--oauth-proxy",
        r#"{"issuer": "https://mcp.example.com", "resource": "https://mcp.example.com/mcp"}"#,
    ]);
    assert!(
        e.starts_with("ferromcp: --oauth-proxy: missing field `upstream`"),
        "{e}"
    );
}

/// A key pair, the JWKS server holding its public key, and that JWKS's URL.
fn signing_key() -> (Ed25519KeyPair, String) {
    let pk8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
    let key = Ed25519KeyPair::from_pkcs8(pk8.as_ref()).unwrap();
    let jwks = serve_jwks(
        json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
        "use": "sig", "x": b64(key.public_key().as_ref())}]}),
    );
    (key, jwks)
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cli-test", "version": "1"}}})
    .to_string()
}

#[test]
fn the_config_files_auth_protects_the_endpoint_and_the_command_line_wins_over_it() {
    let (key, jwks) = signing_key();
    // The file asks for the scope mcp:admin.
    let cfg = config(
        "config-auth",
        json!({ "auth": { "authorizationServers": [ISSUER], "requiredScopes": ["mcp:admin"],
                          "jwt": { "jwksUrl": jwks } } }),
    );
    let port = free_port();
    let mut child = http_proxy(port, &["--config", &cfg]);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let a = http(port, "POST", "/mcp", None, &initialize_body());
    assert_eq!(a.status, 401, "{}{}", a.head, a.body);
    assert!(
        a.header("www-authenticate")
            .is_some_and(|h| h.contains("resource_metadata=") && h.contains("mcp:admin")),
        "{}",
        a.head
    );
    let tools = token(&key, &resource, "mcp:tools");
    let a = http(port, "POST", "/mcp", Some(&tools), &initialize_body());
    assert_eq!(a.status, 403, "{}{}", a.head, a.body);
    let admin = token(&key, &resource, "mcp:admin");
    let a = http(port, "POST", "/mcp", Some(&admin), &initialize_body());
    assert_eq!(a.status, 200, "{}{}", a.head, a.body);
    let _ = child.kill();
    let _ = child.wait();

    // --auth-scopes (with the issuer and keys) replaces the file's "auth" whole.
    let port = free_port();
    let mut child = http_proxy(
        port,
        &[
            "--config",
            &cfg,
            "--auth-issuer",
            ISSUER,
            "--auth-jwks-url",
            &jwks,
            "--auth-scopes",
            "mcp:tools",
        ],
    );
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let tools = token(&key, &resource, "mcp:tools");
    let a = http(port, "POST", "/mcp", Some(&tools), &initialize_body());
    assert_eq!(a.status, 200, "{}{}", a.head, a.body);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_bad_auth_in_the_config_file_is_refused_naming_the_key() {
    let cfg = config(
        "bad-config-auth",
        json!({ "auth": { "authorizationServers": [ISSUER], "jwt": {} } }),
    );
    let e = refused(&["proxy", "--config", &cfg, "--port", "1"]);
    assert_eq!(
        e.trim_end(),
        format!("ferromcp: {cfg}: auth: jwt needs exactly one of jwksUrl and jwks")
    );
    let cfg = config("bad-config-auth-shape", json!({ "auth": ["jwt"] }));
    let e = refused(&["proxy", "--config", &cfg, "--port", "1"]);
    assert!(
        e.starts_with(&format!("ferromcp: {cfg}: auth: must be a JSON object")),
        "{e}"
    );
    let cfg = config(
        "bad-config-auth-field",
        json!({ "auth": { "authorizationServers": [ISSUER], "jwt": { "jwksUrl": "http://127.0.0.1:9/j" },
                          "requiredScope": ["x"] } }),
    );
    let e = refused(&["proxy", "--config", &cfg, "--port", "1"]);
    assert!(
        e.starts_with(&format!(
            "ferromcp: {cfg}: auth: protection options: unknown field `requiredScope`"
        )),
        "{e}"
    );
}

/// `ferromcp ARGS` with `env` set (and FERROMCP_BEARER removed unless given).
fn ferromcp_with(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ferromcp"));
    cmd.args(args)
        .stdin(Stdio::null())
        .env_remove("FERROMCP_BEARER");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("ferromcp runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn client_commands_send_a_bearer_token_or_headers_to_a_protected_server() {
    let (key, jwks) = signing_key();
    let cfg = config("client-bearer", json!({}));
    let port = free_port();
    let mut child = http_proxy(
        port,
        &[
            "--config",
            &cfg,
            "--auth-issuer",
            ISSUER,
            "--auth-jwks-url",
            &jwks,
        ],
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let good = token(&key, &url, "mcp:tools");
    let bad = token(&key, "http://other.test/mcp", "mcp:tools");

    // Without a token: refused with the server's 401.
    let (status, stdout, stderr) = ferromcp_with(&["call", &url, "test_simple_text"], &[]);
    assert_eq!(status, 1, "{stdout}{stderr}");
    assert!(
        stderr.starts_with(&format!("ferromcp: cannot connect to {url}: "))
            && stderr.contains("401"),
        "{stderr}"
    );
    // --bearer, --header and FERROMCP_BEARER each get through.
    let simple = "This is a simple text response for testing.\n";
    let (status, stdout, stderr) =
        ferromcp_with(&["call", &url, "test_simple_text", "--bearer", &good], &[]);
    assert_eq!((status, stdout.as_str()), (0, simple), "{stderr}");
    let header = format!("Authorization: Bearer {good}");
    let (status, stdout, stderr) =
        ferromcp_with(&["call", &url, "test_simple_text", "-H", &header], &[]);
    assert_eq!((status, stdout.as_str()), (0, simple), "{stderr}");
    let (status, stdout, stderr) = ferromcp_with(
        &["call", &url, "test_simple_text"],
        &[("FERROMCP_BEARER", &good)],
    );
    assert_eq!((status, stdout.as_str()), (0, simple), "{stderr}");
    // --bearer wins over the variable: a token for another audience is refused.
    let (status, _, stderr) = ferromcp_with(
        &["list", &url, "--bearer", &bad],
        &[("FERROMCP_BEARER", &good)],
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    // Headers are for URL servers.
    let (status, _, stderr) =
        ferromcp_with(&["list", &everything_server(), "--header", "X-A: 1"], &[]);
    assert_eq!(status, 2, "{stderr}");
    assert!(
        stderr.starts_with("ferromcp: --header and --bearer apply to a URL server"),
        "{stderr}"
    );
    let _ = child.kill();
    let _ = child.wait();
}
