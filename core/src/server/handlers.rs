//! Object-safe handler types: what the registries store and what the bindings construct.
//!
//! Every handler is an `Arc<dyn Fn(..) -> BoxFuture<..>>` taking JSON-shaped input and the
//! request's [`RequestContext`]. The typed Rust API (see [`super::tools`]) and each language
//! binding build these from their own function types.

use crate::protocol::{
    CallToolResult, CompleteRequestParams, Completion, GetPromptResult, ResourceContents,
};
use crate::session::RequestContext;
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Calls a tool with its (already validated) arguments.
///
/// `Err` becomes a JSON-RPC error; a tool that *ran* and failed should return
/// `Ok(CallToolResult::error_text(..))` (`isError: true`) so the model sees the failure.
pub type ToolFn = Arc<
    dyn Fn(
            Map<String, Value>,
            RequestContext,
        ) -> BoxFuture<'static, Result<CallToolResult, McpError>>
        + Send
        + Sync,
>;

/// What a resource read handler receives.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadRequest {
    /// The URI being read.
    pub uri: String,
    /// Variables extracted from the URI when it matched a template (empty for static resources).
    pub variables: HashMap<String, String>,
}

/// Reads a resource (static or templated).
pub type ResourceFn = Arc<
    dyn Fn(
            ReadRequest,
            RequestContext,
        ) -> BoxFuture<'static, Result<Vec<ResourceContents>, McpError>>
        + Send
        + Sync,
>;

/// Renders a prompt from its (already checked) arguments.
pub type PromptFn = Arc<
    dyn Fn(
            Map<String, Value>,
            RequestContext,
        ) -> BoxFuture<'static, Result<GetPromptResult, McpError>>
        + Send
        + Sync,
>;

/// Completes an argument value.
pub type CompletionFn = Arc<
    dyn Fn(
            CompleteRequestParams,
            RequestContext,
        ) -> BoxFuture<'static, Result<Completion, McpError>>
        + Send
        + Sync,
>;

/// Answers a user-defined request method.
pub type MethodFn = Arc<
    dyn Fn(Option<Value>, RequestContext) -> BoxFuture<'static, Result<Value, McpError>>
        + Send
        + Sync,
>;

/// Wraps an async closure as a [`ToolFn`].
pub fn tool_fn<F, Fut>(f: F) -> ToolFn
where
    F: Fn(Map<String, Value>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
{
    Arc::new(move |args, ctx| Box::pin(f(args, ctx)))
}

/// Wraps an async closure as a [`ResourceFn`].
pub fn resource_fn<F, Fut>(f: F) -> ResourceFn
where
    F: Fn(ReadRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Vec<ResourceContents>, McpError>> + Send + 'static,
{
    Arc::new(move |req, ctx| Box::pin(f(req, ctx)))
}

/// Wraps an async closure as a [`PromptFn`].
pub fn prompt_fn<F, Fut>(f: F) -> PromptFn
where
    F: Fn(Map<String, Value>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<GetPromptResult, McpError>> + Send + 'static,
{
    Arc::new(move |args, ctx| Box::pin(f(args, ctx)))
}

/// Wraps an async closure as a [`CompletionFn`].
pub fn completion_fn<F, Fut>(f: F) -> CompletionFn
where
    F: Fn(CompleteRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Completion, McpError>> + Send + 'static,
{
    Arc::new(move |p, ctx| Box::pin(f(p, ctx)))
}

/// Wraps an async closure as a [`MethodFn`].
pub fn method_fn<F, Fut>(f: F) -> MethodFn
where
    F: Fn(Option<Value>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Value, McpError>> + Send + 'static,
{
    Arc::new(move |p, ctx| Box::pin(f(p, ctx)))
}
