//! [`AuthInfo`], the identity a verified bearer token (or a verified client certificate) grants
//! to the requests it comes with. Here, in the crate below both, because two crates name it: the
//! token verifiers of `ferromcp-auth` produce it, and the engine's sessions hand it to handlers
//! (`RequestContext::auth`) and its server's authorization checks read it, with or without the
//! engine's `http` feature (so it cannot live in `ferromcp-auth`, which only that feature pulls).
//! A plain value: no I/O. `ferromcp` re-exports it as `ferromcp::session::AuthInfo` and
//! `ferromcp::auth::AuthInfo`.

use serde_json::Value;

/// The identity a verified bearer token grants (protected HTTP servers, see
/// `ferromcp::auth::ResourceAuth`): filled by the token verifier, read by handlers
/// (`ferromcp::session::RequestContext::auth`).
///
/// ```
/// use ferromcp_protocol::auth_info::AuthInfo;
///
/// let info = AuthInfo::default()
///     .with_subject("ada")
///     .with_scopes(vec!["mcp:read".into()])
///     .with_audience(vec!["https://mcp.example.com/mcp".into()])
///     .with_expires_at(1_900_000_000);
/// assert_eq!(info.subject.as_deref(), Some("ada"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthInfo {
    /// The token itself (set by the server after verification).
    pub token: String,
    /// The subject (user) the token was issued for.
    pub subject: Option<String>,
    /// The client the token was issued to.
    pub client_id: Option<String>,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// The audiences (`aud`) the token is valid for.
    pub audience: Vec<String>,
    /// Expiry, Unix seconds.
    pub expires_at: Option<u64>,
    /// Any other claims the verifier wants handlers to see.
    pub claims: Value,
}

impl AuthInfo {
    /// Sets `subject`.
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets `client_id`.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets `scopes`.
    pub fn with_scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes = scopes;
        self
    }

    /// Sets `audience`.
    pub fn with_audience(mut self, audience: Vec<String>) -> Self {
        self.audience = audience;
        self
    }

    /// Sets `expires_at`.
    pub fn with_expires_at(mut self, expires_at: u64) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// Sets `claims`.
    pub fn with_claims(mut self, claims: Value) -> Self {
        self.claims = claims;
        self
    }
}
