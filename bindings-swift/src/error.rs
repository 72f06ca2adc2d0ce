//! Errors across the boundary: [`FfiError`] carries an engine `McpError` (code, message, JSON
//! `data`) to Swift, where the facade turns it into `McpError`, and carries a Swift handler's
//! failure back into the engine. It carries the error's [`ErrorKind`] too, so the facade tells
//! a peer's -32000 answer from a connection that closed.

use ferromcp::{ErrorKind, McpError};
use serde_json::Value;

/// An MCP / JSON-RPC error crossing the FFI in either direction.
#[derive(Debug, Clone, uniffi::Error)]
pub enum FfiError {
    /// An error with its JSON-RPC code; `data` is JSON text (absent when the error has none).
    Mcp {
        /// The JSON-RPC code.
        code: i32,
        /// The message.
        message: String,
        /// The `data` member as JSON text.
        data: Option<String>,
        /// Whether the peer answered with this error or the engine failed locally; a Swift
        /// handler's error is [`FfiErrorKind::Rpc`].
        kind: FfiErrorKind,
    },
}

/// [`ErrorKind`] across the FFI: an error the peer answered with, or the engine's own failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum FfiErrorKind {
    /// A JSON-RPC error object (the peer's answer, or one made on this side), whatever its code.
    Rpc,
    /// Bytes could not be exchanged with the peer.
    Transport,
    /// The connection closed before the answer arrived.
    Closed,
    /// The request ran past its timeout.
    Timeout,
    /// This side cancelled the request.
    Cancelled,
}

impl From<ErrorKind> for FfiErrorKind {
    fn from(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Transport => FfiErrorKind::Transport,
            ErrorKind::Closed => FfiErrorKind::Closed,
            ErrorKind::Timeout => FfiErrorKind::Timeout,
            ErrorKind::Cancelled => FfiErrorKind::Cancelled,
            // Rpc, and any kind added later.
            _ => FfiErrorKind::Rpc,
        }
    }
}

impl std::fmt::Display for FfiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let FfiError::Mcp { code, message, .. } = self;
        write!(f, "{message} ({code})")
    }
}

impl std::error::Error for FfiError {}

impl From<McpError> for FfiError {
    fn from(e: McpError) -> Self {
        FfiError::Mcp {
            code: e.code,
            kind: e.kind().into(),
            message: e.message,
            data: e.data.as_ref().map(json_text),
        }
    }
}

impl From<FfiError> for McpError {
    fn from(e: FfiError) -> Self {
        let FfiError::Mcp {
            code,
            message,
            data,
            ..
        } = e;
        let mut err = McpError::new(code, message);
        if let Some(d) = data {
            err.data = Some(serde_json::from_str(&d).unwrap_or(Value::String(d)));
        }
        err
    }
}

/// A Swift callback that failed in a way its signature does not declare (UniFFI reports it
/// here instead of panicking): an internal error for the peer.
impl From<uniffi::UnexpectedUniFFICallbackError> for FfiError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        McpError::internal(format!("Swift handler failed: {}", e.reason)).into()
    }
}

/// Parses JSON text from Swift; a bad text is invalid params naming `what`.
pub(crate) fn parse_json(what: &str, text: &str) -> Result<Value, McpError> {
    serde_json::from_str(text)
        .map_err(|e| McpError::invalid_params(format!("{what} is not valid JSON: {e}")))
}

/// Parses optional JSON text (absent or empty: `None`).
pub(crate) fn parse_opt_json(what: &str, text: Option<String>) -> Result<Option<Value>, McpError> {
    match text {
        Some(t) if !t.is_empty() => parse_json(what, &t).map(Some),
        _ => Ok(None),
    }
}

/// A value as compact JSON text for Swift. `serde_json::to_string` writes into one buffer sized
/// up front; `Value::to_string` (its `Display`) grows a `String` through the formatter from
/// empty, and those reallocations were a measurable share of the engine thread's time per
/// Swift handler call (bench/, the Swift-handler row: the buffers are freed on Swift's threads,
/// which makes glibc's allocator take its slow path).
pub(crate) fn json_text(v: &Value) -> String {
    serde_json::to_string(v).expect("a serde_json::Value always serializes")
}

/// Parses what a Swift handler answered; a bad text is the handler's fault (internal error).
pub(crate) fn parse_answer(text: &str) -> Result<Value, McpError> {
    serde_json::from_str(text)
        .map_err(|e| McpError::internal(format!("Swift handler answered invalid JSON: {e}")))
}
