//! [`NativeContext`]: the context of one incoming request, as a Swift handler sees it (the
//! facade's `RequestContext` wraps it).

use crate::error::{json_text, parse_json, parse_opt_json, FfiError};
use crate::runtime::run;
use crate::NameValue;
use ferromcp::McpError;
use ferromcp_embed::ForeignContext;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// What a server handler call answered: JSON text, or a finished tool result (see
/// [`NativeContext::answer_tool_text`]).
pub(crate) enum Answered {
    /// JSON text of any value the engine's shaping accepts.
    Json(String),
    /// A tool's `CallToolResult` with one text block (`isError` when `is_error`).
    ToolText { text: String, is_error: bool },
}

/// What a server handler call answers, or its JSON-RPC error.
pub(crate) type Answer = Result<Answered, McpError>;

/// The context of one request handled in Swift. JSON values are JSON text.
#[derive(uniffi::Object)]
pub struct NativeContext {
    ctx: ForeignContext,
    /// Where a server handler's answer goes ([`Self::answer`], [`Self::fail`]); taken by the
    /// first of them.
    reply: Mutex<Option<oneshot::Sender<Answer>>>,
}

impl NativeContext {
    /// Wraps an engine context (a client handler's: answers are its foreign future's output).
    pub fn new(ctx: ForeignContext) -> Arc<Self> {
        Arc::new(Self {
            ctx,
            reply: Mutex::new(None),
        })
    }

    /// Wraps an engine context for a server handler call, and the receiver of its answer (an
    /// error when Swift lets the context go without answering).
    pub(crate) fn answering(ctx: ForeignContext) -> (Arc<Self>, oneshot::Receiver<Answer>) {
        let (tx, rx) = oneshot::channel();
        let native = Arc::new(Self {
            ctx,
            reply: Mutex::new(Some(tx)),
        });
        (native, rx)
    }

    fn reply(&self, answer: Answer) {
        let tx = self.reply.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(tx) = tx {
            // The engine may have dropped the call (cancelled): nobody to tell.
            let _ = tx.send(answer);
        }
    }
}

#[uniffi::export]
impl NativeContext {
    /// Answers a server handler call with JSON text (the first answer counts; later ones and
    /// answers to a cancelled call are dropped).
    pub fn answer(&self, result: String) {
        self.reply(Ok(Answered::Json(result)))
    }

    /// Answers a tool call with a `CallToolResult` of one text block (`isError` when
    /// `is_error`), the most common answer, without JSON: the engine builds the result directly
    /// (no text to write in Swift, none to parse and shape in Rust). Only for tool calls: any
    /// other handler answering this way fails with an internal error.
    pub fn answer_tool_text(&self, text: String, is_error: bool) {
        self.reply(Ok(Answered::ToolText { text, is_error }))
    }

    /// Answers a server handler call with a JSON-RPC error (`data`: JSON text).
    pub fn fail(&self, code: i32, message: String, data: Option<String>) {
        self.reply(Err(FfiError::Mcp {
            code,
            message,
            data,
            kind: crate::error::FfiErrorKind::Rpc,
        }
        .into()))
    }

    /// Answers a server handler call with an error that is not an `McpError` (the handler threw
    /// something else): an internal error with `message`, which a tool answers as a tool
    /// execution error, in a task of the tasks extension too
    /// ([`McpError::handler_exception`]).
    pub fn fail_exception(&self, message: String) {
        self.reply(Err(McpError::handler_exception(message)))
    }

    /// The request id (JSON: a number or a string).
    pub fn request_id(&self) -> String {
        json_text(&self.ctx.request_id())
    }

    /// The request's `_meta` object (JSON; `null` when absent).
    pub fn meta(&self) -> String {
        json_text(&self.ctx.meta())
    }

