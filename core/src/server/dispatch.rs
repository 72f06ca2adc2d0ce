//! The server's answer to every method: lifecycle result, tools, resources, prompts,
//! completion, logging and user-defined methods.

use super::api::CompletionRef;
use super::pagination::paginate;
use super::{ReadRequest, Server};
use crate::jsonrpc::{Notification, Request};
use crate::protocol::{
    CallToolResult, CompleteRequestParams, ContentBlock, ProtocolVersion, Reference, TaskSupport,
};
use crate::session::{
    insert_server_info, to_value, tool_result_value, LaneExtra, ToolLane, ToolOutput,
};
use crate::session::{Peer, RequestContext, Service};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn params_object(p: Option<Value>) -> Result<Map<String, Value>, McpError> {
    match p {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(McpError::invalid_params("params must be an object")),
    }
}

fn required_str(p: &Map<String, Value>, key: &str, method: &str) -> Result<String, McpError> {
    match p.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(McpError::invalid_params(format!(
            "{method}: params.{key} must be a string"
        ))),
        None => Err(McpError::invalid_params(format!(
            "{method}: params.{key} is required"
        ))),
    }
}

fn cursor(p: &Map<String, Value>) -> Result<Option<String>, McpError> {
    match p.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(McpError::invalid_params("params.cursor must be a string")),
    }
}

fn not_advertised(method: &str, feature: &str) -> McpError {
    McpError::method_not_found(method).with_data(
        json!({ "method": method, "reason": format!("this server does not offer {feature}") }),
    )
}

impl Service for Server {
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let server = self.clone();
        Box::pin(async move {
            let per_request = ctx.protocol_version().is_some_and(|v| v.is_per_request());
            // Middleware: one branch and nothing else when none is installed.
            let mut result = if server.inner.middleware.is_empty() {
                server.dispatch(request, ctx).await
            } else {
                super::middleware::run_chain(&server, request, ctx).await
            };
            // Per-request era: every result names the server in `_meta` (SHOULD).
            if let (true, Ok(result)) = (per_request, &mut result) {
                server.add_server_info(result);
            }
            result
        })
    }

    fn capabilities(&self, version: ProtocolVersion) -> Option<Arc<Value>> {
        Some(self.capabilities_shared(version))
    }

    /// The tracer of the first layer that has one (the OpenTelemetry layer's). The chain is
    /// looked at, not fixed: layers may still be added until the first request. Asked for
    /// every `ping` and every notification the session sends outside a request or receives
    /// with a `traceparent`: a fixed chain is read in place, not copied.
    #[cfg(feature = "otel")]
    fn peer_request_tracer(&self) -> Option<crate::session::PeerRequestTracer> {
        self.inner
            .middleware
            .find_map(|layer| layer.peer_request_tracer().cloned())
    }

    fn handle_notification(&self, notification: Notification, peer: &Peer) {
        if self.inner.middleware.is_empty() {
            self.notification_reached(notification, peer);
        } else {
            super::middleware::notify_through(self, notification, peer);
        }
    }

    fn on_initialized(&self, peer: &Peer) {
        let s = peer.session();
        let mut sessions = self.inner.sessions.lock().unwrap();
        s.listed.store(true, std::sync::atomic::Ordering::Release);
        sessions.insert(Arc::as_ptr(s) as usize, Arc::downgrade(s));
    }

    fn on_closed(&self, peer: &Peer) {
        // A session never initialized (e.g. a stateless HTTP request's) was never listed.
        if !peer
            .session()
            .listed
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return;
        }
        self.inner
            .sessions
            .lock()
            .unwrap()
            .remove(&(Arc::as_ptr(peer.session()) as usize));
    }
}

/// The server's typed `tools/call` lane, as the session starts it.
impl ToolLane for Server {
    fn run_tool(
        self,
        name: String,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: LaneExtra,
        ctx: RequestContext,
    ) -> impl std::future::Future<Output = Result<ToolOutput, McpError>> + Send + 'static {
        self.call_tool_fast(name, arguments, task, extra, ctx)
    }

    fn run_tool_borrowed<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: LaneExtra,
        ctx: RequestContext,
    ) -> impl std::future::Future<Output = Result<ToolOutput, McpError>> + Send + 'a {
        Server::call_tool_borrowed(self, name, arguments, task, extra, ctx)
    }

    fn add_server_info(&self, result: &mut Value) {
        Server::add_server_info(self, result)
    }

    fn server_info_json(&self) -> Arc<str> {
        Server::server_info_json(self).clone()
    }
}

