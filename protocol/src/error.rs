//! The one error type of the engine.
//!
//! Every failure that can cross the engine's boundary — a JSON-RPC error from a peer, a protocol
//! violation we detect, a transport that closed, a timeout — is an [`McpError`] carrying a JSON-RPC
//! code, a message and optional `data`, plus what happened ([`ErrorKind`]: a JSON-RPC error
//! object, or a transport failure, a closed connection, a timeout, a cancellation on this side)
//! and, where there is one, the underlying error ([`std::error::Error::source`]). Bindings map it
//! to their host language's exception type by code, so the set of codes below is part of the
//! public contract.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

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

/// What happened, for an [`McpError`]: read it with [`McpError::kind`].
///
/// The JSON-RPC code alone cannot say this: JSON-RPC leaves -32000..=-32099 to
/// implementations, so a peer may answer with -32000 or -32001 itself, the codes the engine
/// uses for a closed connection and a timeout on this side. The kind tells them apart; the code
/// ([`McpError::code`]) is still there for every kind, and is what the engine would put on the
/// wire if the error were answered to a peer.
///
/// ```
/// use ferromcp_protocol::{codes, ErrorKind, McpError};
///
/// // A peer's answer, parsed from the wire, is an `Rpc` error whatever its code.
/// let from_peer: McpError =
///     serde_json::from_str(r#"{"code": -32000, "message": "backend unavailable"}"#).unwrap();
/// assert_eq!(from_peer.kind(), ErrorKind::Rpc);
/// assert_eq!(from_peer.code, codes::CONNECTION_CLOSED);
///
/// // The engine's own closed connection has the same code, and another kind.
/// let local = McpError::connection_closed("peer closed the connection");
/// assert_eq!(local.kind(), ErrorKind::Closed);
/// assert_ne!(from_peer, local);
///
/// // New kinds may be added: a `match` needs a `_` arm.
/// let retry = match local.kind() {
///     ErrorKind::Closed | ErrorKind::Transport => true,
///     ErrorKind::Rpc | ErrorKind::Timeout | ErrorKind::Cancelled => false,
///     _ => false,
/// };
/// assert!(retry);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A JSON-RPC error object: as the result of a request, the error the peer answered with
    /// (its code, message and `data` unchanged); made on this side ([`McpError::new`],
    /// [`McpError::invalid_params`], ...), the error a handler or the engine answers with, or
    /// a request the engine refused before sending it.
    #[default]
    Rpc,
    /// Bytes could not be exchanged with the peer: an I/O error, a connection refused, TLS, an
    /// HTTP status that is not an MCP answer, a child process that would not start. The
    /// underlying error, when there is one, is [`std::error::Error::source`]. Code
    /// [`codes::TRANSPORT_ERROR`] (-32010).
    Transport,
    /// The connection or session closed before the answer arrived (the peer hung up, the
    /// process serving it exited, or this side closed it). When the transport reported an
    /// error, it is the source. Code [`codes::CONNECTION_CLOSED`] (-32000).
    Closed,
    /// The request ran past its timeout; the engine cancelled it on the peer. Code
    /// [`codes::REQUEST_TIMEOUT`] (-32001).
    Timeout,
    /// This side cancelled the request (its cancellation token, a handler that was cancelled).
    /// Code [`codes::REQUEST_CANCELLED`] (-32800).
    Cancelled,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Rpc => "JSON-RPC error",
            ErrorKind::Transport => "transport error",
            ErrorKind::Closed => "connection closed",
            ErrorKind::Timeout => "request timed out",
            ErrorKind::Cancelled => "request cancelled",
        })
    }
}

/// The underlying error kept by an [`McpError`] (shared, so the error stays `Clone`).
type Source = Arc<dyn StdError + Send + Sync + 'static>;

