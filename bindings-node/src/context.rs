//! [`NativeContext`]: the request context handed to JavaScript handlers (the facade wraps it as
//! the handler's `ctx`, with an `AbortSignal` keyed by [`NativeContext::key`]).

use crate::convert::opt;
use crate::error::napi_result;
use ferromcp::embed::ForeignContext;
use napi_derive::napi;
use serde_json::Value;

/// The context of one incoming request.
#[napi]
pub struct NativeContext {
    ctx: ForeignContext,
    key: u32,
}

impl NativeContext {
    /// Wraps an engine context; `key` names the call's `AbortController` in the facade.
    pub fn new(ctx: ForeignContext, key: u32) -> Self {
        Self { ctx, key }
    }
}

#[napi]
impl NativeContext {
    /// The key of this call's `AbortController` (see `NativeDispatcher`'s `cancel`).
    #[napi(getter)]
    pub fn key(&self) -> u32 {
        self.key
    }

    /// The JSON-RPC request id (a number or a string).
    #[napi(getter)]
    pub fn request_id(&self) -> Value {
        self.ctx.request_id()
    }

    /// The request's `_meta` object (null when absent).
    #[napi(getter)]
    pub fn meta(&self) -> Value {
        self.ctx.meta()
    }

    /// The negotiated protocol revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.ctx.protocol_version()
    }

    /// The peer's `clientInfo` (servers) or `serverInfo` (clients); null before negotiation.
    #[napi(getter)]
    pub fn peer_info(&self) -> Value {
        self.ctx.peer_info()
    }

    /// The peer's capabilities; null before negotiation.
    #[napi(getter)]
    pub fn peer_capabilities(&self) -> Value {
        self.ctx.peer_capabilities()
    }

    /// The request's progress token (null when the requester asked for no progress).
    #[napi(getter)]
    pub fn progress_token(&self) -> Value {
        self.ctx.progress_token()
    }

    /// Whether the request was cancelled.
    #[napi]
    pub fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Cancels the request locally (its outstanding peer requests are cancelled too).
    #[napi]
    pub fn cancel(&self) {
        self.ctx.cancel()
    }

    /// Closes the SSE stream carrying this request (Streamable HTTP); the client resumes with
    /// `Last-Event-ID`. False where there is no such stream.
    #[napi]
    pub fn close_sse_stream(&self) -> bool {
        self.ctx.close_sse_stream()
    }

    /// Sends `notifications/progress` (if the requester asked for progress).
    #[napi]
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> napi::Result<()> {
        napi_result(self.ctx.progress(progress, total, message).await)
    }

    /// Sends `notifications/message` at an RFC 5424 level.
    #[napi]
    pub async fn log(
        &self,
        level: String,
        data: Value,
        logger: Option<String>,
    ) -> napi::Result<()> {
        napi_result(self.ctx.log(&level, logger, data).await)
    }

    /// Sends a request to the peer and resolves with its result.
    #[napi]
    pub async fn request(&self, method: String, params: Option<Value>) -> napi::Result<Value> {
        napi_result(self.ctx.request(&method, opt(params)).await)
    }

    /// Sends a notification related to this request.
    #[napi]
    pub async fn notify(&self, method: String, params: Option<Value>) -> napi::Result<()> {
        napi_result(self.ctx.notify(&method, opt(params)).await)
    }
}