impl Server {
    /// A notification from the client that passed the middleware (if any).
    pub(super) fn notification_reached(&self, notification: Notification, _peer: &Peer) {
        tracing::debug!(method = %notification.method, "notification from client");
    }

    /// Per-request era: names the server in `result`'s `_meta` (every result SHOULD), unless
    /// the handler already named one there; a result that is not an object is left alone.
    pub(crate) fn add_server_info(&self, result: &mut Value) {
        if result.is_object() {
            insert_server_info(result, Value::Object(self.info()));
        }
    }

    /// The server's `Implementation` object (`serverInfo`) as JSON text, made once (the
    /// server's options are final once it is built).
    pub(crate) fn server_info_json(&self) -> &Arc<str> {
        self.inner.server_info_json.get_or_init(|| {
            serde_json::to_string(&Value::Object(self.info()))
                .expect("JSON values always serialize")
                .into()
        })
    }

    /// The server's `Implementation` object (`serverInfo`).
    fn info(&self) -> Map<String, Value> {
        let o = &self.inner.options;
        let mut info = o.info_extra.clone();
        info.insert("name".into(), json!(o.name));
        info.insert("version".into(), json!(o.version));
        if let Some(t) = &o.title {
            info.insert("title".into(), json!(t));
        }
        info
    }

