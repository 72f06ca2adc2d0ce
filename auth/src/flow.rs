//! The OAuth 2.1 client flow of an MCP client: what to do with a 401 or 403 from the server
//! (discovery, client registration, PKCE authorization code or client credentials, token
//! exchange, refresh, step-up) and which bearer token to send.

use super::challenge::{split_scopes, BearerChallenge};
use super::http::{Answer, AuthHttp};
use super::metadata::{
    discover_legacy_server, discover_resource, discover_server, ResourceMetadata, ServerMetadata,
};
use super::pkce::{random_token, Pkce};
use super::redirect::RedirectHandler;
use super::store::{now_secs, ClientInfo, MemoryTokenStore, StoredAuth, TokenSet, TokenStore};
use super::url::{canonical, parts, query_params, resource_covers, with_query};
use super::AuthError;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Refresh tokens this many seconds before they expire.
const REFRESH_MARGIN_SECS: u64 = 60;

/// How the client obtains tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grant {
    /// Authorization code with PKCE, a user approving in a browser (the default).
    AuthorizationCode,
    /// Client credentials (the client acts on its own behalf; needs a pre-registered client
    /// with a secret).
    ClientCredentials,
}

/// Configuration of an [`OAuthClient`].
#[derive(Clone)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// `client_name` sent with dynamic registration.
    pub client_name: String,
    /// The redirect step (browser); unused with [`Grant::ClientCredentials`].
    pub redirect: Option<Arc<dyn RedirectHandler>>,
    /// Where tokens and registrations are kept (default: in memory).
    pub store: Arc<dyn TokenStore>,
    /// A pre-registered client (used first when set).
    pub client: Option<ClientInfo>,
    /// The HTTPS URL of this client's Client ID Metadata Document, used as `client_id` with
    /// authorization servers that accept them.
    pub client_metadata_url: Option<String>,
    /// The grant used.
    pub grant: Grant,
    /// Scopes requested when neither the challenge nor the metadata names any.
    pub default_scopes: Vec<String>,
    /// Authorizations attempted for one request before giving up (401 and 403 step-ups
    /// together; default 3).
    pub max_attempts: usize,
    /// Extra trusted root certificates (PEM text each) for `https://` metadata, registration
    /// and token endpoints (e.g. a private CA); Mozilla's roots are always trusted.
    pub extra_root_certificates: Vec<String>,
    /// The authorization server (issuer URL) the client's credentials belong to: a server
    /// naming another one is refused (`issuer_mismatch`) before anything is sent to it, so a
    /// pre-registered client's secret never reaches an authorization server it was not
    /// registered with. `None`: whichever the resource names.
    pub expected_issuer: Option<String>,
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_name", &self.client_name)
            .field("client_id", &self.client.as_ref().map(|c| &c.client_id))
            .field("client_metadata_url", &self.client_metadata_url)
            .field("grant", &self.grant)
            .field("max_attempts", &self.max_attempts)
            .finish_non_exhaustive()
    }
}

impl OAuthConfig {
    /// Authorization code flow; `redirect` sends the user to the authorization server.
    pub fn new(redirect: Arc<dyn RedirectHandler>) -> Self {
        Self {
            client_name: "ferromcp client".into(),
            redirect: Some(redirect),
            store: Arc::new(MemoryTokenStore::new()),
            client: None,
            client_metadata_url: None,
            grant: Grant::AuthorizationCode,
            default_scopes: Vec::new(),
            max_attempts: 3,
            extra_root_certificates: Vec::new(),
            expected_issuer: None,
        }
    }

    /// Client credentials flow with a pre-registered confidential client.
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self {
            redirect: None,
            grant: Grant::ClientCredentials,
            client: Some(ClientInfo {
                client_id: client_id.into(),
                client_secret: Some(client_secret.into()),
                token_endpoint_auth_method: None,
            }),
            ..Self::new(Arc::new(super::AutoApprove::new("http://127.0.0.1/unused")))
        }
    }

    /// Sets the `client_name` used for dynamic registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Uses a pre-registered client (secret `None` for a public client).
    pub fn pre_registered(
        mut self,
        client_id: impl Into<String>,
        client_secret: Option<String>,
    ) -> Self {
        self.client = Some(ClientInfo {
            client_id: client_id.into(),
            client_secret,
            token_endpoint_auth_method: None,
        });
        self
    }

    /// Accepts only the authorization server `issuer` (see [`OAuthConfig::expected_issuer`]).
    pub fn expected_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.expected_issuer = Some(issuer.into());
        self
    }

    /// Uses `url` as `client_id` where the authorization server accepts Client ID Metadata
    /// Documents.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Keeps tokens in `store`.
    pub fn store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }
}

