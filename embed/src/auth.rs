//! OAuth for foreign callers, in plain values: [`OAuthSettings`] (a client's OAuth options as
//! camelCase JSON) builds the engine's [`OAuthClient`] around the binding's own redirect
//! callback and token store; [`ProtectionSettings`] builds a [`ResourceAuth`] around one
//! verifier: the binding's `verify(token)` function (whose JSON answer [`auth_info_from_json`]
//! reads), or a built-in one described in plain values ([`JwtSettings`]: JWT access tokens and a
//! JWKS; [`IntrospectionSettings`]: RFC 7662). Every binding shares these, so the option names
//! and checks are the same in every language.

use super::decode;
use ferromcp::auth::{
    AuthError, AuthInfo, FileTokenStore, FnRedirect, IntrospectionVerifier, JwtVerifier,
    LoopbackRedirect, MemoryTokenStore, OAuthClient, OAuthConfig, RedirectHandler, ResourceAuth,
    TokenStore, TokenVerifier,
};
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// A foreign redirect step: receives the authorization URL, resolves with the full URL the
/// authorization server redirected back to (or a message saying why not).
pub type ForeignRedirect =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// A foreign "show this URL" function for the loopback redirect (typically opens a browser).
pub type ForeignOpener = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// A client's OAuth options (camelCase JSON; unknown keys are an error).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct OAuthSettings {
    /// Use the client credentials grant (needs `clientId` and `clientSecret`; no redirect).
    pub client_credentials: bool,
    /// The redirect URI registered for the redirect callback (required with one).
    pub redirect_uri: Option<String>,
    /// Without a redirect callback: the loopback listener's port (0: any free port).
    pub loopback_port: u16,
    /// `client_name` for dynamic registration (default "ferromcp client").
    pub client_name: Option<String>,
    /// A pre-registered client's id.
    pub client_id: Option<String>,
    /// A pre-registered client's secret (none for a public client).
    pub client_secret: Option<String>,
    /// The HTTPS URL of this client's Client ID Metadata Document.
    pub client_metadata_url: Option<String>,
    /// Scopes requested when neither the challenge nor the metadata names any.
    pub scopes: Option<Vec<String>>,
    /// Authorizations per request before giving up (default 3, at least 1).
    pub max_attempts: Option<usize>,
    /// Keep tokens in this JSON file (owner-only) instead of memory.
    pub token_file: Option<String>,
    /// The authorization server (issuer URL) the credentials belong to; another is refused
    /// before anything is sent to it.
    pub expected_issuer: Option<String>,
}

impl OAuthSettings {
    /// Reads the settings (JSON `null`: all defaults).
    pub fn from_json(v: Value) -> Result<Self, McpError> {
        if v.is_null() {
            return Ok(Self::default());
        }
        decode("OAuth options", v)
    }

    /// The OAuth client. `redirect` is the foreign redirect step (with `redirectUri`); without
    /// one a loopback listener is bound now and `open` shows the URL (default: printed to
    /// stderr). `store` replaces the memory or file store. Inconsistent settings are an
    /// invalid-params error.
    pub fn build(
        &self,
        redirect: Option<ForeignRedirect>,
        open: Option<ForeignOpener>,
        store: Option<Arc<dyn TokenStore>>,
    ) -> Result<Arc<OAuthClient>, McpError> {
        let bad = |m: &str| McpError::invalid_params(m.to_string());
        if self.max_attempts == Some(0) {
            return Err(bad("maxAttempts must be at least 1"));
        }
        if store.is_some() && self.token_file.is_some() {
            return Err(bad("give either a token store or a token file, not both"));
        }
        let mut config = if self.client_credentials {
            let (Some(id), Some(secret)) = (&self.client_id, &self.client_secret) else {
                return Err(bad("clientCredentials needs clientId and clientSecret"));
            };
            OAuthConfig::client_credentials(id.clone(), secret.clone())
        } else {
            let step: Arc<dyn RedirectHandler> = match redirect {
                Some(f) => {
                    let uri = self
                        .redirect_uri
                        .clone()
                        .ok_or_else(|| bad("a redirect callback needs redirectUri"))?;
                    Arc::new(FnRedirect::new(uri, move |url: String| {
                        let fut = f(url);
                        Box::pin(async move { fut.await.map_err(AuthError::Redirect) })
                            as BoxFuture<'static, _>
                    }))
                }
                None => {
                    let lb =
                        LoopbackRedirect::bind(self.loopback_port, move |url: &str| match &open {
                            Some(f) => f(url),
                            None => {
                                eprintln!("Open this URL to authorize: {url}");
                                Ok(())
                            }
                        })
                        .map_err(|e| bad(&format!("loopback listener: {e}")))?;
                    Arc::new(lb)
                }
            };
            let mut c = OAuthConfig::new(step);
            if let Some(id) = &self.client_id {
                c = c.pre_registered(id.clone(), self.client_secret.clone());
            }
            c
        };
        if let Some(name) = &self.client_name {
            config = config.client_name(name.clone());
        }
        if let Some(url) = &self.client_metadata_url {
            config = config.client_metadata_url(url.clone());
        }
        if let Some(scopes) = &self.scopes {
            config.default_scopes = scopes.clone();
        }
        if let Some(n) = self.max_attempts {
            config.max_attempts = n;
        }
        config.expected_issuer = self.expected_issuer.clone();
        let store: Arc<dyn TokenStore> = match (store, &self.token_file) {
            (Some(s), _) => s,
            (None, Some(path)) => Arc::new(FileTokenStore::new(path)),
            (None, None) => Arc::new(MemoryTokenStore::new()),
        };
        Ok(Arc::new(OAuthClient::new(config.store(store))))
    }
}