    /// `subscriptions/listen`: acknowledges the part of the filter this server honours, then
    /// carries the change notifications it asks for until the client goes away, or answers
    /// with its completion result when the server winds the connection down.
    async fn listen(
        &self,
        p: Map<String, Value>,
        caps: &Value,
        ctx: RequestContext,
    ) -> Result<Value, McpError> {
        let Some(asked) = p.get("notifications").and_then(Value::as_object) else {
            return Err(McpError::invalid_params(
                "subscriptions/listen: params.notifications (object) is required",
            ));
        };
        let task_ids = self.listen_task_ids(asked, &ctx).await?;
        let on = |key: &str| asked.get(key).and_then(Value::as_bool) == Some(true);
        let cap = |path: &[&str]| crate::protocol::has_capability(caps, path);
        let uris: Vec<String> = match asked.get("resourceSubscriptions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|u| u.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    McpError::invalid_params("resourceSubscriptions must be an array of URIs")
                })?,
            Some(_) => {
                return Err(McpError::invalid_params(
                    "resourceSubscriptions must be an array of URIs",
                ))
            }
        };
        let filter = crate::session::ListenFilter {
            tools_list_changed: on("toolsListChanged") && cap(&["tools", "listChanged"]),
            prompts_list_changed: on("promptsListChanged") && cap(&["prompts", "listChanged"]),
            resources_list_changed: on("resourcesListChanged")
                && cap(&["resources", "listChanged"]),
            resource_subscriptions: if cap(&["resources", "subscribe"]) {
                uris
            } else {
                Vec::new()
            },
            task_ids,
        };
        let _slot = ListenSlot::take(self)?;
        let id = ctx.request_id().to_value();
        let meta = json!({ crate::session::per_request::META_SUBSCRIPTION_ID: id });
        // The acknowledgement goes first: nothing is delivered before the session is listed.
        ctx.notify(
            "notifications/subscriptions/acknowledged",
            Some(json!({ "notifications": filter.to_value(), "_meta": meta })),
        )
        .await?;
        let session = ctx.session().clone();
        session.start_listening(ctx.request_id().clone(), filter)?;
        session
            .listed
            .store(true, std::sync::atomic::Ordering::Release);
        self.inner
            .sessions
            .lock()
            .unwrap()
            .insert(Arc::as_ptr(&session) as usize, Arc::downgrade(&session));
        // Listed first: a task changing from here on reaches the session, so the states read
        // now miss nothing (and the session sends each revision once, in order).
        let task_ids = session.listen_task_ids();
        if let Err(e) = self.send_task_snapshots(&session, task_ids).await {
            tracing::warn!(error = %e, "reading the tasks a subscription names failed");
        }
        // Until the client cancels it or the server winds the connection down (stdio, memory:
        // answered with this result; Streamable HTTP's shutdown answers on the stream itself).
        let ended = session.listen_ended();
        tokio::select! {
            _ = ctx.cancellation().cancelled() => {}
            _ = ended.cancelled() => {}
        }
        Ok(json!({ "_meta": meta }))
    }

    /// One page of a list method: pages over the registry entries, serializes only that page.
    fn list_page<T>(
        &self,
        key: &str,
        entries: &[Arc<T>],
        params: Option<Value>,
        to_json: impl Fn(&T) -> Value,
    ) -> Result<Value, McpError> {
        let p = params_object(params)?;
        let (page, next) = paginate(
            entries,
            cursor(&p)?.as_deref(),
            self.inner.options.page_size,
        )?;
        let items: Vec<Value> = page.iter().map(|e| to_json(e)).collect();
        let mut r = serde_json::Map::new();
        r.insert(key.to_string(), Value::Array(items));
        if let Some(n) = next {
            r.insert("nextCursor".into(), json!(n));
        }
        Ok(Value::Object(r))
    }

    pub(super) async fn dispatch(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Value, McpError> {
        let Request { method, params, .. } = request;
        let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
        let caps = self.capabilities_shared(version);
        let has = |k: &str| caps.get(k).is_some();
        match method.as_str() {
            "initialize" => {
                let mut result = json!({ "capabilities": *caps, "serverInfo": self.info() });
                if let Some(i) = &self.inner.options.instructions {
                    result["instructions"] = json!(i);
                }
                Ok(result)
            }
            "server/discover" if version.is_per_request() => {
                let supported = &ctx.session().config().supported_versions;
                let mut result = json!({
                    "supportedVersions": crate::session::per_request::supported_list(supported),
                    "capabilities": *caps,
                    "_meta": { crate::session::per_request::META_SERVER_INFO: self.info() },
                });
                if let Some(i) = &self.inner.options.instructions {
                    result["instructions"] = json!(i);
                }
                Ok(result)
            }
            "subscriptions/listen" if version.is_per_request() => {
                self.listen(params_object(params)?, &caps, ctx).await
            }
            "tools/list" if has("tools") => {
                let entries: Vec<_> = self.inner.tools.read().unwrap().iter().cloned().collect();
                self.list_page("tools", &entries, params, |e| to_value(&e.tool))
            }
            "tools/call" if has("tools") => {
                let mut p = params_object(params)?;
                let name = required_str(&p, "name", "tools/call")?;
                let arguments = p.remove("arguments");
                let task = p.remove("task");
                self.call_tool(&name, arguments, task, ctx, version)
                    .await
                    .map(ToolOutput::into_value)
            }
            "resources/list" if has("resources") => {
                let entries: Vec<_> = self
                    .inner
                    .resources
                    .read()
                    .unwrap()
                    .iter()
                    .cloned()
                    .collect();
                self.list_page("resources", &entries, params, |e| to_value(&e.resource))
            }
            "resources/templates/list" if has("resources") => {
                let entries: Vec<_> = self
                    .inner
                    .templates
                    .read()
                    .unwrap()
                    .iter()
                    .cloned()
                    .collect();
                self.list_page("resourceTemplates", &entries, params, |e| {
                    to_value(&e.template)
                })
            }
            "resources/read" if has("resources") => {
                let p = params_object(params)?;
                let uri = required_str(&p, "uri", "resources/read")?;
                self.read_resource(uri, ctx).await
            }
            "resources/subscribe" if has("resources") => {
                let p = params_object(params)?;
                let uri = required_str(&p, "uri", "resources/subscribe")?;
                let session = ctx.session();
                let mut subscriptions = session.subscriptions.lock().unwrap();
                if !subscriptions.contains(&uri) {
                    let held_bytes = subscriptions.iter().map(String::len).sum();
                    session.config().peer_limits.check_subscription(
                        subscriptions.len(),
                        held_bytes,
                        &uri,
                    )?;
                    subscriptions.insert(uri);
                }
                Ok(json!({}))
            }
            "resources/unsubscribe" if has("resources") => {
                let p = params_object(params)?;
                let uri = required_str(&p, "uri", "resources/unsubscribe")?;
                ctx.session().subscriptions.lock().unwrap().remove(&uri);
                Ok(json!({}))
            }
            "prompts/list" if has("prompts") => {
                let entries: Vec<_> = self.inner.prompts.read().unwrap().iter().cloned().collect();
                self.list_page("prompts", &entries, params, |e| to_value(&e.prompt))
            }
            // 2024-11-05 has completion/complete but no capability to advertise it.
            "completion/complete" if !version.has_audio() && self.completes() => {
                self.complete(params, ctx).await
            }
            "prompts/get" if has("prompts") => self.get_prompt(params_object(params)?, ctx).await,
            "completion/complete" if has("completions") => self.complete(params, ctx).await,
            "tasks/get" | "tasks/update" | "tasks/cancel" if self.tasks_ext_on(version) => {
                self.tasks_ext_request(&method, &params_object(params)?, &ctx)
                    .await
            }
            "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/list" if has("tasks") => {
                let shared = self.task_store();
                let page_size = self.inner.options.page_size;
                let (answer, elsewhere) = self
                    .inner
                    .tasks
                    .answer(&method, params, &ctx, &shared, page_size)
                    .await?;
                if let Some(task_id) = elsewhere {
                    self.relay_task_signal(crate::server::TaskSignal::Cancel { task_id })
                        .await;
                }
                Ok(answer)
            }
            "logging/setLevel" if has("logging") => {
                let p = params_object(params)?;
                let level = required_str(&p, "level", "logging/setLevel")?;
                let rank = crate::session::log_level_rank(&level).ok_or_else(|| {
                    McpError::invalid_params(format!("logging/setLevel: unknown level {level:?}"))
                        .with_data(json!({ "level": level }))
                })?;
                ctx.session()
                    .log_level
                    .store(rank, std::sync::atomic::Ordering::Release);
                Ok(json!({}))
            }
            m => {
                let custom = self.inner.methods.read().unwrap().get(m).cloned();
                match custom {
                    Some(h) => h(params, ctx).await,
                    None => Err(match m {
                        "tools/list" | "tools/call" => not_advertised(m, "tools"),
                        m if m.starts_with("resources/") => not_advertised(m, "resources"),
                        "prompts/list" | "prompts/get" => not_advertised(m, "prompts"),
                        "completion/complete" => not_advertised(m, "completions"),
                        "logging/setLevel" => not_advertised(m, "logging"),
                        m if m.starts_with("tasks/") => not_advertised(m, "tasks"),
                        _ => McpError::method_not_found(m),
                    }),
                }
            }
        }
    }

    /// `tools/call` for a request whose params were read as [`ToolCallParams`](crate::session::ToolCallParams): what
    /// [`Self::dispatch`] does with such a request, without the params as a [`Value`] (unless
    /// a middleware chain is to see them, [`Self::call_tool_with_middleware`]).
    pub(crate) async fn call_tool_fast(
        self,
        name: String,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: LaneExtra,
        ctx: RequestContext,
    ) -> Result<ToolOutput, McpError> {
        // `call_tool` directly, not through `call_tool_borrowed`: one future less to move.
        let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
        if self.has_middleware() {
            return self
                .call_tool_with_middleware(&name, arguments, task, extra, ctx, version)
                .await;
        }
        self.call_tool(&name, arguments, task, ctx, version).await
    }

    /// A typed-lane call on a server with middleware. When every layer watches the lane itself
    /// (the OpenTelemetry layer, `super::middleware::lane`): `call_tool` inside each layer's
    /// observer. Otherwise the chain runs, as for any other request
    /// ([`super::middleware::run_tool_chain`]), on the typed call: a layer that asks for the
    /// params or the result gets them as JSON ([`super::middleware::MiddlewareRequest`],
    /// [`super::middleware::MiddlewareResponse`]); after the last layer a call still typed is
    /// [`Self::call_tool_typed`], one made JSON the dispatch. The call stays on the session's
    /// lane either way (its admission, cancellation and answer), so a chain costs its layers
    /// and the JSON they ask for, not a second way in.
    ///
    /// An unscoped observed call (an unsampled trace) makes `call_tool`'s future here and
    /// awaits it in place, as the call without a layer does: the watches wait beside it and
    /// are told the outcome after it (or, dropped unanswered, end as such). Wrapping the made
    /// future instead (a `map` and an `Either`) moved it twice more per call (~260
    /// instructions of `memcpy`, `bench/results/otel-overhead.md`). A scoped one (traced) is
    /// boxed once.
    async fn call_tool_with_middleware(
        &self,
        name: &str,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: LaneExtra,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<ToolOutput, McpError> {
        let layers = &self.inner.middleware;
        if layers
            .iter()
            .any(|layer| layer.tool_lane_observer().is_none())
        {
            let call = super::middleware::ToolCall::new(name.to_owned(), arguments, task, extra);
            return super::middleware::run_tool_chain(self, call, ctx).await;
        }
        let (ctx, mut watches) = super::middleware::watch_tool_call(layers, name, ctx);
        if watches.unscoped() {
            let result = self.call_tool(name, arguments, task, ctx, version).await;
            watches.answered(&result);
            return result;
        }
        let call = self.call_tool(name, arguments, task, ctx, version);
        Box::pin(super::middleware::scoped(call, watches)).await
    }

    /// A typed-lane `tools/call` at the end of a middleware chain that left it typed: what the
    /// lane calls without middleware (and what the dispatch calls for a `tools/call` made
    /// JSON), so the two ways a layered call can end share every decision.
    pub(super) async fn call_tool_typed(
        &self,
        name: &str,
        arguments: Option<Value>,
        task: Option<Value>,
        ctx: RequestContext,
    ) -> Result<ToolOutput, McpError> {
        let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
        self.call_tool(name, arguments, task, ctx, version).await
    }

    /// [`Self::call_tool_fast`] on a borrowed server: for a caller that keeps its handle for the
    /// answer (the per-request lane), so the handle is not cloned once more per call.
    ///
    /// `call_tool`'s own future, not a future around it (which would be moved once more).
    pub(crate) fn call_tool_borrowed<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: LaneExtra,
        ctx: RequestContext,
    ) -> impl std::future::Future<Output = Result<ToolOutput, McpError>> + Send + 'a {
        let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
        // Whether the server offers tools is checked by `call_tool` when the tool is not found
        // (the capability is there whenever a tool is), without the capabilities' lock.
        if self.has_middleware() {
            return futures_util::future::Either::Left(
                self.call_tool_with_middleware(name, arguments, task, extra, ctx, version),
            );
        }
        futures_util::future::Either::Right(self.call_tool(name, arguments, task, ctx, version))
    }

    /// `tools/call` once its params are taken apart (`name` already checked to be a string).
    async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        task: Option<Value>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<ToolOutput, McpError> {
        let (entry, any_tool) = {
            let tools = self.inner.tools.read().unwrap();
            (tools.get(name), !tools.is_empty())
        };
        let Some(entry) = entry else {
            // No tools capability (see `compute_capabilities`): what `dispatch` answers, no
            // custom method can be called `tools/call` (custom names need a domain prefix).
            if !(self.inner.options.enable_tools || any_tool) {
                return Err(not_advertised("tools/call", "tools"));
            }
            return Err(McpError::invalid_params(format!("Unknown tool: {name}"))
                .with_data(json!({ "tool": name })));
        };
        let args = match arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => {
                return Err(McpError::invalid_params(
                    "tools/call: params.arguments must be an object",
                ))
            }
        };
        if let Err(issues) = entry.input.validate(&args) {
            // A tool execution error, not a protocol error (2025-11-25, SEP-1303): the model
            // reads the message and can retry with corrected arguments.
            // Every issue is named, one per line, so one retry can fix them all.
            let mut text = format!("Invalid arguments of tool \"{name}\":");
            for issue in &issues {
                text.push_str("\n- ");
                text.push_str(&issue.to_string());
            }
            return Ok(ToolOutput::Result(CallToolResult::error_text(text)));
        }
        let Value::Object(args) = args else {
            unreachable!("checked above")
        };
        // The tasks extension has no `task` param (the server decides): a 2025-11-25 one is
        // tolerated and ignored.
        let task = task.filter(|t| !t.is_null() && !self.tasks_ext_on(version));
        let support = entry.tool.task_support();
        if support != TaskSupport::Forbidden && self.tasks_ext_on(version) {
            return self.call_tool_as_task(entry, args, ctx, version).await;
        }
        match (&task, support) {
            (Some(_), _) if !version.has_tasks() => {
                return Err(McpError::invalid_params(format!(
                    "task-augmented calls need protocol 2025-11-25; negotiated {version}"
                )));
            }
            (Some(_), TaskSupport::Forbidden) => {
                return Err(McpError::method_not_found("tools/call").with_data(json!({
                    "tool": name, "reason": format!("tool \"{name}\" does not support task-augmented calls")
                })));
            }
            (None, TaskSupport::Required) if version.has_tasks() => {
                return Err(McpError::method_not_found("tools/call").with_data(json!({
                    "tool": name, "reason": format!("tool \"{name}\" must be invoked as a task")
                })));
            }
            _ => {}
        }
        if let Some(task) = task {
            let ttl = task.get("ttl").and_then(Value::as_u64);
            let server = self.clone();
            let shared = self.task_store();
            return self
                .inner
                .tasks
                .start(
                    &self.inner.options.tasks,
                    ttl,
                    &ctx,
                    shared,
                    move |task_ctx| {
                        Box::pin(async move {
                            let result = server
                                .finish_tool_call(&entry, args, task_ctx, version)
                                .await?;
                            Ok(tool_result_value(result))
                        })
                    },
                )
                .await
                .map(ToolOutput::Json);
        }
        let result = self.finish_tool_call(&entry, args, ctx, version).await?;
        Ok(ToolOutput::Result(result))
    }

    pub(super) async fn finish_tool_call(
        &self,
        entry: &super::registry::ToolEntry,
        args: Map<String, Value>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<CallToolResult, McpError> {
        let name = &entry.tool.name;
        let mut result: CallToolResult = (entry.handler)(args, ctx).await?;
        if let Some(out) = &entry.output {
            if result.is_error != Some(true) {
                match &result.structured_content {
                    None => {
                        return Err(McpError::internal(format!(
                            "tool \"{name}\" declares an outputSchema but returned no structuredContent"
                        )))
                    }
                    Some(sc) => {
                        if let Err(issues) = out.validate(sc) {
                            let e = crate::schema::validation_error(&format!("structuredContent of tool \"{name}\""), &issues);
                            return Err(McpError::internal(e.message).with_data(e.data.unwrap_or(Value::Null)));
                        }
                    }
                }
            }
        }
        downgrade_content(&mut result.content, version);
        if !version.has_structured_output() {
            result.structured_content = None;
        }
        Ok(result)
    }

    async fn read_resource(&self, uri: String, ctx: RequestContext) -> Result<Value, McpError> {
        let exact = self.inner.resources.read().unwrap().get(&uri);
        let (handler, variables) = match exact {
            Some(e) => (e.handler.clone(), Default::default()),
            None => {
                let templates = self.inner.templates.read().unwrap();
                let found = templates.iter().find_map(|t| {
                    t.matcher
                        .match_uri(&uri)
                        .map(|vars| (t.handler.clone(), vars))
                });
                drop(templates);
                found.ok_or_else(|| McpError::resource_not_found(&uri))?
            }
        };
        let contents = handler(ReadRequest { uri, variables }, ctx).await?;
        Ok(json!({ "contents": contents }))
    }

    async fn get_prompt(
        &self,
        mut p: Map<String, Value>,
        ctx: RequestContext,
    ) -> Result<Value, McpError> {
        let name = required_str(&p, "name", "prompts/get")?;
        let entry = self.inner.prompts.read().unwrap().get(&name);
        let Some(entry) = entry else {
            return Err(McpError::invalid_params(format!("Unknown prompt: {name}"))
                .with_data(json!({ "prompt": name })));
        };
        let args = match p.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(McpError::invalid_params(
                    "prompts/get: params.arguments must be an object",
                ))
            }
        };
        if let Some(bad) = args.iter().find(|(_, v)| !v.is_string()) {
            return Err(McpError::invalid_params(format!(
                "prompts/get: argument {:?} must be a string",
                bad.0
            )));
        }
        let missing: Vec<&str> = entry
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(McpError::invalid_params(format!(
                "prompt \"{name}\" is missing required argument(s): {}",
                missing.join(", ")
            ))
            .with_data(json!({ "missing": missing })));
        }
        let result = (entry.handler)(args, ctx).await?;
        Ok(to_value(&result))
    }

    /// Whether any completion handler is registered.
    fn completes(&self) -> bool {
        !self.inner.completions.read().unwrap().is_empty()
            || self.inner.completion_fallback.read().unwrap().is_some()
    }

    async fn complete(
        &self,
        params: Option<Value>,
        ctx: RequestContext,
    ) -> Result<Value, McpError> {
        let p: CompleteRequestParams = serde_json::from_value(params.unwrap_or(Value::Null))
            .map_err(|e| McpError::invalid_params(format!("completion/complete: {e}")))?;
        let key = match &p.ref_ {
            Reference::Prompt(r) => {
                if self.inner.prompts.read().unwrap().get(&r.name).is_none() {
                    return Err(McpError::invalid_params(format!(
                        "Unknown prompt: {}",
                        r.name
                    )));
                }
                CompletionRef::Prompt(r.name.clone())
            }
            Reference::Resource(r) => CompletionRef::Resource(r.uri.clone()),
            // A kind of reference a later revision adds: none of this server's completions.
            _ => {
                return Err(McpError::invalid_params(
                    "completion/complete: unknown ref type",
                ))
            }
        };
        let handler = self
            .inner
            .completions
            .read()
            .unwrap()
            .get(&(key, p.argument.name.clone()))
            .cloned()
            .or_else(|| self.inner.completion_fallback.read().unwrap().clone());
        let mut completion = match handler {
            Some(h) => h(p, ctx).await?,
            None => Default::default(),
        };
        if completion.values.len() > 100 {
            let total = completion.total.unwrap_or(completion.values.len() as u64);
            completion.values.truncate(100);
            completion.total = Some(total);
            completion.has_more = Some(true);
        }
        Ok(json!({ "completion": completion }))
    }
}

