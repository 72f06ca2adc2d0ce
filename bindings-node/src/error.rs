//! Errors across the boundary. An engine [`McpError`] becomes a JavaScript error whose message is
//! a marker plus the error as JSON ([`ferromcp_embed::error_json`]: code, message, data and
//! kind); the facade (`ts/errors.ts`) turns it into an `McpError` with numeric `code` and
//! `data`, of the class the error's kind calls for (a peer's -32000 answer is not a closed
//! connection). A subscription's end carries the same JSON (`crate::listen`). JavaScript handler
//! failures come back inside the call envelope (see [`crate::handler`]), so no JavaScript
//! exception has to be parsed here.

use ferromcp::McpError;

/// The prefix of a native error's message that carries an engine error as JSON.
pub const MARKER: &str = "\u{1}ferromcp-error:";

/// An engine error as a napi error the facade can decode.
pub fn to_napi(e: McpError) -> napi::Error {
    let body = ferromcp_embed::error_json(&e);
    napi::Error::new(napi::Status::GenericFailure, format!("{MARKER}{body}"))
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
