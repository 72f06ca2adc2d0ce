//! The one error type of the engine.
//!
//! Every failure that can cross the engine's boundary — a JSON-RPC error from a peer, a protocol
//! violation we detect, a transport that closed, a timeout — is an [`McpError`] carrying a JSON-RPC
//! code, a message and optional `data`. Bindings map it to their host language's exception type by
//! code, so the set of codes below is part of the public contract.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// JSON-RPC and MCP error codes used by the engine.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available (also: not negotiated).
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal error (also: a handler panicked).
    pub const INTERNAL_ERROR: i32 = -32603;
    /// The connection to the peer closed before an answer arrived (engine-local, never sent).
    pub const CONNECTION_CLOSED: i32 = -32000;
    /// A request timed out (engine-local, never sent).
    pub const REQUEST_TIMEOUT: i32 = -32001;
    /// A resource was not found (MCP convention).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// The request was cancelled by this side (engine-local, never sent).
    pub const REQUEST_CANCELLED: i32 = -32800;
    /// The server requires URL-mode elicitation to proceed (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// The request was refused because its sender is over a rate limit (the seed API
    /// reference's "Rate limited"; `data: {retryAfter, limit, window}`, seconds).
    pub const RATE_LIMITED: i32 = -32004;
    /// A transport failed (I/O error, spawn failure, HTTP status) (engine-local, never sent).
    pub const TRANSPORT_ERROR: i32 = -32010;
    /// A protocol version that one side cannot speak: the peer negotiated one this client does
    /// not speak, or a request named one this server does not serve. The same code as the
    /// 2026-07-28 `UnsupportedProtocolVersionError`, so every binding has one error for both.
    pub const UNSUPPORTED_VERSION: i32 = UNSUPPORTED_PROTOCOL_VERSION;
    /// 2026-07-28: HTTP headers do not match the body, or a required header is missing or
    /// malformed (`HeaderMismatchError`; HTTP 400).
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: serving the request needs a capability the client did not declare in its
    /// `_meta` (`MissingRequiredClientCapabilityError`; HTTP 400).
    pub const MISSING_CLIENT_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the request's protocol version is unknown or not served here
    /// (`UnsupportedProtocolVersionError`; HTTP 400).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

/// An error with a JSON-RPC code, a human-readable message and optional structured `data`.
///
/// This is both the wire-level JSON-RPC error object and the engine's error type.
///
/// ```
/// use ferromcp_protocol::{codes, McpError};
/// use serde_json::json;
///
/// let err = McpError::invalid_params("`city` is required").with_data(json!({ "field": "city" }));
/// assert_eq!(err.code, codes::INVALID_PARAMS);
/// assert_eq!(err.to_string(), "MCP error -32602: `city` is required");
/// // On the wire it is the JSON-RPC error object.
/// assert_eq!(
///     serde_json::to_value(&err).unwrap(),
///     json!({ "code": -32602, "message": "`city` is required", "data": { "field": "city" } })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McpError {
    /// The JSON-RPC error code (see [`codes`]).
    pub code: i32,
    /// A short description of the error.
    pub message: String,
    /// Additional information about the error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Made by [`McpError::handler_exception`] (never on the wire).
    #[serde(skip)]
    exception: bool,
}

impl McpError {
    /// An error with the given code and message.
    ///
    /// ```
    /// use ferromcp_protocol::McpError;
    ///
    /// // An application-defined code (JSON-RPC reserves -32768..=-32000 for itself).
    /// let err = McpError::new(42, "quota exceeded");
    /// assert_eq!((err.code, err.message.as_str(), err.data), (42, "quota exceeded", None));
    /// ```
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            exception: false,
        }
    }

    /// -32603 for an exception a foreign handler raised that is not an MCP error (a Python
    /// `RuntimeError`, a JavaScript `Error`, a Swift error that is not `McpError`), as a binding
    /// passes it to the engine. A tool's is a tool execution error (`isError`), inside a task of
    /// the tasks extension as well; there, an error of any other kind (an `McpError` the handler
    /// raised, as a Rust handler's `Err`) ends the task `failed` with that JSON-RPC error.
    pub fn handler_exception(message: impl Into<String>) -> Self {
        Self {
            exception: true,
            ..Self::internal(message)
        }
    }

    /// Whether this error stands for a foreign handler's exception
    /// ([`McpError::handler_exception`]).
    pub fn is_handler_exception(&self) -> bool {
        self.exception
    }

    /// Attaches `data` to the error.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the bytes received were not valid JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, "Parse error").with_data(Value::String(detail.to_string()))
    }

    /// -32600: the message is not a valid JSON-RPC request.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_REQUEST, "Invalid Request")
            .with_data(Value::String(detail.to_string()))
    }

    /// -32601: the method does not exist or was not negotiated.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, McpError};
    ///
    /// let err = McpError::method_not_found("tools/frobnicate");
    /// assert_eq!(err.code, codes::METHOD_NOT_FOUND);
    /// assert_eq!(err.data.unwrap()["method"], "tools/frobnicate");
    /// ```
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
        .with_data(serde_json::json!({ "method": method }))
    }

    /// -32602: the parameters are invalid.
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, detail)
    }

    /// -32603: something failed inside the engine or a handler.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, detail)
    }

    /// -32002: a resource does not exist.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(
            codes::RESOURCE_NOT_FOUND,
            format!("Resource not found: {uri}"),
        )
        .with_data(serde_json::json!({ "uri": uri }))
    }

    /// The connection closed before the operation completed.
    pub fn connection_closed(detail: impl Into<String>) -> Self {
        Self::new(codes::CONNECTION_CLOSED, detail)
    }

    /// A request ran past its timeout.
    pub fn timeout(detail: impl Into<String>) -> Self {
        Self::new(codes::REQUEST_TIMEOUT, detail)
    }

    /// The request was cancelled locally.
    pub fn cancelled(reason: Option<&str>) -> Self {
        Self::new(
            codes::REQUEST_CANCELLED,
            reason.unwrap_or("Request cancelled").to_string(),
        )
    }

    /// A transport failed.
    pub fn transport(detail: impl fmt::Display) -> Self {
        Self::new(codes::TRANSPORT_ERROR, format!("Transport error: {detail}"))
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for McpError {}

impl From<std::io::Error> for McpError {
    fn from(e: std::io::Error) -> Self {
        Self::transport(e)
    }
}

/// Result type used throughout the engine.
pub type Result<T, E = McpError> = std::result::Result<T, E>;
