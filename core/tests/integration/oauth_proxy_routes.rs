//! The OAuth proxy served by the engine's own front doors (`HttpServerOptions::oauth_proxy`):
//! `serve_http`'s listener and the axum `router` route the proxy's endpoints beside the MCP
//! endpoint, which `auth` protects with the proxy's tokens, so a server signs its clients in
//! without an HTTP app of its own. The proxy's own behaviour (the flow, PKCE, refresh) is
//! tested in `oauth_proxy/`; these check that each of its endpoints is reached through both
//! front doors and that nothing else changed.

use crate::common_http::{send, JSON_SSE};
use ferromcp::auth::{MemoryProxyStore, OAuthProxy, OAuthProxyConfig, ResourceAuth, Upstream};
use ferromcp::server::Server;
use ferromcp::transport::http::{router, serve_http, HttpServerOptions};
use serde_json::{json, Value};
use std::sync::Arc;

const ISSUER: &str = "https://mcp.example.com";
const RESOURCE: &str = "https://mcp.example.com/mcp";

/// The options of a server fronting an upstream (never reached here) through the proxy, its
/// endpoint protected by the proxy's tokens.
fn options() -> HttpServerOptions {
    let upstream = Upstream::new(
        "https://idp.example.com/authorize",
        "https://idp.example.com/token",
        "proxy-app",
        Some("s3cret".into()),
    );
    let mut config = OAuthProxyConfig::new(ISSUER, RESOURCE, upstream);
    config.require_consent = false;
    let proxy = OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap();
    let auth = ResourceAuth::new(RESOURCE, vec![ISSUER.into()], Arc::new(proxy.clone()));
    HttpServerOptions::default()
        .with_auth(Some(Arc::new(auth)))
        .with_oauth_proxy(Some(proxy))
}

fn server() -> Server {
    Server::builder("signed-in", "1").build().unwrap()
}

/// What every front door must do with the proxy's endpoints, at `base` (`http://host:port`).
async fn check_endpoints(base: &str) {
    let metadata = send(
        "GET",
        &format!("{base}/.well-known/oauth-authorization-server"),
        &[],
        "",
    )
    .await;
    assert_eq!(metadata.status, 200, "{}", metadata.body);
    let m = metadata.json();
    assert_eq!(m["issuer"], ISSUER);
    assert_eq!(m["token_endpoint"], format!("{ISSUER}/token"));
    assert_eq!(m["code_challenge_methods_supported"], json!(["S256"]));

    let resource = send(
        "GET",
        &format!("{base}/.well-known/oauth-protected-resource/mcp"),
        &[],
        "",
    )
    .await;
    assert_eq!(resource.status, 200, "{}", resource.body);
    assert_eq!(resource.json()["authorization_servers"], json!([ISSUER]));

    // Dynamic client registration through the front door.
    let registration = json!({"redirect_uris": ["http://127.0.0.1:7777/cb"], "token_endpoint_auth_method": "none"});
    let registered = send(
        "POST",
        &format!("{base}/register"),
        &[("content-type", "application/json")],
        &registration.to_string(),
    )
    .await;
    assert_eq!(registered.status, 201, "{}", registered.body);
    let client_id = registered.json()["client_id"].as_str().unwrap().to_string();

    // The browser leg: an authorization request is sent on to the upstream (no consent asked).
    let query = format!(
        "response_type=code&client_id={client_id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A7777%2Fcb\
         &code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256\
         &resource=https%3A%2F%2Fmcp.example.com%2Fmcp&state=s1"
    );
    let authorize = send("GET", &format!("{base}/authorize?{query}"), &[], "").await;
    assert_eq!(authorize.status, 302, "{}", authorize.body);
    let location = authorize.headers["location"].to_str().unwrap();
    assert!(
        location.starts_with("https://idp.example.com/authorize?"),
        "{location}"
    );

    // A refused request is the proxy's refusal, not a 404: a code it never issued.
    let token = send(
        "POST",
        &format!("{base}/token"),
        &[("content-type", "application/x-www-form-urlencoded")],
        &format!("grant_type=authorization_code&code=nope&client_id={client_id}&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&redirect_uri=http%3A%2F%2F127.0.0.1%3A7777%2Fcb"),
    )
    .await;
    assert_eq!(token.status, 400, "{}", token.body);
    assert_eq!(token.json()["error"], "invalid_grant");

    // The MCP endpoint is protected by the proxy's tokens and names the metadata.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let unauthorized = send("POST", &format!("{base}/mcp"), &JSON_SSE, &init.to_string()).await;
    assert_eq!(unauthorized.status, 401);
    let challenge = unauthorized.headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains("/.well-known/oauth-protected-resource/mcp"),
        "{challenge}"
    );
    let forged = [
        JSON_SSE[0],
        JSON_SSE[1],
        ("authorization", "Bearer not-a-proxy-token"),
    ];
    let refused = send("POST", &format!("{base}/mcp"), &forged, &init.to_string()).await;
    assert_eq!(refused.status, 401, "{}", refused.body);

    // Other paths are still not found.
    assert_eq!(
        send("GET", &format!("{base}/nope"), &[], "").await.status,
        404
    );
}

#[tokio::test]
async fn serve_http_serves_the_proxys_endpoints_beside_the_mcp_endpoint() {
    let h = serve_http(server(), "127.0.0.1:0", options())
        .await
        .unwrap();
    let base = h.url("");
    check_endpoints(base.trim_end_matches('/')).await;
}

#[tokio::test]
async fn the_axum_router_serves_the_proxys_endpoints_beside_the_mcp_endpoint() {
    let app = router(server(), options());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    check_endpoints(&base).await;
}

#[test]
fn every_path_the_proxy_names_is_one_it_serves() {
    let options = options();
    let proxy = options.oauth_proxy.as_ref().unwrap();
    let paths = proxy.endpoint_paths();
    assert_eq!(paths.len(), 8, "{paths:?}");
    for p in &paths {
        assert!(proxy.serves(p), "{p}");
    }
    let _: Value = proxy.metadata();
}
