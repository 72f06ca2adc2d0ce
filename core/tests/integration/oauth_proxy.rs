//! The OAuth proxy (`ferromcp::auth::OAuthProxy`) end to end against an identity provider
//! written here that has no dynamic registration and one pre-registered client (the proxy):
//! registration, the consent page bound to the browser, the upstream leg with the proxy's own
//! PKCE, the code and tokens the proxy issues (verified as a resource server's tokens), refresh
//! with rotation, revocation, and the precise OAuth error of every refusal.

#[cfg(feature = "redis")]
use crate::common_replicas;

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
    consent_of(&call(h, request("GET", &authorize_query(client_id, &[]), &[], "")).await)
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
    let first = call(
        legs.authorize,
        request("GET", &authorize_query(client_id, &[]), &[], ""),
    )
    .await;
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

/// A code for a client of a proxy without consent.
async fn code_for(h: &Harness, client_id: &str) -> String {
    authorize(Legs::one(h), client_id).await["code"].clone()
}

async fn token(h: &Harness, pairs: &[(&str, &str)]) -> ProxyResponse {
    call(h, request("POST", "/token", &[FORM], &form(pairs))).await
}

#[tokio::test]
async fn full_flow_issues_tokens_bound_to_the_resource_and_mapped_upstream() {
    let h = harness(true).await;
    let (client_id, back) = sign_in(Legs::one(&h)).await;
    assert_eq!(back["state"], "client-state");
    assert_eq!(back["iss"], ISSUER);
    let code = back["code"].clone();

    let r = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", CLIENT_REDIRECT),
            ("resource", RESOURCE),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let t = body(&r);
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "mcp:read");
    let access = t["access_token"].as_str().unwrap().to_string();
    let refresh = t["refresh_token"].as_str().unwrap().to_string();
    assert!(
        !access.starts_with("up-"),
        "the client gets the proxy's token, not the upstream's"
    );

    // A resource server using the proxy as its verifier accepts the token for the resource.
    let rs = ResourceAuth::new(RESOURCE, vec![ISSUER.into()], Arc::new(h.proxy.clone()));
    let info = rs.check(Some(&format!("Bearer {access}"))).await.unwrap();
    assert_eq!(info.subject.as_deref(), Some("user-42"));
    assert_eq!(info.client_id.as_deref(), Some(client_id.as_str()));
    assert_eq!(info.scopes, vec!["mcp:read".to_string()]);
    assert_eq!(info.audience, vec![RESOURCE.to_string()]);
    assert_eq!(info.claims["upstream_access_token"], "up-at-1");
    assert_eq!(info.claims["email"], "ada@example.com");

    // The code is used once.
    let again = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(
        (again.status, body(&again)["error"].clone()),
        (400, json!("invalid_grant"))
    );

    // Refresh rotates both tokens and refreshes upstream.
    let r = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let t2 = body(&r);
    let access2 = t2["access_token"].as_str().unwrap().to_string();
    let refresh2 = t2["refresh_token"].as_str().unwrap().to_string();
    assert!(
        h.proxy.verify_token(&access).await.is_err(),
        "the old access token is gone"
    );
    let info2 = h.proxy.verify_token(&access2).await.unwrap();
    assert_eq!(info2.claims["upstream_access_token"], "up-at-2");
    assert_eq!(info2.subject.as_deref(), Some("user-42"));
    let reuse = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(body(&reuse)["error"], "invalid_grant");
    let narrower = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh2),
            ("scope", "mcp:write"),
        ],
    )
    .await;
    assert_eq!(body(&narrower)["error"], "invalid_scope");

    // Revocation removes the pair and tells the upstream.
    let r = call(
        &h,
        request(
            "POST",
            "/revoke",
            &[FORM],
            &form(&[("client_id", &client_id), ("token", &access2)]),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(h.proxy.verify_token(&access2).await.is_err());
    let after = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh2),
        ],
    )
    .await;
    assert_eq!(body(&after)["error"], "invalid_grant");
    assert_eq!(h.idp.lock().unwrap().revoked, vec!["up-at-2".to_string()]);
    let unknown = call(
        &h,
        request(
            "POST",
            "/revoke",
            &[FORM],
            &form(&[("client_id", &client_id), ("token", "nope")]),
        ),
    )
    .await;
    assert_eq!(
        unknown.status, 200,
        "RFC 7009: unknown tokens are answered 200"
    );
}