/// An error with a JSON-RPC code, a human-readable message and optional structured `data`,
/// what happened ([`McpError::kind`]) and the underlying error, if any
/// ([`std::error::Error::source`]).
///
/// It is both the wire-level JSON-RPC error object (it serializes to `{code, message, data}`;
/// the kind and the source stay on this side) and the engine's error type: what a handler
/// returns, and what a client's request returns.
///
/// ```
/// use ferromcp_protocol::{codes, ErrorKind, McpError};
/// use serde_json::json;
///
/// let err = McpError::invalid_params("`city` is required").with_data(json!({ "field": "city" }));
/// assert_eq!(err.code, codes::INVALID_PARAMS);
/// assert_eq!(err.kind(), ErrorKind::Rpc);
/// assert_eq!(err.to_string(), "MCP error -32602: `city` is required");
/// // On the wire it is the JSON-RPC error object.
/// assert_eq!(
///     serde_json::to_value(&err).unwrap(),
///     json!({ "code": -32602, "message": "`city` is required", "data": { "field": "city" } })
/// );
/// ```
///
/// Two errors are equal when their kind, code, message and `data` are; the source is not
/// compared.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct McpError {
    /// The JSON-RPC code (see [`codes`]): the peer's for an [`ErrorKind::Rpc`] error it sent,
    /// the engine's code for the kind otherwise.
    pub code: i32,
    /// A short description of the error.
    pub message: String,
    /// Additional information about the error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// What happened (never on the wire: a parsed error object is [`ErrorKind::Rpc`]).
    #[serde(skip)]
    kind: ErrorKind,
    /// The underlying error (never on the wire).
    #[serde(skip)]
    source: Option<Source>,
    /// Made by [`McpError::handler_exception`] (never on the wire).
    #[serde(skip)]
    exception: bool,
}

impl PartialEq for McpError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.code == other.code
            && self.message == other.message
            && self.data == other.data
            && self.exception == other.exception
    }
}