/// Rewrites content blocks the negotiated revision does not know into ones it does.
fn downgrade_content(content: &mut [ContentBlock], version: ProtocolVersion) {
    for block in content.iter_mut() {
        let replacement = match block {
            ContentBlock::Audio(a) if !version.has_audio() => Some(ContentBlock::text(format!(
                "[audio content ({}) not supported by protocol {version}]",
                a.mime_type
            ))),
            ContentBlock::ResourceLink(l) if !version.has_structured_output() => Some(
                ContentBlock::text(format!("Resource: {} ({})", l.name, l.uri)),
            ),
            _ => None,
        };
        if let Some(r) = replacement {
            *block = r;
        }
    }
}

/// One open `subscriptions/listen` stream, counted against
/// [`ServerOptions::max_listen_streams`](super::ServerOptions::max_listen_streams) for as
/// long as it lives.
struct ListenSlot(Server);

impl ListenSlot {
    /// Takes a slot, or refuses the request when every slot is in use.
    fn take(server: &Server) -> Result<Self, McpError> {
        use std::sync::atomic::Ordering;
        let limit = server.inner.options.max_listen_streams;
        server
            .inner
            .listen_streams
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .map_err(|_| {
                McpError::internal(format!(
                    "server busy: {limit} subscriptions/listen streams already open \
                     (max_listen_streams); close one or retry later"
                ))
                .with_data(json!({ "reason": "tooManyListenStreams", "limit": limit }))
            })?;
        Ok(Self(server.clone()))
    }
}

impl Drop for ListenSlot {
    fn drop(&mut self) {
        self.0
            .inner
            .listen_streams
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}
