//! Swift handlers: the foreign traits a Swift facade implements (one per kind of handler), and
//! their one adapter to the engine's `embed::ForeignHandler` ([`SwiftHandler`]) and
//! `embed::ForeignClientHandler` ([`SwiftClient`]).
//!
//! Each call hands Swift its JSON input as text and a [`NativeContext`]; Swift answers JSON
//! text or an [`FfiError`]. Server handlers (tools, resources, prompts, completions) start
//! synchronously and answer through their context (see [`ToolHandler`]); the client handler is
//! a UniFFI foreign async trait. The engine drops a handler's future when the request is
//! cancelled (MCP `notifications/cancelled`, the session closing); the Swift `Task` running the
//! handler is then cancelled, so `Task.isCancelled` / `Task.checkCancellation()` see it.

use crate::context::{Answered, NativeContext};
use crate::error::{json_text, parse_answer, FfiError};
use crate::runtime::{ran_inline, start_inline};
use ferromcp::protocol::CallToolResult;
use ferromcp::McpError;
use ferromcp_embed::{
    ForeignAnswer, ForeignClientHandler, ForeignContext, ForeignHandler, ForeignRequest,
};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

/// How a server handler call crosses into Swift (the four server traits below share it):
///
/// 1. When the engine first polls the call, Rust calls the handler's `start` synchronously on
///    the engine thread, with the input as JSON text and a [`NativeContext`].
/// 2. With `run_inline` (the engine thread was idle just before: [`crate::runtime::start_inline`]),
///    Swift starts a `Task` for the closure and runs it on that same thread until it first
///    suspends (a task executor that drains its jobs inline, then hands later ones to Swift's
///    global executor): a handler that does not suspend has answered before `start` returns.
///    Without it (the engine has a backlog), the task starts on Swift's global executor, so
///    handlers run on another core beside the engine.
/// 3. Swift answers exactly once through [`NativeContext::answer`] or [`NativeContext::fail`],
///    from whichever thread the task ends on; that completes the engine's oneshot.
/// 4. `start` returns 0 when the answer was given before it returned, else a handle to the
///    running call; the engine passes that handle to `cancel` once, when it is done with the
///    call (answered, or dropped by MCP cancellation: then Swift cancels the task).
///
/// So a call that does not suspend costs no thread hop and no wake-up; UniFFI's foreign async
/// traits would start the task on Swift's global executor and wake the engine to finish
/// (bindings-swift/README.md, "What a Swift handler call costs").
///
/// Runs a tool: `arguments` is the validated arguments object as JSON text; the answer is JSON
/// text of any value `embed::shape::tool_result` accepts ([`NativeContext::answer`]), or one
/// text block without JSON ([`NativeContext::answer_tool_text`]).
#[uniffi::export(foreign)]
pub trait ToolHandler: Send + Sync {
    /// Starts the tool; returns 0 once answered, else a call handle for [`Self::cancel`].
    fn start(&self, arguments: String, context: Arc<NativeContext>, run_inline: bool) -> u64;
    /// Ends a running call (see [`ToolHandler`]): cancels its task if it still runs.
    fn cancel(&self, call: u64);
}

/// Reads a resource (static, or a template's match with its `variables` as a JSON object);
/// answers JSON text `embed::shape::resource_contents` accepts. Called as [`ToolHandler`] is.
#[uniffi::export(foreign)]
pub trait ResourceHandler: Send + Sync {
    /// Starts the read; returns 0 once answered, else a call handle for [`Self::cancel`].
    fn start(
        &self,
        uri: String,
        variables: String,
        context: Arc<NativeContext>,
        run_inline: bool,
    ) -> u64;
    /// Ends a running call: cancels its task if it still runs.
    fn cancel(&self, call: u64);
}

/// Renders a prompt from its arguments (a JSON object of strings); answers JSON text
/// `embed::shape::prompt_result` accepts. Called as [`ToolHandler`] is.
#[uniffi::export(foreign)]
pub trait PromptHandler: Send + Sync {
    /// Starts rendering; returns 0 once answered, else a call handle for [`Self::cancel`].
    fn start(&self, arguments: String, context: Arc<NativeContext>, run_inline: bool) -> u64;
    /// Ends a running call: cancels its task if it still runs.
    fn cancel(&self, call: u64);
}

/// Completes an argument; `params` is the `completion/complete` params as JSON text; answers
/// JSON text `embed::shape::completion` accepts (a list of strings, ...). Called as
/// [`ToolHandler`] is.
#[uniffi::export(foreign)]
pub trait CompletionHandler: Send + Sync {
    /// Starts the completion; returns 0 once answered, else a call handle for [`Self::cancel`].
    fn start(&self, params: String, context: Arc<NativeContext>, run_inline: bool) -> u64;
    /// Ends a running call: cancels its task if it still runs.
    fn cancel(&self, call: u64);
}

/// What a Swift client answers when its server asks (`sampling/createMessage`,
/// `elicitation/create`, `roots/list`), and where server notifications go.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait ClientHandler: Send + Sync {
    /// Answers a server-to-client request with its JSON result (text).
    async fn request(
        &self,
        method: String,
        params: String,
        context: Arc<NativeContext>,
    ) -> Result<String, FfiError>;

    /// Receives a server notification (params as JSON text). Must return quickly.
    fn notification(&self, method: String, params: String);
}