/// What the flow knows about the server it authorizes for.
#[derive(Default)]
struct FlowState {
    key: Option<String>,
    stored: StoredAuth,
    server_meta: Option<ServerMetadata>,
    requested: Vec<String>,
}

/// The token to send, readable without waiting.
#[derive(Default)]
struct Current {
    loaded: bool,
    token: Option<String>,
    expires_at: Option<u64>,
    refreshable: bool,
}

/// An OAuth 2.1 client for one protected MCP server, shared by its HTTP transport: gives the
/// bearer token for each request and runs the authorization flow when the server answers 401
/// (or 403 `insufficient_scope`).
pub struct OAuthClient {
    config: OAuthConfig,
    http: AuthHttp,
    current: Mutex<Current>,
    state: tokio::sync::Mutex<FlowState>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// A client with `config`.
    ///
    /// Give it to the HTTP transport (`ferromcp::transport::http::HttpClientOptions::auth`);
    /// it runs the flow on the first 401 and sends the token from then on.
    ///
    /// ```
    /// use ferromcp_auth::{LoopbackRedirect, OAuthClient, OAuthConfig};
    /// use std::sync::Arc;
    ///
    /// // A service account: client credentials of a pre-registered client, only for the
    /// // authorization server it was registered with.
    /// let service = OAuthClient::new(
    ///     OAuthConfig::client_credentials("reporting-job", "s3cret")
    ///         .expected_issuer("https://auth.example.com"),
    /// );
    /// assert_eq!(service.bearer(), None); // no token until the server asks for one
    /// // For `ferromcp`'s HTTP transport: `HttpClientOptions::default().auth(service)`.
    /// let service = Arc::new(service);
    /// # drop(service);
    ///
    /// // A user in a browser: authorization code with PKCE, the redirect caught on a loopback
    /// // port (0: any free one); `open` shows the authorization URL (launch the browser there).
    /// let redirect = LoopbackRedirect::bind(0, |url| {
    ///     println!("Open {url} to sign in");
    ///     Ok(())
    /// })
    /// .unwrap();
    /// let user = OAuthConfig::new(Arc::new(redirect)).client_name("My MCP app");
    /// assert_eq!(user.client_name, "My MCP app");
    /// assert_eq!(user.max_attempts, 3);
    /// ```
    pub fn new(config: OAuthConfig) -> Self {
        Self {
            http: AuthHttp::with_roots(&config.extra_root_certificates),
            config,
            current: Mutex::default(),
            state: tokio::sync::Mutex::default(),
        }
    }

    /// Authorizations allowed for one request.
    pub fn max_attempts(&self) -> usize {
        self.config.max_attempts.max(1)
    }

    /// The access token to send now, if any.
    pub fn bearer(&self) -> Option<String> {
        self.current.lock().unwrap().token.clone()
    }

    /// Before a request to `server`: loads stored tokens the first time and refreshes a token
    /// about to expire. Failures are logged; the request then meets the server's 401.
    pub async fn prepare(&self, server: &str) {
        {
            let c = self.current.lock().unwrap();
            let expiring = c
                .expires_at
                .is_some_and(|at| now_secs() + REFRESH_MARGIN_SECS >= at);
            if c.loaded && !(expiring && c.refreshable) {
                return;
            }
        }
        let mut st = self.state.lock().await;
        if let Err(e) = self.load(&mut st, server) {
            tracing::warn!(error = %e, "loading stored tokens failed");
            return;
        }
        let expiring =
            st.stored.tokens.as_ref().is_some_and(|t| {
                t.refresh_token.is_some() && t.expires_within(REFRESH_MARGIN_SECS)
            });
        if expiring {
            if let Err(e) = self.refresh(&mut st, server, None).await {
                tracing::info!(error = %e, "refreshing the access token failed");
            }
        }
    }

