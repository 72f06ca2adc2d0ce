//! The OAuth error answers of the proxy's endpoints: the `error` codes of RFC 6749 §4.1.2.1 and
//! §5.2, RFC 7009 and RFC 7591, each with the HTTP status its RFC gives, so that every refusal a
//! client gets names what was wrong with its request.

use serde_json::json;

/// An OAuth `error` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OAuthErrorCode {
    /// A parameter is missing, repeated, malformed or has an unsupported value.
    InvalidRequest,
    /// Client authentication failed (unknown client, wrong or missing secret).
    InvalidClient,
    /// The code or refresh token is invalid, expired, used, revoked, or was issued to another
    /// client or redirect URI; or the PKCE verifier does not match.
    InvalidGrant,
    /// The client may not use this grant type.
    UnauthorizedClient,
    /// The grant type is not supported here.
    UnsupportedGrantType,
    /// The scope is unknown or beyond what the client registered.
    InvalidScope,
    /// The user (or the upstream identity provider) refused.
    AccessDenied,
    /// Only `response_type=code` is supported.
    UnsupportedResponseType,
    /// The `resource` (RFC 8707) is not the one this server protects.
    InvalidTarget,
    /// Revocation's `token_type_hint` names a type not supported (RFC 7009).
    UnsupportedTokenType,
    /// A registration's metadata is invalid (RFC 7591).
    InvalidClientMetadata,
    /// A registration's redirect URI is not allowed (RFC 7591).
    InvalidRedirectUri,
    /// The server failed (the upstream answered something unusable, the store failed).
    ServerError,
    /// The upstream identity provider cannot be reached now.
    TemporarilyUnavailable,
}

impl OAuthErrorCode {
    /// The code as it is sent (`invalid_request`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnauthorizedClient => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::InvalidScope => "invalid_scope",
            Self::AccessDenied => "access_denied",
            Self::UnsupportedResponseType => "unsupported_response_type",
            Self::InvalidTarget => "invalid_target",
            Self::UnsupportedTokenType => "unsupported_token_type",
            Self::InvalidClientMetadata => "invalid_client_metadata",
            Self::InvalidRedirectUri => "invalid_redirect_uri",
            Self::ServerError => "server_error",
            Self::TemporarilyUnavailable => "temporarily_unavailable",
        }
    }

    /// The HTTP status of a JSON error answer: 401 for `invalid_client` (RFC 6749 §5.2), 500
    /// and 503 for the server's own failures, 400 otherwise.
    pub fn status(self) -> u16 {
        match self {
            Self::InvalidClient => 401,
            Self::ServerError => 500,
            Self::TemporarilyUnavailable => 503,
            _ => 400,
        }
    }
}

/// A refusal: the code and a description for the developer reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthFailure {
    /// The `error` code.
    pub code: OAuthErrorCode,
    /// The `error_description`.
    pub description: String,
}

impl OAuthFailure {
    /// A refusal with `code` and `description`.
    pub fn new(code: OAuthErrorCode, description: impl Into<String>) -> Self {
        Self {
            code,
            description: description.into(),
        }
    }

    /// The JSON body `{"error", "error_description"}`.
    pub fn body(&self) -> serde_json::Value {
        json!({"error": self.code.as_str(), "error_description": self.description})
    }
}

impl std::fmt::Display for OAuthFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.description)
    }
}

impl std::error::Error for OAuthFailure {}

/// Shorthands used by the endpoints.
pub(super) fn invalid_request(d: impl Into<String>) -> OAuthFailure {
    OAuthFailure::new(OAuthErrorCode::InvalidRequest, d)
}

pub(super) fn invalid_grant(d: impl Into<String>) -> OAuthFailure {
    OAuthFailure::new(OAuthErrorCode::InvalidGrant, d)
}

pub(super) fn invalid_client(d: impl Into<String>) -> OAuthFailure {
    OAuthFailure::new(OAuthErrorCode::InvalidClient, d)
}

pub(super) fn server_error(d: impl Into<String>) -> OAuthFailure {
    OAuthFailure::new(OAuthErrorCode::ServerError, d)
}