/// Receives the params of each `notifications/progress` of one outgoing request (JSON text).
#[uniffi::export(foreign)]
pub trait ProgressListener: Send + Sync {
    /// One progress notification.
    fn progress(&self, params: String);
}

/// Awaits a Swift answer and parses it (the client handler's UniFFI foreign future).
fn answer(
    fut: impl Future<Output = Result<String, FfiError>> + Send + 'static,
) -> BoxFuture<'static, Result<Value, McpError>> {
    Box::pin(async move {
        let text = fut.await.map_err(McpError::from)?;
        parse_answer(&text)
    })
}

/// A started Swift call the engine is not done with: ends it (cancelling its task if it still
/// runs) when dropped, whether answered or dropped by cancellation.
struct Started<C: FnMut(u64)> {
    call: u64,
    cancel: C,
}

impl<C: FnMut(u64)> Drop for Started<C> {
    fn drop(&mut self) {
        if self.call != 0 {
            (self.cancel)(self.call)
        }
    }
}

/// One server handler call (see [`ToolHandler`]): `start` runs on the first poll, on the
/// engine thread, and gets the context the answer comes back through; `cancel` ends a call
/// that was still running when `start` returned.
fn swift_call(
    ctx: ForeignContext,
    start: impl FnOnce(Arc<NativeContext>, bool) -> u64 + Send + 'static,
    cancel: impl FnMut(u64) + Send + 'static,
) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
    Box::pin(async move {
        let (native, answered) = NativeContext::answering(ctx);
        let call = if start_inline() {
            let began = Instant::now();
            let call = start(native, true);
            ran_inline(call == 0, began.elapsed());
            call
        } else {
            start(native, false)
        };
        let _started = Started { call, cancel };
        match answered.await {
            Ok(Ok(answer)) => foreign_answer(answer),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(McpError::internal(
                "the Swift handler ended without answering",
            )),
        }
    })
}

/// A handler's answer: JSON text for the engine to parse and shape, or a finished text result
/// (only a tool may answer one: the engine refuses it for any other request).
fn foreign_answer(answer: Answered) -> Result<ForeignAnswer, McpError> {
    match answer {
        Answered::Json(text) => parse_answer(&text).map(ForeignAnswer::Value),
        Answered::ToolText { text, is_error } => Ok(ForeignAnswer::ToolResult(if is_error {
            CallToolResult::error_text(text)
        } else {
            CallToolResult::text(text)
        })),
    }
}

/// The engine's view of a Swift server handler, of the kind it was registered as.
pub(crate) enum SwiftHandler {
    /// A tool (`NativeServer::add_tool`).
    Tool(Arc<dyn ToolHandler>),
    /// A static resource or a template.
    Resource(Arc<dyn ResourceHandler>),
    /// A prompt.
    Prompt(Arc<dyn PromptHandler>),
    /// A completion.
    Completion(Arc<dyn CompletionHandler>),
}

impl ForeignHandler for SwiftHandler {
    fn call(
        &self,
        request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        match (self, request) {
            (Self::Tool(h), ForeignRequest::CallTool { arguments }) => {
                let (h, c) = (h.clone(), h.clone());
                swift_call(
                    ctx,
                    move |native, inline| h.start(json_text(&arguments), native, inline),
                    move |call| c.cancel(call),
                )
            }
            (Self::Resource(h), ForeignRequest::ReadResource { uri, variables }) => {
                let (h, c) = (h.clone(), h.clone());
                swift_call(
                    ctx,
                    move |native, inline| h.start(uri, json_text(&variables), native, inline),
                    move |call| c.cancel(call),
                )
            }
            (Self::Prompt(h), ForeignRequest::GetPrompt { arguments }) => {
                let (h, c) = (h.clone(), h.clone());
                swift_call(
                    ctx,
                    move |native, inline| h.start(json_text(&arguments), native, inline),
                    move |call| c.cancel(call),
                )
            }
            (Self::Completion(h), ForeignRequest::Complete { params }) => {
                let (h, c) = (h.clone(), h.clone());
                swift_call(
                    ctx,
                    move |native, inline| h.start(json_text(&params), native, inline),
                    move |call| c.cancel(call),
                )
            }
            // The engine asks each handler only for the kind it was registered as.
            (_, request) => {
                let method = request.method();
                Box::pin(async move {
                    Err(McpError::internal(format!(
                        "a Swift handler of another kind was asked for {method}"
                    )))
                })
            }
        }
    }
}

/// The engine's view of a Swift client handler.
pub(crate) struct SwiftClient(pub Arc<dyn ClientHandler>);

impl ForeignClientHandler for SwiftClient {
    fn request(
        &self,
        method: String,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let h = self.0.clone();
        answer(async move {
            h.request(method, json_text(&params), NativeContext::new(ctx))
                .await
        })
    }

    fn notification(&self, method: String, params: Value) {
        self.0.notification(method, json_text(&params))
    }
}