impl McpError {
    /// A JSON-RPC error ([`ErrorKind::Rpc`]) with the given code and message.
    ///
    /// ```
    /// use ferromcp_protocol::McpError;
    ///
    /// // An application-defined code (JSON-RPC reserves -32768..=-32000 for itself).
    /// let err = McpError::new(42, "quota exceeded");
    /// assert_eq!((err.code, err.message.as_str(), err.data), (42, "quota exceeded", None));
    /// ```
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self::of_kind(ErrorKind::Rpc, code, message)
    }

    fn of_kind(kind: ErrorKind, code: i32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            kind,
            source: None,
            exception: false,
        }
    }

    /// What happened: a JSON-RPC error object, or one of the failures on this side (transport,
    /// closed, timeout, cancelled). See [`ErrorKind`].
    ///
    /// ```
    /// use ferromcp_protocol::{ErrorKind, McpError};
    ///
    /// assert_eq!(McpError::method_not_found("x").kind(), ErrorKind::Rpc);
    /// assert_eq!(McpError::timeout("tools/call timed out").kind(), ErrorKind::Timeout);
    /// assert_eq!(McpError::cancelled(None).kind(), ErrorKind::Cancelled);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// -32603 for an exception a foreign handler raised that is not an MCP error (a Python
    /// `RuntimeError`, a JavaScript `Error`, a Swift error that is not `McpError`), as a binding
    /// passes it to the engine. A tool's is a tool execution error (`isError`), inside a task of
    /// the tasks extension as well; there, an error of any other kind (an `McpError` the handler
    /// raised, as a Rust handler's `Err`) ends the task `failed` with that JSON-RPC error.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, McpError};
    ///
    /// let err = McpError::handler_exception("RuntimeError: disk full");
    /// assert!(err.is_handler_exception());
    /// assert_eq!(err.code, codes::INTERNAL_ERROR);
    /// assert!(!McpError::internal("disk full").is_handler_exception());
    /// ```
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

    /// Keeps `source` as the underlying error, returned by [`std::error::Error::source`]
    /// (the kind, code and message do not change).
    ///
    /// ```
    /// use ferromcp_protocol::{ErrorKind, McpError};
    /// use std::error::Error;
    /// use std::io;
    ///
    /// let io = io::Error::new(io::ErrorKind::PermissionDenied, "no access to ./server");
    /// let err = McpError::transport("failed to start `./server`").with_source(io);
    /// assert_eq!(err.kind(), ErrorKind::Transport);
    /// let source = err.source().unwrap().downcast_ref::<io::Error>().unwrap();
    /// assert_eq!(source.kind(), io::ErrorKind::PermissionDenied);
    /// ```
    pub fn with_source(mut self, source: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        self.source = Some(Arc::from(source.into()));
        self
    }

    /// -32700: the bytes received were not valid JSON.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, McpError};
    ///
    /// let err = McpError::parse_error("expected value at line 1 column 1");
    /// assert_eq!((err.code, err.message.as_str()), (codes::PARSE_ERROR, "Parse error"));
    /// assert_eq!(err.data.unwrap(), "expected value at line 1 column 1");
    /// ```
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
    ///
    /// ```
    /// use ferromcp_protocol::{codes, McpError};
    ///
    /// let err = McpError::resource_not_found("file:///missing.txt");
    /// assert_eq!(err.code, codes::RESOURCE_NOT_FOUND);
    /// assert_eq!(err.data.unwrap()["uri"], "file:///missing.txt");
    /// ```
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(
            codes::RESOURCE_NOT_FOUND,
            format!("Resource not found: {uri}"),
        )
        .with_data(serde_json::json!({ "uri": uri }))
    }

    /// [`ErrorKind::Closed`] (code -32000): the connection closed before the operation
    /// completed.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, ErrorKind, McpError};
    ///
    /// let err = McpError::connection_closed("session closed");
    /// assert_eq!((err.kind(), err.code), (ErrorKind::Closed, codes::CONNECTION_CLOSED));
    /// ```
    pub fn connection_closed(detail: impl Into<String>) -> Self {
        Self::of_kind(ErrorKind::Closed, codes::CONNECTION_CLOSED, detail)
    }

    /// [`ErrorKind::Timeout`] (code -32001): a request ran past its timeout.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, ErrorKind, McpError};
    ///
    /// let err = McpError::timeout("tools/call timed out after 30000 ms");
    /// assert_eq!((err.kind(), err.code), (ErrorKind::Timeout, codes::REQUEST_TIMEOUT));
    /// ```
    pub fn timeout(detail: impl Into<String>) -> Self {
        Self::of_kind(ErrorKind::Timeout, codes::REQUEST_TIMEOUT, detail)
    }

    /// [`ErrorKind::Cancelled`] (code -32800): the request was cancelled on this side.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, ErrorKind, McpError};
    ///
    /// let err = McpError::cancelled(None);
    /// assert_eq!((err.kind(), err.code), (ErrorKind::Cancelled, codes::REQUEST_CANCELLED));
    /// assert_eq!(err.message, "Request cancelled");
    /// assert_eq!(McpError::cancelled(Some("user pressed stop")).message, "user pressed stop");
    /// ```
    pub fn cancelled(reason: Option<&str>) -> Self {
        Self::of_kind(
            ErrorKind::Cancelled,
            codes::REQUEST_CANCELLED,
            reason.unwrap_or("Request cancelled"),
        )
    }

    /// [`ErrorKind::Transport`] (code -32010): a transport failed. Keep the underlying error
    /// with [`McpError::with_source`]; an [`std::io::Error`] converts with `?` and is kept.
    ///
    /// ```
    /// use ferromcp_protocol::{codes, ErrorKind, McpError};
    /// use std::error::Error;
    ///
    /// fn read_config() -> Result<String, McpError> {
    ///     Ok(std::fs::read_to_string("/nonexistent/ferromcp.json")?)
    /// }
    /// let err = read_config().unwrap_err();
    /// assert_eq!((err.kind(), err.code), (ErrorKind::Transport, codes::TRANSPORT_ERROR));
    /// let io = err.source().unwrap().downcast_ref::<std::io::Error>().unwrap();
    /// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    /// ```
    pub fn transport(detail: impl fmt::Display) -> Self {
        Self::of_kind(
            ErrorKind::Transport,
            codes::TRANSPORT_ERROR,
            format!("Transport error: {detail}"),
        )
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP error {}: {}", self.code, self.message)
    }
}

impl StdError for McpError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl From<std::io::Error> for McpError {
    /// [`ErrorKind::Transport`], keeping the I/O error as the source.
    fn from(e: std::io::Error) -> Self {
        Self::transport(&e).with_source(e)
    }
}

/// Result type used throughout the engine.
pub type Result<T, E = McpError> = std::result::Result<T, E>;
