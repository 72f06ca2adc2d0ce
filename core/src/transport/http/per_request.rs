//! Streamable HTTP in the per-request era (2026-07-28): which POSTs belong to it, the request
//! metadata headers checked against the body, and the HTTP status of an answer.
//!
//! One endpoint serves both eras. A POST without `Mcp-Session-Id` whose `MCP-Protocol-Version`
//! names no handshake-era revision is a per-request-era POST: its one request is served on a
//! session opened for it alone (see [`crate::session::per_request`]): a bare engine session when
//! the answer is one JSON body (no HTTP session, no routing table), an HTTP session for the
//! POST's lifetime when it streams progress, logs or a subscription. Everything else (an
//! `initialize`, a session's traffic) keeps the handshake era's rules.

use super::request::{visible_str, Fields, Mcp};
use crate::protocol::ProtocolVersion;
use crate::session::per_request::{header_mismatch, meta_version};
use crate::session::{RequestMeta, SharedMeta};
use crate::McpError;
use axum::http::StatusCode;
use serde_json::Value;
use std::borrow::Cow;

/// Header naming the JSON-RPC method of the body.
pub const METHOD_HEADER: &str = "mcp-method";
/// Header naming the tool or prompt (`params.name`) or resource (`params.uri`) of the body.
pub const NAME_HEADER: &str = "mcp-name";

/// The headers a per-request-era client sends with `body` (one JSON-RPC message): the
/// revision its `_meta` names as `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` for
/// `tools/call` and `prompts/get` (`params.name`), `resources/read` (`params.uri`) and the tasks
/// extension's `tasks/get`, `tasks/update` and `tasks/cancel` (`params.taskId`), Base64-encoded
/// when not header-safe. Empty for
/// a handshake-era message (no `_meta` revision), whose headers the session supplies.
pub(crate) fn client_headers(body: &Value) -> Vec<(&'static str, String)> {
    let params = body.get("params");
    let Some(version) = meta_version(params) else {
        return Vec::new();
    };
    let mut out = vec![(super::PROTOCOL_VERSION_HEADER, version.to_string())];
    if let Some(method) = body.get("method").and_then(Value::as_str) {
        out.push((METHOD_HEADER, method.to_string()));
        let name = match method {
            "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
            "resources/read" => params.and_then(|p| p.get("uri")),
            m if is_task_method(m) => params.and_then(|p| p.get("taskId")),
            _ => None,
        };
        if let Some(n) = name.and_then(Value::as_str) {
            out.push((NAME_HEADER, crate::server::encode_header_value(n)));
        }
    }
    out
}

/// The revision a protocol version header's value `raw` names (`None` when it names none).
pub(super) fn parse_version_header(raw: &[u8]) -> Option<ProtocolVersion> {
    visible_str(raw).and_then(ProtocolVersion::parse)
}

/// Whether a POST with no session id whose protocol version header is `parsed` belongs to the
/// per-request era: the header names a per-request revision, or something that is no
/// handshake-era revision at all (answered with `UnsupportedProtocolVersionError`). `parsed`
/// is `None` without the header, otherwise what [`parse_version_header`] made of its value (so
/// a POST's header is parsed once).
pub(super) fn is_per_request_version(parsed: Option<Option<ProtocolVersion>>) -> bool {
    match parsed {
        None => false,
        Some(Some(v)) => v.is_per_request(),
        Some(None) => true,
    }
}

/// Whether `params` (of a POST that is neither per-request era nor in a session) carry a
/// per-request-era `_meta`: a modern client that left out the protocol version header.
pub(super) fn names_meta_version(params: Option<&Value>) -> bool {
    meta_version(params).is_some()
}

/// Whether `method` is one of the tasks extension's methods that name a task
/// (`tasks/get`, `tasks/update`, `tasks/cancel`): their `Mcp-Name` is `params.taskId`.
fn is_task_method(method: &str) -> bool {
    matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
}