/// A protected server's options (camelCase JSON; unknown keys are an error).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProtectionSettings {
    /// This server's URL, the audience tokens must carry.
    pub resource: String,
    /// The accepted authorization servers (issuer URLs), at least one.
    pub authorization_servers: Vec<String>,
    /// Scopes every request needs (403 `insufficient_scope` without them).
    #[serde(default)]
    pub required_scopes: Vec<String>,
    /// `scopes_supported` of the Protected Resource Metadata.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// Refuse tokens whose audience lacks `resource` (default true). With `jwt` the JWT
    /// verifier checks the audience itself (its `audience`, default `resource`).
    #[serde(default = "yes")]
    pub check_audience: bool,
    /// Verify tokens as JWT access tokens with a JWKS (instead of a `verify` function).
    #[serde(default)]
    pub jwt: Option<JwtSettings>,
    /// Verify tokens by RFC 7662 introspection (instead of a `verify` function).
    #[serde(default)]
    pub introspection: Option<IntrospectionSettings>,
}

/// The built-in JWT verifier's options ([`JwtVerifier`]; camelCase JSON).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct JwtSettings {
    /// The authorization server's JWKS URL (fetched on first use, cached, fetched again on an
    /// unknown `kid` at most every 30 s). Give this or `jwks`.
    pub jwks_url: Option<String>,
    /// The JWKS document itself (`{"keys": [...]}`), never fetched.
    pub jwks: Option<Value>,
    /// The accepted `iss` (default: any of `authorizationServers`).
    pub issuer: Option<String>,
    /// The required `aud` (default: `resource`).
    pub audience: Option<String>,
    /// Accepted algorithms (default: RS256/384/512, PS256/384/512, ES256, ES384, EdDSA;
    /// `none` and `HS*` are refused).
    pub algorithms: Option<Vec<String>>,
    /// Clock skew allowed on `exp` / `nbf`, seconds (default 60).
    pub leeway_seconds: Option<u64>,
}

/// The built-in introspection verifier's options ([`IntrospectionVerifier`]; camelCase JSON).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IntrospectionSettings {
    /// The RFC 7662 introspection endpoint.
    pub endpoint: String,
    /// This resource server's client id at the authorization server (HTTP Basic).
    #[serde(default)]
    pub client_id: Option<String>,
    /// Its client secret.
    #[serde(default)]
    pub client_secret: Option<String>,
}

fn yes() -> bool {
    true
}

fn invalid(e: AuthError) -> McpError {
    match e {
        AuthError::Config(m) => McpError::invalid_params(m),
        other => McpError::invalid_params(other.to_string()),
    }
}

impl JwtSettings {
    /// The verifier for a server at `resource` accepting tokens of `issuers`.
    pub fn build(&self, resource: &str, issuers: &[String]) -> Result<JwtVerifier, McpError> {
        let mut issuers = match &self.issuer {
            Some(i) => vec![i.clone()],
            None => issuers.to_vec(),
        }
        .into_iter();
        let first = issuers.next().unwrap_or_default();
        let audience = self
            .audience
            .clone()
            .unwrap_or_else(|| resource.to_string());
        let v = match (&self.jwks_url, &self.jwks) {
            (Some(url), None) => JwtVerifier::from_jwks_url(url, first, audience),
            (None, Some(doc)) => JwtVerifier::from_jwks(doc, first, audience),
            _ => {
                return Err(McpError::invalid_params(
                    "jwt needs exactly one of jwksUrl and jwks",
                ))
            }
        }
        .map_err(invalid)?
        .also_issuers(issuers);
        let v = match &self.algorithms {
            Some(a) => v.algorithms(a).map_err(invalid)?,
            None => v,
        };
        Ok(match self.leeway_seconds {
            Some(s) => v.leeway(Duration::from_secs(s)),
            None => v,
        })
    }
}

