//! One replica of an MCP server signed into through the engine's OAuth proxy, for
//! `tests/oauth/oidc_proxy.mjs` (run by `tests/run-oauth-proxy.sh`): the Streamable HTTP
//! endpoint (`/mcp`, protected by the proxy's own tokens) and the proxy's endpoints
//! (`ferromcp::auth::OAuthProxy`, fronting an OpenID provider found by discovery) in one axum
//! app, with sessions and the proxy's records on Redis, so that any replica serves any leg of
//! the flow.
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

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use ferromcp::auth::{
    OAuthProxy, OAuthProxyConfig, ProxyRequest, RedisProxyStore, ResourceAuth, Upstream,
};
use ferromcp::server::Server;
use ferromcp::transport::http::{router, HttpServerOptions};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// The bytes of a body read for the proxy: one past its own limit (64 KiB), which it answers 413.
const BODY_READ_LIMIT: usize = 64 * 1024 + 1;

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

/// Answers one request with the proxy (a path that is not the proxy's: 404).
async fn serve_proxy(proxy: OAuthProxy, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = match axum::body::to_bytes(body, BODY_READ_LIMIT).await {
        Ok(b) => b,
        Err(_) => return (StatusCode::PAYLOAD_TOO_LARGE, "body too large").into_response(),
    };
    let request = ProxyRequest::default()
        .with_method(parts.method.as_str().to_string())
        .with_path(parts.uri.path().to_string())
        .with_query(parts.uri.query().unwrap_or("").to_string())
        .with_headers(
            parts
                .headers
                .iter()
                .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
                .collect(),
        )
        .with_body(body);
    let Some(answer) = proxy.handle(&request).await else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() =
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (k, v) in answer.headers {
        if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
            response.headers_mut().append(k, v);
        }
    }
    response
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
    let mut config = OAuthProxyConfig::new(issuer.clone(), resource.clone(), upstream);
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
        .with_auth(Some(Arc::new(ResourceAuth::new(
            resource,
            vec![issuer],
            Arc::new(proxy.clone()),
        ))));
    let app = router(server, options).fallback(move |req: Request| serve_proxy(proxy.clone(), req));
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("oauth_proxy_replica: cannot listen on {port}: {e}");
            std::process::exit(1);
        }
    };
    eprintln!(
        "oauth_proxy_replica: listening on {}",
        listener.local_addr().expect("bound")
    );
    if let Err(e) = axum::serve(listener, app).await {
        eprintln!("oauth_proxy_replica: stopped: {e}");
        std::process::exit(1);
    }
}
