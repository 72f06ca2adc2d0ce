//! The typed errors of the OAuth client: every way discovery, registration, the authorization
//! step or the token endpoint can fail, each naming what was tried and what came back.

use ferromcp_protocol::McpError;
use serde_json::json;
use std::fmt;

/// Why authorizing against a protected MCP server failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// A request to `url` failed before an HTTP answer arrived (connection, timeout, body).
    Http {
        /// The URL requested.
        url: String,
        /// What failed.
        detail: String,
    },
    /// A URL (configured, or found in metadata or a header) is not usable.
    InvalidUrl {
        /// The offending URL.
        url: String,
        /// Why it was refused.
        detail: String,
    },
    /// No Protected Resource Metadata (RFC 9728) was found at any of the tried URLs.
    NoResourceMetadata {
        /// The URLs tried, in order.
        tried: Vec<String>,
    },
    /// No authorization server metadata (RFC 8414 / OpenID discovery) at any tried URL.
    NoServerMetadata {
        /// The authorization server (issuer) URL.
        issuer: String,
        /// The URLs tried, in order.
        tried: Vec<String>,
    },
    /// A metadata document was malformed or inconsistent.
    InvalidMetadata {
        /// Where it came from.
        url: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The authorization server does not advertise PKCE with `S256`; MCP clients must refuse it.
    PkceUnsupported {
        /// The authorization server's issuer.
        issuer: String,
    },
    /// The protected resource metadata names a resource this server URL does not belong to.
    ResourceMismatch {
        /// The `resource` in the metadata.
        resource: String,
        /// The MCP server URL being connected to.
        server: String,
    },
    /// No way to identify this client to the authorization server: no pre-registered client,
    /// no Client ID Metadata Document URL (or the server does not accept one) and no
    /// dynamic client registration endpoint.
    NoClientRegistration {
        /// The authorization server's issuer.
        issuer: String,
    },
    /// Dynamic client registration was refused.
    Registration {
        /// The HTTP status of the answer.
        status: u16,
        /// The answer's body.
        detail: String,
    },
    /// The redirect callback failed or gave up (user closed the window, timeout...).
    Redirect(String),
    /// The authorization response's `state` is not the one sent.
    StateMismatch,
    /// The authorization response's `iss` does not match the authorization server (RFC 9207),
    /// or is missing although the server promised it; or the resource names an authorization
    /// server other than [`crate::OAuthConfig::expected_issuer`].
    IssuerMismatch {
        /// The issuer recorded from the metadata.
        expected: String,
        /// The `iss` received, if any.
        received: Option<String>,
    },
    /// The authorization server answered the authorization request with an error.
    Authorization {
        /// The OAuth `error` code (e.g. `access_denied`).
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// The authorization response carried no `code`.
    MissingCode,
    /// The token endpoint refused the request.
    Token {
        /// The HTTP status of the answer.
        status: u16,
        /// The OAuth `error` code, if the body had one.
        error: Option<String>,
        /// The `error_description`, or the raw body.
        description: Option<String>,
    },
    /// The server still refuses the request after the allowed number of authorizations
    /// (e.g. repeated 403 `insufficient_scope`).
    RetryLimit {
        /// Authorizations attempted for the request.
        attempts: usize,
        /// The HTTP status of the last answer.
        status: u16,
    },
    /// The token store failed.
    Store(String),
    /// A setting is unusable (e.g. a JWT verifier's algorithm list names `none` or `HS256`).
    Config(String),
}

impl AuthError {
    /// A short stable name of the error kind (also in the `data.authError` of the [`McpError`]).
    pub fn kind(&self) -> &'static str {
        match self {
            AuthError::Http { .. } => "http",
            AuthError::InvalidUrl { .. } => "invalid_url",
            AuthError::NoResourceMetadata { .. } => "no_resource_metadata",
            AuthError::NoServerMetadata { .. } => "no_server_metadata",
            AuthError::InvalidMetadata { .. } => "invalid_metadata",
            AuthError::PkceUnsupported { .. } => "pkce_unsupported",
            AuthError::ResourceMismatch { .. } => "resource_mismatch",
            AuthError::NoClientRegistration { .. } => "no_client_registration",
            AuthError::Registration { .. } => "registration",
            AuthError::Redirect(_) => "redirect",
            AuthError::StateMismatch => "state_mismatch",
            AuthError::IssuerMismatch { .. } => "issuer_mismatch",
            AuthError::Authorization { .. } => "authorization",
            AuthError::MissingCode => "missing_code",
            AuthError::Token { .. } => "token",
            AuthError::RetryLimit { .. } => "retry_limit",
            AuthError::Store(_) => "store",
            AuthError::Config(_) => "config",
        }
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::Http { url, detail } => write!(f, "request to {url} failed: {detail}"),
            AuthError::InvalidUrl { url, detail } => write!(f, "unusable URL {url:?}: {detail}"),
            AuthError::NoResourceMetadata { tried } => write!(
                f,
                "no protected resource metadata found (tried {})",
                tried.join(", ")
            ),
            AuthError::NoServerMetadata { issuer, tried } => write!(
                f,
                "no authorization server metadata for {issuer} (tried {})",
                tried.join(", ")
            ),
            AuthError::InvalidMetadata { url, detail } => {
                write!(f, "invalid metadata at {url}: {detail}")
            }
            AuthError::PkceUnsupported { issuer } => write!(
                f,
                "authorization server {issuer} does not advertise PKCE S256 \
                 (code_challenge_methods_supported); refusing to authorize"
            ),
            AuthError::ResourceMismatch { resource, server } => write!(
                f,
                "protected resource metadata is for {resource}, not for {server}; refusing to authorize"
            ),
            AuthError::NoClientRegistration { issuer } => write!(
                f,
                "no client registration for {issuer}: configure a pre-registered client id, \
                 or a client metadata document URL, or use a server with dynamic registration"
            ),
            AuthError::Registration { status, detail } => {
                write!(f, "dynamic client registration failed (HTTP {status}): {detail}")
            }
            AuthError::Redirect(d) => write!(f, "authorization redirect failed: {d}"),
            AuthError::StateMismatch => {
                write!(f, "authorization response state does not match the request")
            }
            AuthError::IssuerMismatch { expected, received } => match received {
                Some(r) => write!(
                    f,
                    "issuer mismatch: the authorization server is {r:?}, expected {expected:?}"
                ),
                None => write!(f, "authorization response lacks iss (expected {expected:?})"),
            },
            AuthError::Authorization { error, description } => match description {
                Some(d) => write!(f, "authorization refused: {error}: {d}"),
                None => write!(f, "authorization refused: {error}"),
            },
            AuthError::MissingCode => write!(f, "authorization response has no code"),
            AuthError::Token {
                status,
                error,
                description,
            } => write!(
                f,
                "token request failed (HTTP {status}): {}{}",
                error.as_deref().unwrap_or("error"),
                description
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
            AuthError::RetryLimit { attempts, status } => write!(
                f,
                "the server still answers HTTP {status} after {attempts} authorization attempts"
            ),
            AuthError::Store(d) => write!(f, "token store failed: {d}"),
            AuthError::Config(d) => write!(f, "unusable setting: {d}"),
        }
    }
}

impl std::error::Error for AuthError {}

impl From<AuthError> for McpError {
    fn from(e: AuthError) -> Self {
        McpError::transport(format!("authorization failed: {e}"))
            .with_data(json!({ "authError": e.kind() }))
    }
}