    /// Handles a 401 or 403 answer from `server` whose request carried `used_token`: refreshes
    /// or (re-)authorizes. `Ok` means: send the request again.
    pub async fn handle_challenge<'a>(
        &self,
        server: &str,
        status: u16,
        www_authenticate: impl IntoIterator<Item = &'a str>,
        used_token: Option<&str>,
    ) -> Result<(), AuthError> {
        let challenge = BearerChallenge::parse(www_authenticate).unwrap_or_default();
        let mut st = self.state.lock().await;
        self.load(&mut st, server)?;
        let current = st.stored.tokens.as_ref().map(|t| t.access_token.clone());
        if current.is_some() && current.as_deref() != used_token {
            return Ok(()); // another request already obtained a new token
        }
        let scopes = if status == 403 {
            let mut s = st.requested.clone();
            for c in challenge.scopes() {
                if !s.contains(&c) {
                    s.push(c);
                }
            }
            s
        } else {
            if st
                .stored
                .tokens
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some())
            {
                match self
                    .refresh(&mut st, server, challenge.resource_metadata.as_deref())
                    .await
                {
                    Ok(()) => return Ok(()),
                    Err(e) => tracing::info!(error = %e, "refresh failed; authorizing again"),
                }
            }
            challenge.scopes()
        };
        self.authorize(&mut st, server, &challenge, scopes).await
    }

    fn load(&self, st: &mut FlowState, server: &str) -> Result<(), AuthError> {
        let key = canonical(server)?;
        if st.key.as_deref() != Some(key.as_str()) {
            st.stored = self.config.store.load(&key)?.unwrap_or_default();
            st.key = Some(key);
            st.server_meta = None;
            self.publish(st);
        }
        Ok(())
    }

    fn publish(&self, st: &FlowState) {
        let mut c = self.current.lock().unwrap();
        c.loaded = true;
        c.token = st.stored.tokens.as_ref().map(|t| t.access_token.clone());
        c.expires_at = st.stored.tokens.as_ref().and_then(|t| t.expires_at);
        c.refreshable = st
            .stored
            .tokens
            .as_ref()
            .is_some_and(|t| t.refresh_token.is_some());
    }

    fn save(&self, st: &FlowState) -> Result<(), AuthError> {
        self.publish(st);
        let key = st.key.as_deref().expect("loaded before saving");
        self.config.store.save(key, &st.stored)
    }

    /// Discovers the resource metadata and authorization server; returns the server metadata
    /// and the `resource` value to send.
    async fn discover(
        &self,
        server: &str,
        header_url: Option<&str>,
    ) -> Result<(ServerMetadata, String, Option<ResourceMetadata>), AuthError> {
        let (prm, issuer) = match discover_resource(&self.http, server, header_url).await {
            Ok((prm, _)) => {
                let issuer = prm.authorization_servers[0].clone();
                (Some(prm), issuer)
            }
            Err(e) => {
                // 2025-03-26 servers have no resource metadata: their origin is the issuer.
                tracing::info!(error = %e, "no protected resource metadata; trying the server's origin as authorization server");
                (None, parts(server)?.origin)
            }
        };
        let resource = match prm.as_ref().and_then(|p| p.resource.clone()) {
            Some(r) if resource_covers(&r, server) => r,
            Some(r) => {
                return Err(AuthError::ResourceMismatch {
                    resource: r,
                    server: server.to_string(),
                })
            }
            None => canonical(server)?,
        };
        if let Some(expected) = &self.config.expected_issuer {
            // Before the metadata is even fetched: the resource names the issuer.
            if expected.trim_end_matches('/') != issuer.trim_end_matches('/') {
                return Err(AuthError::IssuerMismatch {
                    expected: expected.clone(),
                    received: Some(issuer),
                });
            }
        }
        let meta = match prm {
            Some(_) => discover_server(&self.http, &issuer).await?,
            None => discover_legacy_server(&self.http, &issuer).await?,
        };
        if let Some(expected) = &self.config.expected_issuer {
            if expected.trim_end_matches('/') != meta.issuer.trim_end_matches('/') {
                return Err(AuthError::IssuerMismatch {
                    expected: expected.clone(),
                    received: Some(meta.issuer.clone()),
                });
            }
        }
        if !meta.supports_s256() && self.config.grant == Grant::AuthorizationCode {
            return Err(AuthError::PkceUnsupported { issuer });
        }
        Ok((meta, resource, prm))
    }

    async fn authorize(
        &self,
        st: &mut FlowState,
        server: &str,
        challenge: &BearerChallenge,
        mut scopes: Vec<String>,
    ) -> Result<(), AuthError> {
        let (meta, resource, prm) = self
            .discover(server, challenge.resource_metadata.as_deref())
            .await?;
        if scopes.is_empty() {
            scopes = prm
                .as_ref()
                .and_then(|p| p.scopes_supported.clone())
                .unwrap_or_else(|| self.config.default_scopes.clone());
        }
        st.requested = scopes.clone();
        let tokens =
            match self.config.grant {
                Grant::ClientCredentials => {
                    let client = self.config.client.clone().ok_or_else(|| {
                        AuthError::NoClientRegistration {
                            issuer: meta.issuer.clone(),
                        }
                    })?;
                    let mut form = vec![("grant_type", "client_credentials".to_string())];
                    if !scopes.is_empty() {
                        form.push(("scope", scopes.join(" ")));
                    }
                    form.push(("resource", resource.clone()));
                    self.token_request(&meta, &client, form).await?
                }
                Grant::AuthorizationCode => {
                    let redirect = self.config.redirect.clone().ok_or_else(|| {
                        AuthError::Redirect("no redirect handler configured".into())
                    })?;
                    let client = self.client_for(st, &meta, redirect.as_ref()).await?;
                    if meta
                        .scopes_supported
                        .as_ref()
                        .is_some_and(|s| s.iter().any(|s| s == "offline_access"))
                        && !scopes.is_empty()
                        && !scopes.iter().any(|s| s == "offline_access")
                    {
                        scopes.push("offline_access".into());
                    }
                    self.authorization_code(&meta, &client, redirect.as_ref(), &resource, &scopes)
                        .await?
                }
            };
        st.stored.tokens = Some(tokens);
        st.stored.issuer = Some(meta.issuer.clone());
        st.stored.resource = Some(resource);
        st.server_meta = Some(meta);
        self.save(st)
    }

    /// The client identity: pre-registered, previously registered, metadata document URL, or a
    /// new dynamic registration.
    async fn client_for(
        &self,
        st: &mut FlowState,
        meta: &ServerMetadata,
        redirect: &dyn RedirectHandler,
    ) -> Result<ClientInfo, AuthError> {
        if let Some(c) = &self.config.client {
            return Ok(c.clone());
        }
        if let (Some(c), Some(iss)) = (&st.stored.client, &st.stored.issuer) {
            if iss == &meta.issuer {
                return Ok(c.clone());
            }
        }
        if let (Some(url), Some(true)) = (
            &self.config.client_metadata_url,
            meta.client_id_metadata_document_supported,
        ) {
            return Ok(ClientInfo {
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: Some("none".into()),
            });
        }
        let Some(endpoint) = &meta.registration_endpoint else {
            return Err(AuthError::NoClientRegistration {
                issuer: meta.issuer.clone(),
            });
        };
        let mut body = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [redirect.redirect_uri()],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        });
        // SEP-837: "native" for loopback / localhost redirects and custom schemes, else "web".
        body["application_type"] = json!(application_type(&redirect.redirect_uri()));
        let public_ok = meta
            .token_endpoint_auth_methods_supported
            .as_ref()
            .is_none_or(|m| m.iter().any(|m| m == "none"));
        if public_ok {
            body["token_endpoint_auth_method"] = json!("none");
        }
        let answer = self.http.post_json(endpoint, &body).await?;
        if !answer.status.is_success() {
            return Err(AuthError::Registration {
                status: answer.status.as_u16(),
                detail: answer.text(),
            });
        }
        let v = answer.json(endpoint)?;
        let client_id = v["client_id"]
            .as_str()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| AuthError::Registration {
                status: answer.status.as_u16(),
                detail: "the answer has no client_id".into(),
            })?;
        let client = ClientInfo {
            client_id: client_id.to_string(),
            client_secret: v["client_secret"].as_str().map(str::to_string),
            token_endpoint_auth_method: v["token_endpoint_auth_method"]
                .as_str()
                .map(str::to_string),
        };
        st.stored.client = Some(client.clone());
        st.stored.issuer = Some(meta.issuer.clone());
        self.save(st)?;
        Ok(client)
    }

    async fn authorization_code(
        &self,
        meta: &ServerMetadata,
        client: &ClientInfo,
        redirect: &dyn RedirectHandler,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let endpoint =
            meta.authorization_endpoint
                .as_deref()
                .ok_or_else(|| AuthError::InvalidMetadata {
                    url: meta.issuer.clone(),
                    detail: "no authorization_endpoint".into(),
                })?;
        let pkce = Pkce::generate();
        let state = random_token();
        let redirect_uri = redirect.redirect_uri();
        let mut params = vec![
            ("response_type", "code".to_string()),
            ("client_id", client.client_id.clone()),
            ("redirect_uri", redirect_uri.clone()),
            ("code_challenge", pkce.challenge.clone()),
            ("code_challenge_method", "S256".to_string()),
            ("state", state.clone()),
        ];
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        params.push(("resource", resource.to_string()));
        let callback = redirect.authorize(with_query(endpoint, &params)).await?;
        let got = query_params(&callback);
        let get = |k: &str| got.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        // RFC 9207 before anything else in the response is acted on.
        match get("iss") {
            Some(iss) if iss != meta.issuer => {
                return Err(AuthError::IssuerMismatch {
                    expected: meta.issuer.clone(),
                    received: Some(iss),
                })
            }
            None if meta.authorization_response_iss_parameter_supported == Some(true) => {
                return Err(AuthError::IssuerMismatch {
                    expected: meta.issuer.clone(),
                    received: None,
                })
            }
            _ => {}
        }
        if get("state").as_deref() != Some(state.as_str()) {
            return Err(AuthError::StateMismatch);
        }
        if let Some(error) = get("error") {
            return Err(AuthError::Authorization {
                error,
                description: get("error_description"),
            });
        }
        let code = get("code").ok_or(AuthError::MissingCode)?;
        let form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", pkce.verifier),
            ("resource", resource.to_string()),
        ];
        self.token_request(meta, client, form).await
    }

    /// Exchanges the refresh token; on success the new tokens are stored.
    async fn refresh(
        &self,
        st: &mut FlowState,
        server: &str,
        header_url: Option<&str>,
    ) -> Result<(), AuthError> {
        let Some(old) = st.stored.tokens.clone() else {
            return Err(AuthError::Token {
                status: 0,
                error: None,
                description: Some("no tokens to refresh".into()),
            });
        };
        let Some(refresh_token) = old.refresh_token.clone() else {
            return Err(AuthError::Token {
                status: 0,
                error: None,
                description: Some("no refresh token".into()),
            });
        };
        let (meta, resource) = match (&st.server_meta, &st.stored.issuer, &st.stored.resource) {
            (Some(m), _, Some(r)) => (m.clone(), r.clone()),
            (None, Some(iss), Some(r)) => (discover_server(&self.http, iss).await?, r.clone()),
            _ => {
                let (m, r, _) = self.discover(server, header_url).await?;
                (m, r)
            }
        };
        let client = match (&self.config.client, &st.stored.client) {
            (Some(c), _) | (None, Some(c)) => c.clone(),
            (None, None) => match &self.config.client_metadata_url {
                Some(url) => ClientInfo {
                    client_id: url.clone(),
                    client_secret: None,
                    token_endpoint_auth_method: Some("none".into()),
                },
                None => {
                    return Err(AuthError::NoClientRegistration {
                        issuer: meta.issuer.clone(),
                    })
                }
            },
        };
        let form = vec![
            ("grant_type", "refresh_token".to_string()),
            ("refresh_token", refresh_token.clone()),
            ("resource", resource),
        ];
        match self.token_request(&meta, &client, form).await {
            Ok(mut tokens) => {
                if tokens.refresh_token.is_none() {
                    tokens.refresh_token = Some(refresh_token);
                }
                st.stored.tokens = Some(tokens);
                st.server_meta = Some(meta);
                self.save(st)
            }
            Err(e) => {
                // The refresh token is spent or revoked: forget the tokens.
                st.stored.tokens = None;
                self.save(st)?;
                Err(e)
            }
        }
    }

    /// POSTs to the token endpoint with the client's authentication; parses the tokens.
    async fn token_request(
        &self,
        meta: &ServerMetadata,
        client: &ClientInfo,
        mut form: Vec<(&str, String)>,
    ) -> Result<TokenSet, AuthError> {
        let mut headers = Vec::new();
        match auth_method(client, meta) {
            "client_secret_basic" => {
                let enc =
                    |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let pair = format!(
                    "{}:{}",
                    enc(&client.client_id),
                    enc(client.client_secret.as_deref().unwrap_or(""))
                );
                headers.push(("authorization", format!("Basic {}", STANDARD.encode(pair))));
            }
            "client_secret_post" => {
                form.push(("client_id", client.client_id.clone()));
                form.push((
                    "client_secret",
                    client.client_secret.clone().unwrap_or_default(),
                ));
            }
            _ => form.push(("client_id", client.client_id.clone())),
        }
        let answer = self
            .http
            .post_form(&meta.token_endpoint, &form, &headers)
            .await?;
        parse_token_answer(&answer, &meta.token_endpoint)
    }
}

