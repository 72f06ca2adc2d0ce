//! The records the proxy keeps in its [`ProxyStore`](super::ProxyStore): a registered client, a
//! pending authorization, an issued code, an access token and a refresh token, with the key
//! each is stored under. Secrets (client secrets, codes, tokens) are stored as their SHA-256.

use super::super::pkce::{random_token, s256};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A client registered with the proxy (RFC 7591).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct ClientRecord {
    pub client_id: String,
    /// SHA-256 of the secret; none for a public client (`token_endpoint_auth_method=none`).
    pub secret_hash: Option<String>,
    pub redirect_uris: Vec<String>,
    pub token_endpoint_auth_method: String,
    pub grant_types: Vec<String>,
    /// The scopes it registered (none: any the proxy offers).
    pub scope: Option<String>,
    pub client_name: Option<String>,
}

/// What the upstream granted, carried from the code to the tokens.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Grant {
    pub subject: Option<String>,
    /// What the upstream said about the user (the ID token's claims or the userinfo answer).
    pub claims: Value,
    pub upstream_access_token: String,
    pub upstream_refresh_token: Option<String>,
    /// Unix seconds, when the upstream said.
    pub upstream_expires_at: Option<u64>,
}

/// An authorization waiting for the user's consent or the upstream's callback.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Pending {
    pub client_id: String,
    pub redirect_uri: String,
    /// Whether the authorization request named the redirect URI (then the token request must).
    pub redirect_uri_given: bool,
    pub state: Option<String>,
    pub code_challenge: String,
    pub scopes: Vec<String>,
    pub resource: String,
    /// The proxy's own PKCE verifier for the upstream leg.
    pub upstream_verifier: String,
    /// The secret of the consent page, also set as a cookie on the user's browser.
    pub csrf: String,
    pub approved: bool,
}

/// A code the proxy issued to a client.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct CodeRecord {
    pub client_id: String,
    pub redirect_uri: String,
    pub redirect_uri_given: bool,
    pub code_challenge: String,
    pub scopes: Vec<String>,
    pub resource: String,
    pub grant: Grant,
}

/// An access token the proxy issued.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct AccessRecord {
    pub client_id: String,
    pub scopes: Vec<String>,
    pub resource: String,
    pub expires_at: u64,
    pub grant: Grant,
    /// Key of the refresh token issued with it.
    pub refresh_key: Option<String>,
}

/// A refresh token the proxy issued.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct RefreshRecord {
    pub client_id: String,
    pub scopes: Vec<String>,
    pub resource: String,
    pub grant: Grant,
    /// Key of the access token issued with it.
    pub access_key: String,
}

/// Store keys.
pub(super) fn client_key(id: &str) -> String {
    format!("oauth-proxy:client:{id}")
}
pub(super) fn pending_key(id: &str) -> String {
    format!("oauth-proxy:pending:{id}")
}
pub(super) fn code_key(code: &str) -> String {
    format!("oauth-proxy:code:{}", s256(code))
}
pub(super) fn access_key(token: &str) -> String {
    format!("oauth-proxy:at:{}", s256(token))
}
pub(super) fn refresh_key(token: &str) -> String {
    format!("oauth-proxy:rt:{}", s256(token))
}

/// A fresh secret (32 random bytes, base64url).
pub(super) fn fresh() -> String {
    random_token()
}

/// The stored form of a secret.
pub(super) fn secret_hash(secret: &str) -> String {
    s256(secret)
}

/// Compares two texts in time independent of where they differ.
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether `v` is a valid PKCE verifier or S256 challenge text: 43 to 128 characters of
/// `[A-Za-z0-9-._~]` (RFC 7636 §4.1, §4.2).
pub(super) fn pkce_text(v: &str) -> bool {
    (43..=128).contains(&v.len())
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}