    /// The request's progress token (JSON; `null` when the requester asked for no progress).
    pub fn progress_token(&self) -> String {
        json_text(&self.ctx.progress_token())
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> Option<String> {
        self.ctx.protocol_version()
    }

    /// The peer's `clientInfo` / `serverInfo` (JSON; `null` before negotiation).
    pub fn peer_info(&self) -> String {
        json_text(&self.ctx.peer_info())
    }

    /// The peer's capabilities (JSON; `null` before negotiation).
    pub fn peer_capabilities(&self) -> String {
        json_text(&self.ctx.peer_capabilities())
    }

    /// The header fields of the HTTP request that carried this request (names in lowercase, in
    /// order); `None` on other transports.
    pub fn http_headers(&self) -> Option<Vec<NameValue>> {
        let pairs = self.ctx.request_context().http_headers()?;
        Some(
            pairs
                .into_iter()
                .map(|(name, value)| NameValue { name, value })
                .collect(),
        )
    }

    /// Whether the request was cancelled (by the peer, the session closing, or [`Self::cancel`]).
    pub fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Returns when the request is cancelled.
    pub async fn cancelled(&self) {
        self.ctx.cancellation_token().cancelled().await
    }

    /// Cancels the request locally (outstanding requests made through this context end).
    pub fn cancel(&self) {
        self.ctx.cancel()
    }

    /// Reports progress if the requester asked for it (throttled by the engine).
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<(), FfiError> {
        let ctx = self.ctx.clone();
        Ok(run(async move { ctx.progress(progress, total, message).await }).await?)
    }

    /// Sends `notifications/message` at an RFC 5424 `level`; `data` is JSON text.
    pub async fn log(
        &self,
        level: String,
        logger: Option<String>,
        data: String,
    ) -> Result<(), FfiError> {
        let ctx = self.ctx.clone();
        let data = parse_json("log data", &data)?;
        Ok(run(async move { ctx.log(&level, logger, data).await }).await?)
    }

    /// Sends a notification related to this request; `params` is JSON text.
    pub async fn notify(&self, method: String, params: Option<String>) -> Result<(), FfiError> {
        let ctx = self.ctx.clone();
        let params = parse_opt_json("notification params", params)?;
        Ok(run(async move { ctx.notify(&method, params).await }).await?)
    }

    /// Sends a request to the peer (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`, ...) and returns its result as JSON text. Ends with code -32800 when this
    /// request is cancelled meanwhile.
    pub async fn request(
        &self,
        method: String,
        params: Option<String>,
    ) -> Result<String, FfiError> {
        let ctx = self.ctx.clone();
        let params = parse_opt_json("request params", params)?;
        let v = run(async move { ctx.request(&method, params).await }).await?;
        Ok(json_text(&v))
    }

    /// Asks the client for the input requests `requests` (JSON text: `{key: {method, params}}`)
    /// and returns the answers by key as JSON text. In the 2026-07-28 era it fails with the
    /// engine's `InputRequired` code, which the engine turns into an `input_required` result;
    /// the retried call's handler gets the answers.
    pub async fn input(&self, requests: String) -> Result<String, FfiError> {
        let ctx = self.ctx.clone();
        let requests = parse_json("input requests", &requests)?;
        let v = run(async move { ctx.input(requests).await }).await?;
        Ok(json_text(&v))
    }

    /// The client's answer to input request `key` carried by this retry (2026-07-28; JSON,
    /// `null` when absent).
    pub fn input_response(&self, key: String) -> String {
        json_text(&self.ctx.input_response(&key))
    }

    /// The verified state of the previous `input_required` round (2026-07-28; JSON, `null`
    /// when absent).
    pub fn request_state(&self) -> String {
        json_text(&self.ctx.request_state())
    }

    /// The verified bearer token's identity on a protected HTTP server (JSON text: `subject`,
    /// `clientId`, `scopes`, `audience`, `expiresAt`, `claims`; `null` when not protected).
    pub fn auth(&self) -> String {
        json_text(&self.ctx.auth())
    }

    /// Closes the SSE stream carrying this request (Streamable HTTP; the client resumes with
    /// `Last-Event-ID`). False where there is no such stream.
    pub fn close_sse_stream(&self) -> bool {
        self.ctx.close_sse_stream()
    }
}
