//! [`ForeignContext`]: the request context handed to foreign handlers.

use ferromcp::session::RequestContext;
use ferromcp::McpError;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// The context of one incoming request, as foreign handlers see it. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ForeignContext {
    inner: RequestContext,
}

impl ForeignContext {
    /// Wraps an engine request context.
    pub fn new(inner: RequestContext) -> Self {
        Self { inner }
    }

    /// The engine's context (for bindings that want more than the JSON surface).
    pub fn request_context(&self) -> &RequestContext {
        &self.inner
    }

    /// The request id as JSON (a number or a string).
    pub fn request_id(&self) -> Value {
        self.inner.request_id().to_value()
    }

    /// The request's `_meta` object (JSON `null` when absent).
    pub fn meta(&self) -> Value {
        self.inner
            .meta()
            .map(|m| Value::Object(m.clone()))
            .unwrap_or(Value::Null)
    }

    /// The negotiated protocol revision, e.g. `"2025-11-25"`.
    pub fn protocol_version(&self) -> Option<String> {
        self.inner
            .protocol_version()
            .map(|v| v.as_str().to_string())
    }

    /// Whether the request was cancelled (by the peer, by the session closing or by [`Self::cancel`]).
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// Resolves when the request is cancelled.
    pub async fn cancelled(&self) {
        self.inner.cancellation().cancelled().await
    }