impl IntrospectionSettings {
    /// The verifier.
    pub fn build(&self) -> Result<IntrospectionVerifier, McpError> {
        if self.endpoint.is_empty() {
            return Err(McpError::invalid_params("introspection needs an endpoint"));
        }
        let v = IntrospectionVerifier::new(&self.endpoint);
        Ok(match (&self.client_id, &self.client_secret) {
            (Some(id), Some(secret)) => v.client_credentials(id, secret),
            (None, None) => v,
            _ => {
                return Err(McpError::invalid_params(
                    "introspection needs both clientId and clientSecret, or neither",
                ))
            }
        })
    }
}

impl ProtectionSettings {
    /// Reads the settings; a missing `resource` or an empty `authorizationServers` is an error.
    pub fn from_json(v: Value) -> Result<Self, McpError> {
        let s: Self = decode("protection options", v)?;
        if s.authorization_servers.is_empty() {
            return Err(McpError::invalid_params(
                "authorizationServers must name at least one issuer",
            ));
        }
        Ok(s)
    }

    /// The protection, with exactly one verifier: `verify` (the binding's function), or the
    /// built-in `jwt` or `introspection` of the settings. Bad verifier settings, none or more
    /// than one verifier are an invalid-params error.
    pub fn build(
        &self,
        verify: Option<Arc<dyn TokenVerifier>>,
    ) -> Result<Arc<ResourceAuth>, McpError> {
        let given = [
            verify.is_some(),
            self.jwt.is_some(),
            self.introspection.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(McpError::invalid_params(
                "give exactly one of verify, jwt and introspection",
            ));
        }
        let mut check_audience = self.check_audience;
        let verifier: Arc<dyn TokenVerifier> = match (verify, &self.jwt, &self.introspection) {
            (Some(v), _, _) => v,
            (None, Some(jwt), _) => {
                check_audience = false;
                Arc::new(jwt.build(&self.resource, &self.authorization_servers)?)
            }
            (None, None, Some(i)) => Arc::new(i.build()?),
            (None, None, None) => unreachable!("counted above"),
        };
        let mut auth = ResourceAuth::new(
            self.resource.clone(),
            self.authorization_servers.clone(),
            verifier,
        );
        auth.required_scopes = self.required_scopes.clone();
        auth.scopes_supported = self.scopes_supported.clone();
        auth.check_audience = check_audience;
        Ok(Arc::new(auth))
    }
}

