//! [`ForeignHandler`]: the one trait through which the engine calls a server handler written in
//! a binding's language (a tool, a resource or template, a prompt, a completion).
//!
//! Why one trait with one method: every binding already calls its handlers through one path
//! (Python: a callable called as `func(*args)`; Node: a handler id sent to one dispatcher;
//! Swift: a `start`/`cancel` pair per handler), so a trait per kind of handler only made each
//! binding write the same forwarding once per kind. Here the kind travels as data
//! ([`ForeignRequest`]) and the answer is one type for every kind ([`ForeignAnswer`]): a binding
//! implements [`ForeignHandler::call`] once, with a `match` where the kinds differ in what its
//! language receives (a resource gets its URI and variables, the others one JSON value).
//! What each kind's answer becomes (shaping, validation, the error policy of tools) stays in
//! [`super::EmbeddedServer`].

use super::ForeignContext;
use ferromcp::protocol::CallToolResult;
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;

/// What the engine asks a foreign handler, with the input of that kind of request.
///
/// Not `#[non_exhaustive]` on purpose: each binding matches it exhaustively, so a new kind of
/// request is a compile error in every binding until it says what its language receives.
#[derive(Debug, Clone, PartialEq)]
pub enum ForeignRequest {
    /// `tools/call`: `arguments` is the arguments object, validated against the tool's
    /// `inputSchema`. The answer is a `CallToolResult` or any value
    /// [`super::shape::tool_result`] turns into one (a string, content blocks, or the
    /// structured value of a tool with an `outputSchema`), or a finished result
    /// ([`ForeignAnswer::ToolResult`]). An `Err` becomes an `isError` result with its message
    /// as text, so the model sees it, except the errors the client must act on
    /// ([`super::is_tool_signal`]), which stay JSON-RPC errors; a binding passes every failure
    /// on as it is and lets the engine decide.
    CallTool {
        /// The arguments object.
        arguments: Value,
    },
    /// `resources/read` of a static resource or a template's match. `variables` is a JSON
    /// object of the template's variables (empty for a static resource). The answer is shaped
    /// by [`super::shape::resource_contents`] (a string, contents objects, or a
    /// `ReadResourceResult`).
    ReadResource {
        /// The URI read.
        uri: String,
        /// The template's variables, as an object of strings.
        variables: Value,
    },
    /// `prompts/get`: `arguments` is an object of strings. The answer is shaped by
    /// [`super::shape::prompt_result`] (a string, messages, or a `GetPromptResult`).
    GetPrompt {
        /// The arguments object.
        arguments: Value,
    },
    /// `completion/complete`: `params` is the request's params (`ref`, `argument`, `context`).
    /// The answer is read by [`super::shape::completion`] (a list of strings, a `Completion` or
    /// a `CompleteResult`).
    Complete {
        /// The request's params.
        params: Value,
    },
}

impl ForeignRequest {
    /// The MCP method this request answers (`tools/call`, `resources/read`, `prompts/get`,
    /// `completion/complete`).
    pub fn method(&self) -> &'static str {
        match self {
            Self::CallTool { .. } => "tools/call",
            Self::ReadResource { .. } => "resources/read",
            Self::GetPrompt { .. } => "prompts/get",
            Self::Complete { .. } => "completion/complete",
        }
    }
}

/// What a foreign handler answered.
#[derive(Debug)]
#[non_exhaustive]
pub enum ForeignAnswer {
    /// A JSON value for the engine to shape into the request's result (see each
    /// [`ForeignRequest`] kind).
    Value(Value),
    /// A finished tool result, sent as it is: no JSON round trip, no shaping. A binding whose
    /// handler answered a known shape (one text block, say) builds it directly. Only a
    /// [`ForeignRequest::CallTool`] may answer it; to any other request it is the handler's
    /// bug, answered with an internal error.
    ToolResult(CallToolResult),
}

impl From<Value> for ForeignAnswer {
    fn from(v: Value) -> Self {
        Self::Value(v)
    }
}

impl ForeignAnswer {
    /// The value of an answer to a request that is not a tool call (`method` names it); a
    /// finished tool result is an internal error there.
    pub(crate) fn into_value(self, method: &str) -> Result<Value, McpError> {
        match self {
            Self::Value(v) => Ok(v),
            Self::ToolResult(_) => Err(McpError::internal(format!(
                "a handler answered a tool result to {method}, which is not a tool call"
            ))),
        }
    }
}

/// A server handler written in a binding's language: one method for every kind of request
/// ([`ForeignRequest`]), registered with [`super::EmbeddedServer`]'s `add_*` methods. The
/// engine calls it on a tokio worker, inside [`ferromcp::wait::handover`]; it should only start
/// the foreign call and return its future. Dropping the future means the engine no longer
/// waits (the request was cancelled: `ctx` says so too).
pub trait ForeignHandler: Send + Sync + 'static {
    /// Answers one request.
    fn call(
        &self,
        request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>>;
}