    /// A clone of the request's cancellation token.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.cancellation().clone()
    }

    /// Runs `callback` once if and when the request is cancelled (from a tokio task; must be
    /// called inside the runtime). The callback never runs for a request that completes normally
    /// unless the session closes afterwards.
    pub fn on_cancel(&self, callback: impl FnOnce() + Send + 'static) {
        let token = self.inner.cancellation().clone();
        tokio::spawn(async move {
            token.cancelled().await;
            callback();
        });
    }

    /// Cancels the request locally: outstanding peer requests made through this context are
    /// cancelled and [`Self::is_cancelled`] turns true. The peer still gets the handler's answer.
    pub fn cancel(&self) {
        self.inner.cancellation().cancel();
    }

    /// Reports progress (`notifications/progress`) if the requester asked for it.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<(), McpError> {
        self.inner
            .progress(progress, total, message.as_deref())
            .await
    }

    /// Sends a log message (`notifications/message`) at an RFC 5424 `level`.
    pub async fn log(
        &self,
        level: &str,
        logger: Option<String>,
        data: Value,
    ) -> Result<(), McpError> {
        self.inner.log(level, logger.as_deref(), data).await
    }

    /// Sends a notification related to this request.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        self.inner.notify(method, params).await
    }

    /// Sends a request to the peer (e.g. `sampling/createMessage`, `elicitation/create`,
    /// `roots/list`) and returns its JSON result.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        self.inner.request(method, params).await
    }

    /// `sampling/createMessage` with JSON params.
    pub async fn sample(&self, params: Value) -> Result<Value, McpError> {
        self.request("sampling/createMessage", Some(params)).await
    }

    /// `elicitation/create` with JSON params.
    pub async fn elicit(&self, params: Value) -> Result<Value, McpError> {
        self.request("elicitation/create", Some(params)).await
    }

    /// `roots/list`; returns the JSON result (`{"roots": [...]}`).
    pub async fn list_roots(&self) -> Result<Value, McpError> {
        self.request("roots/list", None).await
    }

    /// Asks the client for several things at once: `requests` is a JSON object mapping keys of
    /// the handler's choosing to `{"method": ..., "params": ...}` (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`); the answer is an object with the client's
    /// results under the same keys. In the handshake era each is sent as a request; in the
    /// 2026-07-28 era the call fails with [`ferromcp::session::INPUT_REQUIRED`], which the engine
    /// turns into an `input_required` result, and returns the answers when the client's retry
    /// runs the handler again (so handlers must not catch that error).
    pub async fn input(&self, requests: Value) -> Result<Value, McpError> {
        let requests = input_requests(requests)?;
        self.inner.input(requests).await.map(Value::Object)
    }

    /// 2026-07-28 era: the client's answer to input request `key` of an earlier
    /// `input_required` result (JSON `null` when this request carries none).
    pub fn input_response(&self, key: &str) -> Value {
        self.inner
            .input_response(key)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// 2026-07-28 era: the state a handler gave [`input_required`] in the previous round,
    /// verified by the engine (JSON `null` on a first round or in the handshake era).
    pub fn request_state(&self) -> Value {
        self.inner.request_state().cloned().unwrap_or(Value::Null)
    }

    /// Closes the SSE stream carrying this request (Streamable HTTP): the client reconnects with
    /// `Last-Event-ID` and gets the answer on the resumed stream. False where there is no such
    /// stream (stdio, JSON-response mode).
    pub fn close_sse_stream(&self) -> bool {
        self.inner.close_sse_stream()
    }

    /// The request's verified identity, as JSON (`subject`, `clientId`, `scopes`, `audience`,
    /// `expiresAt`, `claims`; never the token): a bearer token's on a protected HTTP server, or
    /// a verified TLS client certificate's (`claims.clientCertificate`); JSON `null` when
    /// neither vouched for the request.
    pub fn auth(&self) -> Value {
        match self.inner.auth() {
            Some(a) => serde_json::json!({
                "subject": a.subject,
                "clientId": a.client_id,
                "scopes": a.scopes,
                "audience": a.audience,
                "expiresAt": a.expires_at,
                "claims": a.claims,
            }),
            None => Value::Null,
        }
    }

    /// The header fields of the HTTP request this request arrived in, as a JSON array of
    /// `[name, value]` pairs (names in lowercase, in order); JSON `null` on other transports.
    pub fn http_headers(&self) -> Value {
        match self.inner.http_headers() {
            Some(pairs) => Value::Array(
                pairs
                    .into_iter()
                    .map(|(k, v)| Value::Array(vec![Value::String(k), Value::String(v)]))
                    .collect(),
            ),
            None => Value::Null,
        }
    }

    /// The request's `_meta.progressToken` (JSON `null` when absent).
    pub fn progress_token(&self) -> Value {
        self.inner
            .progress_reporter()
            .map(|r| r.token().clone())
            .unwrap_or(Value::Null)
    }

    /// The peer's `clientInfo`/`serverInfo` (JSON `null` before negotiation).
    pub fn peer_info(&self) -> Value {
        self.inner
            .peer()
            .peer_info()
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// The peer's capabilities (JSON `null` before negotiation).
    pub fn peer_capabilities(&self) -> Value {
        self.inner
            .peer()
            .peer_capabilities()
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Variables map helper: a `HashMap<String, String>` as a JSON object.
    pub(crate) fn vars_json(vars: &std::collections::HashMap<String, String>) -> Value {
        Value::Object(
            vars.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect::<Map<String, Value>>(),
        )
    }
}

/// The error a foreign handler returns (raises, throws) to answer `input_required` in the
/// 2026-07-28 era: `requests` maps keys to `{"method": ..., "params": ...}` input requests, and
/// `state` (any JSON, `null` for none) comes back sealed on the retry as
/// [`ForeignContext::request_state`]. A malformed `requests` gives an internal error instead
/// (the handler's fault, not the client's).
pub fn input_required(requests: Value, state: Value) -> McpError {
    match input_requests(requests) {
        Ok(map) => ferromcp::session::input_required(map, (!state.is_null()).then_some(state)),
        Err(e) => e,
    }
}

/// `requests` as a map of input requests, each an object with a string `method`.
fn input_requests(requests: Value) -> Result<Map<String, Value>, McpError> {
    let Value::Object(map) = requests else {
        return Err(McpError::internal(
            "input requests must be an object mapping keys to {method, params}",
        ));
    };
    if map.is_empty() {
        return Err(McpError::internal(
            "input requests must name at least one request",
        ));
    }
    for (key, request) in &map {
        if request.get("method").and_then(Value::as_str).is_none() {
            return Err(McpError::internal(format!(
                "input request {key:?} needs a string \"method\" (elicitation/create, sampling/createMessage or roots/list)"
            )));
        }
    }
    Ok(map)
}