#[tokio::test]
async fn metadata_names_the_endpoints_pkce_s256_and_the_resource() {
    let h = harness(true).await;
    let m = body(
        &call(
            &h,
            request("GET", "/.well-known/oauth-authorization-server", &[], ""),
        )
        .await,
    );
    assert_eq!(m["issuer"], ISSUER);
    assert_eq!(m["authorization_endpoint"], format!("{ISSUER}/authorize"));
    assert_eq!(m["token_endpoint"], format!("{ISSUER}/token"));
    assert_eq!(m["registration_endpoint"], format!("{ISSUER}/register"));
    assert_eq!(m["revocation_endpoint"], format!("{ISSUER}/revoke"));
    assert_eq!(m["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(m["scopes_supported"], json!(["mcp:read", "mcp:write"]));
    let r = call(
        &h,
        request("GET", "/.well-known/oauth-protected-resource/mcp", &[], ""),
    )
    .await;
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(body(&r)["authorization_servers"], json!([ISSUER]));
    assert_eq!(body(&r)["resource"], RESOURCE);
    assert!(
        h.proxy
            .handle(&request("GET", "/mcp", &[], ""))
            .await
            .is_none(),
        "other paths pass"
    );
    let wrong = call(&h, request("GET", "/token", &[], "")).await;
    assert_eq!((wrong.status, wrong.header("allow")), (405, Some("POST")));
    let pre = call(&h, request("OPTIONS", "/token", &[], "")).await;
    assert_eq!(pre.status, 204);
}

#[tokio::test]
async fn token_endpoint_refusals_carry_rfc6749_error_codes() {
    let h = harness(false).await;
    let client_id = public_client(&h).await;
    let code = code_for(&h, &client_id).await;
    let err = |r: &ProxyResponse| {
        (
            r.status,
            body(r)["error"].as_str().unwrap_or("").to_string(),
        )
    };
    let base = [
        ("grant_type", "authorization_code"),
        ("client_id", client_id.as_str()),
        ("code", code.as_str()),
    ];

    let no_verifier = token(&h, &base).await;
    assert_eq!(err(&no_verifier), (400, "invalid_request".into()));
    let short = token(&h, &[base[0], base[1], base[2], ("code_verifier", "short")]).await;
    assert_eq!(err(&short), (400, "invalid_request".into()));
    let wrong_resource = token(
        &h,
        &[
            base[0],
            base[1],
            base[2],
            ("code_verifier", VERIFIER),
            ("resource", "http://other.example/mcp"),
        ],
    )
    .await;
    assert_eq!(err(&wrong_resource), (400, "invalid_target".into()));
    let wrong_verifier = token(
        &h,
        &[
            base[0],
            base[1],
            base[2],
            ("code_verifier", &VERIFIER.replace('0', "1")),
            ("redirect_uri", CLIENT_REDIRECT),
        ],
    )
    .await;
    assert_eq!(err(&wrong_verifier), (400, "invalid_grant".into()));
    assert!(body(&wrong_verifier)["error_description"]
        .as_str()
        .unwrap()
        .contains("code_verifier"));
    // The code was consumed by the request above (a code is tried once).
    let after = token(
        &h,
        &[
            base[0],
            base[1],
            base[2],
            ("code_verifier", VERIFIER),
            ("redirect_uri", CLIENT_REDIRECT),
        ],
    )
    .await;
    assert_eq!(err(&after), (400, "invalid_grant".into()));
    assert!(body(&after)["error_description"]
        .as_str()
        .unwrap()
        .contains("used"));
    let code = code_for(&h, &client_id).await;
    let wrong_redirect = token(
        &h,
        &[
            base[0],
            base[1],
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", "http://127.0.0.1:1/other"),
        ],
    )
    .await;
    assert_eq!(err(&wrong_redirect), (400, "invalid_grant".into()));
    assert!(body(&wrong_redirect)["error_description"]
        .as_str()
        .unwrap()
        .contains("redirect_uri"));
    let code = code_for(&h, &client_id).await;
    let no_redirect = token(
        &h,
        &[
            base[0],
            base[1],
            ("code", &code),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(
        err(&no_redirect),
        (400, "invalid_request".into()),
        "the authorization named one"
    );

    let unknown = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", "nobody"),
            ("code", "x"),
        ],
    )
    .await;
    assert_eq!(err(&unknown), (401, "invalid_client".into()));
    assert!(unknown.header("www-authenticate").is_some());
    let no_grant = token(&h, &[("client_id", &client_id)]).await;
    assert_eq!(err(&no_grant), (400, "invalid_request".into()));
    let other = token(&h, &[("grant_type", "password"), ("client_id", &client_id)]).await;
    assert_eq!(err(&other), (400, "unsupported_grant_type".into()));
    let repeated = call(
        &h,
        request(
            "POST",
            "/token",
            &[FORM],
            &format!("grant_type=refresh_token&grant_type=x&client_id={client_id}"),
        ),
    )
    .await;
    assert_eq!(err(&repeated), (400, "invalid_request".into()));
    let json_body = call(
        &h,
        request(
            "POST",
            "/token",
            &[("content-type", "application/json")],
            "{}",
        ),
    )
    .await;
    assert_eq!(err(&json_body), (400, "invalid_request".into()));

    // A client without the refresh grant may not use it.
    let r = register(
        &h,
        json!({"redirect_uris": [CLIENT_REDIRECT], "token_endpoint_auth_method": "none"}),
    )
    .await;
    let code_only = body(&r)["client_id"].as_str().unwrap().to_string();
    let refused = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &code_only),
            ("refresh_token", "x"),
        ],
    )
    .await;
    assert_eq!(err(&refused), (400, "unauthorized_client".into()));

    // A confidential client authenticates with Basic or the body, never with a wrong secret.
    let r = register(&h, json!({"redirect_uris": [CLIENT_REDIRECT], "grant_types": ["authorization_code", "refresh_token"]})).await;
    let reg = body(&r);
    assert_eq!(reg["token_endpoint_auth_method"], "client_secret_basic");
    let (id, secret) = (
        reg["client_id"].as_str().unwrap(),
        reg["client_secret"].as_str().unwrap(),
    );
    let missing = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", id),
            ("refresh_token", "x"),
        ],
    )
    .await;
    assert_eq!(err(&missing), (401, "invalid_client".into()));
    let wrong = format!("Basic {}", STANDARD.encode(format!("{id}:not-it")));
    let r = call(
        &h,
        request(
            "POST",
            "/token",
            &[FORM, ("authorization", &wrong)],
            &form(&[("grant_type", "refresh_token"), ("refresh_token", "x")]),
        ),
    )
    .await;
    assert_eq!(err(&r), (401, "invalid_client".into()));
    let right = format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")));
    let r = call(
        &h,
        request(
            "POST",
            "/token",
            &[FORM, ("authorization", &right)],
            &form(&[("grant_type", "refresh_token"), ("refresh_token", "x")]),
        ),
    )
    .await;
    assert_eq!(
        err(&r),
        (400, "invalid_grant".into()),
        "authenticated, then the token is checked"
    );
}

