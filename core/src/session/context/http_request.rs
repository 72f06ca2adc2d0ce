//! What the HTTP transport hands the contexts of the requests it carries: the request's header
//! fields and the peer's address ([`HttpHeaders`]), and the identity a verified bearer token
//! grants ([`AuthInfo`]), each in a task-local the transport sets around the handling. Apart
//! from the context because they are the transport's facts about the request, set where it is
//! read and only read by the context; the context keeps what a handler does with the request.

use serde_json::Value;
use std::net::IpAddr;
use std::sync::Arc;

/// The header fields of the HTTP request a message arrived in, read when asked for: the HTTP
/// transport shares what it already holds (no copy per request), and a handler that asks gets
/// `(name, value)` pairs in the order they came. The peer address of the request's connection
/// travels with them ([`HeaderFields::client_address`]).
pub type HttpHeaders = Arc<dyn HeaderFields>;

/// What [`HttpHeaders`] reads: every field, or one without building the others (the
/// OpenTelemetry layer looks for `traceparent` on every request), and the address of the peer
/// the request came from.
pub trait HeaderFields: Send + Sync {
    /// Every field as `(name in lowercase, value)`, in the order they came (values that are
    /// not UTF-8 converted lossily).
    fn pairs(&self) -> Vec<(String, String)>;
    /// The first value of field `name` (given in lowercase).
    fn get(&self, name: &str) -> Option<String>;
    /// Whether a `traceparent` field is present: what `get("traceparent").is_some()` answers
    /// (the HTTP transport notes it when it reads the head, so the OpenTelemetry layer's look
    /// on every request does not pass over the fields).
    fn has_traceparent(&self) -> bool {
        self.get("traceparent").is_some()
    }
    /// Every value of field `name` (given in lowercase), in the order they came: a field sent
    /// on several lines (`X-Forwarded-For` appended to by proxies) has one per line.
    fn get_all(&self, name: &str) -> Vec<String> {
        self.pairs()
            .into_iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v)
            .collect()
    }
    /// The IP address of the peer of the connection the request arrived on (the socket's, not
    /// a header's); `None` when the transport does not know it (default).
    fn client_address(&self) -> Option<IpAddr> {
        None
    }
}

tokio::task_local! {
    /// Set by the Streamable HTTP endpoint around the handling of one POST, so that the
    /// contexts of the requests it carries can give handlers the HTTP headers.
    pub(crate) static HTTP_HEADERS: HttpHeaders;
    /// Set by a protected HTTP endpoint around the handling of one request: the verified
    /// bearer token's identity.
    pub(crate) static AUTH_INFO: Arc<AuthInfo>;
}

/// The identity a verified bearer token grants (protected HTTP servers, see
/// `ferromcp::auth::ResourceAuth`): filled by the token verifier.
///
/// ```
/// use ferromcp::session::AuthInfo;
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