/// The OIDC `application_type` for a redirect URI: `native` when it points at this machine
/// (loopback, `localhost`) or uses a custom scheme, `web` otherwise.
fn application_type(redirect_uri: &str) -> &'static str {
    let uri: Option<http::Uri> = redirect_uri.parse().ok();
    match uri
        .as_ref()
        .filter(|u| matches!(u.scheme_str(), Some("http" | "https")))
    {
        Some(u) => {
            let host = u.host().unwrap_or("");
            let host = host.trim_start_matches('[').trim_end_matches(']');
            if host.eq_ignore_ascii_case("localhost") || host == "::1" || host.starts_with("127.") {
                "native"
            } else {
                "web"
            }
        }
        None => "native",
    }
}

/// The token endpoint authentication method for `client`: its registered one, else the best the
/// server supports for a client with (basic, post) or without (none) a secret.
fn auth_method<'a>(client: &'a ClientInfo, meta: &ServerMetadata) -> &'a str {
    if let Some(m) = client.token_endpoint_auth_method.as_deref() {
        return m;
    }
    if client.client_secret.is_none() {
        return "none";
    }
    let supported = meta
        .token_endpoint_auth_methods_supported
        .clone()
        .unwrap_or_else(|| vec!["client_secret_basic".into()]);
    if supported.iter().any(|m| m == "client_secret_basic") {
        "client_secret_basic"
    } else if supported.iter().any(|m| m == "client_secret_post") {
        "client_secret_post"
    } else {
        "client_secret_basic"
    }
}

