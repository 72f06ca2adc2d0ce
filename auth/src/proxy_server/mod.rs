//! An OAuth 2.1 authorization server that fronts an upstream identity provider (an "OAuth
//! proxy"): MCP clients register with it dynamically (RFC 7591) and run the authorization code
//! flow with PKCE against it, while the upstream (GitHub, Google, Entra ID, Auth0, any OpenID
//! provider) only ever sees one pre-registered client, the proxy. The proxy shows the user a
//! consent page for each client, sends them upstream with its own PKCE, exchanges the upstream
//! code at its callback, and issues its own codes and tokens bound to the MCP resource (RFC
//! 8707), mapped to the upstream tokens in a [`ProxyStore`]. It verifies its tokens for the
//! resource server ([`TokenVerifier`], so a [`ResourceAuth`](super::ResourceAuth) can use it)
//! and hands the upstream token to handlers in the claims.
//!
//! The endpoints are framework-neutral ([`OAuthProxy::handle`] takes a [`ProxyRequest`]), so
//! the engine's listener, Express (Node) and ASGI (Python) serve the same rules.

mod authorize;
mod client_document;
mod config;
mod error;
mod records;
#[cfg(feature = "redis")]
mod redis_store;
mod register;
mod store;
mod token;
mod upstream;
mod wire;

pub use client_document::ClientIdDocuments;
pub use config::{OAuthProxyConfig, Upstream, UpstreamAuthMethod};
pub use error::{OAuthErrorCode, OAuthFailure};
#[cfg(feature = "redis")]
pub use redis_store::RedisProxyStore;
pub use store::{MemoryProxyStore, ProxyStore};
pub use wire::{ProxyRequest, ProxyResponse, MAX_REQUEST_BODY};

use super::store::now_secs;
use super::url::{canonical, parts};
use super::{AuthError, AuthInfo, TokenVerifier};
use error::{invalid_client, server_error};
use futures_util::future::BoxFuture;
use records::{access_key, AccessRecord, ClientRecord};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use upstream::UpstreamClient;

/// The OAuth proxy: its configuration, store and upstream client. Cheap to clone.
#[derive(Clone)]
pub struct OAuthProxy {
    inner: Arc<Inner>,
}

struct Inner {
    config: OAuthProxyConfig,
    /// The issuer's path (`""` at the root), the prefix of every endpoint.
    base_path: String,
    /// The canonical resource URI.
    resource: String,
    store: Arc<dyn ProxyStore>,
    upstream: UpstreamClient,
}

impl std::fmt::Debug for OAuthProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProxy")
            .field("issuer", &self.inner.config.issuer)
            .field("resource", &self.inner.resource)
            .finish_non_exhaustive()
    }
}

/// The endpoint a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endpoint {
    Metadata,
    ResourceMetadata,
    Authorize,
    Consent,
    Callback,
    Token,
    Register,
    Revoke,
}

