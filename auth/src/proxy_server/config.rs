//! What an OAuth proxy is configured with: its own issuer URL and the MCP resource it issues
//! tokens for, the upstream identity provider (endpoints and the one client registered there),
//! lifetimes, and whether users confirm each new client. Presets name the endpoints of GitHub,
//! Google, Microsoft Entra ID and Auth0; any OpenID provider is found by discovery.

use super::super::http::AuthHttp;
use super::super::AuthError;
use super::client_document::ClientIdDocuments;
use std::time::Duration;

/// How the proxy authenticates to the upstream token endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpstreamAuthMethod {
    /// `client_id` and `client_secret` in the form body (GitHub, Google accept it).
    #[default]
    ClientSecretPost,
    /// `Authorization: Basic` (RFC 6749 §2.3.1).
    ClientSecretBasic,
}

/// The upstream identity provider and the client the proxy is registered as there.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Upstream {
    /// The upstream authorization endpoint.
    pub authorization_endpoint: String,
    /// The upstream token endpoint.
    pub token_endpoint: String,
    /// The upstream revocation endpoint (RFC 7009), told when a client revokes a token.
    pub revocation_endpoint: Option<String>,
    /// The proxy's client id at the upstream.
    pub client_id: String,
    /// The proxy's client secret at the upstream (none: a public client, PKCE only).
    pub client_secret: Option<String>,
    /// How the secret is sent.
    pub auth_method: UpstreamAuthMethod,
    /// Scopes always asked of the upstream (e.g. `openid email`); a client's own scopes are
    /// added when [`OAuthProxyConfig::forward_scopes`] is set.
    pub scopes: Vec<String>,
    /// Extra parameters of the upstream authorization request (`prompt`, `access_type`, ...).
    pub extra_authorize_params: Vec<(String, String)>,
    /// Extra CA certificates (PEM) trusted for the upstream (test identity providers).
    pub root_certificates: Vec<String>,
}

impl Upstream {
    /// An upstream with these endpoints and credentials.
    pub fn new(
        authorization_endpoint: impl Into<String>,
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: Option<String>,
    ) -> Self {
        Self {
            authorization_endpoint: authorization_endpoint.into(),
            token_endpoint: token_endpoint.into(),
            revocation_endpoint: None,
            client_id: client_id.into(),
            client_secret,
            auth_method: UpstreamAuthMethod::default(),
            scopes: Vec::new(),
            extra_authorize_params: Vec::new(),
            root_certificates: Vec::new(),
        }
    }

    /// Sets the revocation endpoint.
    pub fn revocation_endpoint(mut self, url: impl Into<String>) -> Self {
        self.revocation_endpoint = Some(url.into());
        self
    }

    /// Sets the scopes always asked of the upstream.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets how the secret is sent.
    pub fn auth_method(mut self, m: UpstreamAuthMethod) -> Self {
        self.auth_method = m;
        self
    }

    /// Adds a parameter to the upstream authorization request.
    pub fn authorize_param(mut self, k: impl Into<String>, v: impl Into<String>) -> Self {
        self.extra_authorize_params.push((k.into(), v.into()));
        self
    }

    /// Trusts extra CA certificates (PEM text each) for the upstream.
    pub fn root_certificates(mut self, pems: Vec<String>) -> Self {
        self.root_certificates = pems;
        self
    }

    /// GitHub OAuth apps (no OpenID, no refresh tokens unless the app enables them).
    pub fn github(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::new(
            "https://github.com/login/oauth/authorize",
            "https://github.com/login/oauth/access_token",
            client_id,
            Some(client_secret.into()),
        )
        .scopes(["read:user"])
    }

    /// Google (OpenID Connect; `access_type=offline` so that a refresh token is issued).
    pub fn google(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::new(
            "https://accounts.google.com/o/oauth2/v2/auth",
            "https://oauth2.googleapis.com/token",
            client_id,
            Some(client_secret.into()),
        )
        .revocation_endpoint("https://oauth2.googleapis.com/revoke")
        .scopes(["openid", "email", "profile"])
        .authorize_param("access_type", "offline")
        .authorize_param("prompt", "consent")
    }

    /// Microsoft Entra ID, v2 endpoints of `tenant` (a tenant id, `common` or `organizations`).
    pub fn entra_id(
        tenant: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        let base = format!("https://login.microsoftonline.com/{tenant}/oauth2/v2.0");
        Self::new(
            format!("{base}/authorize"),
            format!("{base}/token"),
            client_id,
            Some(client_secret.into()),
        )
        .scopes(["openid", "email", "profile", "offline_access"])
    }

    /// Auth0, tenant `domain` (e.g. `example.eu.auth0.com`).
    pub fn auth0(
        domain: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self::new(
            format!("https://{domain}/authorize"),
            format!("https://{domain}/oauth/token"),
            client_id,
            Some(client_secret.into()),
        )
        .revocation_endpoint(format!("https://{domain}/oauth/revoke"))
        .scopes(["openid", "email", "profile", "offline_access"])
    }