#[tokio::test]
async fn authorize_refusals_go_to_the_browser_until_the_redirect_uri_is_trusted() {
    let h = harness(true).await;
    let client_id = public_client(&h).await;
    let get = |q: String| request("GET", &q, &[], "");

    let unknown = call(&h, get(authorize_query("nobody", &[]))).await;
    assert_eq!(
        (unknown.status, body(&unknown)["error"].clone()),
        (400, json!("invalid_client"))
    );
    let elsewhere = call(
        &h,
        get(authorize_query(
            &client_id,
            &[("redirect_uri", "https://evil.example/cb")],
        )),
    )
    .await;
    assert_eq!(
        (elsewhere.status, body(&elsewhere)["error"].clone()),
        (400, json!("invalid_request"))
    );

    let back = |r: &ProxyResponse| {
        let q = query_of(&location(r));
        assert_eq!(q["state"], "client-state");
        q["error"].clone()
    };
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(&client_id, &[("code_challenge", "")]))
            )
            .await
        ),
        "invalid_request"
    );
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(
                    &client_id,
                    &[("code_challenge_method", "plain")]
                ))
            )
            .await
        ),
        "invalid_request"
    );
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(&client_id, &[("response_type", "token")]))
            )
            .await
        ),
        "unsupported_response_type"
    );
    assert_eq!(
        back(&call(&h, get(authorize_query(&client_id, &[("scope", "admin")]))).await),
        "invalid_scope"
    );
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(
                    &client_id,
                    &[("resource", "https://other.example/mcp")]
                ))
            )
            .await
        ),
        "invalid_target"
    );

    // A loopback redirect URI may come back on another port (RFC 8252 §7.3).
    let other_port = call(
        &h,
        get(authorize_query(
            &client_id,
            &[("redirect_uri", "http://127.0.0.1:50000/callback")],
        )),
    )
    .await;
    assert_eq!(other_port.status, 200, "the consent page");
}