impl OAuthProxy {
    /// A proxy with `config` keeping its state in `store`. The issuer must be `https://`, or
    /// `http://` on a loopback host, with no query or fragment; the resource an absolute URL.
    pub fn new(config: OAuthProxyConfig, store: Arc<dyn ProxyStore>) -> Result<Self, AuthError> {
        let bad = |url: &str, detail: &str| AuthError::InvalidUrl {
            url: url.to_string(),
            detail: detail.to_string(),
        };
        let issuer = &config.issuer;
        if issuer.contains('?') || issuer.contains('#') {
            return Err(bad(issuer, "an issuer has no query or fragment"));
        }
        let p = parts(issuer)?;
        if !p.origin.starts_with("https://") && !is_loopback_origin(&p.origin) {
            return Err(bad(
                issuer,
                "an issuer must be https (http only on a loopback host)",
            ));
        }
        for url in [
            &config.upstream.authorization_endpoint,
            &config.upstream.token_endpoint,
        ] {
            parts(url)?;
        }
        let resource = canonical(&config.resource)?;
        if !config.scopes_supported.is_empty() {
            if let Some(s) = config
                .required_scopes
                .iter()
                .find(|s| !config.scopes_supported.contains(s))
            {
                return Err(AuthError::InvalidMetadata {
                    url: config.issuer.clone(),
                    detail: format!(
                        "the required scope {s} is not one of scopes_supported, so no client could obtain it"
                    ),
                });
            }
        }
        let upstream = UpstreamClient::new(config.upstream.clone());
        Ok(Self {
            inner: Arc::new(Inner {
                base_path: p.path,
                resource,
                store,
                upstream,
                config,
            }),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &OAuthProxyConfig {
        &self.inner.config
    }

    /// The URL the upstream must have registered as the proxy's redirect URI.
    pub fn callback_url(&self) -> String {
        format!("{}/oauth/callback", self.inner.config.issuer)
    }

    /// The authorization server metadata (RFC 8414) served at
    /// `/.well-known/oauth-authorization-server`.
    pub fn metadata(&self) -> Value {
        let c = &self.inner.config;
        let at = |p: &str| format!("{}{p}", c.issuer);
        let mut m = json!({
            "issuer": c.issuer,
            "authorization_endpoint": at("/authorize"),
            "token_endpoint": at("/token"),
            "revocation_endpoint": at("/revoke"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "authorization_response_iss_parameter_supported": true,
        });
        if c.allow_registration {
            m["registration_endpoint"] = json!(at("/register"));
        }
        if c.client_id_documents.enabled {
            m["client_id_metadata_document_supported"] = json!(true);
        }
        if !c.scopes_supported.is_empty() {
            m["scopes_supported"] = json!(c.scopes_supported);
        }
        m
    }

    /// The protected resource metadata (RFC 9728) of the MCP resource, naming this proxy: the
    /// same document as [`Self::protection`]'s (`scopes_supported`, else the required scopes).
    pub fn resource_metadata(&self) -> Value {
        let c = &self.inner.config;
        let mut m = json!({
            "resource": self.inner.resource,
            "authorization_servers": [c.issuer],
            "bearer_methods_supported": ["header"],
        });
        if !c.scopes_supported.is_empty() {
            m["scopes_supported"] = json!(c.scopes_supported);
        } else if !c.required_scopes.is_empty() {
            m["scopes_supported"] = json!(c.required_scopes);
        }
        m
    }

    /// The resource server's side: the MCP endpoint protected by this proxy's tokens, for
    /// `ferromcp::transport::http::HttpServerOptions::with_auth`. The resource is the proxy's
    /// `resource`, the one authorization server its issuer; tokens must carry the
    /// configuration's [`OAuthProxyConfig::required_scopes`] (403 `insufficient_scope`, the
    /// challenge listing them, otherwise).
    pub fn protection(&self) -> super::ResourceAuth {
        let c = &self.inner.config;
        let mut auth = super::ResourceAuth::new(
            c.resource.clone(),
            vec![c.issuer.clone()],
            Arc::new(self.clone()),
        );
        auth.required_scopes = c.required_scopes.clone();
        if !c.scopes_supported.is_empty() {
            auth.scopes_supported = Some(c.scopes_supported.clone());
        }
        auth
    }

    /// Whether `path` is one of the proxy's endpoints (a router passes other paths on).
    pub fn serves(&self, path: &str) -> bool {
        self.endpoint(path).is_some()
    }

    /// The paths of the proxy's endpoints, for a router that routes them by name (the
    /// registration endpoint only when registration is allowed).
    pub fn endpoint_paths(&self) -> Vec<String> {
        let base = &self.inner.base_path;
        let mut paths = vec![format!("/.well-known/oauth-authorization-server{base}")];
        if let Ok(r) = parts(&self.inner.resource) {
            paths.push(format!("/.well-known/oauth-protected-resource{}", r.path));
        }
        for tail in [
            "/authorize",
            "/authorize/consent",
            "/oauth/callback",
            "/token",
            "/register",
            "/revoke",
        ] {
            if tail != "/register" || self.inner.config.allow_registration {
                paths.push(format!("{base}{tail}"));
            }
        }
        paths
    }

    fn endpoint(&self, path: &str) -> Option<Endpoint> {
        let base = &self.inner.base_path;
        if path == format!("/.well-known/oauth-authorization-server{base}") {
            return Some(Endpoint::Metadata);
        }
        if let Ok(r) = parts(&self.inner.resource) {
            if path == format!("/.well-known/oauth-protected-resource{}", r.path) {
                return Some(Endpoint::ResourceMetadata);
            }
        }
        Some(match path.strip_prefix(base.as_str())? {
            "/authorize" => Endpoint::Authorize,
            "/authorize/consent" => Endpoint::Consent,
            "/oauth/callback" => Endpoint::Callback,
            "/token" => Endpoint::Token,
            "/register" if self.inner.config.allow_registration => Endpoint::Register,
            "/revoke" => Endpoint::Revoke,
            _ => return None,
        })
    }

    /// Answers one request, or `None` when its path is not one of the proxy's endpoints.
    pub async fn handle(&self, req: &ProxyRequest) -> Option<ProxyResponse> {
        let endpoint = self.endpoint(&req.path)?;
        let method = req.method.to_ascii_uppercase();
        let browser_facing = matches!(
            endpoint,
            Endpoint::Authorize | Endpoint::Consent | Endpoint::Callback
        );
        if method == "OPTIONS" && !browser_facing {
            return Some(cors(ProxyResponse {
                status: 204,
                headers: vec![
                    (
                        "access-control-allow-methods".into(),
                        "GET, POST, OPTIONS".into(),
                    ),
                    (
                        "access-control-allow-headers".into(),
                        "Authorization, Content-Type, MCP-Protocol-Version".into(),
                    ),
                ],
                body: Vec::new(),
            }));
        }
        let allowed: &[&str] = match endpoint {
            Endpoint::Metadata | Endpoint::ResourceMetadata | Endpoint::Callback => &["GET"],
            Endpoint::Authorize => &["GET", "POST"],
            Endpoint::Consent | Endpoint::Token | Endpoint::Register | Endpoint::Revoke => {
                &["POST"]
            }
        };
        if !allowed.contains(&method.as_str()) {
            let mut r = ProxyResponse::json(
                405,
                &json!({"error": "invalid_request",
                        "error_description": format!("{method} is not allowed here; use {}", allowed.join(" or "))}),
            );
            r.headers.push(("allow".into(), allowed.join(", ")));
            return Some(r);
        }
        if req.body.len() > MAX_REQUEST_BODY {
            return Some(ProxyResponse::json(
                413,
                &json!({"error": "invalid_request",
                        "error_description": format!("the body exceeds {MAX_REQUEST_BODY} bytes")}),
            ));
        }
        let answer = match endpoint {
            Endpoint::Metadata => ProxyResponse::json(200, &self.metadata()),
            Endpoint::ResourceMetadata => ProxyResponse::json(200, &self.resource_metadata()),
            Endpoint::Authorize => self.authorize(req).await,
            Endpoint::Consent => self.consent(req).await,
            Endpoint::Callback => self.callback(req).await,
            Endpoint::Token => self.token(req).await,
            Endpoint::Register => self.register(req).await,
            Endpoint::Revoke => self.revoke(req).await,
        };
        Some(if browser_facing { answer } else { cors(answer) })
    }

    /// Verifies an access token this proxy issued.
    pub async fn verify_token(&self, token: &str) -> Result<AuthInfo, String> {
        let rec: AccessRecord = match self.load(&access_key(token)).await {
            Ok(Some(r)) => r,
            Ok(None) => return Err("unknown, revoked or expired token".into()),
            Err(f) => return Err(f.description),
        };
        if rec.expires_at <= now_secs() {
            return Err("the token has expired".into());
        }
        let mut claims = match rec.grant.claims {
            Value::Object(m) => m,
            _ => Default::default(),
        };
        claims.insert(
            "upstream_access_token".into(),
            Value::String(rec.grant.upstream_access_token),
        );
        let mut info = AuthInfo::default()
            .with_client_id(rec.client_id)
            .with_scopes(rec.scopes)
            .with_audience(vec![rec.resource])
            .with_expires_at(rec.expires_at)
            .with_claims(Value::Object(claims));
        info.token = token.to_string();
        if let Some(sub) = rec.grant.subject {
            info = info.with_subject(sub);
        }
        Ok(info)
    }

    /// A record from the store.
    async fn load<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, error::OAuthFailure> {
        match self.inner.store.get(key).await {
            Ok(Some(v)) => serde_json::from_value(v)
                .map(Some)
                .map_err(|e| server_error(format!("a stored record is unreadable: {e}"))),
            Ok(None) => Ok(None),
            Err(e) => Err(server_error(format!("the store failed: {e}"))),
        }
    }

    /// A record taken out of the store (one use).
    async fn take<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, error::OAuthFailure> {
        match self.inner.store.take(key).await {
            Ok(Some(v)) => serde_json::from_value(v)
                .map(Some)
                .map_err(|e| server_error(format!("a stored record is unreadable: {e}"))),
            Ok(None) => Ok(None),
            Err(e) => Err(server_error(format!("the store failed: {e}"))),
        }
    }

    /// Stores a record.
    async fn save<T: serde::Serialize>(
        &self,
        key: &str,
        v: &T,
        ttl: Duration,
    ) -> Result<(), error::OAuthFailure> {
        let v = serde_json::to_value(v).expect("records serialize");
        self.inner
            .store
            .put(key, v, ttl)
            .await
            .map_err(|e| server_error(format!("the store failed: {e}")))
    }

    /// The client a token or revocation request authenticates as (RFC 6749 §2.3).
    async fn authenticate(
        &self,
        req: &ProxyRequest,
        params: &wire::Params,
    ) -> Result<ClientRecord, error::OAuthFailure> {
        let (id, secret) = wire::client_credentials(req, params)?;
        let client: ClientRecord = self
            .client(&id)
            .await?
            .ok_or_else(|| invalid_client(format!("unknown client_id {id}")))?;
        if let Some(hash) = &client.secret_hash {
            let secret =
                secret.ok_or_else(|| invalid_client("client authentication is required"))?;
            if !records::same(&records::secret_hash(&secret), hash) {
                return Err(invalid_client("the client secret is wrong"));
            }
        }
        Ok(client)
    }
}

impl TokenVerifier for OAuthProxy {
    fn verify(&self, token: &str) -> BoxFuture<'static, Result<AuthInfo, String>> {
        let me = self.clone();
        let token = token.to_string();
        Box::pin(async move { me.verify_token(&token).await })
    }
}

/// `Access-Control-Allow-Origin: *` on the endpoints a browser-based client calls directly.
fn cors(mut r: ProxyResponse) -> ProxyResponse {
    r.headers
        .push(("access-control-allow-origin".into(), "*".into()));
    r
}

/// Whether an origin (`scheme://host[:port]`) is on a loopback host.
fn is_loopback_origin(origin: &str) -> bool {
    let Some(rest) = origin.split_once("://").map(|(_, r)| r) else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        rest.split(':').next().unwrap_or("")
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}
