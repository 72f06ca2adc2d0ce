//! One replica of an MCP server signed into through the engine's OAuth proxy, for
//! `tests/oauth/oidc_proxy.mjs` (run by `tests/run-oauth-proxy.sh`): the Streamable HTTP
//! endpoint (`/mcp`, protected by the proxy's own tokens) and the proxy's endpoints
//! (`ferromcp::auth::OAuthProxy`, fronting an OpenID provider found by discovery) served
//! together by the engine's own listener (`HttpServerOptions::oauth_proxy`), with sessions and
//! the proxy's records on Redis, so that any replica serves any leg of the flow.
//!
//! ```text
//! oauth_proxy_replica --port N --issuer URL --redis-url URL --upstream-issuer URL
//!     --client-id ID --client-secret SECRET [--access-token-ttl SECONDS]
//!     [--document-ca PEM_FILE]
//! ```
//! `--document-ca` (tests): client metadata documents may be fetched from this machine, over
//! TLS trusting that CA (the proxy's default refuses loopback and private addresses).
//! `--issuer` is the URL the clients use (the front of the replicas); the MCP resource is
//! `<issuer>/mcp`. Tool: `whoami` answers the caller's identity as the handler sees it
//! (`{"subject", "clientId", "scopes", "audience", "upstreamToken"}`).

use ferromcp::auth::{OAuthProxy, OAuthProxyConfig, RedisProxyStore, Upstream};
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// `whoami` takes no arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

fn usage() -> ! {
    eprintln!(
        "usage: oauth_proxy_replica --port N --issuer URL --redis-url URL --upstream-issuer URL \
         --client-id ID --client-secret SECRET [--access-token-ttl SECONDS] [--document-ca PEM_FILE]"
    );
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let (mut port, mut issuer, mut redis_url, mut upstream_issuer) = (0u16, None, None, None);
    let (mut client_id, mut client_secret, mut access_ttl) = (None, None, None);
    let mut document_ca = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--port" => port = value().parse().unwrap_or_else(|_| usage()),
            "--issuer" => issuer = Some(value()),
            "--redis-url" => redis_url = Some(value()),
            "--upstream-issuer" => upstream_issuer = Some(value()),
            "--client-id" => client_id = Some(value()),
            "--client-secret" => client_secret = Some(value()),
            "--access-token-ttl" => {
                access_ttl = Some(value().parse::<u64>().unwrap_or_else(|_| usage()))
            }
            "--document-ca" => document_ca = Some(value()),
            _ => usage(),
        }
    }
    let (Some(issuer), Some(redis_url), Some(upstream_issuer), Some(client_id)) =
        (issuer, redis_url, upstream_issuer, client_id)
    else {
        usage()
    };
    let upstream =
        match Upstream::discover(&upstream_issuer, client_id, client_secret, vec![]).await {
            Ok(u) => u,
            Err(e) => {
                eprintln!("oauth_proxy_replica: discovery of {upstream_issuer} failed: {e}");
                std::process::exit(1);
            }
        };
    let resource = format!("{issuer}/mcp");
    let issuer_host = issuer
        .split_once("://")
        .map(|(_, rest)| rest.split('/').next().unwrap_or(rest).to_string())
        .unwrap_or_else(|| usage());
    let mut config = OAuthProxyConfig::new(issuer, resource, upstream);
    config.scopes_supported = vec!["mcp:tools".into()];
    if let Some(s) = access_ttl {
        config.access_token_ttl = Duration::from_secs(s);
    }
    if let Some(path) = document_ca {
        let pem = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("oauth_proxy_replica: cannot read {path}: {e}");
            std::process::exit(2);
        });
        config.client_id_documents.allow_private_addresses = true;
        config.client_id_documents.root_certificates = vec![pem];
    }
    let store = RedisProxyStore::open(&redis_url).unwrap_or_else(|e| {
        eprintln!("oauth_proxy_replica: bad --redis-url: {e}");
        std::process::exit(2);
    });
    let proxy = OAuthProxy::new(config, Arc::new(store)).unwrap_or_else(|e| {
        eprintln!("oauth_proxy_replica: {e}");
        std::process::exit(2);
    });

    let server = Server::builder("oauth-proxy-replica", "1.0")
        .tool(
            "whoami",
            "The caller's identity, as the proxy's token gives it",
            |_: NoArgs, ctx| async move {
                let a = ctx.auth();
                json!({
                    "subject": a.and_then(|a| a.subject.clone()),
                    "clientId": a.and_then(|a| a.client_id.clone()),
                    "scopes": a.map(|a| a.scopes.clone()),
                    "audience": a.map(|a| a.audience.clone()),
                    "upstreamToken": a.is_some_and(|a| a.claims["upstream_access_token"].is_string()),
                })
                .to_string()
            },
        )
        .build()
        .expect("the server builds");
    let options = HttpServerOptions::default()
        .with_redis_url(Some(redis_url))
        .with_auth(Some(Arc::new(proxy.protection())));
    // The clients reach this replica through the front at the issuer's address, so that is
    // the `Host` they send (a loopback bind alone allows only its own port).
    let front = issuer_host.clone();
    let options = options
        .with_allowed_hosts(vec![front])
        .with_oauth_proxy(Some(proxy));
    let handle = match serve_http(server, ("127.0.0.1", port), options).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("oauth_proxy_replica: cannot listen on {port}: {e}");
            std::process::exit(1);
        }
    };
    eprintln!("oauth_proxy_replica: listening on {}", handle.local_addr());
    if let Err(e) = handle.wait().await {
        eprintln!("oauth_proxy_replica: stopped: {e}");
        std::process::exit(1);
    }
}
