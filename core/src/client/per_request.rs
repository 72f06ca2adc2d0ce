//! The client side of the per-request era (2026-07-28): no `initialize`; the client probes
//! `server/discover`, then stamps its version, capabilities and info into every request's
//! `_meta`, and answers `input_required` results by running its own handlers (sampling,
//! elicitation, roots) and retrying with `inputResponses` and the server's `requestState`.
//!
//! [`ProtocolMode`] chooses: the handshake only (the default), the per-request era only, or
//! `Auto` (probe, fall back to the handshake on servers that do not know `server/discover`).

use crate::jsonrpc::{Request, RequestId};
use crate::protocol::ProtocolVersion;
use crate::session::{RequestContext, Session};
use crate::McpError;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// `_meta` key of the request's protocol version.
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities.
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's info.
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level a request opts in to.
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// How many `input_required` rounds one call may take before it fails (a server that keeps
/// asking would otherwise hold the caller forever).
pub const MAX_INPUT_ROUNDS: usize = 16;

/// How a [`super::Client`] picks the protocol era of a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolMode {
    /// The `initialize` handshake (2025-11-25 and older), as every ferromcp client did so far.
    #[default]
    Handshake,
    /// Probe `server/discover` at 2026-07-28 and use the per-request era when the server offers
    /// it; fall back to the handshake when the probe fails (an older server).
    Auto,
    /// The per-request era only: fail when the server does not offer 2026-07-28.
    PerRequest,
}

/// What a per-request-era client adds to every request.
#[derive(Debug)]
pub(crate) struct PerRequestMeta {
    version: ProtocolVersion,
    capabilities: Value,
    info: Value,
    log_level: Mutex<Option<String>>,
}

impl PerRequestMeta {
    pub(crate) fn new(version: ProtocolVersion, capabilities: Value, info: Value) -> Self {
        Self {
            version,
            capabilities,
            info,
            log_level: Mutex::new(None),
        }
    }

    /// Opts every later request in to log messages at `level` and above (`logging/setLevel`
    /// does not exist in this era).
    pub(crate) fn set_log_level(&self, level: &str) {
        *self.log_level.lock().unwrap() = Some(level.to_string());
    }

    /// `params` with the era's `_meta` entries (entries the caller put there win).
    pub(crate) fn stamp(&self, params: Option<Value>) -> Value {
        let mut params = match params {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        let meta = meta.as_object_mut().expect("an object");
        let mut put = |k: &str, v: Value| {
            meta.entry(k.to_string()).or_insert(v);
        };
        put(META_VERSION, json!(self.version.as_str()));
        put(META_CAPABILITIES, self.capabilities.clone());
        put(META_CLIENT_INFO, self.info.clone());
        if let Some(level) = self.log_level.lock().unwrap().as_deref() {
            put(META_LOG_LEVEL, json!(level));
        }
        Value::Object(params)
    }
}

/// Whether `result` asks for input (`resultType: "input_required"`); a result without
/// `resultType` is complete.
pub(crate) fn wants_input(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// A `tools/list` result without the tools whose `x-mcp-header` annotations break the spec's
/// rules (2026-07-28: a client must leave such a tool out, and should log why). The other tools
/// stay, unchanged.
pub(crate) fn without_invalid_header_tools(mut result: Value) -> Value {
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain(|tool| {
            let Some(schema) = tool.get("inputSchema") else {
                return true;
            };
            match crate::protocol::checked_header_params(schema) {
                Ok(_) => true,
                Err(reason) => {
                    let name = tool
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("(unnamed)");
                    tracing::warn!(
                        tool = %name,
                        %reason,
                        "leaving out a tool with an invalid x-mcp-header annotation"
                    );
                    false
                }
            }
        });
    }
    result
}

/// The answers to one `input_required` result, from this client's own handlers: each input
/// request runs as if the server had sent it. A request the client cannot answer (no handler)
/// fails the call with that handler's error.
pub(crate) async fn answer_inputs(
    session: &Arc<Session>,
    result: &Value,
    cancel: &CancellationToken,
) -> Result<Map<String, Value>, McpError> {
    let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
        return Err(McpError::internal(
            "the server answered input_required without inputRequests",
        ));
    };
    let mut answers = Map::new();
    for (key, request) in requests {
        let Some(method) = request.get("method").and_then(Value::as_str) else {
            return Err(McpError::internal(format!(
                "the server's input request {key:?} has no method"
            )));
        };
        let req = Request {
            id: RequestId::String(format!("input:{key}").into()),
            method: method.to_string(),
            params: request.get("params").cloned(),
        };
        let ctx = RequestContext::new(session.clone(), &req, cancel.child_token());
        let answer = session.service.handle_request(req, ctx).await?;
        answers.insert(key.clone(), answer);
    }
    Ok(answers)
}

/// `params` of the retry after an `input_required` `result`: the original params with the
/// answers as `inputResponses` and the server's `requestState` echoed unchanged (omitted when
/// the server sent none).
pub(crate) fn retry_params(
    params: &Option<Value>,
    result: &Value,
    answers: Map<String, Value>,
) -> Value {
    let mut p = match params {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    p.insert("inputResponses".into(), Value::Object(answers));
    match result.get("requestState") {
        Some(state) if !state.is_null() => {
            p.insert("requestState".into(), state.clone());
        }
        _ => {
            p.remove("requestState");
        }
    }
    Value::Object(p)
}

/// The revision a server's `-32022` answer names that this client speaks (the first of its
/// `data.supported` in `ours`), if any.
pub(crate) fn supported_alternative(
    error: &McpError,
    ours: &[ProtocolVersion],
) -> Option<ProtocolVersion> {
    if error.code != crate::codes::UNSUPPORTED_PROTOCOL_VERSION {
        return None;
    }
    error
        .data
        .as_ref()?
        .get("supported")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter_map(ProtocolVersion::parse)
        .find(|v| v.is_per_request() && ours.contains(v))
}
