//! The header names of the MCP HTTP transport, shared by every module of the server.

use axum::http::HeaderName;

/// Header carrying the session id.
pub const SESSION_ID_HEADER: &str = "mcp-session-id";
/// Header carrying the negotiated protocol revision.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// [`SESSION_ID_HEADER`] as a header name, built at compile time.
pub(super) const SESSION_ID_NAME: HeaderName = HeaderName::from_static(SESSION_ID_HEADER);