    /// Any OpenID provider: its endpoints read from `issuer`'s discovery document
    /// (`/.well-known/openid-configuration`), whose `issuer` must be `issuer`.
    pub async fn discover(
        issuer: &str,
        client_id: impl Into<String>,
        client_secret: Option<String>,
        root_certificates: Vec<String>,
    ) -> Result<Self, AuthError> {
        let issuer = issuer.trim_end_matches('/');
        let url = format!("{issuer}/.well-known/openid-configuration");
        let answer = AuthHttp::with_roots(&root_certificates).get(&url).await?;
        if !answer.status.is_success() {
            return Err(AuthError::InvalidMetadata {
                url,
                detail: format!("status {}", answer.status),
            });
        }
        let doc = answer.json(&url)?;
        let field = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let bad = |detail: String| AuthError::InvalidMetadata {
            url: url.clone(),
            detail,
        };
        if field("issuer").as_deref().map(|s| s.trim_end_matches('/')) != Some(issuer) {
            return Err(bad(format!(
                "its issuer {:?} is not {issuer}",
                field("issuer")
            )));
        }
        let authorization = field("authorization_endpoint")
            .ok_or_else(|| bad("no authorization_endpoint".into()))?;
        let token = field("token_endpoint").ok_or_else(|| bad("no token_endpoint".into()))?;
        let basic_only = doc
            .get("token_endpoint_auth_methods_supported")
            .and_then(|v| v.as_array())
            .is_some_and(|a| {
                !a.iter().any(|m| m == "client_secret_post")
                    && a.iter().any(|m| m == "client_secret_basic")
            });
        let mut up = Self::new(authorization, token, client_id, client_secret)
            .scopes(["openid", "email", "profile"])
            .root_certificates(root_certificates);
        up.revocation_endpoint = field("revocation_endpoint");
        if basic_only {
            up.auth_method = UpstreamAuthMethod::ClientSecretBasic;
        }
        Ok(up)
    }
}

/// The proxy's configuration.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OAuthProxyConfig {
    /// The proxy's issuer URL (`https://mcp.example.com`, or `http://` on a loopback host);
    /// its endpoints are served below it (`/authorize`, `/token`, `/register`, `/revoke`,
    /// `/oauth/callback`).
    pub issuer: String,
    /// The MCP endpoint the issued tokens are for (RFC 8707 `resource`, the tokens' audience).
    pub resource: String,
    /// The upstream identity provider.
    pub upstream: Upstream,
    /// Scopes the proxy offers (metadata's `scopes_supported`); a client asking another is
    /// refused `invalid_scope`. Empty: any scope.
    pub scopes_supported: Vec<String>,
    /// Scopes every request to the MCP endpoint needs: a token of the proxy granted without
    /// one of them is refused 403 `insufficient_scope`, with a `WWW-Authenticate` challenge
    /// listing them (the 401 challenge lists them too, so that clients ask for them). Enforced
    /// by [`super::OAuthProxy::protection`], the resource server's side of the proxy. When
    /// [`Self::scopes_supported`] is set, each must be one of them. Empty: any token of the
    /// proxy for the resource is enough.
    pub required_scopes: Vec<String>,
    /// Pass the scopes a client asks on to the upstream (beside [`Upstream::scopes`]).
    pub forward_scopes: bool,
    /// Show the user a consent page naming the client and where it redirects before going
    /// upstream (default true). Without it, anyone who registers a client gets a code for a
    /// user whose upstream consent is remembered (the confused-deputy attack of the MCP
    /// security best practices); turn it off only when clients are not registered dynamically
    /// by strangers.
    pub require_consent: bool,
    /// Whether `/register` is offered (dynamic client registration, RFC 7591).
    pub allow_registration: bool,
    /// Client ID Metadata Documents: clients named by an `https://` URL (on by default).
    pub client_id_documents: ClientIdDocuments,
    /// Lifetime of the access tokens issued (default 1 hour).
    pub access_token_ttl: Duration,
    /// Lifetime of the refresh tokens issued (default 30 days).
    pub refresh_token_ttl: Duration,
    /// Lifetime of the codes issued and of a pending authorization (default 5 minutes).
    pub code_ttl: Duration,
    /// Lifetime of a registration (default 90 days).
    pub client_ttl: Duration,
}

impl OAuthProxyConfig {
    /// A proxy at `issuer` issuing tokens for `resource`, fronting `upstream`, with the
    /// default lifetimes, consent and registration on.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>, upstream: Upstream) -> Self {
        Self {
            issuer: issuer.into().trim_end_matches('/').to_string(),
            resource: resource.into(),
            upstream,
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            forward_scopes: false,
            require_consent: true,
            allow_registration: true,
            client_id_documents: ClientIdDocuments::default(),
            access_token_ttl: Duration::from_secs(3600),
            refresh_token_ttl: Duration::from_secs(30 * 24 * 3600),
            code_ttl: Duration::from_secs(300),
            client_ttl: Duration::from_secs(90 * 24 * 3600),
        }
    }
}
