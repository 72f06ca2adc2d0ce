//! The OAuth proxy ([`ferromcp::auth::OAuthProxy`]) for the bindings, in plain values: its options
//! as camelCase JSON ([`OAuthProxySettings`], unknown keys refused, presets by name), requests as
//! [`HttpRequestParts`] and answers as status, headers and body, identities as the JSON the
//! handler context shows. A binding only converts its framework's request (Express, ASGI, ...)
//! and serves the answer; every rule of the endpoints stays in the engine.

use super::decode;
use super::http::HttpRequestParts;
use ferromcp::auth::{
    ClientIdDocuments, MemoryProxyStore, OAuthProxy, OAuthProxyConfig, ProxyRequest, ProxyResponse,
    ProxyStore, ResourceAuth, TokenVerifier, Upstream, UpstreamAuthMethod,
};
use ferromcp::McpError;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The upstream identity provider's options (camelCase JSON).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct UpstreamSettings {
    /// `github`, `google`, `entra` (with `tenant`), `auth0` (with `domain`) or `oidc` (with
    /// `issuer`: endpoints from OpenID discovery); none: give the endpoints.
    pub preset: Option<String>,
    /// The upstream authorization endpoint (without a preset, or to replace the preset's).
    pub authorization_endpoint: Option<String>,
    /// The upstream token endpoint.
    pub token_endpoint: Option<String>,
    /// The upstream revocation endpoint.
    pub revocation_endpoint: Option<String>,
    /// The proxy's client id at the upstream (required).
    pub client_id: String,
    /// The proxy's client secret at the upstream.
    pub client_secret: Option<String>,
    /// `client_secret_post` (default) or `client_secret_basic`.
    pub auth_method: Option<String>,
    /// Scopes always asked of the upstream (replace the preset's).
    pub scopes: Option<Vec<String>>,
    /// Extra parameters of the upstream authorization request.
    pub authorize_params: BTreeMap<String, String>,
    /// Entra ID tenant (`entra`).
    pub tenant: Option<String>,
    /// Auth0 domain (`auth0`).
    pub domain: Option<String>,
    /// OpenID issuer (`oidc`).
    pub issuer: Option<String>,
    /// Extra CA certificates (PEM text each) trusted for the upstream.
    pub root_certificates: Vec<String>,
}

/// The proxy's options (camelCase JSON; unknown keys are an error).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthProxySettings {
    /// The proxy's issuer URL (its endpoints are below it).
    pub issuer: String,
    /// The MCP endpoint the tokens are for.
    pub resource: String,
    /// The upstream identity provider.
    pub upstream: UpstreamSettings,
    /// Scopes offered (empty: any).
    #[serde(default)]
    pub scopes_supported: Vec<String>,
    /// Scopes every request to the MCP endpoint needs (a token without one is refused 403
    /// `insufficient_scope`, the challenge listing them); each one of `scopesSupported` when
    /// that is set.
    #[serde(default)]
    pub required_scopes: Vec<String>,
    /// Pass a client's scopes on to the upstream.
    #[serde(default)]
    pub forward_scopes: bool,
    /// Show the consent page (default true).
    #[serde(default)]
    pub require_consent: Option<bool>,
    /// Offer dynamic client registration (default true).
    #[serde(default)]
    pub allow_registration: Option<bool>,
    /// Access token lifetime in seconds (default 3600).
    #[serde(default)]
    pub access_token_ttl_seconds: Option<u64>,
    /// Refresh token lifetime in seconds (default 30 days).
    #[serde(default)]
    pub refresh_token_ttl_seconds: Option<u64>,
    /// Code and pending-authorization lifetime in seconds (default 300).
    #[serde(default)]
    pub code_ttl_seconds: Option<u64>,
    /// Registration lifetime in seconds (default 90 days).
    #[serde(default)]
    pub client_ttl_seconds: Option<u64>,
    /// Keep registrations, codes and tokens on this Redis (`redis://host:port[/db]`), so that
    /// every replica given the same URL serves any leg of the flow (default: this process).
    #[serde(default)]
    pub redis_url: Option<String>,
    /// Client ID Metadata Documents (`https://` client ids): on by default with the engine's
    /// limits; these settings turn them off or change the limits.
    #[serde(default)]
    pub client_id_documents: Option<ClientIdDocumentSettings>,
}