/// Checks one per-request-era request of `server` (`method` with `params`) against the POST's
/// headers, and reads its `_meta`.
///
/// The protocol version header must equal `_meta`'s version, `Mcp-Method` the method, for
/// `tools/call`, `prompts/get` and `resources/read` `Mcp-Name` the name or URI (decoded when
/// Base64-encoded), and so must it the task id of the tasks extension's `tasks/get`,
/// `tasks/update` and `tasks/cancel` when the server serves that extension, and the `Mcp-Param-*` headers of a tool's `x-mcp-header` parameters their
/// arguments: otherwise `HeaderMismatchError` (`-32020`). `_meta` itself is checked by
/// [`RequestMeta::read`] (`-32602`, `-32022`).
///
/// `version_header` is the POST's `MCP-Protocol-Version` value, which the caller has looked up.
pub(super) fn check(
    headers: &Fields,
    version_header: Option<&[u8]>,
    server: &crate::server::Server,
    method: &str,
    params: Option<&Value>,
) -> Result<RequestMeta, McpError> {
    let name = name_of(method, params);
    let meta = params.and_then(|p| p.get("_meta"));
    if method == "tools/call" {
        let arguments = params.and_then(|p| p.get("arguments"));
        let meta = meta.map(|m| SharedMeta::new(m.clone()));
        return check_tool_call(
            headers,
            version_header,
            server,
            name,
            meta.as_ref(),
            arguments,
        );
    }
    // A task method without a string `taskId` is refused by its handler (`-32602`).
    let named = matches!(method, "prompts/get" | "resources/read")
        || (is_task_method(method) && server.options().tasks_extension && name.is_some());
    let supported = &server.options().session.supported_versions;
    check_meta(
        headers,
        version_header,
        method,
        named.then_some(name),
        meta,
        RequestMeta::read(meta, supported),
    )
}

/// [`check`] for a `tools/call` whose params were read apart: its `name` (`None` when not a
/// string), `_meta` and `arguments` members.
pub(super) fn check_tool_call(
    headers: &Fields,
    version_header: Option<&[u8]>,
    server: &crate::server::Server,
    name: Option<&str>,
    meta: Option<&SharedMeta>,
    arguments: Option<&Value>,
) -> Result<RequestMeta, McpError> {
    let supported = &server.options().session.supported_versions;
    let read = check_meta(
        headers,
        version_header,
        "tools/call",
        Some(name),
        meta.map(SharedMeta::value),
        RequestMeta::read_shared(meta, supported),
    )?;
    if let Some(tool) = name.and_then(|n| server.tool_header_params(n)) {
        check_param_headers(headers, &tool, arguments)?;
    }
    Ok(read)
}

/// [`check`] without the tool parameters. `name` is `Some` for a method whose `Mcp-Name` is
/// required, holding the body's value for it (`None` inside when that is not a string); `read`
/// is what [`RequestMeta::read`] made of `meta`.
fn check_meta(
    headers: &Fields,
    version_header: Option<&[u8]>,
    method: &str,
    name: Option<Option<&str>>,
    meta: Option<&Value>,
    read: Result<RequestMeta, McpError>,
) -> Result<RequestMeta, McpError> {
    let (method_header, name_header) = (headers.get_mcp(Mcp::Method), headers.get_mcp(Mcp::Name));
    let Some(header_version) = version_header else {
        return Err(header_mismatch(
            "the MCP-Protocol-Version header is required",
        ));
    };
    // A malformed `_meta` first; then a version that differs from the header is a mismatch
    // before it is an unsupported one.
    if matches!(&read, Err(e) if e.code == crate::error::codes::INVALID_PARAMS) {
        return read;
    }
    let header_version = match &read {
        // The common case, without looking at each byte: equal to the version read.
        Ok(m) if header_version == m.version.as_str().as_bytes() => m.version.as_str(),
        _ => visible_str(header_version).unwrap_or(""),
    };
    let body_version = match &read {
        // An accepted `_meta` names the version it was read as.
        Ok(m) => Some(m.version.as_str()),
        Err(_) => meta
            .and_then(|m| m.get(crate::session::per_request::META_PROTOCOL_VERSION))
            .and_then(Value::as_str),
    };
    if body_version != Some(header_version) {
        return Err(header_mismatch(format!(
            "MCP-Protocol-Version header {header_version:?} does not match the body's {:?}",
            body_version.unwrap_or("")
        )));
    }
    let meta = read?;
    match method_header.map(visible_str) {
        None => return Err(header_mismatch("the Mcp-Method header is required")),
        Some(Some(m)) if m == method => {}
        Some(m) => {
            return Err(header_mismatch(format!(
                "Mcp-Method header value {:?} does not match body value {method:?}",
                m.unwrap_or("(not visible ASCII)")
            )))
        }
    }
    if let Some(name) = name {
        let Some(raw) = name_header else {
            return Err(header_mismatch("the Mcp-Name header is required"));
        };
        let value = visible_str(raw).and_then(decode_borrowed);
        if value.as_deref() != name || name.is_none() {
            return Err(header_mismatch(format!(
                "Mcp-Name header value {:?} does not match body value {:?}",
                value.as_deref().unwrap_or("(invalid)"),
                name.unwrap_or("(none)")
            )));
        }
    }
    Ok(meta)
}

