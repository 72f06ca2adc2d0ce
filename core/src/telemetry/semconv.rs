//! The names OpenTelemetry's semantic conventions for MCP give to spans, attributes and
//! metrics (`docs/gen-ai/mcp.md` of the GenAI semantic conventions, status Development), and
//! the attributes of one request, shared by the server's and the client's spans.

use crate::session::ToolOutput;
use crate::McpError;
use opentelemetry::trace::{SpanRef, Status};
use opentelemetry::{KeyValue, StringValue};
use serde_json::Value;
use std::borrow::Cow;

/// `mcp.method.name`: the request's method.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// `mcp.session.id`: the `Mcp-Session-Id` of a Streamable HTTP session.
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// `mcp.protocol.version`: the negotiated MCP revision.
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// `mcp.resource.uri`: the resource of `resources/read`, `resources/subscribe`, `.../unsubscribe`.
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
/// `gen_ai.tool.name`: the tool of a `tools/call`.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.prompt.name`: the prompt of a `prompts/get`.
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
/// `gen_ai.operation.name`: `execute_tool` on a `tools/call`.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// `jsonrpc.request.id`: the request's id as text.
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// `rpc.response.status_code`: the JSON-RPC error code, as text.
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// `error.type`: the JSON-RPC error code as text, `tool_error` for a tool result with
/// `isError`, `cancelled` for a request cancelled before its answer.
pub const ERROR_TYPE: &str = "error.type";
/// `network.transport`: `tcp` over HTTP.
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// `network.protocol.name`: `http` over HTTP.
pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";

/// Histogram, seconds: a request as the server saw it, from its arrival in the chain to its
/// answer.
pub const MCP_SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// Histogram, seconds: a request as the client saw it, from sending to the answer.
pub const MCP_CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// Histogram, seconds: an MCP session as the server saw it, from its start to its end.
pub const MCP_SERVER_SESSION_DURATION: &str = "mcp.server.session.duration";
/// Histogram, seconds: an MCP session as the client saw it, from its handshake to its close.
pub const MCP_CLIENT_SESSION_DURATION: &str = "mcp.client.session.duration";
/// UpDownCounter: SSE streams open on the server, by [`FERROMCP_STREAM_KIND`] (ferromcp's own).
pub const FERROMCP_SERVER_SSE_STREAMS: &str = "ferromcp.server.sse_streams";
/// `ferromcp.stream.kind`: `get`, `post`, `listen` (2026-07-28 `subscriptions/listen`) or
/// `legacy` (the 2024-11-05 HTTP+SSE transport).
pub const FERROMCP_STREAM_KIND: &str = "ferromcp.stream.kind";
/// UpDownCounter: HTTP sessions alive on the server (ferromcp's own; the conventions have none).
pub const FERROMCP_SERVER_SESSIONS: &str = "ferromcp.server.sessions";
/// UpDownCounter: HTTP connections open on the server (ferromcp's own).
pub const FERROMCP_SERVER_CONNECTIONS: &str = "ferromcp.server.connections";

/// The bucket boundaries the conventions give the operation-duration histograms (seconds).
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// What one request is, for its span's name and attributes and its duration's attributes.
pub(super) struct Operation {
    pub method: StringValue,
    /// The method when it is one of the well-known names (no allocation for it).
    known: Option<&'static str>,
    /// The low-cardinality target: the tool (`tools/call`) or prompt (`prompts/get`).
    pub target: Option<(&'static str, StringValue)>,
    pub protocol_version: Option<&'static str>,
    pub over_http: bool,
}

impl Operation {
    /// The operation of a request `method` with `params`.
    pub fn of(method: &str, params: Option<&Value>) -> Self {
        Self::named(method, target_name(method, params))
    }

    /// The operation of a request `method` whose target (tool or prompt) is `target`.
    pub fn named(method: &str, target: Option<&str>) -> Self {
        let target = match method {
            "tools/call" => target.map(|n| (GEN_AI_TOOL_NAME, n.to_string().into())),
            "prompts/get" => target.map(|n| (GEN_AI_PROMPT_NAME, n.to_string().into())),
            _ => None,
        };
        let known = known_method(method);
        Self {
            method: known.map_or_else(|| method.to_string().into(), Into::into),
            known,
            target,
            protocol_version: None,
            over_http: false,
        }
    }

    /// `{mcp.method.name} {target}`, or the method alone.
    pub fn span_name(&self) -> String {
        match &self.target {
            Some((_, t)) => format!("{} {}", self.method.as_str(), t.as_str()),
            None => self.method.as_str().to_string(),
        }
    }

