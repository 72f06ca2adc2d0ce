//! The OAuth client end to end: a small authorization server written here, a ferromcp server
//! protected by `ResourceAuth` (its handler reads the identity), and the ferromcp HTTP client
//! authorizing (dynamic registration, authorization
//! code with PKCE S256, `resource`, `iss`), refreshing before expiry and after a revoked token,
//! and refusing authorization servers it must not use.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ferromcp::auth::{
    AuthInfo, AutoApprove, MemoryTokenStore, OAuthClient, OAuthConfig, ResourceAuth, TokenStore,
};
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::transport::http::{router, HttpClientOptions, HttpServerOptions};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The tool's (empty) arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// What the authorization server saw and issued.
#[derive(Default)]
struct AsState {
    base: String,
    /// The MCP server URL tokens must be requested for.
    resource: String,
    /// Test switches.
    advertise_s256: bool,
    wrong_iss: bool,
    /// First access token lifetime (seconds).
    first_expires_in: u64,
    registrations: usize,
    authorizations: Vec<HashMap<String, String>>,
    grants: Vec<String>,
    challenge: Option<String>,
    refresh_tokens: HashSet<String>,
    /// Valid access tokens (shared with the resource server).
    valid: HashSet<String>,
    counter: usize,
}

type Shared = Arc<Mutex<AsState>>;

/// A JSON answer (this crate's axum has no `Json`).
fn json_answer(status: StatusCode, v: Value) -> Response {
    (
        status,
        [("content-type", "application/json")],
        v.to_string(),
    )
        .into_response()
}