#[tokio::test]
async fn consent_is_bound_to_the_browser_and_a_denial_reaches_the_client() {
    let h = harness(true).await;
    let client_id = public_client(&h).await;
    let ConsentPage {
        cookie,
        pending,
        csrf,
        ..
    } = consent_page(&h, &client_id).await;
    // A page elsewhere posting the form from the victim's browser has no cookie.
    let forged = call(
        &h,
        request(
            "POST",
            "/authorize/consent",
            &[FORM],
            &form(&[
                ("pending", &pending),
                ("csrf", &csrf),
                ("decision", "approve"),
            ]),
        ),
    )
    .await;
    assert_eq!(
        (forged.status, body(&forged)["error"].clone()),
        (400, json!("invalid_request"))
    );
    // The callback of an authorization not approved is refused.
    let early = call(
        &h,
        request(
            "GET",
            &format!("/oauth/callback?state={pending}&code=x"),
            &[("cookie", &cookie)],
            "",
        ),
    )
    .await;
    assert_eq!(early.status, 400);

    let ConsentPage {
        cookie,
        pending,
        csrf,
        ..
    } = consent_page(&h, &client_id).await;
    let deny = call(
        &h,
        request(
            "POST",
            "/authorize/consent",
            &[FORM, ("cookie", &cookie)],
            &form(&[("pending", &pending), ("csrf", &csrf), ("decision", "deny")]),
        ),
    )
    .await;
    let q = query_of(&location(&deny));
    assert_eq!(
        (q["error"].as_str(), q["state"].as_str()),
        ("access_denied", "client-state")
    );
}

