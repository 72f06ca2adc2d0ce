//! Discovery documents: Protected Resource Metadata (RFC 9728) of the MCP server and the
//! authorization server's metadata (RFC 8414 / OpenID Connect Discovery), fetched from the URLs
//! the spec lists, in its order.

use super::http::AuthHttp;
use super::url::{resource_metadata_urls, server_metadata_urls};
use super::AuthError;
use serde::{Deserialize, Serialize};

/// Protected Resource Metadata (RFC 9728) of an MCP server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceMetadata {
    /// The resource identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The authorization servers (issuer URLs) that issue tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414; OpenID Connect Discovery documents also parse).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerMetadata {
    /// The issuer identifier.
    pub issuer: String,
    /// Where the user authorizes.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration (RFC 7591), when offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Scopes the server knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// PKCE methods (MCP requires `S256`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Client authentication methods at the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Grant types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// Whether URL client ids (Client ID Metadata Documents) are accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether authorization responses carry `iss` (RFC 9207).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
}

impl ServerMetadata {
    /// Whether PKCE `S256` is advertised.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
    }
}

/// Fetches the MCP server's Protected Resource Metadata: the `WWW-Authenticate` URL when given,
/// then the well-known URLs. Returns the document and the URL it came from.
pub(crate) async fn discover_resource(
    http: &AuthHttp,
    server: &str,
    header_url: Option<&str>,
) -> Result<(ResourceMetadata, String), AuthError> {
    let mut urls: Vec<String> = header_url.map(str::to_string).into_iter().collect();
    for u in resource_metadata_urls(server)? {
        if !urls.contains(&u) {
            urls.push(u);
        }
    }
    let mut tried = Vec::new();
    for url in urls {
        tried.push(url.clone());
        let answer = match http.get(&url).await {
            Ok(a) => a,
            Err(e) => {
                tracing::debug!(error = %e, "protected resource metadata request failed");
                continue;
            }
        };
        if !answer.status.is_success() {
            continue;
        }
        let doc: ResourceMetadata =
            serde_json::from_value(answer.json(&url)?).map_err(|e| AuthError::InvalidMetadata {
                url: url.clone(),
                detail: e.to_string(),
            })?;
        if doc.authorization_servers.is_empty() {
            return Err(AuthError::InvalidMetadata {
                url,
                detail: "authorization_servers is empty".into(),
            });
        }
        return Ok((doc, url));
    }
    Err(AuthError::NoResourceMetadata { tried })
}

/// Fetches an authorization server's metadata from the URLs the spec lists for `issuer`.
pub(crate) async fn discover_server(
    http: &AuthHttp,
    issuer: &str,
) -> Result<ServerMetadata, AuthError> {
    discover_server_checked(http, issuer, true).await
}

/// A 2025-03-26 server (no resource metadata): the authorization server is the MCP server's
/// origin; its RFC 8414 document may name another issuer, and without a document the default
/// endpoints `/authorize`, `/token` and `/register` at the origin are used.
pub(crate) async fn discover_legacy_server(
    http: &AuthHttp,
    origin: &str,
) -> Result<ServerMetadata, AuthError> {
    match discover_server_checked(http, origin, false).await {
        Err(AuthError::NoServerMetadata { .. }) => Ok(ServerMetadata {
            issuer: origin.to_string(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            ..Default::default()
        }),
        other => other,
    }
}

async fn discover_server_checked(
    http: &AuthHttp,
    issuer: &str,
    check_issuer: bool,
) -> Result<ServerMetadata, AuthError> {
    let mut tried = Vec::new();
    for url in server_metadata_urls(issuer)? {
        tried.push(url.clone());
        let answer = match http.get(&url).await {
            Ok(a) => a,
            Err(e) => {
                tracing::debug!(error = %e, "authorization server metadata request failed");
                continue;
            }
        };
        if !answer.status.is_success() {
            continue;
        }
        let doc: ServerMetadata =
            serde_json::from_value(answer.json(&url)?).map_err(|e| AuthError::InvalidMetadata {
                url: url.clone(),
                detail: e.to_string(),
            })?;
        if check_issuer && doc.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(AuthError::InvalidMetadata {
                url,
                detail: format!(
                    "issuer {:?} is not the authorization server {issuer:?}",
                    doc.issuer
                ),
            });
        }
        return Ok(doc);
    }
    Err(AuthError::NoServerMetadata {
        issuer: issuer.to_string(),
        tried,
    })
}
