//! Checks of a request's head before it reaches a session: what it accepts, its Content-Type and
//! its MCP-Protocol-Version header.

use super::super::request::{self, Fields};
use super::headers::PROTOCOL_VERSION_HEADER;
use super::responses::rpc_error;
use crate::protocol::ProtocolVersion;
use crate::McpError;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

/// (accepts JSON, accepts SSE)
pub(super) fn accepts(h: &Fields) -> (bool, bool) {
    let mut json = false;
    let mut sse = false;
    for v in h.get_all("accept") {
        // What MCP clients send: both, with nothing to parse.
        if v == b"application/json, text/event-stream" {
            json = true;
            sse = true;
            continue;
        }
        let Ok(v) = std::str::from_utf8(v) else {
            continue;
        };
        for part in v.split(',') {
            let mt = part.split(';').next().unwrap_or("").trim();
            let is = |name: &str| mt.eq_ignore_ascii_case(name);
            if is("application/json") || is("application/*") {
                json = true;
            } else if is("text/event-stream") || is("text/*") {
                sse = true;
            } else if mt == "*/*" {
                json = true;
                sse = true;
            }
        }
    }
    (json, sse)
}

/// The `MCP-Protocol-Version` header, if any, when it names one of `supported` (400 otherwise).
pub(super) fn check_version_header(
    supported: &[ProtocolVersion],
    h: &Fields,
) -> Result<Option<ProtocolVersion>, Response> {
    let header = h
        .get(PROTOCOL_VERSION_HEADER)
        .map(|raw| (raw, super::super::per_request::parse_version_header(raw)));
    check_version_value(supported, header)
}

/// [`check_version_header`] for a header already looked up and parsed: its value and what
/// `per_request::parse_version_header` made of it (a POST reads its header once).
pub(super) fn check_version_value(
    supported: &[ProtocolVersion],
    header: Option<(&[u8], Option<ProtocolVersion>)>,
) -> Result<Option<ProtocolVersion>, Response> {
    match header {
        None => Ok(None),
        Some((raw, parsed)) => match parsed.filter(|v| supported.contains(v)) {
            Some(v) => Ok(Some(v)),
            None => {
                let s = request::visible_str(raw).unwrap_or("");
                Err(rpc_error(
                    StatusCode::BAD_REQUEST,
                    None,
                    McpError::invalid_request(format!("unsupported MCP-Protocol-Version: {s:?}"))
                        .with_data(json!({
                            "supported": supported.iter().map(|v| v.as_str()).collect::<Vec<_>>()
                        })),
                ))
            }
        },
    }
}

/// Requires a JSON body (`Content-Type: application/json`, parameters allowed; 415 otherwise).
pub(super) fn check_content_type(h: &Fields) -> Result<(), Response> {
    // What clients send, with nothing to parse; anything else takes the full check.
    if h.get("content-type") == Some(b"application/json") {
        return Ok(());
    }
    let ok = h.get_str("content-type").is_some_and(|ct| {
        ct.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/json")
    });
    if ok {
        Ok(())
    } else {
        Err(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            McpError::invalid_request("Content-Type must be application/json"),
        ))
    }
}
