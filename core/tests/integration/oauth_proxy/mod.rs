//! The OAuth proxy (`ferromcp::auth::OAuthProxy`) end to end against an identity provider
//! written here that has no dynamic registration and one pre-registered client (the proxy):
//! registration, the consent page bound to the browser, the upstream leg with the proxy's own
//! PKCE, the code and tokens the proxy issues (verified as a resource server's tokens), refresh
//! with rotation, revocation, and the precise OAuth error of every refusal.
//!
//! Here: the identity provider, the harness and the steps every test takes; the tests, one
//! module a subject: the whole flow and the metadata (`flow`), refusals (`refusals`), replicas
//! on Redis (`replicas`), client ID metadata documents (`client_id_documents`), scopes the MCP
//! endpoint requires (`required_scopes`).

mod client_id_documents;
mod flow;
mod refusals;
#[cfg(feature = "redis")]
mod replicas;
mod required_scopes;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ferromcp::auth::{
    MemoryProxyStore, OAuthProxy, OAuthProxyConfig, ProxyRequest, ProxyResponse, ResourceAuth,
    Upstream, UpstreamAuthMethod,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const RESOURCE: &str = "http://127.0.0.1:9/mcp";
const ISSUER: &str = "http://127.0.0.1:9";
const CLIENT_REDIRECT: &str = "http://127.0.0.1:33418/callback";

/// What the fake identity provider knows: codes it issued (with the challenge and redirect URI
/// of their authorization), tokens, revocations.
#[derive(Default)]
struct Idp {
    codes: HashMap<String, (String, String)>,
    refresh: HashMap<String, u32>,
    issued: u32,
    revoked: Vec<String>,
    token_requests: Vec<HashMap<String, String>>,
}

type Shared = Arc<Mutex<Idp>>;

fn answer(status: StatusCode, v: Value) -> Response {
    (
        status,
        [("content-type", "application/json")],
        v.to_string(),
    )
        .into_response()
}

/// An unsigned ID token with `sub`.
fn id_token(sub: &str) -> String {
    let part = |v: Value| URL_SAFE_NO_PAD.encode(v.to_string());
    format!(
        "{}.{}.sig",
        part(json!({"alg": "none"})),
        part(json!({"sub": sub, "email": "ada@example.com"}))
    )
}

/// The upstream token endpoint: the proxy must authenticate with Basic `proxy-app:s3cret`.
async fn idp_token(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let f: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let mut s = s.lock().unwrap();
    s.token_requests.push(f.clone());
    let basic = format!("Basic {}", STANDARD.encode("proxy-app:s3cret"));
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(basic.as_str()) {
        return answer(StatusCode::UNAUTHORIZED, json!({"error": "invalid_client"}));
    }
    let grant = f.get("grant_type").map(String::as_str);
    match grant {
        Some("authorization_code") => {
            let Some((challenge, redirect)) = s.codes.remove(f.get("code").map_or("", |c| c))
            else {
                return answer(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"}));
            };
            let verifier = f.get("code_verifier").cloned().unwrap_or_default();
            let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
            if computed != challenge || f.get("redirect_uri") != Some(&redirect) {
                return answer(
                    StatusCode::BAD_REQUEST,
                    json!({"error": "invalid_grant", "error_description": "pkce"}),
                );
            }
        }
        Some("refresh_token") => {
            if s.refresh
                .remove(f.get("refresh_token").map_or("", |c| c))
                .is_none()
            {
                return answer(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"}));
            }
        }
        _ => {
            return answer(
                StatusCode::BAD_REQUEST,
                json!({"error": "unsupported_grant_type"}),
            )
        }
    }
    s.issued += 1;
    let n = s.issued;
    s.refresh.insert(format!("up-rt-{n}"), n);
    answer(
        StatusCode::OK,
        json!({
            "access_token": format!("up-at-{n}"),
            "refresh_token": format!("up-rt-{n}"),
            "token_type": "Bearer",
            "expires_in": 3600,
            "id_token": id_token("user-42"),
        }),
    )
}

async fn idp_revoke(State(s): State<Shared>, body: Bytes) -> Response {
    let f: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    s.lock()
        .unwrap()
        .revoked
        .push(f.get("token").cloned().unwrap_or_default());
    answer(StatusCode::OK, json!({}))
}

/// Starts the identity provider; its base URL.
async fn start_idp(state: Shared) -> String {
    let app = Router::new()
        .route("/token", post(idp_token))
        .route("/revoke", post(idp_revoke))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

struct Harness {
    proxy: OAuthProxy,
    idp: Shared,
}

async fn harness(consent: bool) -> Harness {
    let idp: Shared = Arc::default();
    let base = start_idp(idp.clone()).await;
    let upstream = Upstream::new(
        format!("{base}/authorize"),
        format!("{base}/token"),
        "proxy-app",
        Some("s3cret".into()),
    )
    .auth_method(UpstreamAuthMethod::ClientSecretBasic)
    .revocation_endpoint(format!("{base}/revoke"))
    .scopes(["openid"]);
    let mut config = OAuthProxyConfig::new(ISSUER, RESOURCE, upstream);
    config.require_consent = consent;
    config.scopes_supported = vec!["mcp:read".into(), "mcp:write".into()];
    let proxy = OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap();
    Harness { proxy, idp }
}

fn request(
    method: &str,
    path_and_query: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> ProxyRequest {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    ProxyRequest::default()
        .with_method(method.into())
        .with_path(path.into())
        .with_query(query.into())
        .with_headers(
            headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
        .with_body(Bytes::from(body.to_string()))
}

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");

async fn call(h: &Harness, r: ProxyRequest) -> ProxyResponse {
    h.proxy.handle(&r).await.expect("a proxy path")
}

fn body(r: &ProxyResponse) -> Value {
    serde_json::from_slice(&r.body).unwrap_or(Value::Null)
}

fn query_of(url: &str) -> HashMap<String, String> {
    let q = url.split_once('?').map_or("", |(_, q)| q);
    form_urlencoded::parse(q.as_bytes()).into_owned().collect()
}

fn location(r: &ProxyResponse) -> String {
    assert_eq!(
        r.status,
        302,
        "expected a redirect, got {} {}",
        r.status,
        String::from_utf8_lossy(&r.body)
    );
    r.header("location").unwrap().to_string()
}

/// Registers a client; its registration answer.
async fn register(h: &Harness, metadata: Value) -> ProxyResponse {
    call(
        h,
        request(
            "POST",
            "/register",
            &[("content-type", "application/json")],
            &metadata.to_string(),
        ),
    )
    .await
}

async fn public_client(h: &Harness) -> String {
    let r = register(
        h,
        json!({"redirect_uris": [CLIENT_REDIRECT], "token_endpoint_auth_method": "none",
               "grant_types": ["authorization_code", "refresh_token"], "client_name": "Test <App>"}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    body(&r)["client_id"].as_str().unwrap().to_string()
}

const VERIFIER: &str = "client-verifier-client-verifier-client-verifier-0123";

fn challenge() -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER.as_bytes()))
}

fn authorize_query(client_id: &str, extra: &[(&str, &str)]) -> String {
    let c = challenge();
    let mut p = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", CLIENT_REDIRECT),
        ("state", "client-state"),
        ("code_challenge", c.as_str()),
        ("code_challenge_method", "S256"),
        ("scope", "mcp:read"),
        ("resource", RESOURCE),
    ];
    for (k, v) in extra {
        p.retain(|(pk, _)| pk != k);
        if !v.is_empty() {
            p.push((k, v));
        }
    }
    format!("/authorize?{}", form(&p))
}

/// Plays the upstream's login: records a code for the authorization URL the proxy sent the
/// browser to and answers the proxy's callback as the browser would follow it.
async fn upstream_login(h: &Harness, upstream_url: &str, cookie: Option<&str>) -> ProxyResponse {
    let q = query_of(upstream_url);
    assert_eq!(q["client_id"], "proxy-app");
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["redirect_uri"], format!("{ISSUER}/oauth/callback"));
    assert_eq!(q["scope"], "openid");
    assert_ne!(
        q["code_challenge"],
        challenge(),
        "the proxy uses its own PKCE upstream"
    );
    let code = format!("up-code-{}", q["state"]);
    h.idp.lock().unwrap().codes.insert(
        code.clone(),
        (q["code_challenge"].clone(), q["redirect_uri"].clone()),
    );
    let path = format!(
        "/oauth/callback?{}",
        form(&[("code", &code), ("state", &q["state"])])
    );
    let headers: Vec<(&str, &str)> = cookie.map(|c| vec![("cookie", c)]).unwrap_or_default();
    call(h, request("GET", &path, &headers, "")).await
}

/// The consent page of an authorization request: its text, the cookie it set and its form's
/// fields.
struct ConsentPage {
    html: String,
    cookie: String,
    pending: String,
    csrf: String,
}

fn consent_of(page: &ProxyResponse) -> ConsentPage {
    assert_eq!(page.status, 200, "{}", String::from_utf8_lossy(&page.body));
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    let html = String::from_utf8(page.body.clone()).unwrap();
    let cookie = page
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let field = |name: &str| {
        let at = html.find(&format!("name=\"{name}\" value=\"")).unwrap() + name.len() + 15;
        html[at..at + html[at..].find('"').unwrap()].to_string()
    };
    let (pending, csrf) = (field("pending"), field("csrf"));
    ConsentPage {
        html,
        cookie,
        pending,
        csrf,
    }
}

/// Sends `client_id`'s authorization request to `h`; the consent page it answers with.
async fn consent_page(h: &Harness, client_id: &str) -> ConsentPage {
    consent_of(&get(h, &authorize_query(client_id, &[])).await)
}

/// Which proxy serves each leg of a sign-in: one for all, or a replica each.
#[derive(Clone, Copy)]
struct Legs<'a> {
    register: &'a Harness,
    authorize: &'a Harness,
    consent: &'a Harness,
    callback: &'a Harness,
}

impl<'a> Legs<'a> {
    fn one(h: &'a Harness) -> Self {
        Self {
            register: h,
            authorize: h,
            consent: h,
            callback: h,
        }
    }
}

/// The flow as an MCP client and its user's browser run it: registers a public client, then
/// [`authorize`]. The client id and the query its redirect URI receives.
async fn sign_in(legs: Legs<'_>) -> (String, HashMap<String, String>) {
    let client_id = public_client(legs.register).await;
    let back = authorize(legs, &client_id).await;
    (client_id, back)
}

/// Sends `client_id`'s authorization request, approves the consent page when the proxy shows
/// one, signs in upstream and follows the upstream's redirect to the proxy's callback; the
/// query of the redirect back to the client.
async fn authorize(legs: Legs<'_>, client_id: &str) -> HashMap<String, String> {
    let first = get(legs.authorize, &authorize_query(client_id, &[])).await;
    let (upstream, cookie) = if first.status == 302 {
        (location(&first), None)
    } else {
        let page = consent_of(&first);
        assert!(
            page.html.contains("Test &lt;App&gt;"),
            "the client name is shown escaped: {}",
            page.html
        );
        assert!(
            page.html.contains(CLIENT_REDIRECT),
            "the redirect target is shown"
        );
        let approve = form(&[
            ("pending", &page.pending),
            ("csrf", &page.csrf),
            ("decision", "approve"),
        ]);
        let up = call(
            legs.consent,
            request(
                "POST",
                "/authorize/consent",
                &[FORM, ("cookie", &page.cookie)],
                &approve,
            ),
        )
        .await;
        (location(&up), Some(page.cookie))
    };
    let back = upstream_login(legs.callback, &upstream, cookie.as_deref()).await;
    let to_client = location(&back);
    assert!(to_client.starts_with(CLIENT_REDIRECT), "{to_client}");
    query_of(&to_client)
}

/// A GET of `path_and_query` without header fields or body.
async fn get(h: &Harness, path_and_query: &str) -> ProxyResponse {
    call(h, request("GET", path_and_query, &[], "")).await
}

/// Starts `client_id`'s authorization at a proxy without consent: the `state` the proxy sends
/// upstream, which its callback then answers to.
async fn upstream_state(h: &Harness, client_id: &str) -> String {
    let up = location(&get(h, &authorize_query(client_id, &[])).await);
    query_of(&up)["state"].clone()
}

/// The upstream redirecting the browser to the proxy's callback with `query` (`code=...` or
/// `error=...`) and `state`.
async fn callback(h: &Harness, query: &str, state: &str) -> ProxyResponse {
    get(h, &format!("/oauth/callback?{query}&state={state}")).await
}

/// A code for a client of a proxy without consent.
async fn code_for(h: &Harness, client_id: &str) -> String {
    authorize(Legs::one(h), client_id).await["code"].clone()
}

async fn token(h: &Harness, pairs: &[(&str, &str)]) -> ProxyResponse {
    call(h, request("POST", "/token", &[FORM], &form(pairs))).await
}
