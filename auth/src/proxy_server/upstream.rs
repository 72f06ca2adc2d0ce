//! The proxy's leg with the upstream identity provider: the authorization URL it sends the user
//! to, the code exchange and refresh at the upstream token endpoint, and revocation. What the
//! upstream answers is turned into a [`Grant`] or into the OAuth error the MCP client gets.

use super::super::http::AuthHttp;
use super::super::store::now_secs;
use super::super::url::with_query;
use super::config::{Upstream, UpstreamAuthMethod};
use super::error::{OAuthErrorCode, OAuthFailure};
use super::records::Grant;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde_json::Value;

/// Form fields or headers.
type Pairs = Vec<(&'static str, String)>;

/// The upstream and the HTTP client that reaches it.
pub(super) struct UpstreamClient {
    pub config: Upstream,
    http: AuthHttp,
}

impl UpstreamClient {
    pub fn new(config: Upstream) -> Self {
        let http = AuthHttp::with_roots(&config.root_certificates);
        Self { config, http }
    }

    /// Where the user is sent: the upstream authorization endpoint with the proxy's client id,
    /// its callback, the pending authorization's id as `state`, and the proxy's PKCE challenge.
    pub fn authorize_url(
        &self,
        callback: &str,
        state: &str,
        challenge: String,
        scopes: &[String],
    ) -> String {
        let mut all: Vec<String> = self.config.scopes.clone();
        for s in scopes {
            if !all.contains(s) {
                all.push(s.clone());
            }
        }
        let mut params: Vec<(&str, String)> = vec![
            ("response_type", "code".into()),
            ("client_id", self.config.client_id.clone()),
            ("redirect_uri", callback.into()),
            ("state", state.into()),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256".into()),
        ];
        if !all.is_empty() {
            params.push(("scope", all.join(" ")));
        }
        for (k, v) in &self.config.extra_authorize_params {
            params.push((k.as_str(), v.clone()));
        }
        with_query(&self.config.authorization_endpoint, &params)
    }

    /// Exchanges the upstream's code.
    pub async fn exchange_code(
        &self,
        code: &str,
        callback: &str,
        verifier: &str,
    ) -> Result<Grant, OAuthFailure> {
        let form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code.to_string()),
            ("redirect_uri", callback.to_string()),
            ("code_verifier", verifier.to_string()),
        ];
        let answer = self.token_request(form).await?;
        Ok(grant_from(&answer, None))
    }

    /// Refreshes the upstream tokens of `grant` (the subject and claims are kept).
    pub async fn refresh(&self, grant: &Grant, refresh_token: &str) -> Result<Grant, OAuthFailure> {
        let form = vec![
            ("grant_type", "refresh_token".to_string()),
            ("refresh_token", refresh_token.to_string()),
        ];
        let answer = self.token_request(form).await?;
        Ok(grant_from(&answer, Some(grant)))
    }

    /// Tells the upstream a token is no longer used (RFC 7009); failures are logged only, the
    /// proxy's own tokens are already gone.
    pub async fn revoke(&self, token: &str) {
        let Some(url) = &self.config.revocation_endpoint else {
            return;
        };
        let (form, headers) = self.authenticated(vec![("token", token.to_string())]);
        match self.http.post_form(url, &form, &headers).await {
            Ok(a) if a.status.is_success() => {}
            Ok(a) => {
                tracing::warn!(status = %a.status, "upstream revocation refused: {}", a.text())
            }
            Err(e) => tracing::warn!("upstream revocation failed: {e}"),
        }
    }

    /// The form and headers of a request authenticated as the proxy's upstream client.
    fn authenticated(&self, mut form: Vec<(&'static str, String)>) -> (Pairs, Pairs) {
        let c = &self.config;
        let mut headers = Vec::new();
        match (&c.client_secret, c.auth_method) {
            (Some(secret), UpstreamAuthMethod::ClientSecretBasic) => {
                let enc =
                    |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let pair = format!("{}:{}", enc(&c.client_id), enc(secret));
                headers.push(("authorization", format!("Basic {}", STANDARD.encode(pair))));
            }
            (Some(secret), _) => {
                form.push(("client_id", c.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            (None, _) => form.push(("client_id", c.client_id.clone())),
        }
        (form, headers)
    }

    /// A token request; the upstream's answer as JSON, or the error the MCP client gets.
    async fn token_request(
        &self,
        form: Vec<(&'static str, String)>,
    ) -> Result<Value, OAuthFailure> {
        let (form, headers) = self.authenticated(form);
        let url = &self.config.token_endpoint;
        let answer = self
            .http
            .post_form(url, &form, &headers)
            .await
            .map_err(|e| {
                OAuthFailure::new(
                    OAuthErrorCode::TemporarilyUnavailable,
                    format!("the upstream identity provider could not be reached: {e}"),
                )
            })?;
        let body: Option<Value> = serde_json::from_slice(&answer.body).ok();
        // GitHub answers errors with 200 and an `error` member.
        if let Some(err) = body
            .as_ref()
            .and_then(|b| b.get("error"))
            .and_then(Value::as_str)
        {
            let detail = body
                .as_ref()
                .and_then(|b| b.get("error_description"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let code = if err == "invalid_grant" {
                OAuthErrorCode::InvalidGrant
            } else {
                OAuthErrorCode::ServerError
            };
            return Err(OAuthFailure::new(
                code,
                format!("the upstream identity provider refused: {err} {detail}")
                    .trim_end()
                    .to_string(),
            ));
        }
        match body {
            Some(b)
                if answer.status.is_success()
                    && b.get("access_token").and_then(Value::as_str).is_some() =>
            {
                Ok(b)
            }
            _ => Err(OAuthFailure::new(
                OAuthErrorCode::ServerError,
                format!(
                    "the upstream token endpoint answered {} without an access token",
                    answer.status
                ),
            )),
        }
    }
}

/// A grant from an upstream token answer; `previous` supplies what a refresh answer omits.
fn grant_from(answer: &Value, previous: Option<&Grant>) -> Grant {
    let s = |k: &str| answer.get(k).and_then(Value::as_str).map(str::to_string);
    let claims = s("id_token")
        .and_then(|t| id_token_claims(&t))
        .or_else(|| previous.map(|p| p.claims.clone()))
        .unwrap_or(Value::Object(Default::default()));
    let subject = claims
        .get("sub")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| previous.and_then(|p| p.subject.clone()));
    Grant {
        subject,
        claims,
        upstream_access_token: s("access_token").unwrap_or_default(),
        upstream_refresh_token: s("refresh_token")
            .or_else(|| previous.and_then(|p| p.upstream_refresh_token.clone())),
        upstream_expires_at: answer
            .get("expires_in")
            .and_then(Value::as_u64)
            .map(|e| now_secs() + e),
    }
}

/// The claims of an ID token received straight from the upstream token endpoint over the
/// proxy's own connection (OpenID Connect Core §3.1.3.7 lets a client take them without
/// checking the signature then); none when it is not a JWT.
fn id_token_claims(token: &str) -> Option<Value> {
    let payload = token.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v.is_object().then_some(v)
}