/// How the proxy treats `https://` client ids, Client ID Metadata Documents (camelCase JSON;
/// each key absent keeps the engine's default, see [`ClientIdDocuments`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ClientIdDocumentSettings {
    /// Accept `https://` client ids and advertise `client_id_metadata_document_supported`
    /// (default true).
    pub enabled: Option<bool>,
    /// Largest document read, in bytes (default 5120); at least 1.
    pub max_bytes: Option<usize>,
    /// Time allowed for resolving, connecting and reading a document, in seconds (default 5);
    /// more than 0.
    pub timeout_seconds: Option<f64>,
    /// How long a document is reused when its answer has no `Cache-Control: max-age`, in
    /// seconds (default 600).
    pub default_cache_seconds: Option<u64>,
    /// The longest a document is reused, whatever its `max-age`, in seconds (default 86400).
    pub max_cache_seconds: Option<u64>,
    /// Fetch documents from loopback, private and other non-public addresses too. Tests only:
    /// a client could otherwise make the proxy reach its private network.
    pub allow_private_addresses: Option<bool>,
    /// Extra CA certificates (PEM text each) trusted for the documents' servers (tests).
    pub root_certificates: Option<Vec<String>>,
}

impl ClientIdDocumentSettings {
    /// The engine's policy: its defaults with these settings over them.
    fn build(&self) -> Result<ClientIdDocuments, McpError> {
        let bad = |m: &str| McpError::invalid_params(format!("clientIdDocuments: {m}"));
        let mut d = ClientIdDocuments::default();
        if let Some(v) = self.enabled {
            d.enabled = v;
        }
        if let Some(v) = self.max_bytes {
            if v == 0 {
                return Err(bad("maxBytes must be at least 1"));
            }
            d.max_bytes = v;
        }
        if let Some(v) = self.timeout_seconds {
            d.timeout = Duration::try_from_secs_f64(v)
                .ok()
                .filter(|t| !t.is_zero())
                .ok_or_else(|| bad("timeoutSeconds must be a number of seconds above 0"))?;
        }
        if let Some(v) = self.default_cache_seconds {
            d.default_cache = Duration::from_secs(v);
        }
        if let Some(v) = self.max_cache_seconds {
            d.max_cache = Duration::from_secs(v);
        }
        if let Some(v) = self.allow_private_addresses {
            d.allow_private_addresses = v;
        }
        if let Some(v) = &self.root_certificates {
            d.root_certificates = v.clone();
        }
        Ok(d)
    }
}

impl UpstreamSettings {
    async fn build(&self) -> Result<Upstream, McpError> {
        let bad = |m: String| McpError::invalid_params(format!("upstream: {m}"));
        let secret = || {
            self.client_secret
                .clone()
                .ok_or_else(|| bad("this preset needs clientSecret".into()))
        };
        let need = |v: &Option<String>, name: &str| {
            v.clone()
                .ok_or_else(|| bad(format!("this preset needs {name}")))
        };
        let id = self.client_id.clone();
        if id.is_empty() {
            return Err(bad("clientId is required".into()));
        }
        let mut up = match self.preset.as_deref() {
            Some("github") => Upstream::github(id, secret()?),
            Some("google") => Upstream::google(id, secret()?),
            Some("entra") => Upstream::entra_id(&need(&self.tenant, "tenant")?, id, secret()?),
            Some("auth0") => Upstream::auth0(&need(&self.domain, "domain")?, id, secret()?),
            Some("oidc") => Upstream::discover(
                &need(&self.issuer, "issuer")?,
                id,
                self.client_secret.clone(),
                self.root_certificates.clone(),
            )
            .await
            .map_err(|e| bad(format!("OpenID discovery failed: {e}")))?,
            Some(other) => {
                return Err(bad(format!(
                    "unknown preset {other} (github, google, entra, auth0, oidc)"
                )))
            }
            None => Upstream::new(
                need(&self.authorization_endpoint, "authorizationEndpoint")?,
                need(&self.token_endpoint, "tokenEndpoint")?,
                id,
                self.client_secret.clone(),
            ),
        };
        if let Some(u) = &self.authorization_endpoint {
            up.authorization_endpoint = u.clone();
        }
        if let Some(u) = &self.token_endpoint {
            up.token_endpoint = u.clone();
        }
        if let Some(u) = &self.revocation_endpoint {
            up.revocation_endpoint = Some(u.clone());
        }
        if let Some(s) = &self.scopes {
            up.scopes = s.clone();
        }
        up.auth_method = match self.auth_method.as_deref() {
            None => up.auth_method,
            Some("client_secret_post") => UpstreamAuthMethod::ClientSecretPost,
            Some("client_secret_basic") => UpstreamAuthMethod::ClientSecretBasic,
            Some(m) => {
                return Err(bad(format!(
                    "authMethod {m} is not supported (client_secret_post, client_secret_basic)"
                )))
            }
        };
        up.extra_authorize_params.extend(
            self.authorize_params
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        if !self.root_certificates.is_empty() {
            up.root_certificates = self.root_certificates.clone();
        }
        Ok(up)
    }
}

/// The OAuth proxy as the bindings hold it.
#[derive(Clone, Debug)]
pub struct EmbeddedOAuthProxy {
    proxy: OAuthProxy,
}

impl EmbeddedOAuthProxy {
    /// A proxy from its options (JSON); state kept in this process. Bad options (or a failed
    /// OpenID discovery) are an invalid-params error.
    pub async fn new(options: Value) -> Result<Self, McpError> {
        let s: OAuthProxySettings = decode("OAuth proxy options", options)?;
        Self::from_settings(&s, None).await
    }