#[tokio::test]
async fn upstream_failures_reach_the_client_as_oauth_errors() {
    let h = harness(false).await;
    let client_id = public_client(&h).await;
    // The user refuses at the upstream.
    let up = location(
        &call(
            &h,
            request("GET", &authorize_query(&client_id, &[]), &[], ""),
        )
        .await,
    );
    let state = query_of(&up)["state"].clone();
    let r = call(
        &h,
        request(
            "GET",
            &format!("/oauth/callback?error=access_denied&state={state}"),
            &[],
            "",
        ),
    )
    .await;
    let q = query_of(&location(&r));
    assert_eq!(
        (q["error"].as_str(), q["state"].as_str()),
        ("access_denied", "client-state")
    );
    // The same callback again: the authorization is used.
    let r = call(
        &h,
        request(
            "GET",
            &format!("/oauth/callback?code=x&state={state}"),
            &[],
            "",
        ),
    )
    .await;
    assert_eq!(
        (r.status, body(&r)["error"].clone()),
        (400, json!("invalid_request"))
    );
    // The upstream refuses the code it is given.
    let up = location(
        &call(
            &h,
            request("GET", &authorize_query(&client_id, &[]), &[], ""),
        )
        .await,
    );
    let state = query_of(&up)["state"].clone();
    let r = call(
        &h,
        request(
            "GET",
            &format!("/oauth/callback?code=forged&state={state}"),
            &[],
            "",
        ),
    )
    .await;
    let q = query_of(&location(&r));
    assert_eq!(q["error"], "server_error");
    assert!(
        q["error_description"].contains("invalid_grant"),
        "{}",
        q["error_description"]
    );

    // An upstream that cannot be reached: temporarily_unavailable.
    let dead = Upstream::new(
        "http://127.0.0.1:1/authorize",
        "http://127.0.0.1:1/token",
        "proxy-app",
        None,
    );
    let mut config = OAuthProxyConfig::new(ISSUER, RESOURCE, dead);
    config.require_consent = false;
    let proxy = OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap();
    let h2 = Harness {
        proxy,
        idp: h.idp.clone(),
    };
    let client_id = public_client(&h2).await;
    let up = location(
        &call(
            &h2,
            request("GET", &authorize_query(&client_id, &[]), &[], ""),
        )
        .await,
    );
    let state = query_of(&up)["state"].clone();
    let r = call(
        &h2,
        request(
            "GET",
            &format!("/oauth/callback?code=x&state={state}"),
            &[],
            "",
        ),
    )
    .await;
    assert_eq!(query_of(&location(&r))["error"], "temporarily_unavailable");
}