async fn as_metadata(State(s): State<Shared>) -> Response {
    let s = s.lock().unwrap();
    let b = &s.base;
    let mut m = json!({
        "issuer": b,
        "authorization_endpoint": format!("{b}/authorize"),
        "token_endpoint": format!("{b}/token"),
        "registration_endpoint": format!("{b}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": true,
    });
    if s.advertise_s256 {
        m["code_challenge_methods_supported"] = json!(["S256"]);
    }
    json_answer(StatusCode::OK, m)
}

async fn register(State(s): State<Shared>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap();
    let mut s = s.lock().unwrap();
    s.registrations += 1;
    assert_eq!(body["application_type"], "native");
    assert_eq!(body["token_endpoint_auth_method"], "none");
    json_answer(
        StatusCode::CREATED,
        json!({ "client_id": "client-1", "redirect_uris": body["redirect_uris"] }),
    )
}

async fn authorize(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut s = s.lock().unwrap();
    s.authorizations.push(q.clone());
    if q.get("code_challenge_method").map(String::as_str) != Some("S256")
        || q.get("resource") != Some(&s.resource)
        || q.get("client_id").map(String::as_str) != Some("client-1")
    {
        return (StatusCode::BAD_REQUEST, "bad authorization request").into_response();
    }
    s.challenge = q.get("code_challenge").cloned();
    let iss = if s.wrong_iss {
        "http://evil.example".to_string()
    } else {
        s.base.clone()
    };
    let state = q.get("state").cloned().unwrap_or_default();
    let target = format!(
        "{}?code=code-1&state={}&iss={}",
        q["redirect_uri"],
        state,
        form_urlencoded::byte_serialize(iss.as_bytes()).collect::<String>()
    );
    (StatusCode::FOUND, [("location", target)]).into_response()
}

async fn token(State(s): State<Shared>, body: Bytes) -> Response {
    let f: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let mut s = s.lock().unwrap();
    let grant = f.get("grant_type").cloned().unwrap_or_default();
    s.grants.push(grant.clone());
    let bad = |e: &str| json_answer(StatusCode::BAD_REQUEST, json!({ "error": e }));
    if f.get("resource") != Some(&s.resource)
        || f.get("client_id").map(String::as_str) != Some("client-1")
    {
        return bad("invalid_request");
    }
    let expires_in = match grant.as_str() {
        "authorization_code" => {
            let verifier = f.get("code_verifier").cloned().unwrap_or_default();
            let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
            if f.get("code").map(String::as_str) != Some("code-1")
                || s.challenge.as_deref() != Some(computed.as_str())
            {
                return bad("invalid_grant");
            }
            s.first_expires_in
        }
        "refresh_token" => {
            let rt = f.get("refresh_token").cloned().unwrap_or_default();
            if !s.refresh_tokens.remove(&rt) {
                return bad("invalid_grant");
            }
            3600
        }
        _ => return bad("unsupported_grant_type"),
    };
    s.counter += 1;
    let (at, rt) = (format!("at-{}", s.counter), format!("rt-{}", s.counter));
    s.valid.insert(at.clone());
    s.refresh_tokens.insert(rt.clone());
    json_answer(
        StatusCode::OK,
        json!({
            "access_token": at, "token_type": "Bearer", "expires_in": expires_in,
            "refresh_token": rt, "scope": "mcp"
        }),
    )
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// Starts the authorization server and the protected MCP server; returns the shared state
/// and the MCP URL.
async fn start(configure: impl FnOnce(&mut AsState)) -> (Shared, String) {
    let state: Shared = Arc::default();
    configure(&mut state.lock().unwrap());
    let as_app = Router::new()
        .route("/.well-known/oauth-authorization-server", get(as_metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(state.clone());
    let as_base = serve(as_app).await;
    state.lock().unwrap().base = as_base.clone();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let rs_base = format!("http://{}", listener.local_addr().unwrap());
    let mcp_url = format!("{rs_base}/mcp");
    state.lock().unwrap().resource = mcp_url.clone();
    let server = Server::builder("protected", "1.0")
        .tool("whoami", "Answers", |_: NoArgs, _ctx| async move {
            "alice".to_string()
        })
        .build()
        .unwrap();
    // The protected server: ferromcp's own bearer check, verifying against the tokens the
    // authorization server issued.
    let verify_state = state.clone();
    let resource = mcp_url.clone();
    let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
        let known = verify_state.lock().unwrap().valid.contains(token);
        let resource = resource.clone();
        Box::pin(async move {
            if !known {
                return Err("unknown or revoked token".into());
            }
            Ok({
                let mut lit = AuthInfo::default();
                lit.subject = Some("alice".into());
                lit.scopes = vec!["mcp".into()];
                lit.audience = vec![resource];
                lit
            })
        })
    };
    let protection = ResourceAuth::new(&mcp_url, vec![as_base], Arc::new(verifier));
    let options =
        HttpServerOptions::default().with_auth(Some(Arc::new(protection.require_scopes(&["mcp"]))));
    let app = router(server, options);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (state, mcp_url)
}

fn oauth(store: Arc<dyn TokenStore>) -> Arc<OAuthClient> {
    Arc::new(OAuthClient::new(
        OAuthConfig::new(Arc::new(AutoApprove::new("http://127.0.0.1:9/callback")))
            .client_name("oauth test")
            .store(store),
    ))
}

async fn call(url: &str, auth: Arc<OAuthClient>) -> Result<String, ferromcp::McpError> {
    let http = HttpClientOptions::default()
        .with_legacy_fallback(false)
        .with_open_get_stream(false)
        .auth(auth);
    let client = connect(
        url,
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        http,
    )
    .await?;
    let r = client.call_tool("whoami", json!({})).await;
    client.close().await;
    let r = r?;
    Ok(r.content[0].as_text().unwrap_or_default().to_string())
}

#[tokio::test]
async fn authorizes_refreshes_and_reuses_stored_tokens() {
    tokio::time::timeout(Duration::from_secs(30), async {
        // The first token expires within the refresh margin: the next request refreshes first.
        let (state, url) = start(|s| {
            s.advertise_s256 = true;
            s.first_expires_in = 5;
        })
        .await;
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
        let auth = oauth(store.clone());
        assert_eq!(call(&url, auth.clone()).await.unwrap(), "alice");
        {
            let s = state.lock().unwrap();
            assert_eq!(s.registrations, 1);
            assert_eq!(s.authorizations.len(), 1);
            assert_eq!(s.authorizations[0]["scope"], "mcp");
            assert_eq!(s.grants, ["authorization_code", "refresh_token"]);
        }
        // A revoked token: the 401 is answered by a refresh, then the call succeeds.
        state.lock().unwrap().valid.clear();
        assert_eq!(call(&url, auth.clone()).await.unwrap(), "alice");
        assert_eq!(
            state.lock().unwrap().grants,
            ["authorization_code", "refresh_token", "refresh_token"]
        );
        // A new client on the same store reuses the stored token and registration.
        assert_eq!(call(&url, oauth(store.clone())).await.unwrap(), "alice");
        let s = state.lock().unwrap();
        assert_eq!(
            (s.registrations, s.authorizations.len(), s.grants.len()),
            (1, 1, 3)
        );
        let key = url.clone();
        drop(s);
        let stored = store.load(&key).unwrap().unwrap();
        assert_eq!(stored.client.unwrap().client_id, "client-1");
        assert_eq!(stored.resource.as_deref(), Some(url.as_str()));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn refuses_servers_without_pkce_and_mismatched_issuers() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let (state, url) = start(|s| {
            s.advertise_s256 = false;
            s.first_expires_in = 3600;
        })
        .await;
        let e = call(&url, oauth(Arc::new(MemoryTokenStore::new())))
            .await
            .unwrap_err();
        assert_eq!(
            e.data.as_ref().unwrap()["authError"],
            "pkce_unsupported",
            "{e}"
        );
        assert_eq!(e.data.as_ref().unwrap()["httpStatus"], 401);
        assert!(state.lock().unwrap().authorizations.is_empty());

        let (state, url) = start(|s| {
            s.advertise_s256 = true;
            s.wrong_iss = true;
            s.first_expires_in = 3600;
        })
        .await;
        let e = call(&url, oauth(Arc::new(MemoryTokenStore::new())))
            .await
            .unwrap_err();
        assert_eq!(
            e.data.as_ref().unwrap()["authError"],
            "issuer_mismatch",
            "{e}"
        );
        let s = state.lock().unwrap();
        assert_eq!(s.authorizations.len(), 1);
        assert!(
            s.grants.is_empty(),
            "the code must not reach the token endpoint"
        );
    })
    .await
    .unwrap();
}
