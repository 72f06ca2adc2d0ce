//! The error-code table every binding maps to its own error classes, so no binding keeps a copy
//! of the codes: Python builds its `McpError` subclasses from it, Node its `ErrorCode` object,
//! Swift its `McpError` cases. It also names an error's [`ErrorKind`] for them
//! ([`kind_name`], [`error_json`]), so an error that crosses as JSON (a subscription's end, a
//! native error's message) keeps whether the peer answered with it or this side failed.

use ferromcp::error::codes;
use ferromcp::{ErrorKind, McpError};
use serde_json::{json, Value};

/// One named JSON-RPC / MCP error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorCode {
    /// The name bindings use for it (PascalCase, e.g. `InvalidParams`).
    pub name: &'static str,
    /// The JSON-RPC code.
    pub code: i32,
    /// What it means, one line.
    pub description: &'static str,
}

/// Every error code the engine produces or expects, by name.
pub const ERROR_CODES: &[ErrorCode] = &[
    ErrorCode {
        name: "ParseError",
        code: codes::PARSE_ERROR,
        description: "invalid JSON was received",
    },
    ErrorCode {
        name: "InvalidRequest",
        code: codes::INVALID_REQUEST,
        description: "not a valid JSON-RPC request",
    },
    ErrorCode {
        name: "MethodNotFound",
        code: codes::METHOD_NOT_FOUND,
        description: "unknown or not negotiated method",
    },
    ErrorCode {
        name: "InvalidParams",
        code: codes::INVALID_PARAMS,
        description: "invalid parameters (including schema validation failures)",
    },
    ErrorCode {
        name: "InternalError",
        code: codes::INTERNAL_ERROR,
        description: "internal error (also: a handler failed or panicked)",
    },
    ErrorCode {
        name: "ConnectionClosed",
        code: codes::CONNECTION_CLOSED,
        description: "the connection closed before an answer arrived (local)",
    },
    ErrorCode {
        name: "RequestTimeout",
        code: codes::REQUEST_TIMEOUT,
        description: "a request timed out (local)",
    },
    ErrorCode {
        name: "ResourceNotFound",
        code: codes::RESOURCE_NOT_FOUND,
        description: "the resource does not exist",
    },
    ErrorCode {
        name: "RateLimited",
        code: codes::RATE_LIMITED,
        description: "over a rate limit (data: retryAfter and window in seconds, limit)",
    },
    ErrorCode {
        name: "TransportError",
        code: codes::TRANSPORT_ERROR,
        description: "a transport failed: I/O, spawn, HTTP status (local)",
    },
    ErrorCode {
        name: "UnsupportedProtocolVersion",
        code: codes::UNSUPPORTED_PROTOCOL_VERSION,
        description: "a protocol version one side cannot speak (data: supported, requested)",
    },
    ErrorCode {
        name: "HeaderMismatch",
        code: codes::HEADER_MISMATCH,
        description: "2026-07-28: HTTP headers missing, malformed or not matching the body",
    },
    ErrorCode {
        name: "MissingRequiredClientCapability",
        code: codes::MISSING_CLIENT_CAPABILITY,
        description:
            "2026-07-28: serving the request needs a capability the client did not declare",
    },
    ErrorCode {
        name: "InputRequired",
        code: ferromcp::session::INPUT_REQUIRED,
        description:
            "a handler asks the client for input (local; answered as an input_required result)",
    },
    ErrorCode {
        name: "UrlElicitationRequired",
        code: codes::URL_ELICITATION_REQUIRED,
        description: "the server needs URL-mode elicitation to proceed",
    },
    ErrorCode {
        name: "RequestCancelled",
        code: codes::REQUEST_CANCELLED,
        description: "the request was cancelled by this side (local)",
    },
];

/// Whether an error a tool's handler failed with stays a JSON-RPC error, because the client must
/// act on it, rather than becoming an `isError` result the model reads (the spec's "tool
/// execution error"). The engine applies it to every foreign tool handler, so Python, Node and
/// Swift tools behave alike:
/// - URL elicitation required (`-32042`), in every revision;
/// - a 2026-07-28 input round (the local [`ferromcp::session::INPUT_REQUIRED`], which the engine
///   answers as an `input_required` result);
/// - a missing client capability (`-32021`) under 2026-07-28 (`per_request`), where the spec
///   makes it the request's answer. In the handshake era the code is only this engine's way of
///   telling a handler that the client lacks the capability: left uncaught, it is a tool
///   execution error whose text says so, since a 2025-era client knows no such code.
///
/// Every other failure, an `McpError` of any other code included, is a tool execution error, as
/// in the official SDKs.
pub fn is_tool_signal(code: i32, per_request: bool) -> bool {
    code == codes::URL_ELICITATION_REQUIRED
        || code == ferromcp::session::INPUT_REQUIRED
        || (per_request && code == codes::MISSING_CLIENT_CAPABILITY)
}

/// Whether an error with this code was made locally by a transport rather than answered by the
/// peer (connection closed, transport failure): bindings expose these as transport errors.
pub fn is_transport_code(code: i32) -> bool {
    code == codes::CONNECTION_CLOSED || code == codes::TRANSPORT_ERROR
}

/// The name every binding reads for an error's [`ErrorKind`]: `"rpc"` (the peer answered with
/// it, or this side answers with it: its code alone says what it is, a peer's -32000 included),
/// `"transport"`, `"closed"`, `"timeout"` or `"cancelled"` (this side's own failures). A kind
/// added later is named `"rpc"` until the bindings learn it.
pub fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Transport => "transport",
        ErrorKind::Closed => "closed",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Cancelled => "cancelled",
        _ => "rpc",
    }
}

/// An engine error as the JSON a binding decodes: `{code, message, data, kind}` (`data` is
/// `null` when the error has none; `kind` from [`kind_name`]). The error object on the wire
/// has no kind; this is the form that crosses into a binding, where the kind picks the class.
pub fn error_json(e: &McpError) -> Value {
    json!({
        "code": e.code,
        "message": e.message,
        "data": e.data,
        "kind": kind_name(e.kind()),
    })
}