/// What a foreign `verify(token)` answered, as the engine's identity: an object with
/// `subject`, `clientId`, `scopes` (array or space-separated string), `audience` (array or
/// string), `expiresAt` (Unix seconds) and `claims`, all optional (snake_case names are
/// accepted too); `null` refuses the token.
pub fn auth_info_from_json(v: Value) -> Result<AuthInfo, String> {
    fn strings(v: Option<&Value>) -> Result<Vec<String>, String> {
        match v {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(s.split_whitespace().map(str::to_string).collect()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("verify returned a non-string in a list: {x}"))
                })
                .collect(),
            Some(other) => Err(format!("verify returned {other} where a list was expected")),
        }
    }
    let m = match v {
        Value::Null => return Err("invalid token".into()),
        Value::Object(m) => m,
        other => return Err(format!("verify must return an object or null, not {other}")),
    };
    let field = |camel: &str, snake: &str| m.get(camel).or_else(|| m.get(snake));
    let text = |camel: &str, snake: &str| -> Result<Option<String>, String> {
        match field(camel, snake) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("verify returned {camel} = {other}, not a string")),
        }
    };
    let expires_at = match field("expiresAt", "expires_at") {
        None | Some(Value::Null) => None,
        Some(n) => Some(
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .ok_or_else(|| format!("verify returned expiresAt = {n}, not Unix seconds"))?
                as u64,
        ),
    };
    let mut info = AuthInfo::default();
    info.subject = text("subject", "subject")?;
    info.client_id = text("clientId", "client_id")?;
    info.scopes = strings(field("scopes", "scopes"))?;
    info.audience = strings(field("audience", "audience"))?;
    info.expires_at = expires_at;
    info.claims = m.get("claims").cloned().unwrap_or(Value::Null);
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identity_from_json() {
        let a = auth_info_from_json(json!({
            "subject": "alice", "clientId": "c1", "scopes": "a  b", "audience": "http://x/mcp",
            "expiresAt": 12.5, "claims": {"t": 1}
        }))
        .unwrap();
        assert_eq!(a.subject.as_deref(), Some("alice"));
        assert_eq!(a.client_id.as_deref(), Some("c1"));
        assert_eq!(a.scopes, ["a", "b"]);
        assert_eq!(a.audience, ["http://x/mcp"]);
        assert_eq!(a.expires_at, Some(12));
        assert_eq!(a.claims, json!({"t": 1}));
        let b = auth_info_from_json(json!({"client_id": "c2", "scopes": ["x"]})).unwrap();
        assert_eq!(b.client_id.as_deref(), Some("c2"));
        assert!(auth_info_from_json(Value::Null).is_err());
        assert!(auth_info_from_json(json!("token")).is_err());
        assert!(auth_info_from_json(json!({"scopes": [1]})).is_err());
        assert!(auth_info_from_json(json!({"expiresAt": "soon"})).is_err());
        assert!(auth_info_from_json(json!({"subject": 3})).is_err());
    }

    #[test]
    fn settings_are_checked() {
        assert!(OAuthSettings::from_json(json!({"nope": 1})).is_err());
        let s = OAuthSettings::from_json(json!({"maxAttempts": 0})).unwrap();
        assert!(s.build(None, None, None).is_err());
        let s =
            OAuthSettings::from_json(json!({"clientCredentials": true, "clientId": "a"})).unwrap();
        assert!(s.build(None, None, None).is_err());
        let s = OAuthSettings::from_json(json!({})).unwrap();
        let f: ForeignRedirect = Arc::new(|u| Box::pin(async move { Ok(u) }));
        assert!(
            s.build(Some(f), None, None).is_err(),
            "a callback needs redirectUri"
        );
        let s = OAuthSettings::from_json(
            json!({"clientCredentials": true, "clientId": "a", "clientSecret": "b", "maxAttempts": 2}),
        )
        .unwrap();
        assert_eq!(s.build(None, None, None).unwrap().max_attempts(), 2);
        assert!(ProtectionSettings::from_json(
            json!({"resource": "http://x/mcp", "authorizationServers": []})
        )
        .is_err());
        let p = ProtectionSettings::from_json(
            json!({"resource": "http://x/mcp", "authorizationServers": ["http://as"], "requiredScopes": ["m"]}),
        )
        .unwrap();
        let v: Arc<dyn TokenVerifier> =
            Arc::new(|_: &str| Box::pin(async { Err("no".to_string()) }) as BoxFuture<'static, _>);
        let auth = p.build(Some(v.clone())).unwrap();
        assert!(auth.check_audience);
        assert_eq!(auth.required_scopes, ["m"]);
        assert!(p.build(None).is_err(), "no verifier");
        let base = json!({"resource": "http://x/mcp", "authorizationServers": ["http://as"]});
        let with = |k: &str, val: Value| {
            let mut s = base.clone();
            s[k] = val;
            ProtectionSettings::from_json(s)
        };
        let jwt = with("jwt", json!({"jwksUrl": "http://as/jwks"})).unwrap();
        assert!(jwt.build(Some(v)).is_err(), "verify and jwt");
        let auth = jwt.build(None).unwrap();
        assert!(!auth.check_audience, "the JWT verifier checks aud");
        for bad in [
            json!({}),
            json!({"jwksUrl": "http://as/jwks", "jwks": {"keys": []}}),
            json!({"jwks": {"keys": []}}),
            json!({"jwksUrl": "http://as/jwks", "algorithms": ["HS256"]}),
            json!({"jwksUrl": "http://as/jwks", "algorithms": ["none"]}),
        ] {
            assert!(
                with("jwt", bad.clone()).unwrap().build(None).is_err(),
                "{bad}"
            );
        }
        assert!(with("jwt", json!({"jwksUrl": "x", "nope": 1})).is_err());
        let i = with(
            "introspection",
            json!({"endpoint": "http://as/introspect", "clientId": "a", "clientSecret": "b"}),
        )
        .unwrap();
        assert!(i.build(None).unwrap().check_audience);
        let half = with(
            "introspection",
            json!({"endpoint": "http://as/i", "clientId": "a"}),
        )
        .unwrap();
        assert!(half.build(None).is_err());
    }
}