/// The value a header carries: as it is, or decoded from the `=?base64?...?=` sentinel form
/// (`None` when that form does not hold valid Base64 of UTF-8).
pub fn decode_value(raw: &str) -> Option<String> {
    decode_borrowed(raw).map(Cow::into_owned)
}

/// [`decode_value`] without copying a value that is not encoded (what the per-call header
/// checks use).
fn decode_borrowed(raw: &str) -> Option<Cow<'_, str>> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(base64_decode(encoded)?)
            .ok()
            .map(Cow::Owned),
        None => Some(Cow::Borrowed(raw)),
    }
}

/// Checks the `Mcp-Param-{Name}` headers of a `tools/call` against its `arguments`: every
/// parameter with a value must have its header, equal to the value once decoded (numbers
/// compare as numbers); otherwise `HeaderMismatchError` (`-32020`).
fn check_param_headers(
    headers: &Fields,
    params: &[crate::server::HeaderParam],
    arguments: Option<&Value>,
) -> Result<(), McpError> {
    for p in params {
        let Some(value) = p.value_in(arguments) else {
            continue;
        };
        let header = format!("mcp-param-{}", p.name.to_ascii_lowercase());
        let Some(raw) = headers.get(&header) else {
            return Err(header_mismatch(format!(
                "the Mcp-Param-{} header is required: the body has a value for it",
                p.name
            )));
        };
        let Some(got) = visible_str(raw).and_then(decode_borrowed) else {
            return Err(header_mismatch(format!(
                "Mcp-Param-{} header value is not valid (characters or Base64)",
                p.name
            )));
        };
        let same = match value {
            Value::String(s) => *s == got,
            Value::Bool(b) => got == if *b { "true" } else { "false" },
            Value::Number(n) => got
                .parse::<f64>()
                .ok()
                .zip(n.as_f64())
                .is_some_and(|(a, b)| a == b),
            _ => false,
        };
        if !same {
            return Err(header_mismatch(format!(
                "Mcp-Param-{} header value {got:?} does not match body value {value}",
                p.name
            )));
        }
    }
    Ok(())
}

/// Standard Base64 (RFC 4648, with its padding) to bytes; `None` on any other character or a
/// wrong length or padding.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}

/// The value a request's `Mcp-Name` must mirror: `params.name` (tools, prompts),
/// `params.uri` (resources) or `params.taskId` (the tasks extension's methods).
fn name_of<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        m if is_task_method(m) => "taskId",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

/// Whether a per-request-era request asked for messages besides its answer (progress or logs),
/// which need an SSE response; otherwise the answer goes as one JSON body (a `_meta` read on the
/// typed lane knows it already: [`SharedMeta::wants_stream`]).
pub(super) fn wants_stream(meta: Option<&Value>) -> bool {
    meta.is_some_and(|m| {
        m.get("progressToken").is_some()
            || m.get(crate::session::per_request::META_LOG_LEVEL)
                .is_some_and(|l| !l.is_null())
    })
}

/// The HTTP status of a per-request-era error answer with `code`: 404 for an unknown method,
/// 400 for the era's protocol errors, 200 otherwise.
pub(super) fn error_status(code: i32) -> StatusCode {
    use crate::error::codes;
    match code {
        codes::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        codes::HEADER_MISMATCH
        | codes::MISSING_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_base64_sentinel() {
        assert_eq!(decode_value("plain").as_deref(), Some("plain"));
        assert_eq!(
            decode_value("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode_value("=?base64?****?="), None);
        // Padding is required; text without the whole sentinel is literal.
        assert_eq!(decode_value("=?base64?SGVsbG8?="), None);
        assert_eq!(
            decode_value("=?base64?SGVsbG8=?=").as_deref(),
            Some("Hello")
        );
        assert_eq!(
            decode_value("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
    }

    #[test]
    fn era_of_a_post() {
        let era = |raw: Option<&[u8]>| is_per_request_version(raw.map(parse_version_header));
        assert!(!era(None));
        assert!(!era(Some(b"2025-11-25")));
        assert!(era(Some(b"2026-07-28")));
        assert!(era(Some(b"v999.0.0")));
    }
}
