//! `OAuthConfig::expected_issuer` (the TypeScript SDK's `expectedIssuer` of its client
//! credentials provider): a client whose credentials belong to one authorization server
//! refuses a resource that names another, before anything (its secret above all) is sent to
//! it; with the right issuer the client credentials grant goes through.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use ferromcp::auth::{AuthInfo, OAuthClient, OAuthConfig, ResourceAuth};
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::transport::http::{router, HttpClientOptions, HttpServerOptions};
use futures_util::future::BoxFuture;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// What the authorization server was asked.
#[derive(Default)]
struct Seen {
    base: String,
    metadata_requests: usize,
    token_requests: usize,
}

type Shared = Arc<Mutex<Seen>>;

async fn as_metadata(State(s): State<Shared>) -> Response {
    let mut s = s.lock().unwrap();
    s.metadata_requests += 1;
    let b = s.base.clone();
    let body = json!({
        "issuer": b, "token_endpoint": format!("{b}/token"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
    });
    ([("content-type", "application/json")], body.to_string()).into_response()
}

async fn token(State(s): State<Shared>, _headers: HeaderMap, _body: Bytes) -> Response {
    s.lock().unwrap().token_requests += 1;
    let body = json!({"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600});
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// An authorization server and an MCP server protected by it; returns the AS state, its
/// issuer and the MCP URL.
async fn start() -> (Shared, String, String) {
    let seen: Shared = Arc::default();
    let as_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", as_listener.local_addr().unwrap());
    seen.lock().unwrap().base = issuer.clone();
    let as_app = Router::new()
        .route("/.well-known/oauth-authorization-server", get(as_metadata))
        .route("/token", post(token))
        .with_state(seen.clone());
    tokio::spawn(async move { axum::serve(as_listener, as_app).await.unwrap() });

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mcp_url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::builder("protected", "1.0")
        .tool("whoami", "Answers", |_: NoArgs, _ctx| async move {
            "machine".to_string()
        })
        .build()
        .unwrap();
    let resource = mcp_url.clone();
    let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
        let ok = token == "at-1";
        let resource = resource.clone();
        Box::pin(async move {
            if !ok {
                return Err("unknown token".into());
            }
            Ok({
                let mut lit = AuthInfo::default();
                lit.subject = Some("machine".into());
                lit.audience = vec![resource];
                lit
            })
        })
    };
    let protection = ResourceAuth::new(&mcp_url, vec![issuer.clone()], Arc::new(verifier));
    let options = HttpServerOptions::default().with_auth(Some(Arc::new(protection)));
    let app = router(server, options);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (seen, issuer, mcp_url)
}

async fn call(url: &str, config: OAuthConfig) -> Result<String, ferromcp::McpError> {
    let http = HttpClientOptions::default()
        .with_legacy_fallback(false)
        .with_open_get_stream(false)
        .auth(Arc::new(OAuthClient::new(config)));
    let client = connect(
        url,
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        http,
    )
    .await?;
    let r = client.call_tool("whoami", json!({})).await;
    client.close().await;
    Ok(r?.content[0].as_text().unwrap_or_default().to_string())
}

#[tokio::test]
async fn client_credentials_with_the_expected_issuer_go_through() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let (seen, issuer, url) = start().await;
        // With or without a trailing slash.
        let config = OAuthConfig::client_credentials("id-1", "secret-1")
            .expected_issuer(format!("{issuer}/"));
        assert_eq!(call(&url, config).await.unwrap(), "machine");
        assert_eq!(seen.lock().unwrap().token_requests, 1);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_resource_naming_another_issuer_is_refused_before_anything_is_sent_to_it() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let (seen, _issuer, url) = start().await;
        let config = OAuthConfig::client_credentials("id-1", "secret-1")
            .expected_issuer("https://auth.example.com");
        let e = call(&url, config).await.unwrap_err();
        let data = e.data.as_ref().expect("error data");
        assert_eq!(data["authError"], "issuer_mismatch", "{e}");
        assert!(e.message.contains("https://auth.example.com"), "{e}");
        let s = seen.lock().unwrap();
        assert_eq!(s.metadata_requests, 0, "not even its metadata was fetched");
        assert_eq!(s.token_requests, 0, "the secret was not sent");
    })
    .await
    .unwrap();
}
