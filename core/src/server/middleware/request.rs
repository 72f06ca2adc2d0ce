//! What a middleware layer sees of a request: the JSON-RPC request itself (changeable) and what
//! the engine knows of where it came from (session, principal, HTTP headers).

use crate::jsonrpc::{Request, RequestId};
use crate::session::{AuthInfo, RequestContext};
use serde_json::Value;

/// One request on its way through the middleware chain to the server's dispatch.
///
/// The method and params may be changed before handing the request on ([`Self::params_mut`],
/// [`Self::set_method`]); the id and the context are the request's own.
pub struct MiddlewareRequest {
    pub(super) request: Request,
    pub(super) ctx: RequestContext,
}

impl MiddlewareRequest {
    /// A request for the chain (the server makes these; a test or a wrapper may too).
    pub fn new(request: Request, ctx: RequestContext) -> Self {
        Self { request, ctx }
    }

    /// The JSON-RPC method (`tools/call`, `initialize`, `example.com/custom`, ...).
    pub fn method(&self) -> &str {
        &self.request.method
    }

    /// Changes the method the rest of the chain and the dispatch see.
    pub fn set_method(&mut self, method: impl Into<String>) {
        self.request.method = method.into();
    }

    /// The params, as sent (for a `tools/call` read on the typed lane: the members the call
    /// uses, `name`, `arguments`, `task`, `_meta`, `inputResponses`, `requestState`).
    pub fn params(&self) -> Option<&Value> {
        self.request.params.as_ref()
    }

    /// The params, to change before handing the request on.
    pub fn params_mut(&mut self) -> &mut Option<Value> {
        &mut self.request.params
    }

    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.request.id
    }

    /// For `tools/call`: the tool's name (`params.name`) when it is a string.
    pub fn tool_name(&self) -> Option<&str> {
        if self.request.method != "tools/call" {
            return None;
        }
        self.request.params.as_ref()?.get("name")?.as_str()
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
    pub fn into_parts(self) -> (Request, RequestContext) {
        (self.request, self.ctx)
    }
}

impl std::fmt::Debug for MiddlewareRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiddlewareRequest")
            .field("id", &self.request.id)
            .field("method", &self.request.method)
            .finish_non_exhaustive()
    }
}
