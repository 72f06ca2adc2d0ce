//! What a middleware layer sees of a request: the JSON-RPC request itself (changeable) and what
//! the engine knows of where it came from (session, principal, HTTP headers).
//!
//! A `tools/call` read on the session's typed lane comes as that lane's typed call, its params
//! made JSON only when a layer asks for them ([`MiddlewareRequest::params`], made once; changing
//! them, the method, or taking the request apart makes it a JSON request for good). A request
//! still typed at the chain's end is called as the lane calls it without middleware
//! (`Server::call_tool_typed`); one made JSON goes to the dispatch, which reads the same call
//! from the JSON and reaches the same `call_tool`.

use crate::jsonrpc::{Request, RequestId};
use crate::session::{AuthInfo, LaneExtra, RequestContext};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// One request on its way through the middleware chain to the server's dispatch.
///
/// The method and params may be changed before handing the request on ([`Self::params_mut`],
/// [`Self::set_method`]); the id and the context are the request's own.
pub struct MiddlewareRequest {
    pub(super) call: Call,
    pub(super) ctx: RequestContext,
}

/// The request itself: as JSON, or the typed lane's `tools/call`.
pub(super) enum Call {
    Json(Request),
    Tool(ToolCall),
}

/// A `tools/call` read on the typed lane: what the call takes, and the params as JSON once a
/// layer has asked for them.
pub(crate) struct ToolCall {
    pub(super) name: String,
    pub(super) arguments: Option<Value>,
    pub(super) task: Option<Value>,
    extra: LaneExtra,
    params: OnceLock<Option<Value>>,
}

impl ToolCall {
    /// The lane's call of tool `name` (`extra`: the members the call does not take, for the
    /// params' JSON).
    pub(crate) fn new(
        name: String,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: LaneExtra,
    ) -> Self {
        Self {
            name,
            arguments,
            task,
            extra,
            params: OnceLock::new(),
        }
    }

    /// The params as JSON (made from copies: the call stays typed).
    fn params(&self, ctx: &RequestContext) -> &Value {
        self.params
            .get_or_init(|| {
                Some(lane_params(
                    &self.name,
                    self.arguments.clone(),
                    self.task.clone(),
                    self.extra.input_responses.clone(),
                    self.extra.request_state.clone(),
                    ctx,
                ))
            })
            .as_ref()
            .expect("made as Some")
    }

    /// The params as JSON, for good.
    fn into_params(self, ctx: &RequestContext) -> Value {
        match self.params.into_inner() {
            Some(Some(params)) => params,
            _ => lane_params(
                &self.name,
                self.arguments,
                self.task,
                self.extra.input_responses,
                self.extra.request_state,
                ctx,
            ),
        }
    }
}

/// The params of a `tools/call` read on the typed lane, as a JSON object again: the members the
/// lane read (`_meta` from the request's context, which holds it as sent when it is an object,
/// the only shape the lane takes).
fn lane_params(
    name: &str,
    arguments: Option<Value>,
    task: Option<Value>,
    input_responses: Option<Value>,
    request_state: Option<Value>,
    ctx: &RequestContext,
) -> Value {
    let mut p = Map::new();
    p.insert("name".into(), Value::String(name.to_owned()));
    let members = [
        ("arguments", arguments),
        ("task", task),
        ("_meta", ctx.meta().map(|m| Value::Object(m.clone()))),
        ("inputResponses", input_responses),
        ("requestState", request_state),
    ];
    for (key, value) in members {
        if let Some(value) = value {
            p.insert(key.into(), value);
        }
    }
    Value::Object(p)
}

impl MiddlewareRequest {
    /// A request for the chain (the server makes these; a test or a wrapper may too).
    pub fn new(request: Request, ctx: RequestContext) -> Self {
        Self {
            call: Call::Json(request),
            ctx,
        }
    }

    /// A `tools/call` read on the typed lane.
    pub(crate) fn tool_call(call: ToolCall, ctx: RequestContext) -> Self {
        Self {
            call: Call::Tool(call),
            ctx,
        }
    }

    /// The request as JSON from now on (a typed `tools/call`'s params made JSON).
    fn json(&mut self) -> &mut Request {
        if let Call::Tool(_) = self.call {
            let placeholder = Call::Json(Request {
                id: self.ctx.request_id().clone(),
                method: "tools/call".into(),
                params: None,
            });
            if let Call::Tool(call) = std::mem::replace(&mut self.call, placeholder) {
                let params = call.into_params(&self.ctx);
                if let Call::Json(request) = &mut self.call {
                    request.params = Some(params);
                }
            }
        }
        match &mut self.call {
            Call::Json(request) => request,
            Call::Tool(_) => unreachable!("made JSON above"),
        }
    }

