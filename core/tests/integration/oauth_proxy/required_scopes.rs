//! `OAuthProxyConfig::required_scopes`: the MCP endpoint the proxy's tokens protect can require
//! scopes, enforced by the proxy's own protection (`OAuthProxy::protection`) as an external
//! token's are by `ResourceAuth`: a token of the proxy granted without them is refused 403
//! `insufficient_scope` with a challenge listing them, through the engine's listener too; a
//! required scope the proxy does not offer is refused when the proxy is built.

use super::*;
use crate::common_http::{send, JSON_SSE};
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerOptions};

/// A proxy requiring `mcp:write`, and an access token it issued for `scope`.
async fn token_with(h: &Harness, scope: &str) -> String {
    let client_id = public_client(h).await;
    let up = location(&get(h, &authorize_query(&client_id, &[("scope", scope)])).await);
    let back = upstream_login(h, &up, None).await;
    let code = query_of(&location(&back))["code"].clone();
    let r = token(
        h,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client_id),
            ("redirect_uri", CLIENT_REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", RESOURCE),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    body(&r)["access_token"].as_str().unwrap().to_string()
}

async fn requiring_write() -> Harness {
    let mut h = harness(false).await;
    let mut config = h.proxy.config().clone();
    config.required_scopes = vec!["mcp:write".into()];
    h.proxy = OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap();
    h
}

#[tokio::test]
async fn oauth_proxy_token_without_the_required_scope_is_refused_403() {
    let h = requiring_write().await;
    let auth = h.proxy.protection();
    let read_only = token_with(&h, "mcp:read").await;
    let denied = auth
        .check(Some(&format!("Bearer {read_only}")))
        .await
        .unwrap_err();
    assert_eq!(denied.status, 403);
    assert_eq!(denied.body["error"], "insufficient_scope");
    assert!(
        denied.www_authenticate.contains(r#"scope="mcp:write""#)
            && denied
                .www_authenticate
                .contains(r#"error="insufficient_scope""#),
        "{}",
        denied.www_authenticate
    );
    let both = token_with(&h, "mcp:read mcp:write").await;
    let granted = auth.check(Some(&format!("Bearer {both}"))).await.unwrap();
    assert_eq!(granted.scopes, ["mcp:read", "mcp:write"]);
    // No token: the 401 challenge names the scope to ask for; the metadata offers the proxy's.
    let none = auth.check(None).await.unwrap_err();
    assert_eq!(none.status, 401);
    assert!(none.www_authenticate.contains(r#"scope="mcp:write""#));
    assert_eq!(
        auth.metadata()["scopes_supported"],
        json!(["mcp:read", "mcp:write"])
    );
    assert_eq!(auth.metadata(), h.proxy.resource_metadata());

    // Through the engine's listener: the same refusal on the MCP endpoint, the token with the
    // scope served.
    let server = Server::builder("scoped", "1").build().unwrap();
    let options = HttpServerOptions::default()
        .with_auth(Some(Arc::new(auth)))
        .with_oauth_proxy(Some(h.proxy.clone()));
    let handle = serve_http(server, ("127.0.0.1", 0), options).await.unwrap();
    let url = format!("http://{}/mcp", handle.local_addr());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let bearer = |t: &str| format!("Bearer {t}");
    let (ro, rw) = (bearer(&read_only), bearer(&both));
    let refused = send(
        "POST",
        &url,
        &[JSON_SSE[0], JSON_SSE[1], ("authorization", &ro)],
        &init,
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let challenge = refused.headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(r#"scope="mcp:write""#) && challenge.contains("insufficient_scope"),
        "{challenge}"
    );
    let served = send(
        "POST",
        &url,
        &[JSON_SSE[0], JSON_SSE[1], ("authorization", &rw)],
        &init,
    )
    .await;
    assert_eq!(served.status, 200, "{}", served.body);
}

#[tokio::test]
async fn a_required_scope_the_proxy_does_not_offer_is_refused_when_it_is_built() {
    let h = harness(false).await;
    let mut config = h.proxy.config().clone();
    config.required_scopes = vec!["mcp:admin".into()];
    let e = OAuthProxy::new(config.clone(), Arc::new(MemoryProxyStore::new())).unwrap_err();
    assert!(e.to_string().contains("mcp:admin"), "{e}");
    // Offering any scope (none listed), any scope may be required.
    config.scopes_supported.clear();
    assert!(OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).is_ok());
}
