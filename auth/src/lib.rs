//! # ferromcp-auth
//!
//! OAuth 2.1 authorization for MCP clients and servers (the 2025-11-25 and 2026-07-28
//! authorization pages), below the `ferromcp` engine, which re-exports this crate as
//! `ferromcp::auth` (every path as it always was) and hands it to its HTTP transports.
//!
//! On a 401 the HTTP client transport asks an [`OAuthClient`] to discover the server's Protected
//! Resource Metadata (RFC 9728) and authorization server (RFC 8414 / OpenID discovery), identify
//! the client (pre-registered, Client ID Metadata Document or dynamic registration), run the
//! authorization code flow with PKCE `S256` and the `resource` parameter (RFC 8707), check `iss`
//! (RFC 9207), and store the tokens; later 401s refresh, 403 `insufficient_scope` steps up.
//! On the server side, [`ResourceAuth`] protects an HTTP endpoint (bearer verification,
//! audience, scopes, Protected Resource Metadata), with built-in verifiers for JWT access tokens
//! ([`JwtVerifier`], keys from a JWKS) and token introspection ([`IntrospectionVerifier`]).
//! [`OAuthProxy`] is an authorization server fronting an upstream identity provider without
//! dynamic client registration (docs/oauth-proxy.md).
//!
//! A crate of its own for two reasons: the compiler keeps it below the engine (it depends on
//! `ferromcp-protocol` only, never on `ferromcp`, so it cannot name a session, the server, a
//! transport or the client), and a served call runs none of it except a protected server's
//! bearer-token check, so a size-optimized build can compile it for size
//! (`[profile.dist.package]` of the workspace's Cargo.toml) while the engine is compiled for speed.
//!
//! Items marked `#[doc(hidden)]` (the module `tls`) are the engine's seams into this crate: not an API,
//! they may change in any release.

#![warn(missing_docs)]

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
// HTTPS for every outgoing connection: this crate's (metadata, tokens, JWKS, introspection)
// and the engine's (its HTTP client transports, the OTLP exporter), which uses it from here.
#[doc(hidden)]
pub mod tls;
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
