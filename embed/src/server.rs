//! [`EmbeddedServer`]: a server whose features are JSON definitions plus foreign handlers.

use super::{
    codes, decode, decode_result, shape, ForeignAnswer, ForeignContext, ForeignHandler,
    ForeignRequest, ServerConfig,
};
use ferromcp::protocol::{
    CallToolResult, Completion, GetPromptResult, Resource, ResourceContents, ResourceTemplate, Tool,
};
use ferromcp::server::{completion_fn, prompt_fn, resource_fn, tool_fn, CompletionRef, Server};
use ferromcp::McpError;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A server for foreign callers. Cheap to clone; clones share the registries.
#[derive(Clone, Debug)]
pub struct EmbeddedServer {
    server: Server,
    /// Ends [`Self::serve_stdio`] gracefully ([`Self::stop_stdio`]); shared by the clones.
    stdio_stop: CancellationToken,
    /// The response caches configured here, for [`Self::invalidate_cache`].
    pub(crate) caches: super::cache::CacheHandles,
    /// The telemetry of the `openTelemetry` layer added here, for the HTTP listener
    /// ([`Self::serve_http`]: its gauges and Prometheus endpoint); shared by the clones.
    #[cfg(feature = "otel")]
    pub(crate) telemetry: super::middleware::ServedTelemetry,
}