#[tokio::test]
async fn registration_refuses_bad_metadata_precisely() {
    let h = harness(true).await;
    let err = |r: ProxyResponse| {
        (
            r.status,
            body(&r)["error"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(
        err(register(&h, json!({"redirect_uris": ["http://example.com/cb"]})).await),
        (400, "invalid_redirect_uri".into())
    );
    assert_eq!(
        err(register(&h, json!({"redirect_uris": ["https://example.com/cb#x"]})).await),
        (400, "invalid_redirect_uri".into())
    );
    assert_eq!(
        err(register(&h, json!({"redirect_uris": []})).await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(err(register(&h, json!({"redirect_uris": [CLIENT_REDIRECT], "token_endpoint_auth_method": "private_key_jwt"})).await), (400, "invalid_client_metadata".into()));
    assert_eq!(
        err(register(
            &h,
            json!({"redirect_uris": [CLIENT_REDIRECT], "grant_types": ["implicit"]})
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(
        err(register(
            &h,
            json!({"redirect_uris": [CLIENT_REDIRECT], "scope": "mcp:read admin"})
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(
        err(register(
            &h,
            json!({"redirect_uris": [CLIENT_REDIRECT], "client_name": 7})
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(
        err(call(
            &h,
            request(
                "POST",
                "/register",
                &[("content-type", "application/json")],
                "[1]"
            )
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    let ok = register(&h, json!({"redirect_uris": ["com.example.app:/cb", "https://app.example/cb"], "scope": "mcp:read"})).await;
    assert_eq!(ok.status, 201);
    let b = body(&ok);
    assert!(b["client_secret"].as_str().is_some_and(|s| s.len() >= 43));
    assert_eq!(b["grant_types"], json!(["authorization_code"]));
}

#[test]
fn the_issuer_must_be_https_or_loopback() {
    let up = Upstream::new("https://idp.example/a", "https://idp.example/t", "c", None);
    let store = Arc::new(MemoryProxyStore::new());
    let plain = OAuthProxyConfig::new(
        "http://mcp.example.com",
        "https://mcp.example.com/mcp",
        up.clone(),
    );
    assert!(OAuthProxy::new(plain, store.clone()).is_err());
    let https = OAuthProxyConfig::new(
        "https://mcp.example.com/",
        "https://mcp.example.com/mcp",
        up,
    );
    let p = OAuthProxy::new(https, store).unwrap();
    assert_eq!(p.callback_url(), "https://mcp.example.com/oauth/callback");
}

/// Three replicas of the proxy on one Redis, each leg of the flow on a different one: the
/// registration, the authorization, the consent, the callback, the token request and the
/// verification find each other's records; a code used on one replica is used on all.
#[cfg(feature = "redis")]
#[tokio::test]
async fn three_replicas_on_redis_serve_each_leg_of_the_flow() {
    use ferromcp::auth::RedisProxyStore;
    let Some(redis) = common_replicas::redis_server().await else {
        return;
    };
    let first = harness(true).await;
    let replica = |h: &Harness| {
        let store = Arc::new(RedisProxyStore::open(&redis.url).unwrap());
        Harness {
            proxy: OAuthProxy::new(h.proxy.config().clone(), store).unwrap(),
            idp: h.idp.clone(),
        }
    };
    let (a, b, c) = (replica(&first), replica(&first), replica(&first));
    let (client_id, back) = sign_in(Legs {
        register: &a,
        authorize: &b,
        consent: &c,
        callback: &a,
    })
    .await;
    let code = back["code"].clone();
    let pairs = [
        ("grant_type", "authorization_code"),
        ("client_id", client_id.as_str()),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("redirect_uri", CLIENT_REDIRECT),
    ];
    let r = token(&b, &pairs).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let access = body(&r)["access_token"].as_str().unwrap().to_string();
    let info = c.proxy.verify_token(&access).await.unwrap();
    assert_eq!(info.subject.as_deref(), Some("user-42"));
    let again = token(&c, &pairs).await;
    assert_eq!(
        body(&again)["error"],
        "invalid_grant",
        "the code was used on another replica"
    );
    let r = call(
        &a,
        request(
            "POST",
            "/revoke",
            &[FORM],
            &form(&[("client_id", &client_id), ("token", &access)]),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(
        b.proxy.verify_token(&access).await.is_err(),
        "revoked on every replica"
    );
}

/// What a client's document server answers at a path.
#[derive(Clone)]
enum Doc {
    /// Status, extra header lines and body; `{self}` in the body is replaced by the
    /// document's own URL.
    Answer(u16, &'static str, String),
    /// Never answers.
    Hang,
}

/// An `https://localhost` server (the test CA's certificate) answering documents by path; its
/// port and the number of requests it read.
async fn document_server(docs: HashMap<&'static str, Doc>) -> (u16, Arc<Mutex<u32>>) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let pem = fixture("tls-test-localhost.pem");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(pem.as_bytes()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(Mutex::new(0));
    let seen = hits.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, docs, seen) = (acceptor.clone(), docs.clone(), seen.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                *seen.lock().unwrap() += 1;
                let head = String::from_utf8_lossy(&head).to_string();
                let path = head.split(' ').nth(1).unwrap_or("").to_string();
                match docs.get(path.as_str()) {
                    Some(Doc::Hang) => {
                        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                    }
                    Some(Doc::Answer(status, headers, body)) => {
                        let body =
                            body.replace("{self}", &format!("https://localhost:{port}{path}"));
                        let answer = format!(
                            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{headers}\
                             content-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = tls.write_all(answer.as_bytes()).await;
                    }
                    None => {
                        let _ = tls
                            .write_all(
                                b"HTTP/1.1 404 X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                            )
                            .await;
                    }
                }
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, hits)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A proxy (with consent) trusting the test CA for documents, which may fetch them from this
/// machine when `allow_private` (the default policy refuses loopback addresses).
async fn document_harness(allow_private: bool) -> Harness {
    let h = harness(true).await;
    let mut config = h.proxy.config().clone();
    config.client_id_documents.allow_private_addresses = allow_private;
    config.client_id_documents.root_certificates = vec![fixture("tls-test-ca.pem")];
    config.client_id_documents.timeout = std::time::Duration::from_millis(500);
    Harness {
        proxy: OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap(),
        idp: h.idp,
    }
}

/// A client's metadata document naming itself, with `changes` applied (null: member removed).
fn document(changes: Value) -> String {
    let mut d = json!({
        "client_id": "{self}",
        "client_name": "Test <App>",
        "redirect_uris": [CLIENT_REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    });
    for (k, v) in changes.as_object().unwrap() {
        if v.is_null() {
            d.as_object_mut().unwrap().remove(k);
        } else {
            d[k] = v.clone();
        }
    }
    d.to_string()
}

/// A client named by its metadata document (MCP 2025-11-25, draft-ietf-oauth-client-id-
/// metadata-document): no registration; the proxy fetches the document once and reuses it as
/// its Cache-Control allows, shows its name and host with a warning for a loopback redirect,
/// checks redirect URIs against it, and the code is redeemed by the URL client id without a
/// secret.
#[tokio::test]
async fn a_client_id_metadata_document_signs_a_client_in_without_registration() {
    let docs = HashMap::from([(
        "/oauth/client.json",
        Doc::Answer(200, "cache-control: max-age=60\r\n", document(json!({}))),
    )]);
    let (port, hits) = document_server(docs).await;
    let client_id = format!("https://localhost:{port}/oauth/client.json");
    let h = document_harness(true).await;
    let m = body(
        &call(
            &h,
            request("GET", "/.well-known/oauth-authorization-server", &[], ""),
        )
        .await,
    );
    assert_eq!(m["client_id_metadata_document_supported"], true);

    let page = consent_page(&h, &client_id).await;
    assert!(
        page.html.contains(&format!(
            "describes itself at <b>https://localhost:{port}</b>"
        )),
        "{}",
        page.html
    );
    assert!(
        page.html.contains("<b>Warning:</b>"),
        "a loopback redirect is warned of"
    );
    let back = authorize(Legs::one(&h), &client_id).await;
    assert_eq!(back["state"], "client-state");
    let r = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &back["code"]),
            ("code_verifier", VERIFIER),
            ("redirect_uri", CLIENT_REDIRECT),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let access = body(&r)["access_token"].as_str().unwrap().to_string();
    let info = h.proxy.verify_token(&access).await.unwrap();
    assert_eq!(info.client_id.as_deref(), Some(client_id.as_str()));
    assert_eq!(
        *hits.lock().unwrap(),
        1,
        "fetched once, then reused from the store"
    );

    // A redirect URI the document does not list goes nowhere.
    let elsewhere = call(
        &h,
        request(
            "GET",
            &authorize_query(&client_id, &[("redirect_uri", "https://evil.example/cb")]),
            &[],
            "",
        ),
    )
    .await;
    assert_eq!(
        (elsewhere.status, body(&elsewhere)["error"].clone()),
        (400, json!("invalid_request"))
    );
}

/// Every document that is not a safe, valid client description is refused with
/// `invalid_client` naming why, and loopback or private addresses are not even connected to
/// unless the policy allows them.
#[tokio::test]
async fn client_id_metadata_documents_are_fetched_safely_and_checked() {
    let big = document(json!({"client_uri": "x".repeat(6000)}));
    let docs = HashMap::from([
        ("/ok.json", Doc::Answer(200, "", document(json!({})))),
        (
            "/other.json",
            Doc::Answer(
                200,
                "",
                document(json!({"client_id": "https://app.example/c.json"})),
            ),
        ),
        ("/big.json", Doc::Answer(200, "", big)),
        (
            "/moved.json",
            Doc::Answer(
                302,
                "location: https://localhost/ok.json\r\n",
                String::new(),
            ),
        ),
        ("/gone.json", Doc::Answer(404, "", String::new())),
        ("/notjson.json", Doc::Answer(200, "", "<html>".into())),
        (
            "/noname.json",
            Doc::Answer(200, "", document(json!({"client_name": null}))),
        ),
        (
            "/secret.json",
            Doc::Answer(200, "", document(json!({"client_secret": "s"}))),
        ),
        (
            "/basic.json",
            Doc::Answer(
                200,
                "",
                document(json!({"token_endpoint_auth_method": "client_secret_basic"})),
            ),
        ),
        (
            "/badredirect.json",
            Doc::Answer(
                200,
                "",
                document(json!({"redirect_uris": ["http://example.com/cb"]})),
            ),
        ),
        (
            "/scope.json",
            Doc::Answer(200, "", document(json!({"scope": "admin"}))),
        ),
        ("/slow.json", Doc::Hang),
    ]);
    let (port, hits) = document_server(docs).await;
    let url = |p: &str| format!("https://localhost:{port}{p}");
    let refusal = |h: &Harness, id: String| {
        let proxy = h.proxy.clone();
        async move {
            let r = proxy
                .handle(&request("GET", &authorize_query(&id, &[]), &[], ""))
                .await
                .unwrap();
            let b = body(&r);
            assert_eq!(
                (r.status, b["error"].as_str()),
                (400, Some("invalid_client")),
                "{id}: {b}"
            );
            b["error_description"].as_str().unwrap().to_string()
        }
    };

    // The default policy: loopback is not fetched from (no connection made).
    let strict = document_harness(false).await;
    let why = refusal(&strict, url("/ok.json")).await;
    assert!(why.contains("not a public address"), "{why}");
    for (id, expected) in [
        (
            "https://127.0.0.1/c.json".to_string(),
            "not a public address",
        ),
        (
            "https://169.254.169.254/latest.json".into(),
            "not a public address",
        ),
        ("https://[::1]/c.json".into(), "not a public address"),
        (format!("http://localhost:{port}/ok.json"), "must be https"),
        ("https://app.example/".into(), "has a path"),
        ("https://app.example/a/../c.json".into(), ". or .."),
    ] {
        let why = refusal(&strict, id.clone()).await;
        assert!(why.contains(expected), "{id}: {why}");
    }
    assert_eq!(*hits.lock().unwrap(), 0, "nothing was fetched");

    let h = document_harness(true).await;
    for (path, expected) in [
        ("/other.json", "is not its URL"),
        ("/big.json", "larger than 5120 bytes"),
        ("/moved.json", "redirects are not followed"),
        ("/gone.json", "404"),
        ("/notjson.json", "not JSON"),
        ("/noname.json", "no client_name"),
        ("/secret.json", "client_secret"),
        (
            "/basic.json",
            "token_endpoint_auth_method client_secret_basic",
        ),
        (
            "/badredirect.json",
            "http is allowed on loopback hosts only",
        ),
        ("/scope.json", "scope admin is not offered"),
        ("/slow.json", "no answer within 500ms"),
    ] {
        let why = refusal(&h, url(path)).await;
        assert!(why.contains(expected), "{path}: {why}");
    }
    // A refused document is not cached: each try fetches again.
    let before = *hits.lock().unwrap();
    refusal(&h, url("/other.json")).await;
    assert_eq!(*hits.lock().unwrap(), before + 1);

    // Documents switched off: a URL is an unknown client id, and not advertised.
    let mut config = h.proxy.config().clone();
    config.client_id_documents.enabled = false;
    let off = Harness {
        proxy: OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap(),
        idp: h.idp.clone(),
    };
    assert!(refusal(&off, url("/ok.json"))
        .await
        .contains("unknown client_id"));
    assert!(off
        .proxy
        .metadata()
        .get("client_id_metadata_document_supported")
        .is_none());
}
