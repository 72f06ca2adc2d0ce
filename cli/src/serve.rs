//! `ferromcp proxy`: reads the `mcpServers` file and the middleware, starts the proxy with
//! that middleware on its server, serves it over stdio or Streamable HTTP (with the engine's
//! HTTP options and OAuth protection), and on SIGINT/SIGTERM stops serving and closes the
//! backends (stopping their processes).

use crate::args::{Listen, ProxyArgs};
use crate::client_cmd::Failure;
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use ferromcp_proxy::{Proxy, ProxyConfig, ProxyOptions};
use std::path::Path;
use std::time::Duration;

/// The engine's HTTP options as the command line sets them, with the config file's `"auth"`
/// (`doc`: the file as JSON) when no `--auth*` option is given; a bad `--auth*` option or
/// `"auth"` value is the error (a usage error: exit status 2).
pub fn http_options(a: &ProxyArgs, doc: &serde_json::Value) -> Result<HttpServerOptions, Failure> {
    let mut o = HttpServerOptions::default();
    if let Some(p) = &a.path {
        o.path = p.clone();
    }
    o.json_response = a.json_response;
    o.stateless = a.stateless;
    o.legacy_sse = a.legacy_sse;
    if let Some(n) = a.max_sessions {
        o.max_sessions = n;
    }
    if let Some(s) = a.session_idle_timeout {
        o.session_idle_timeout = Duration::from_secs(s);
    }
    if let Some(n) = a.max_body_size {
        o.max_body_size = n;
    }
    if let Some(n) = a.max_connections {
        o.max_connections = n;
    }
    o.allowed_hosts = a.allowed_hosts.clone();
    o.allowed_origins = a.allowed_origins.clone();
    o.redis_url = a.redis_url.clone();
    if a.no_health {
        o.health_path = None;
    }
    let default_resource = match &a.listen {
        Listen::Http { host, port } if *port != 0 => match host.parse::<std::net::IpAddr>() {
            Ok(ip) if ip.is_unspecified() => None,
            Ok(std::net::IpAddr::V6(ip)) => Some(format!("http://[{ip}]:{port}{}", o.path)),
            _ => Some(format!("http://{host}:{port}{}", o.path)),
        },
        _ => None,
    };
    let file_auth = doc.get("auth").map(|v| (a.config.as_str(), v));
    o.auth = crate::auth::protection(&a.auth, default_resource, file_auth).map_err(usage)?;
    Ok(o)
}

/// `--oauth-proxy`: the OAuth proxy built from its settings (the bindings' `oauthProxy`:
/// `ferromcp_embed::OAuthProxySettings`), served beside the endpoint; without `--auth*` the
/// endpoint takes the proxy's tokens. Built before anything listens (an `oidc` preset reads
/// its provider's discovery document now), so bad settings stop the command (exit status 2).
async fn with_oauth_proxy(
    a: &ProxyArgs,
    mut o: HttpServerOptions,
) -> Result<HttpServerOptions, Failure> {
    let Some(arg) = &a.oauth_proxy else {
        return Ok(o);
    };
    let v = crate::middleware::json_argument("--oauth-proxy", arg).map_err(usage)?;
    let settings: ferromcp_embed::OAuthProxySettings =
        serde_json::from_value(v).map_err(|e| usage(format!("--oauth-proxy: {e}")))?;
    let proxy =
        ferromcp_embed::EmbeddedOAuthProxy::from_settings(&settings, a.redis_url.as_deref())
            .await
            .map_err(|e| usage(format!("--oauth-proxy: {}", e.message)))?;
    if o.auth.is_none() {
        o.auth = Some(proxy.protection());
    }
    o.oauth_proxy = Some(proxy.proxy().clone());
    Ok(o)
}

fn usage(message: String) -> Failure {
    Failure { message, status: 2 }
}

/// The config file as JSON, for the keys beside `mcpServers` (`middleware`, `auth`); it was
/// read and checked as an mcpServers document just before.
fn config_document(a: &ProxyArgs) -> Result<serde_json::Value, Failure> {
    let text =
        std::fs::read_to_string(&a.config).map_err(|e| usage(format!("{}: {e}", a.config)))?;
    serde_json::from_str(&text).map_err(|e| usage(format!("{}: not valid JSON: {e}", a.config)))
}