    /// A proxy from settings already read. Its records go to the settings' `redisUrl`, else to
    /// `server_redis_url` (the Redis the HTTP server keeps its sessions on, so that the
    /// replicas sharing sessions share the flow too), else to this process.
    pub async fn from_settings(
        s: &OAuthProxySettings,
        server_redis_url: Option<&str>,
    ) -> Result<Self, McpError> {
        let s = s.clone();
        let upstream = s.upstream.build().await?;
        let mut c = OAuthProxyConfig::new(s.issuer, s.resource, upstream);
        c.scopes_supported = s.scopes_supported;
        c.required_scopes = s.required_scopes;
        c.forward_scopes = s.forward_scopes;
        if let Some(v) = s.require_consent {
            c.require_consent = v;
        }
        if let Some(v) = s.allow_registration {
            c.allow_registration = v;
        }
        if let Some(d) = &s.client_id_documents {
            c.client_id_documents = d.build()?;
        }
        let secs = |v: Option<u64>, d: Duration| v.map_or(d, Duration::from_secs);
        c.access_token_ttl = secs(s.access_token_ttl_seconds, c.access_token_ttl);
        c.refresh_token_ttl = secs(s.refresh_token_ttl_seconds, c.refresh_token_ttl);
        c.code_ttl = secs(s.code_ttl_seconds, c.code_ttl);
        c.client_ttl = secs(s.client_ttl_seconds, c.client_ttl);
        let redis_url = s.redis_url.as_deref().or(server_redis_url);
        let store: Arc<dyn ProxyStore> = match redis_url {
            None => Arc::new(MemoryProxyStore::new()),
            #[cfg(feature = "redis")]
            Some(url) => Arc::new(ferromcp::auth::RedisProxyStore::open(url).map_err(|e| {
                McpError::invalid_params(format!("OAuth proxy options: redisUrl: {e}"))
            })?),
            #[cfg(not(feature = "redis"))]
            Some(_) => {
                return Err(McpError::invalid_params(
                    "OAuth proxy options: redisUrl needs ferromcp built with the redis feature",
                ))
            }
        };
        let proxy = OAuthProxy::new(c, store)
            .map_err(|e| McpError::invalid_params(format!("OAuth proxy options: {e}")))?;
        Ok(Self { proxy })
    }

    /// The engine's proxy.
    pub fn proxy(&self) -> &OAuthProxy {
        &self.proxy
    }

    /// The authorization server metadata.
    pub fn metadata(&self) -> Value {
        self.proxy.metadata()
    }

    /// The URL to register at the upstream as the proxy's redirect URI.
    pub fn callback_url(&self) -> String {
        self.proxy.callback_url()
    }

    /// Whether `path` is one of the proxy's endpoints.
    pub fn serves(&self, path: &str) -> bool {
        self.proxy.serves(path)
    }

