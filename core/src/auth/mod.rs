//! OAuth 2.1 authorization for MCP clients (the 2025-11-25 and 2026-07-28 authorization pages):
//! on a 401 the HTTP client transport asks an [`OAuthClient`] to discover the server's Protected
//! Resource Metadata (RFC 9728) and authorization server (RFC 8414 / OpenID discovery), identify
//! the client (pre-registered, Client ID Metadata Document or dynamic registration), run the
//! authorization code flow with PKCE `S256` and the `resource` parameter (RFC 8707), check `iss`
//! (RFC 9207), and store the tokens; later 401s refresh, 403 `insufficient_scope` steps up.
//! On the server side, [`ResourceAuth`] protects an HTTP endpoint (bearer verification,
//! audience, scopes, Protected Resource Metadata), with built-in verifiers for JWT access tokens
//! ([`JwtVerifier`], keys from a JWKS) and token introspection ([`IntrospectionVerifier`]).
//! [`OAuthProxy`] is an authorization server fronting an upstream identity provider without
//! dynamic client registration (docs/oauth-proxy.md).

mod challenge;
mod error;
mod flow;
mod http;
mod introspect;
mod jwk;
mod jwt;
mod metadata;
mod pkce;
mod proxy_server;
mod redirect;
mod resource;
mod store;
mod url;

pub use challenge::BearerChallenge;
pub use error::AuthError;
pub use flow::{Grant, OAuthClient, OAuthConfig};
pub use introspect::IntrospectionVerifier;
pub use jwt::JwtVerifier;
pub use metadata::{ResourceMetadata, ServerMetadata};
#[cfg(feature = "redis")]
pub use proxy_server::RedisProxyStore;
pub use proxy_server::{
    ClientIdDocuments, MemoryProxyStore, OAuthErrorCode, OAuthFailure, OAuthProxy,
    OAuthProxyConfig, ProxyRequest, ProxyResponse, ProxyStore, Upstream, UpstreamAuthMethod,
};
pub use redirect::{AutoApprove, FnRedirect, LoopbackRedirect, RedirectHandler};
pub use resource::{AuthInfo, Denial, ResourceAuth, TokenVerifier};
pub use store::{ClientInfo, FileTokenStore, MemoryTokenStore, StoredAuth, TokenSet, TokenStore};