    /// The JSON-RPC method (`tools/call`, `initialize`, `example.com/custom`, ...).
    pub fn method(&self) -> &str {
        match &self.call {
            Call::Json(request) => &request.method,
            Call::Tool(_) => "tools/call",
        }
    }

    /// Changes the method the rest of the chain and the dispatch see.
    pub fn set_method(&mut self, method: impl Into<String>) {
        self.json().method = method.into();
    }

    /// The params, as sent (for a `tools/call` read on the typed lane: the members the call
    /// uses, `name`, `arguments`, `task`, `_meta`, `inputResponses`, `requestState`, made JSON
    /// on the first call; the call itself stays typed).
    pub fn params(&self) -> Option<&Value> {
        match &self.call {
            Call::Json(request) => request.params.as_ref(),
            Call::Tool(call) => Some(call.params(&self.ctx)),
        }
    }

    /// The params, to change before handing the request on (the request is JSON from then on).
    pub fn params_mut(&mut self) -> &mut Option<Value> {
        &mut self.json().params
    }

    /// Whether the request is still the typed lane's `tools/call` (its params not made JSON
    /// for good): for tests and measurements.
    pub fn is_typed_tool_call(&self) -> bool {
        matches!(self.call, Call::Tool(_))
    }

    /// The request's id.
    pub fn id(&self) -> &RequestId {
        match &self.call {
            Call::Json(request) => &request.id,
            Call::Tool(_) => self.ctx.request_id(),
        }
    }

    /// For `tools/call`: the tool's name (`params.name`) when it is a string.
    pub fn tool_name(&self) -> Option<&str> {
        match &self.call {
            Call::Json(request) if request.method == "tools/call" => {
                request.params.as_ref()?.get("name")?.as_str()
            }
            Call::Json(_) => None,
            Call::Tool(call) => Some(&call.name),
        }
    }

    /// The request's context: its session, `_meta`, cancellation, progress, and what handlers
    /// get.
    pub fn context(&self) -> &RequestContext {
        &self.ctx
    }

    /// The verified bearer token's identity on a protected HTTP server; `None` otherwise.
    pub fn principal(&self) -> Option<&AuthInfo> {
        self.ctx.auth()
    }

    /// The principal's name for keys and logs: the token's subject, else its client id.
    pub fn principal_name(&self) -> Option<&str> {
        let auth = self.ctx.auth()?;
        auth.subject.as_deref().or(auth.client_id.as_deref())
    }

    /// The session's `Mcp-Session-Id` (stateful Streamable HTTP); `None` on message streams
    /// and per-request-era HTTP requests, which have none.
    pub fn session_id(&self) -> Option<&str> {
        self.ctx.session().session_id()
    }

    /// A key naming the session for counters: the `Mcp-Session-Id` when there is one, else
    /// `conn-<serial>`, the engine session's serial number (one per stdio process, WebSocket
    /// or in-memory connection; on a per-request-era HTTP request, which has no session, the
    /// request's own bare session).
    pub fn session_key(&self) -> String {
        match self.session_id() {
            Some(id) => format!("sid-{id}"),
            None => format!("conn-{}", self.ctx.session().serial()),
        }
    }

    /// The header fields of the HTTP request this request arrived in, in order (names as
    /// sent); `None` on other transports.
    pub fn http_headers(&self) -> Option<Vec<(String, String)>> {
        self.ctx.http_headers()
    }

    /// The IP address of the HTTP connection's peer (the socket's, not a header's; see
    /// [`RequestContext::client_address`]); `None` on other transports.
    pub fn client_address(&self) -> Option<std::net::IpAddr> {
        self.ctx.client_address()
    }

    /// Every value of HTTP header `name` (given in lowercase) joined by `, ` (a field sent on
    /// several lines); `None` when absent or not over HTTP.
    pub(crate) fn http_header_lines(&self, name: &str) -> Option<String> {
        self.ctx.http_header_lines(name)
    }

    /// One HTTP header's value (the first of that name, case-insensitive); `None` when absent
    /// or not over HTTP.
    pub fn http_header(&self, name: &str) -> Option<String> {
        self.ctx
            .http_headers()?
            .into_iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// The request, taken apart (for a layer that answers from it).
    pub fn into_parts(mut self) -> (Request, RequestContext) {
        self.json();
        match self.call {
            Call::Json(request) => (request, self.ctx),
            Call::Tool(_) => unreachable!("made JSON above"),
        }
    }
}

impl std::fmt::Debug for MiddlewareRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiddlewareRequest")
            .field("id", self.id())
            .field("method", &self.method())
            .finish_non_exhaustive()
    }
}