    /// Answers a request; `None` when its path is not the proxy's (the host passes it on).
    pub async fn handle(&self, req: HttpRequestParts) -> Option<ProxyResponse> {
        let target = match req.uri.find("://") {
            // An absolute URL: keep what follows the authority.
            Some(i) => {
                let rest = &req.uri[i + 3..];
                rest.find('/').map_or("/", |j| &rest[j..]).to_string()
            }
            None => req.uri.clone(),
        };
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (target, String::new()),
        };
        let r = ProxyRequest::default()
            .with_method(req.method)
            .with_path(path)
            .with_query(query)
            .with_headers(req.headers)
            .with_body(req.body.into());
        self.proxy.handle(&r).await
    }

    /// Verifies a token the proxy issued: the identity as the handler context shows it
    /// (`subject`, `clientId`, `scopes`, `audience`, `expiresAt`, `claims`), or why not.
    pub async fn verify(&self, token: &str) -> Result<Value, String> {
        let a = self.proxy.verify_token(token).await?;
        Ok(json!({
            "token": a.token,
            "subject": a.subject,
            "clientId": a.client_id,
            "scopes": a.scopes,
            "audience": a.audience,
            "expiresAt": a.expires_at,
            "claims": a.claims,
        }))
    }

    /// The proxy as a verifier for [`super::ProtectionSettings::build`] (the engine's listener
    /// then accepts the proxy's tokens without a round trip through the binding).
    pub fn verifier(&self) -> Arc<dyn TokenVerifier> {
        Arc::new(self.proxy.clone())
    }