/// A tool from its JSON definition, its schemas made object schemas ([`shape::object_schema`]).
fn tool_definition(definition: Value) -> Result<Tool, McpError> {
    let mut tool: Tool = decode("tool definition", definition)?;
    shape::object_schema(
        &format!("tool {:?}: inputSchema", tool.name),
        &mut tool.input_schema,
    )?;
    if let Some(output) = tool.output_schema.as_mut() {
        shape::object_schema(&format!("tool {:?}: outputSchema", tool.name), output)?;
    }
    Ok(tool)
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

impl EmbeddedServer {
    /// Creates a server from its typed configuration.
    pub fn new(config: &ServerConfig) -> Result<Self, McpError> {
        let mut builder = Server::builder_with(config.options());
        let caches = super::cache::CacheHandles::default();
        for layer in super::middleware::configured_layers(
            config.middleware.as_deref().unwrap_or(&[]),
            &caches,
        )? {
            builder = builder.middleware(layer);
        }
        let mut server = Self::from_server(builder.build()?);
        server.caches = caches;
        Ok(server)
    }

    /// Creates a server from the JSON form of [`ServerConfig`] (unknown keys are an error).
    pub fn from_json(config: Value) -> Result<Self, McpError> {
        Self::new(&ServerConfig::from_json(config)?)
    }

    /// Wraps an existing engine server.
    pub fn from_server(server: Server) -> Self {
        Self {
            server,
            stdio_stop: CancellationToken::new(),
            caches: Default::default(),
            #[cfg(feature = "otel")]
            telemetry: Default::default(),
        }
    }

    /// The engine server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Registers (or replaces) a tool from its JSON definition (`name`, `description`,
    /// `inputSchema`, `outputSchema`, `annotations`, ...). Invalid schemas are rejected here;
    /// a schema without `type` is listed with `"type": "object"` ([`shape::object_schema`]).
    /// `handler` gets [`ForeignRequest::CallTool`] and answers a value to shape
    /// ([`ForeignAnswer::Value`]) or a finished result sent as it is
    /// ([`ForeignAnswer::ToolResult`]); its errors follow the policy written there.
    pub fn add_tool_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignHandler>,
    ) -> Result<(), McpError> {
        let tool = tool_definition(definition)?;
        let shaping = if tool.output_schema.is_some() {
            Shaping::Structured
        } else {
            Shaping::Plain
        };
        self.add_foreign_tool(tool, handler, shaping)
    }

    /// Registers (or replaces) a tool as [`Self::add_tool_json`] does, for a tool whose
    /// `outputSchema` wraps its return value as `{"result": ...}` (the official Python SDK's
    /// convention for a function returning a string, a number, a list, ...). An answer that is
    /// not an object is that return value: the engine builds `structuredContent`
    /// `{"result": value}` and the text content ([`shape::wrapped_tool_result`]), so the binding
    /// hands over the bare value. An object answer is shaped as by [`Self::add_tool_json`]
    /// (a full `CallToolResult` passes through). The definition must have an `outputSchema`
    /// whose only required property is `result`.
    pub fn add_tool_wrapping(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignHandler>,
    ) -> Result<(), McpError> {
        let tool = tool_definition(definition)?;
        let wraps = tool.output_schema.as_ref().is_some_and(|s| {
            s.get("properties").and_then(|p| p.get("result")).is_some()
                && s.get("required") == Some(&serde_json::json!(["result"]))
        });
        if !wraps {
            return Err(McpError::invalid_params(format!(
                "tool {:?}: a wrapped result needs an outputSchema whose only required property is \"result\"",
                tool.name
            )));
        }
        self.add_foreign_tool(tool, handler, Shaping::Wrapped)
    }

    fn add_foreign_tool(
        &self,
        tool: Tool,
        handler: Arc<dyn ForeignHandler>,
        shaping: Shaping,
    ) -> Result<(), McpError> {
        self.server.add_tool(
            tool,
            tool_fn(move |args, ctx| {
                let lane = ErrorLane::of(&ctx);
                let request = ForeignRequest::CallTool {
                    arguments: Value::Object(args),
                };
                let fut = ferromcp::wait::handover(handler.call(request, ForeignContext::new(ctx)));
                async move {
                    let answer = match fut.await {
                        Ok(ForeignAnswer::Value(v))
                            if shaping == Shaping::Wrapped && !v.is_object() =>
                        {
                            return Ok(shape::wrapped_tool_result(v))
                        }
                        other => other,
                    };
                    tool_outcome(answer, shaping != Shaping::Plain, lane)
                }
            }),
        )
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.server.remove_tool(name)
    }

    /// Registers (or replaces) a static resource from its JSON definition (`uri`, `name`, ...);
    /// `handler` gets [`ForeignRequest::ReadResource`].
    pub fn add_resource_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignHandler>,
    ) -> Result<(), McpError> {
        let resource: Resource = decode("resource definition", definition)?;
        let mime = resource.mime_type.clone();
        self.server
            .add_resource(resource, resource_handler(handler, mime));
        Ok(())
    }

    /// Registers (or replaces) a resource template (`uriTemplate`, `name`, ...); `handler`
    /// gets [`ForeignRequest::ReadResource`] with the template's variables.
    pub fn add_resource_template_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignHandler>,
    ) -> Result<(), McpError> {
        let template: ResourceTemplate = decode("resource template definition", definition)?;
        let mime = template.mime_type.clone();
        self.server
            .add_resource_template(template, resource_handler(handler, mime))
    }

    /// Removes a static resource; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.server.remove_resource(uri)
    }

    /// Registers (or replaces) a prompt from its JSON definition (`name`, `arguments`, ...);
    /// `handler` gets [`ForeignRequest::GetPrompt`].
    pub fn add_prompt_json(
        &self,
        definition: Value,
        handler: Arc<dyn ForeignHandler>,
    ) -> Result<(), McpError> {
        let prompt = decode("prompt definition", definition)?;
        self.server.add_prompt(
            prompt,
            prompt_fn(move |args, ctx| {
                let request = ForeignRequest::GetPrompt {
                    arguments: Value::Object(args),
                };
                let fut = ferromcp::wait::handover(handler.call(request, ForeignContext::new(ctx)));
                async move {
                    let v = shape::prompt_result(fut.await?.into_value("prompts/get")?);
                    decode_result::<GetPromptResult>("GetPromptResult", v)
                }
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
    /// for every argument without a specific handler. `handler` gets
    /// [`ForeignRequest::Complete`].
    pub fn add_completion_json(
        &self,
        reference: Value,
        argument: Option<String>,
        handler: Arc<dyn ForeignHandler>,
    ) -> Result<(), McpError> {
        let f = completion_fn(move |params, ctx| {
            let params = serde_json::to_value(params).expect("protocol types serialize");
            let request = ForeignRequest::Complete { params };
            let fut = ferromcp::wait::handover(handler.call(request, ForeignContext::new(ctx)));
            async move {
                let v = fut.await?.into_value("completion/complete")?;
                decode_result::<Completion>("Completion", shape::completion(v))
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

    /// Reads one of this server's resources (static, or through a template) from inside a
    /// handler, for the handler's own use (Python's `ctx.read_resource`): a `resources/read`
    /// answered as a client's would be (this server's middleware chain, then its dispatch:
    /// the same templates, MIME types and errors, `-32002` for an unknown URI), in the context
    /// of the request `ctx` belongs to: its session, principal and cancellation (the resource
    /// handler is cancelled with it). Answers the `ReadResourceResult` (`{"contents": [...]}`).
    pub async fn read_resource(&self, uri: &str, ctx: &ForeignContext) -> Result<Value, McpError> {
        use ferromcp::session::Service;
        let rc = ctx.request_context();
        let request = ferromcp::jsonrpc::Request {
            id: rc.request_id().clone(),
            method: "resources/read".to_string(),
            params: Some(serde_json::json!({ "uri": uri })),
        };
        self.server.handle_request(request, rc.clone()).await
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

    /// Sends a log message to the live session whose transport-level id (Streamable HTTP's
    /// `Mcp-Session-Id`) is `session_id` (respecting its level); returns whether this server
    /// holds such a session. Sessions served by another replica are not reached.
    pub async fn log_to_session(
        &self,
        session_id: &str,
        level: &str,
        logger: Option<String>,
        data: Value,
    ) -> bool {
        let session = self
            .server
            .live_sessions()
            .into_iter()
            .find(|s| s.session_id() == Some(session_id));
        match session {
            Some(s) => {
                let _ = s.peer().log(level, logger.as_deref(), data).await;
                true
            }
            None => false,
        }
    }

    /// Serves one session over this process's stdin/stdout until stdin closes or
    /// [`Self::stop_stdio`] is called. Either way it winds down gracefully: an open
    /// `subscriptions/listen` is answered with its completion result, requests being served
    /// finish and are answered, then stdout closes.
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        self.server
            .serve_stdio_until(self.stdio_stop.clone().cancelled_owned())
            .await
    }

    /// Ends [`Self::serve_stdio`] gracefully (see there): no further request is read. Does
    /// not wait (the serving call returns once it is done). Final: stdin is served once, so a
    /// later `serve_stdio` returns at once.
    pub fn stop_stdio(&self) {
        self.stdio_stop.cancel();
    }
}

/// How a foreign tool's answers become results.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shaping {
    /// No `outputSchema`: [`shape::tool_result`] without structured content.
    Plain,
    /// An `outputSchema`: [`shape::tool_result`] with the value as `structuredContent`.
    Structured,
    /// An `outputSchema` wrapping the value as `{"result": ...}`: a non-object answer is
    /// [`shape::wrapped_tool_result`], an object one as for `Structured`.
    Wrapped,
}

/// Where a foreign tool call runs, as far as its errors are concerned.
#[derive(Clone, Copy)]
struct ErrorLane {
    /// A per-request-era (2026-07-28) request.
    per_request: bool,
    /// A task of the tasks extension, whose status tells a tool execution error (`completed`
    /// with an `isError` result) from a JSON-RPC error (`failed`).
    task: bool,
}

impl ErrorLane {
    fn of(ctx: &ferromcp::session::RequestContext) -> Self {
        Self {
            per_request: ctx.protocol_version().is_some_and(|v| v.is_per_request()),
            task: ferromcp::binding_seam::in_extension_task(ctx),
        }
    }
}

/// What a foreign tool's answer becomes, for every way of registering one: a finished result as
/// it is, a value shaped by [`shape::tool_result`], an error the client must act on
/// ([`codes::is_tool_signal`]) and an answer that is not JSON ([`shape::answer_not_json`]) as
/// a JSON-RPC error, any other error an `isError` result. In a
/// task of the tasks extension an `McpError` the handler raised stays a JSON-RPC error (the task
/// ends `failed`, as with a Rust handler's `Err`) while an exception of another kind
/// ([`McpError::handler_exception`]) is still a tool execution error (the task ends `completed`
/// with `isError`); in an ordinary call both are tool execution errors, as in 2025-11-25.
fn tool_outcome(
    answer: Result<ForeignAnswer, McpError>,
    structured: bool,
    lane: ErrorLane,
) -> Result<CallToolResult, McpError> {
    let v = match answer {
        Ok(ForeignAnswer::ToolResult(r)) => return Ok(r),
        // The common answer, one text block, built directly (what shaping would decode to).
        Ok(ForeignAnswer::Value(Value::String(s))) if !structured => {
            return Ok(CallToolResult::text(s))
        }
        Ok(ForeignAnswer::Value(v)) => shape::tool_result(v, structured),
        Err(e) if codes::is_tool_signal(e.code, lane.per_request) => return Err(e),
        // The server's bug, not the tool's failure: as a malformed result is (below).
        Err(e) if shape::is_answer_not_json(&e) => return Err(e),
        Err(e) if lane.task && !e.is_handler_exception() => return Err(e),
        Err(e) => shape::tool_error(&e),
    };
    decode_result::<CallToolResult>("CallToolResult", v)
}

fn resource_handler(
    handler: Arc<dyn ForeignHandler>,
    mime_type: Option<String>,
) -> ferromcp::server::ResourceFn {
    resource_fn(move |req, ctx| {
        let vars = ForeignContext::vars_json(&req.variables);
        let uri = req.uri;
        let request = ForeignRequest::ReadResource {
            uri: uri.clone(),
            variables: vars,
        };
        let fut = ferromcp::wait::handover(handler.call(request, ForeignContext::new(ctx)));
        let mime_type = mime_type.clone();
        async move {
            let answer = fut.await?.into_value("resources/read")?;
            let v = shape::resource_contents(&uri, answer, mime_type.as_deref());
            decode_result::<Vec<ResourceContents>>("resource contents", v)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CallOptions, ClientConfig, EmbeddedClient};
    use futures_util::future::BoxFuture;
    use serde_json::json;

    /// Answers a finished result for `{"text": ...}`, and the value in `{"value": ...}` to shape.
    struct Answering;

    impl ForeignHandler for Answering {
        fn call(
            &self,
            request: ForeignRequest,
            _ctx: ForeignContext,
        ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
            let arguments = arguments_of(request);
            Box::pin(async move {
                Ok(match arguments.get("text").and_then(Value::as_str) {
                    Some(t) => ForeignAnswer::ToolResult(CallToolResult::error_text(t)),
                    None => ForeignAnswer::Value(arguments["value"].clone()),
                })
            })
        }
    }

    /// The arguments of a tool call (the only request these handlers are registered for).
    fn arguments_of(request: ForeignRequest) -> Value {
        match request {
            ForeignRequest::CallTool { arguments } => arguments,
            other => panic!("a tool handler was asked for {}", other.method()),
        }
    }

    #[tokio::test]
    async fn a_tool_answers_a_finished_result_or_a_value_to_shape() {
        let server = EmbeddedServer::from_json(json!({"name": "s", "version": "1"})).unwrap();
        let def = json!({"name": "t", "inputSchema": {"type": "object"}});
        server.add_tool_json(def, Arc::new(Answering)).unwrap();
        let client = EmbeddedClient::connect_memory(&server, &ClientConfig::default(), None)
            .await
            .unwrap();
        let call = |args: Value| {
            client.request(
                "tools/call",
                Some(json!({"name": "t", "arguments": args})),
                CallOptions::default(),
            )
        };
        assert_eq!(
            call(json!({"text": "as is"})).await.unwrap(),
            json!({"content": [{"type": "text", "text": "as is"}], "isError": true})
        );
        assert_eq!(
            call(json!({"value": "shaped"})).await.unwrap(),
            json!({"content": [{"type": "text", "text": "shaped"}]})
        );
        assert_eq!(
            call(json!({"value": {"type": "text", "text": "a block"}}))
                .await
                .unwrap(),
            json!({"content": [{"type": "text", "text": "a block"}]})
        );
        client.close().await;
    }

    /// A schema without `type` (`{}`, as the TypeScript SDK's examples write) is listed as an
    /// object schema, for every way of registering a tool; one of another type is refused.
    #[tokio::test]
    async fn tool_schemas_without_type_are_listed_as_object_schemas() {
        let server = EmbeddedServer::from_json(json!({"name": "s", "version": "1"})).unwrap();
        server
            .add_tool_json(json!({"name": "a", "inputSchema": {}}), Arc::new(Echo))
            .unwrap();
        server
            .add_tool_json(
                json!({"name": "b", "inputSchema": {"properties": {"x": {"type": "string"}}},
                    "outputSchema": {"properties": {"y": {}}}}),
                Arc::new(Answering),
            )
            .unwrap();
        server
            .add_tool_wrapping(
                json!({"name": "c", "inputSchema": {},
                    "outputSchema": {"properties": {"result": {}}, "required": ["result"]}}),
                Arc::new(Echo),
            )
            .unwrap();
        let refused = server
            .add_tool_json(
                json!({"name": "d", "inputSchema": {"type": "string"}}),
                Arc::new(Echo),
            )
            .unwrap_err();
        assert!(
            refused.message.contains("must be an object schema"),
            "{}",
            refused.message
        );
        let client = EmbeddedClient::connect_memory(&server, &ClientConfig::default(), None)
            .await
            .unwrap();
        let listed = client
            .request("tools/list", None, CallOptions::default())
            .await
            .unwrap();
        let tools = listed["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 3, "{listed}");
        for t in tools {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            if let Some(o) = t.get("outputSchema") {
                assert_eq!(o["type"], "object", "{t}");
            }
        }
        assert_eq!(
            tools
                .iter()
                .filter(|t| t.get("outputSchema").is_some())
                .count(),
            2
        );
        // Calls still validate against the completed schema.
        let r = client
            .request(
                "tools/call",
                Some(json!({"name": "a", "arguments": {"value": "v"}})),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(r["content"][0]["text"], "v");
        client.close().await;
    }

    /// Fails as a binding does when the answer has no JSON form, or with a plain error.
    struct NotJson;

    impl ForeignHandler for NotJson {
        fn call(
            &self,
            request: ForeignRequest,
            _ctx: ForeignContext,
        ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
            let arguments = arguments_of(request);
            Box::pin(async move {
                Err(match arguments.get("plain") {
                    Some(_) => McpError::internal("plain failure"),
                    None => shape::answer_not_json("a BigInt at `n`"),
                })
            })
        }
    }

    #[tokio::test]
    async fn a_tool_answer_that_is_not_json_is_an_internal_error_not_an_is_error_result() {
        let server = EmbeddedServer::from_json(json!({"name": "s", "version": "1"})).unwrap();
        server
            .add_tool_json(json!({"name": "t"}), Arc::new(NotJson))
            .unwrap();
        let client = EmbeddedClient::connect_memory(&server, &ClientConfig::default(), None)
            .await
            .unwrap();
        let call = |args: Value| {
            client.request(
                "tools/call",
                Some(json!({"name": "t", "arguments": args})),
                CallOptions::default(),
            )
        };
        let e = call(json!({})).await.unwrap_err();
        assert_eq!(e.code, ferromcp::error::codes::INTERNAL_ERROR);
        assert_eq!(
            e.message,
            "handler returned a value that is not JSON: a BigInt at `n`"
        );
        assert_eq!(e.data, Some(json!({"reason": "answerNotJson"})));
        let r = call(json!({"plain": true})).await.unwrap();
        assert_eq!(r["isError"], true);
        client.close().await;
    }

    /// A tool that reads the resource named by its `uri` argument through
    /// [`EmbeddedServer::read_resource`] and answers the result, or the error's code.
    struct ReadsOwn(EmbeddedServer);

    impl ForeignHandler for ReadsOwn {
        fn call(
            &self,
            request: ForeignRequest,
            ctx: ForeignContext,
        ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
            let server = self.0.clone();
            let uri = arguments_of(request)["uri"].as_str().unwrap().to_string();
            Box::pin(async move {
                Ok(match server.read_resource(&uri, &ctx).await {
                    Ok(r) => json!({ "read": r }),
                    Err(e) => json!({ "code": e.code, "message": e.message }),
                }
                .into())
            })
        }
    }

    /// Answers a resource's URI and variables as text, or a finished tool result when the
    /// variable `tool` is set (which only a tool may answer).
    struct Resource;

    impl ForeignHandler for Resource {
        fn call(
            &self,
            request: ForeignRequest,
            _ctx: ForeignContext,
        ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
            let ForeignRequest::ReadResource { uri, variables } = request else {
                panic!("a resource handler was asked for {}", request.method());
            };
            Box::pin(async move {
                Ok(if variables.get("name") == Some(&json!("tool")) {
                    ForeignAnswer::ToolResult(CallToolResult::text("no"))
                } else {
                    json!(format!("{uri} {variables}")).into()
                })
            })
        }
    }

    #[tokio::test]
    async fn a_handler_reads_its_own_servers_resources_as_a_client_would() {
        let server = EmbeddedServer::from_json(json!({"name": "s", "version": "1"})).unwrap();
        server
            .add_resource_json(
                json!({"uri": "config://app", "name": "app", "mimeType": "application/json"}),
                Arc::new(Resource),
            )
            .unwrap();
        server
            .add_resource_template_json(
                json!({"uriTemplate": "users://{name}/avatar", "name": "avatar"}),
                Arc::new(Resource),
            )
            .unwrap();
        let def = json!({"name": "reads", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}});
        server
            .add_tool_json(def, Arc::new(ReadsOwn(server.clone())))
            .unwrap();
        let client = EmbeddedClient::connect_memory(&server, &ClientConfig::default(), None)
            .await
            .unwrap();
        let read = |uri: &str| {
            let params = json!({"name": "reads", "arguments": {"uri": uri}});
            client.request("tools/call", Some(params), CallOptions::default())
        };
        let r = read("config://app").await.unwrap();
        assert_eq!(
            r["structuredContent"],
            json!({"read": {"contents": [{"uri": "config://app", "mimeType": "application/json",
                "text": "config://app {}"}]}})
        );
        let r = read("users://7/avatar").await.unwrap();
        assert_eq!(
            r["structuredContent"]["read"]["contents"][0]["text"],
            r#"users://7/avatar {"name":"7"}"#
        );
        let r = read("nope://x").await.unwrap();
        assert_eq!(
            r["structuredContent"],
            json!({"code": ferromcp::error::codes::RESOURCE_NOT_FOUND,
                "message": "Resource not found: nope://x"})
        );
        // A finished tool result is refused to a resource read, whoever reads it.
        let r = read("users://tool/avatar").await.unwrap();
        assert_eq!(
            r["structuredContent"],
            json!({"code": ferromcp::error::codes::INTERNAL_ERROR,
                "message": "a handler answered a tool result to resources/read, which is not a tool call"})
        );
        client.close().await;
    }

    /// Answers the value in `{"value": ...}`.
    struct Echo;

    impl ForeignHandler for Echo {
        fn call(
            &self,
            request: ForeignRequest,
            _ctx: ForeignContext,
        ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
            let arguments = arguments_of(request);
            Box::pin(async move { Ok(arguments["value"].clone().into()) })
        }
    }

    #[tokio::test]
    async fn a_wrapping_tool_wraps_values_and_shapes_objects() {
        let server = EmbeddedServer::from_json(json!({"name": "s", "version": "1"})).unwrap();
        let unwrapped = json!({"name": "u", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"x": {}}}});
        assert!(server.add_tool_wrapping(unwrapped, Arc::new(Echo)).is_err());
        let def = json!({"name": "t", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"result": {}}, "required": ["result"]}});
        server.add_tool_wrapping(def, Arc::new(Echo)).unwrap();
        let client = EmbeddedClient::connect_memory(&server, &ClientConfig::default(), None)
            .await
            .unwrap();
        let call = |value: Value| {
            client.request(
                "tools/call",
                Some(json!({"name": "t", "arguments": {"value": value}})),
                CallOptions::default(),
            )
        };
        assert_eq!(
            call(json!("hi")).await.unwrap(),
            json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"result": "hi"}})
        );
        assert_eq!(
            call(json!([1, 2])).await.unwrap(),
            json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": {"result": [1, 2]}})
        );
        let full =
            json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"result": 1}});
        assert_eq!(call(full.clone()).await.unwrap(), full);
        client.close().await;
    }
}
