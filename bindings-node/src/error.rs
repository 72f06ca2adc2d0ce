//! Errors across the boundary. An engine [`McpError`] becomes a JavaScript error whose message is
//! a marker plus the error as JSON; the facade (`ts/errors.ts`) turns it into an `McpError` with
//! numeric `code` and `data`, of the class the error's [`ErrorKind`] calls for (a peer's -32000
//! answer is not a closed connection). JavaScript handler failures come back inside the call envelope
//! (see [`crate::handler`]), so no JavaScript exception has to be parsed here.

use ferromcp::{ErrorKind, McpError};
use serde_json::json;

/// The prefix of a native error's message that carries an engine error as JSON.
pub const MARKER: &str = "\u{1}ferromcp-error:";

/// An engine error as a napi error the facade can decode.
pub fn to_napi(e: McpError) -> napi::Error {
    let body = json!({
        "code": e.code,
        "message": e.message,
        "data": e.data,
        "kind": kind_name(e.kind()),
    });
    napi::Error::new(napi::Status::GenericFailure, format!("{MARKER}{body}"))
}

/// The name the facade's `errorFromCode` reads for an error's kind.
fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Transport => "transport",
        ErrorKind::Closed => "closed",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Cancelled => "cancelled",
        // Rpc, and any kind added later: the code decides, except the local classes.
        _ => "rpc",
    }
}

/// A napi failure (a JavaScript exception in glue code, a closed threadsafe function) as an
/// engine error: internal, with napi's reason.
pub fn from_napi(e: napi::Error) -> McpError {
    McpError::internal(format!("JavaScript handler failed: {}", e.reason))
}

/// `Result<T, McpError>` into napi's result.
pub fn napi_result<T>(r: Result<T, McpError>) -> napi::Result<T> {
    r.map_err(to_napi)
}