    /// The protection of the MCP endpoint by the proxy's tokens (the engine's
    /// [`OAuthProxy::protection`]): the resource is the proxy's `resource`, the one
    /// authorization server its issuer (the Protected Resource Metadata names it, and a 401
    /// points there), the `requiredScopes` checked (403 `insufficient_scope`).
    pub fn protection(&self) -> Arc<ResourceAuth> {
        Arc::new(self.proxy.protection())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn options_are_checked_and_presets_fill_the_endpoints() {
        let p = EmbeddedOAuthProxy::new(json!({
            "issuer": "http://127.0.0.1:8000",
            "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"},
            "requireConsent": false,
        }))
        .await
        .unwrap();
        assert_eq!(
            p.metadata()["token_endpoint"],
            "http://127.0.0.1:8000/token"
        );
        assert_eq!(p.callback_url(), "http://127.0.0.1:8000/oauth/callback");
        assert!(p.serves("/authorize") && !p.serves("/mcp"));
        let unknown_key = EmbeddedOAuthProxy::new(json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"}, "consent": false,
        }))
        .await
        .unwrap_err();
        assert!(
            unknown_key.message.contains("consent"),
            "{}",
            unknown_key.message
        );
        let no_tenant = EmbeddedOAuthProxy::new(json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "entra", "clientId": "id", "clientSecret": "s"},
        }))
        .await
        .unwrap_err();
        assert!(
            no_tenant.message.contains("tenant"),
            "{}",
            no_tenant.message
        );
        let no_endpoints = EmbeddedOAuthProxy::new(json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"clientId": "id"},
        }))
        .await
        .unwrap_err();
        assert!(no_endpoints.message.contains("authorizationEndpoint"));
        let bad_redis = EmbeddedOAuthProxy::new(json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"},
            "redisUrl": "not a redis url",
        }))
        .await
        .unwrap_err();
        assert!(
            bad_redis.message.contains("redisUrl"),
            "{}",
            bad_redis.message
        );
    }

    #[tokio::test]
    async fn the_servers_redis_url_keeps_the_records_when_the_proxy_names_none() {
        let s: OAuthProxySettings = serde_json::from_value(json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"},
        }))
        .unwrap();
        assert!(EmbeddedOAuthProxy::from_settings(&s, None).await.is_ok());
        // The server's URL is the one opened (and refused here, being no Redis URL) ...
        let e = EmbeddedOAuthProxy::from_settings(&s, Some("http://10.0.0.5:6379"))
            .await
            .unwrap_err();
        assert!(e.message.contains("redisUrl"), "{}", e.message);
        // ... unless the proxy names its own (a Redis URL is opened lazily, never connected
        // here; without the redis feature any URL is refused).
        let mut own = s.clone();
        own.redis_url = Some("http://10.0.0.6:6379".into());
        let server = Some("redis://10.0.0.5:6379");
        assert!(EmbeddedOAuthProxy::from_settings(&own, server)
            .await
            .is_err());
        own.redis_url = Some("redis://10.0.0.6:6379".into());
        assert_eq!(
            EmbeddedOAuthProxy::from_settings(&own, Some("http://10.0.0.5:6379"))
                .await
                .is_ok(),
            cfg!(feature = "redis")
        );
    }

    #[tokio::test]
    async fn required_scopes_reach_the_protection_and_must_be_offered() {
        let base = json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"},
            "scopesSupported": ["mcp:read", "mcp:admin"], "requiredScopes": ["mcp:admin"],
        });
        let p = EmbeddedOAuthProxy::new(base.clone()).await.unwrap();
        let auth = p.protection();
        assert_eq!(auth.required_scopes, ["mcp:admin"]);
        assert_eq!(
            auth.metadata()["scopes_supported"],
            json!(["mcp:read", "mcp:admin"])
        );
        let denied = auth.check(None).await.unwrap_err();
        assert!(
            denied.www_authenticate.contains(r#"scope="mcp:admin""#),
            "{}",
            denied.www_authenticate
        );
        let mut unoffered = base;
        unoffered["requiredScopes"] = json!(["mcp:write"]);
        let e = EmbeddedOAuthProxy::new(unoffered).await.unwrap_err();
        assert!(e.message.contains("mcp:write"), "{}", e.message);
    }

    fn with_documents(documents: Value) -> Value {
        json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"},
            "clientIdDocuments": documents,
        })
    }

    #[tokio::test]
    async fn client_id_documents_are_set_from_the_options() {
        let on = EmbeddedOAuthProxy::new(with_documents(json!({
            "enabled": true, "maxBytes": 2048, "timeoutSeconds": 0.5, "defaultCacheSeconds": 60,
            "maxCacheSeconds": 120, "allowPrivateAddresses": true, "rootCertificates": ["PEM"],
        })))
        .await
        .unwrap();
        assert_eq!(on.metadata()["client_id_metadata_document_supported"], true);
        let d = &on.proxy().config().client_id_documents;
        assert_eq!(d.max_bytes, 2048);
        assert_eq!(d.timeout, Duration::from_millis(500));
        assert_eq!(d.default_cache, Duration::from_secs(60));
        assert_eq!(d.max_cache, Duration::from_secs(120));
        assert!(d.allow_private_addresses);
        assert_eq!(d.root_certificates, ["PEM"]);
        let off = EmbeddedOAuthProxy::new(with_documents(json!({"enabled": false})))
            .await
            .unwrap();
        assert!(off
            .metadata()
            .get("client_id_metadata_document_supported")
            .is_none());
        for (bad, named) in [
            (json!({"maxBytes": 0}), "maxBytes"),
            (json!({"timeoutSeconds": 0}), "timeoutSeconds"),
            (json!({"timeoutSeconds": -1.0}), "timeoutSeconds"),
            (json!({"maxSize": 10}), "maxSize"),
        ] {
            let e = EmbeddedOAuthProxy::new(with_documents(bad))
                .await
                .unwrap_err();
            assert!(e.message.contains(named), "{}", e.message);
        }
    }

    #[tokio::test]
    async fn requests_are_split_into_path_and_query() {
        let p = EmbeddedOAuthProxy::new(json!({
            "issuer": "http://127.0.0.1:8000", "resource": "http://127.0.0.1:8000/mcp",
            "upstream": {"authorizationEndpoint": "https://idp.example/a",
                         "tokenEndpoint": "https://idp.example/t", "clientId": "id"},
        }))
        .await
        .unwrap();
        let r = p
            .handle(HttpRequestParts {
                method: "GET".into(),
                uri: "http://127.0.0.1:8000/authorize?client_id=nobody".into(),
                headers: vec![],
                body: vec![],
            })
            .await
            .unwrap();
        assert_eq!(r.status, 400);
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(body["error"], "invalid_client");
        assert!(p.verify("nope").await.is_err());
    }
}
