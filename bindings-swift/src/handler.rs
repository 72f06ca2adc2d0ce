//! Swift handlers: the foreign traits a Swift facade implements (one per kind of handler), and
//! their adapters to the engine's `embed::Foreign*Handler` traits.
//!
//! Each call hands Swift its JSON input as text and a [`NativeContext`]; Swift answers JSON
//! text or an [`FfiError`]. The engine drops a handler's future when the request is cancelled
//! (MCP `notifications/cancelled`, the session closing); UniFFI then cancels the Swift `Task`
//! running the handler, so `Task.isCancelled` / `Task.checkCancellation()` see it.

use crate::context::NativeContext;
use crate::error::{json_text, parse_answer, FfiError};
use ferromcp::embed::{
    ForeignClientHandler, ForeignCompletionHandler, ForeignContext, ForeignPromptHandler,
    ForeignResourceHandler, ForeignToolHandler,
};
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// Runs a tool: `arguments` is the validated arguments object as JSON text; the answer is JSON
/// text of any value `embed::shape::tool_result` accepts.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait ToolHandler: Send + Sync {
    /// Runs the tool.
    async fn call(
        &self,
        arguments: String,
        context: Arc<NativeContext>,
    ) -> Result<String, FfiError>;
}

/// Reads a resource (static, or a template's match with its `variables` as a JSON object).
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait ResourceHandler: Send + Sync {
    /// Reads the resource; answers JSON text `embed::shape::resource_contents` accepts.
    async fn read(
        &self,
        uri: String,
        variables: String,
        context: Arc<NativeContext>,
    ) -> Result<String, FfiError>;
}

/// Renders a prompt from its arguments (a JSON object of strings).
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait PromptHandler: Send + Sync {
    /// Renders the prompt; answers JSON text `embed::shape::prompt_result` accepts.
    async fn get(&self, arguments: String, context: Arc<NativeContext>)
        -> Result<String, FfiError>;
}

/// Completes an argument; `params` is the `completion/complete` params as JSON text.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait CompletionHandler: Send + Sync {
    /// Answers JSON text `embed::shape::completion` accepts (a list of strings, ...).
    async fn complete(
        &self,
        params: String,
        context: Arc<NativeContext>,
    ) -> Result<String, FfiError>;
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

/// Awaits a Swift answer and parses it.
fn answer(
    fut: impl Future<Output = Result<String, FfiError>> + Send + 'static,
) -> BoxFuture<'static, Result<Value, McpError>> {
    Box::pin(async move {
        let text = fut.await.map_err(McpError::from)?;
        parse_answer(&text)
    })
}

/// The engine's view of a Swift tool handler.
pub(crate) struct SwiftTool(pub Arc<dyn ToolHandler>);

impl ForeignToolHandler for SwiftTool {
    fn call(
        &self,
        arguments: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let h = self.0.clone();
        answer(async move { h.call(json_text(&arguments), NativeContext::new(ctx)).await })
    }
}

/// The engine's view of a Swift resource handler.
pub(crate) struct SwiftResource(pub Arc<dyn ResourceHandler>);

impl ForeignResourceHandler for SwiftResource {
    fn read(
        &self,
        uri: String,
        variables: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let h = self.0.clone();
        answer(async move {
            h.read(uri, json_text(&variables), NativeContext::new(ctx))
                .await
        })
    }
}

/// The engine's view of a Swift prompt handler.
pub(crate) struct SwiftPrompt(pub Arc<dyn PromptHandler>);

impl ForeignPromptHandler for SwiftPrompt {
    fn get(
        &self,
        arguments: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let h = self.0.clone();
        answer(async move { h.get(json_text(&arguments), NativeContext::new(ctx)).await })
    }
}

/// The engine's view of a Swift completion handler.
pub(crate) struct SwiftCompletion(pub Arc<dyn CompletionHandler>);

impl ForeignCompletionHandler for SwiftCompletion {
    fn complete(
        &self,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let h = self.0.clone();
        answer(async move {
            h.complete(json_text(&params), NativeContext::new(ctx))
                .await
        })
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
