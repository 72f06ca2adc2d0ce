//! [`EmbeddedServer`]: a server whose features are JSON definitions plus foreign handlers.

use super::{decode, decode_result, ForeignContext};
use crate::protocol::{CallToolResult, Completion, GetPromptResult, ResourceContents};
use crate::server::{
    completion_fn, prompt_fn, resource_fn, tool_fn, CompletionRef, Server, ServerOptions,
};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

/// Answers `tools/call` for one tool. `arguments` was validated against the tool's
/// `inputSchema`; the answer is a `CallToolResult` as JSON (`content`, `structuredContent`,
/// `isError`). Return `Err` only for protocol errors: a tool that failed should answer
/// `isError: true` so the model sees it.
pub trait ForeignToolHandler: Send + Sync + 'static {
    /// Runs the tool.
    fn call(
        &self,
        arguments: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// Answers `resources/read` for a static resource or a template. `variables` is a JSON object of
/// the template's variables (empty for a static resource). The answer is either an array of
/// resource contents or an object with a `contents` array.
pub trait ForeignResourceHandler: Send + Sync + 'static {
    /// Reads the resource.
    fn read(
        &self,
        uri: String,
        variables: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// Answers `prompts/get` for one prompt; `arguments` is an object of strings. The answer is a
/// `GetPromptResult` as JSON (`messages`, optional `description`).
pub trait ForeignPromptHandler: Send + Sync + 'static {
    /// Renders the prompt.
    fn get(
        &self,
        arguments: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// Answers `completion/complete`; receives the request params (`ref`, `argument`, `context`) and
/// answers a `Completion` (`values`, optional `total`, `hasMore`) or a list of strings.
pub trait ForeignCompletionHandler: Send + Sync + 'static {
    /// Completes the argument.
    fn complete(
        &self,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// A server for foreign callers. Cheap to clone; clones share the registries.
#[derive(Clone, Debug)]
pub struct EmbeddedServer {
    server: Server,
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

impl EmbeddedServer {
    /// Creates a server from a JSON configuration:
    /// `{"name": "...", "version": "...", "title"?, "instructions"?, "pageSize"?,
    ///   "requestTimeoutMs"?}`.
    pub fn new(config: Value) -> Result<Self, McpError> {
        let name = opt_str(&config, "name")
            .ok_or_else(|| McpError::invalid_params("server config: name is required"))?;
        let version = opt_str(&config, "version").unwrap_or_else(|| "0.0.0".into());
        let mut options = ServerOptions::new(name, version);
        options.title = opt_str(&config, "title");
        options.instructions = opt_str(&config, "instructions");
        if let Some(n) = config.get("pageSize").and_then(Value::as_u64) {
            options.page_size = n.max(1) as usize;
        }
        if let Some(ms) = config.get("requestTimeoutMs").and_then(Value::as_u64) {
            options.session.request_timeout = Some(std::time::Duration::from_millis(ms));
        }
        options.enable_tools = config.get("enableTools").and_then(Value::as_bool) == Some(true);
        let server = Server::builder_with(options).build()?;
        Ok(Self { server })
    }

    /// Wraps an existing engine server.
    pub fn from_server(server: Server) -> Self {
        Self { server }
    }

    /// The engine server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Registers (or replaces) a tool from its JSON definition (`name`, `description`,
    /// `inputSchema`, `outputSchema`, `annotations`, ...). Invalid schemas are rejected here.
    pub fn add_tool_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignToolHandler>,
    ) -> Result<(), McpError> {
        let tool = decode("tool definition", definition)?;
        self.server.add_tool(
            tool,
            tool_fn(move |args, ctx| {
                let fut = handler.call(Value::Object(args), ForeignContext::new(ctx));
                async move { decode_result::<CallToolResult>("CallToolResult", fut.await?) }
            }),
        )
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.server.remove_tool(name)
    }

    /// Registers (or replaces) a static resource from its JSON definition (`uri`, `name`, ...).
    pub fn add_resource_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignResourceHandler>,
    ) -> Result<(), McpError> {
        let resource = decode("resource definition", definition)?;
        self.server
            .add_resource(resource, resource_handler(handler));
        Ok(())
    }

    /// Registers (or replaces) a resource template (`uriTemplate`, `name`, ...).
    pub fn add_resource_template_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignResourceHandler>,
    ) -> Result<(), McpError> {
        let template = decode("resource template definition", definition)?;
        self.server
            .add_resource_template(template, resource_handler(handler))
    }

    /// Removes a static resource; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.server.remove_resource(uri)
    }

    /// Registers (or replaces) a prompt from its JSON definition (`name`, `arguments`, ...).
    pub fn add_prompt_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignPromptHandler>,
    ) -> Result<(), McpError> {
        let prompt = decode("prompt definition", definition)?;
        self.server.add_prompt(
            prompt,
            prompt_fn(move |args, ctx| {
                let fut = handler.get(Value::Object(args), ForeignContext::new(ctx));
                async move { decode_result::<GetPromptResult>("GetPromptResult", fut.await?) }
            }),
        );
        Ok(())
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.server.remove_prompt(name)
    }

    /// Registers a completion handler. `reference` is `{"type": "ref/prompt", "name": ...}` or
    /// `{"type": "ref/resource", "uri": ...}`; with `reference` null the handler is the fallback
    /// for every argument without a specific handler.
    pub fn add_completion_json(
        &self,
        reference: Value,
        argument: Option<String>,
        handler: Arc<dyn ForeignCompletionHandler>,
    ) -> Result<(), McpError> {
        let f = completion_fn(move |params, ctx| {
            let params = serde_json::to_value(params).expect("protocol types serialize");
            let fut = handler.complete(params, ForeignContext::new(ctx));
            async move {
                let v = fut.await?;
                let v = match v {
                    Value::Array(values) => json!({ "values": values }),
                    Value::Object(mut m) if m.contains_key("completion") => {
                        m.remove("completion").unwrap_or_default()
                    }
                    other => other,
                };
                decode_result::<Completion>("Completion", v)
            }
        });
        if reference.is_null() {
            self.server.set_completion_fallback(f);
            return Ok(());
        }
        let target = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => CompletionRef::Prompt(
                opt_str(&reference, "name")
                    .ok_or_else(|| McpError::invalid_params("ref/prompt needs a name"))?,
            ),
            Some("ref/resource") => CompletionRef::Resource(
                opt_str(&reference, "uri")
                    .ok_or_else(|| McpError::invalid_params("ref/resource needs a uri"))?,
            ),
            _ => {
                return Err(McpError::invalid_params(
                    "completion reference type must be ref/prompt or ref/resource",
                ))
            }
        };
        let argument = argument
            .ok_or_else(|| McpError::invalid_params("a completion reference needs an argument"))?;
        self.server.add_completion(target, argument, f);
        Ok(())
    }

    /// Tells subscribed sessions that a resource changed.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.server.notify_resource_updated(uri)
    }

    /// Sends a log message to every live session (respecting each session's level).
    pub async fn log(&self, level: &str, logger: Option<String>, data: Value) {
        for s in self.server.live_sessions() {
            let _ = s.peer().log(level, logger.as_deref(), data.clone()).await;
        }
    }

    /// Serves one session over this process's stdin/stdout until stdin closes.
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        self.server.serve_stdio().await
    }
}

fn resource_handler(handler: Arc<dyn ForeignResourceHandler>) -> crate::server::ResourceFn {
    resource_fn(move |req, ctx| {
        let vars = ForeignContext::vars_json(&req.variables);
        let fut = handler.read(req.uri, vars, ForeignContext::new(ctx));
        async move {
            let v = match fut.await? {
                Value::Object(mut m) if m.contains_key("contents") => {
                    m.remove("contents").unwrap_or_default()
                }
                v @ Value::Object(_) => Value::Array(vec![v]),
                v => v,
            };
            decode_result::<Vec<ResourceContents>>("resource contents", v)
        }
    })
}