/// The middleware layers: `--middleware`'s list, else the config file's `"middleware"` key
/// (the command line wins when both are given), else none.
fn middleware_layers(
    a: &ProxyArgs,
    doc: &serde_json::Value,
) -> Result<Vec<std::sync::Arc<dyn ferromcp::server::middleware::Middleware>>, Failure> {
    if let Some(arg) = &a.middleware {
        let list = crate::middleware::json_argument("--middleware", arg).map_err(usage)?;
        return crate::middleware::layers(list, "--middleware").map_err(usage);
    }
    match doc.get("middleware") {
        Some(list) => crate::middleware::layers(list.clone(), &a.config).map_err(usage),
        None => Ok(Vec::new()),
    }
}

/// Resolves when the process is asked to stop (SIGINT or SIGTERM).
async fn stop_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending::<()>().await } } => {}
    }
}

/// Runs the proxy until stdin closes (stdio) or a stop signal; returns the exit status.
pub async fn run(a: ProxyArgs) -> Result<i32, Failure> {
    // The engine's log events (the requestLog layer's line per request, the error a maskErrors
    // layer hid, warnings of the HTTP server and the stores) on stderr, at FERROMCP_LOG's level
    // (info unless set; "off" for none). A host that set its own tracing subscriber keeps it.
    ferromcp_embed::log_forward::install_stderr_default();
    let config = ProxyConfig::from_file(Path::new(&a.config)).map_err(|e| Failure {
        message: format!("{}: {e}", a.config),
        status: 2,
    })?;
    let doc = config_document(&a)?;
    let layers = middleware_layers(&a, &doc)?;
    let http = match &a.listen {
        Listen::Http { .. } => Some(with_oauth_proxy(&a, http_options(&a, &doc)?).await?),
        Listen::Stdio => None,
    };
    let proxy = Proxy::start(&config, ProxyOptions::default()).await?;
    for layer in layers {
        // The proxy's server has served no request yet: its chain is still open.
        if let Err(e) = proxy.server().add_middleware(layer) {
            proxy.shutdown().await;
            return Err(Failure {
                message: format!("cannot add middleware: {}", e.message),
                status: 1,
            });
        }
    }
    for b in proxy.backends() {
        match b.last_error() {
            Some(why) => eprintln!(
                "ferromcp proxy: backend {}: down ({why}); retrying",
                b.name()
            ),
            None if b.is_up() => eprintln!("ferromcp proxy: backend {}: up", b.name()),
            None => eprintln!(
                "ferromcp proxy: backend {}: starts when a client connects",
                b.name()
            ),
        }
    }
    let outcome = match &a.listen {
        Listen::Stdio => {
            // Served in a task of its own, so that a call's wake-ups poll the session alone:
            // inside the select! below, every wake-up of the session (several per call) also
            // polled the two signal futures.
            let server = proxy.server().clone();
            let mut serving = tokio::spawn(async move { server.serve_stdio().await });
            let ended = tokio::select! {
                r = &mut serving => Some(r),
                _ = stop_signal() => None,
            };
            match ended {
                Some(Ok(r)) => r.map(|_| 0).map_err(Failure::from),
                Some(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Some(Err(e)) => Err(Failure {
                    message: format!("the stdio session stopped: {e}"),
                    status: 1,
                }),
                None => {
                    // As before: stop serving at once (the backends are closed below).
                    serving.abort();
                    let _ = serving.await;
                    Ok(0)
                }
            }
        }
        Listen::Http { host, port } => {
            let options = http.unwrap_or_default();
            let path = options.path.clone();
            let handle = serve_http(proxy.server().clone(), (host.as_str(), *port), options)
                .await
                .map_err(|e| Failure {
                    message: format!("cannot serve on {host}:{port}: {e}"),
                    status: 1,
                })?;
            eprintln!("ferromcp proxy: listening on {}", handle.url(&path));
            let token = handle.shutdown_token();
            tokio::select! {
                r = handle.wait() => r.map(|_| 0).map_err(|e| Failure { message: format!("HTTP server failed: {e}"), status: 1 }),
                _ = stop_signal() => {
                    token.cancel();
                    Ok(0)
                }
            }
        }
    };
    proxy.shutdown().await;
    outcome
}