    /// The name a span starts with: the method, without allocating for a well-known one. A
    /// span that records is renamed to [`Self::span_name`] (most are not sampled, and the
    /// samplers do not read the name).
    pub fn start_name(&self) -> Cow<'static, str> {
        match self.known {
            Some(m) => Cow::Borrowed(m),
            None => Cow::Owned(self.method.as_str().to_string()),
        }
    }

    /// Whether [`Self::start_name`] is not the whole span name (the span is renamed when it
    /// records).
    pub fn renamed(&self) -> bool {
        self.target.is_some()
    }

    /// The attributes both the span and the duration carry.
    pub fn common_attributes(&self, out: &mut Vec<KeyValue>) {
        out.push(KeyValue::new(MCP_METHOD_NAME, self.method.clone()));
        if let Some((key, value)) = &self.target {
            out.push(KeyValue::new(*key, value.clone()));
            if *key == GEN_AI_TOOL_NAME {
                out.push(KeyValue::new(GEN_AI_OPERATION_NAME, "execute_tool"));
            }
        }
        if let Some(v) = self.protocol_version {
            out.push(KeyValue::new(MCP_PROTOCOL_VERSION, v));
        }
        if self.over_http {
            out.push(KeyValue::new(NETWORK_TRANSPORT, "tcp"));
            out.push(KeyValue::new(NETWORK_PROTOCOL_NAME, "http"));
        }
    }
}

/// The low-cardinality target of a request: the `name` of `tools/call` and `prompts/get`.
pub(super) fn target_name<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    match method {
        "tools/call" | "prompts/get" => params?.get("name")?.as_str(),
        _ => None,
    }
}

/// `mcp.resource.uri`'s value: the `uri` of `resources/read`, `resources/subscribe` and
/// `resources/unsubscribe` (read only for a span that records).
pub(super) fn resource_uri<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    match method {
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            params?.get("uri")?.as_str()
        }
        _ => None,
    }
}

/// How a request ended, as the conventions record it.
pub(super) enum Ending<'a> {
    Answered(&'a Result<Value, McpError>),
    /// A request answered through the server's middleware chain (a tool's result maybe still
    /// typed).
    Layered(&'a Result<crate::server::middleware::MiddlewareResponse, McpError>),
    /// A `tools/call` answered on the session's typed lane (its result not yet JSON).
    Tool(&'a Result<ToolOutput, McpError>),
    Cancelled,
}

impl Ending<'_> {
    /// `error.type` (and the JSON-RPC code for `rpc.response.status_code`), or `None` on
    /// success.
    pub fn error(&self) -> Option<(String, Option<i32>, String)> {
        match self {
            Ending::Answered(Ok(v)) if v.get("isError") == Some(&Value::Bool(true)) => {
                Some(("tool_error".into(), None, "tool returned isError".into()))
            }
            Ending::Answered(Ok(_)) => None,
            Ending::Tool(Ok(ToolOutput::Result(r))) if r.is_error == Some(true) => {
                Some(("tool_error".into(), None, "tool returned isError".into()))
            }
            Ending::Tool(Ok(ToolOutput::Json(v)))
                if v.get("isError") == Some(&Value::Bool(true)) =>
            {
                Some(("tool_error".into(), None, "tool returned isError".into()))
            }
            Ending::Tool(Ok(_)) => None,
            Ending::Layered(Ok(r)) if r.is_tool_error() => {
                Some(("tool_error".into(), None, "tool returned isError".into()))
            }
            Ending::Layered(Ok(_)) => None,
            Ending::Answered(Err(e)) | Ending::Tool(Err(e)) | Ending::Layered(Err(e)) => {
                Some((e.code.to_string(), Some(e.code), e.message.clone()))
            }
            Ending::Cancelled => Some(("cancelled".into(), None, "cancelled".into())),
        }
    }
}

/// Records `ending` on `span` (status, `error.type`, `rpc.response.status_code`) and on the
/// duration's attributes `attrs`.
pub(super) fn record_ending(span: &SpanRef<'_>, ending: &Ending<'_>, attrs: &mut Vec<KeyValue>) {
    let Some((error_type, code, message)) = ending.error() else {
        return;
    };
    attrs.push(KeyValue::new(ERROR_TYPE, error_type.clone()));
    if let Some(code) = code {
        attrs.push(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.to_string()));
    }
    if span.is_recording() {
        span.set_attribute(KeyValue::new(ERROR_TYPE, error_type));
        if let Some(code) = code {
            span.set_attribute(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.to_string()));
        }
        span.set_status(Status::error(message));
    }
}

/// The conventions' well-known method names as static text (no allocation per request).
pub(super) fn known_method(method: &str) -> Option<&'static str> {
    const KNOWN: [&str; 16] = [
        "tools/call",
        "tools/list",
        "initialize",
        "ping",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "logging/setLevel",
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
    ];
    KNOWN.into_iter().find(|k| *k == method)
}