fn parse_token_answer(answer: &Answer, url: &str) -> Result<TokenSet, AuthError> {
    let v: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    if !answer.status.is_success() {
        return Err(AuthError::Token {
            status: answer.status.as_u16(),
            error: v["error"].as_str().map(str::to_string),
            description: v["error_description"]
                .as_str()
                .map(str::to_string)
                .or_else(|| Some(answer.text())),
        });
    }
    let access_token = v["access_token"]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AuthError::Token {
            status: answer.status.as_u16(),
            error: None,
            description: Some(format!("{url} answered without access_token")),
        })?;
    if let Some(tt) = v["token_type"].as_str() {
        if !tt.eq_ignore_ascii_case("bearer") {
            return Err(AuthError::Token {
                status: answer.status.as_u16(),
                error: None,
                description: Some(format!("unsupported token_type {tt:?}")),
            });
        }
    }
    Ok(TokenSet {
        access_token: access_token.to_string(),
        refresh_token: v["refresh_token"].as_str().map(str::to_string),
        expires_at: v["expires_in"].as_u64().map(|s| now_secs() + s),
        scope: v["scope"].as_str().map(|s| split_scopes(Some(s)).join(" ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn application_type_follows_the_redirect_host() {
        assert_eq!(
            application_type("http://127.0.0.1:33333/callback"),
            "native"
        );
        assert_eq!(application_type("http://localhost:3000/callback"), "native");
        assert_eq!(application_type("http://[::1]:8080/cb"), "native");
        assert_eq!(application_type("http://localhost/cb"), "native");
        assert_eq!(application_type("com.example.app:/oauth"), "native");
        assert_eq!(application_type("https://app.example.com/cb"), "web");
        assert_eq!(application_type("https://localhost.example.com/cb"), "web");
    }
}
