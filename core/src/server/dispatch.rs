//! The server's answer to every method: lifecycle result, tools, resources, prompts,
//! completion, logging and user-defined methods.

use super::api::CompletionRef;
use super::pagination::paginate;
use super::{ReadRequest, Server};
use crate::jsonrpc::{Message, Notification, Request, RequestId, Str};
use crate::protocol::{
    CallToolResult, CompleteRequestParams, ContentBlock, ProtocolVersion, Reference, TaskSupport,
};
use crate::session::{Peer, RequestContext, Service};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

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

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("protocol types always serialize")
}

/// The JSON form of a tool result, equal to `to_value(&result)`.
///
/// The common shapes (plain text blocks, structured content, the error flag) are assembled by
/// moving their strings and values in, instead of serializing them into a copy; anything else
/// (metadata, annotations, extra fields, other block types) goes through the serializer.
fn tool_result_value(result: CallToolResult) -> Value {
    if result.meta.is_some() || !result.extra.is_empty() {
        return to_value(&result);
    }
    let CallToolResult {
        content,
        structured_content,
        is_error,
        ..
    } = result;
    let mut map = Map::new();
    // Pushed one by one: collecting in place would reuse the (larger) blocks' buffer and then
    // shrink it.
    let mut values = Vec::with_capacity(content.len());
    for block in content {
        values.push(content_value(block));
    }
    map.insert("content".into(), Value::Array(values));
    if let Some(sc) = structured_content {
        map.insert("structuredContent".into(), sc);
    }
    if let Some(e) = is_error {
        map.insert("isError".into(), Value::Bool(e));
    }
    Value::Object(map)
}

/// One content block as JSON, equal to `to_value(&block)`; plain text is moved, not copied.
fn content_value(block: ContentBlock) -> Value {
    match block {
        ContentBlock::Text(t)
            if t.annotations.is_none() && t.meta.is_none() && t.extra.is_empty() =>
        {
            let mut map = Map::new();
            map.insert("type".into(), Value::String("text".into()));
            map.insert("text".into(), Value::String(t.text));
            Value::Object(map)
        }
        other => to_value(&other),
    }
}

/// What `tools/call` produced: the tool's result, or (task-augmented call) the created task.
pub(crate) enum ToolOutput {
    /// The tool ran; its result is not yet JSON.
    Result(CallToolResult),
    /// The `CreateTaskResult` of a task-augmented call.
    Created(Value),
}

impl ToolOutput {
    /// The `result` member of the response.
    pub(crate) fn into_value(self) -> Value {
        match self {
            ToolOutput::Result(r) => tool_result_value(r),
            ToolOutput::Created(v) => v,
        }
    }
}

/// The answer to a `tools/call` started with [`crate::session::Session::start_tool_call`], as a
/// message (`None`: cancelled, nothing is sent).
pub(crate) fn tool_call_reply(
    id: RequestId,
    outcome: Option<Result<ToolOutput, McpError>>,
) -> Option<Message> {
    Some(match outcome? {
        Ok(output) => Message::response(id, output.into_value()),
        Err(e) => Message::error(Some(id), e),
    })
}

/// `tools/call` params read straight from the frame (see [`crate::jsonrpc::parse_request_as`]):
/// the members the call uses, every other one skipped. Params this type rejects (not an object,
/// no `name` string, a member given twice) are read as a [`Value`] instead and answered by
/// [`Server::dispatch`], so every malformed call gets the answer it always got.
pub(crate) struct ToolCallParams<'a> {
    /// `name`.
    pub name: Cow<'a, str>,
    /// `arguments`, as given.
    pub arguments: Option<Value>,
    /// `task`, as given.
    pub task: Option<Value>,
    /// `_meta`, as given.
    pub meta: Option<Value>,
    /// `inputResponses`, as given (per-request era: the answers of a multi round-trip retry;
    /// the handshake era ignores it, as it ignores any other member).
    pub input_responses: Option<Value>,
    /// `requestState`, as given (per-request era, like `input_responses`).
    pub request_state: Option<Value>,
}

impl<'de> Deserialize<'de> for ToolCallParams<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        enum Key {
            Name,
            Arguments,
            Task,
            Meta,
            InputResponses,
            RequestState,
            Other,
        }
        impl<'de> Deserialize<'de> for Key {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct KeyVisitor;
                impl Visitor<'_> for KeyVisitor {
                    type Value = Key;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                        Ok(match v {
                            "name" => Key::Name,
                            "arguments" => Key::Arguments,
                            "task" => Key::Task,
                            "_meta" => Key::Meta,
                            "inputResponses" => Key::InputResponses,
                            "requestState" => Key::RequestState,
                            _ => Key::Other,
                        })
                    }
                }
                d.deserialize_identifier(KeyVisitor)
            }
        }
        struct ParamsVisitor;
        impl<'de> Visitor<'de> for ParamsVisitor {
            type Value = ToolCallParams<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tools/call params")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                fn set<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
                    map: &mut A,
                    slot: &mut Option<T>,
                ) -> Result<(), A::Error> {
                    if slot.is_some() {
                        return Err(de::Error::custom("duplicate member"));
                    }
                    *slot = Some(map.next_value()?);
                    Ok(())
                }
                let mut name: Option<Str<'de>> = None;
                let (mut arguments, mut task, mut meta) = (None, None, None);
                let (mut input_responses, mut request_state) = (None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Name => set(&mut map, &mut name)?,
                        Key::Arguments => set(&mut map, &mut arguments)?,
                        Key::Task => set(&mut map, &mut task)?,
                        Key::Meta => set(&mut map, &mut meta)?,
                        Key::InputResponses => set(&mut map, &mut input_responses)?,
                        Key::RequestState => set(&mut map, &mut request_state)?,
                        Key::Other => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                let name = name.ok_or_else(|| de::Error::missing_field("name"))?.0;
                Ok(ToolCallParams {
                    name,
                    arguments,
                    task,
                    meta,
                    input_responses,
                    request_state,
                })
            }
        }
        // A map only: a struct could also be read from an array.
        d.deserialize_map(ParamsVisitor)
    }
}

/// Room enough for [`write_tool_response`]'s text of `result` in the usual case (plain text
/// blocks, few characters to escape), so that writing it does not grow the buffer step by step.
fn tool_response_size_hint(result: &CallToolResult) -> usize {
    let text: usize = result
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => t.text.len() + 32,
            _ => 256,
        })
        .sum();
    96 + text + text / 8
}

/// Writes the response to `tools/call` request `id` with `result`, as one line without its
/// newline: the same bytes as serializing [`Message::response`] of `tool_result_value(result)`,
/// but the common shapes go straight from `result` to text instead of through a [`Value`]: the
/// fixed parts are written as they are, and only the id, the text and the values go through the
/// serializer.
pub(crate) fn write_tool_response(out: &mut Vec<u8>, id: &RequestId, result: CallToolResult) {
    write_response(out, id, result, None);
}

/// [`write_tool_response`] for the per-request era (2026-07-28): the result also carries
/// `resultType: "complete"` and, in `_meta`, the server's identity (`server_info`, the JSON
/// text of [`Server::server_info_json`]): the same bytes as serializing the response the
/// generic path builds ([`Server::add_server_info`], then `resultType`).
pub(crate) fn write_per_request_tool_response(
    out: &mut Vec<u8>,
    id: &RequestId,
    result: CallToolResult,
    server_info: &str,
) {
    write_response(out, id, result, Some(server_info));
}

fn write_response(
    out: &mut Vec<u8>,
    id: &RequestId,
    result: CallToolResult,
    server_info: Option<&str>,
) {
    out.reserve(tool_response_size_hint(&result) + server_info.map_or(0, |s| s.len() + 96));
    if result.meta.is_some() || !result.extra.is_empty() || !maps_sort_keys() {
        let mut value = tool_result_value(result);
        if let Some(info) = server_info {
            let info: Value = serde_json::from_str(info).expect("server info is JSON");
            insert_server_info(&mut value, info);
            crate::session::per_request::shape_result(
                "tools/call",
                &mut value,
                crate::session::CacheHint::UNCACHED,
            );
        }
        let m = Message::response(id.clone(), value);
        serde_json::to_writer(out, &m).expect("messages always serialize");
        return;
    }
    fn json<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
        serde_json::to_writer(out, v).expect("JSON values always serialize");
    }
    // The members in the order a `Map` keeps them (sorted by key), as `Message`'s serializer
    // writes them (compact: no spaces).
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        RequestId::Number(n) => json(out, n),
        RequestId::String(s) => json(out, &**s),
    }
    out.extend_from_slice(b",\"result\":{");
    if let Some(info) = server_info {
        out.extend_from_slice(b"\"_meta\":{\"");
        out.extend_from_slice(crate::session::per_request::META_SERVER_INFO.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(info.as_bytes());
        out.extend_from_slice(b"},");
    }
    out.extend_from_slice(b"\"content\":[");
    for (i, block) in result.content.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match block {
            ContentBlock::Text(t)
                if t.annotations.is_none() && t.meta.is_none() && t.extra.is_empty() =>
            {
                out.extend_from_slice(b"{\"text\":");
                json(out, t.text.as_str());
                out.extend_from_slice(b",\"type\":\"text\"}");
            }
            other => json(out, &to_value(other)),
        }
    }
    out.push(b']');
    match result.is_error {
        Some(true) => out.extend_from_slice(b",\"isError\":true"),
        Some(false) => out.extend_from_slice(b",\"isError\":false"),
        None => {}
    }
    if server_info.is_some() {
        out.extend_from_slice(b",\"resultType\":\"complete\"");
    }
    if let Some(sc) = &result.structured_content {
        out.extend_from_slice(b",\"structuredContent\":");
        json(out, sc);
    }
    out.extend_from_slice(b"}}");
}

/// Puts the server's identity `info` in `result`'s `_meta` (per-request era: every result names
/// the server, SHOULD), unless the handler already named one there.
fn insert_server_info(result: &mut Value, info: Value) {
    if let Value::Object(map) = result {
        let meta = map.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.entry(crate::session::per_request::META_SERVER_INFO)
                .or_insert(info);
        }
    }
}

/// Whether a JSON object ([`Map`]) keeps its keys sorted, as it does unless some crate in the
/// build turns on serde_json's `preserve_order` (then [`write_tool_response`] takes the slow way).
fn maps_sort_keys() -> bool {
    static SORTED: OnceLock<bool> = OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut m = Map::new();
        m.insert("b".into(), Value::Null);
        m.insert("a".into(), Value::Null);
        m.keys().next().map(String::as_str) == Some("a")
    })
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
            let mut result = server.dispatch(request, ctx).await;
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

    fn handle_notification(&self, notification: Notification, _peer: &Peer) {
        tracing::debug!(method = %notification.method, "notification from client");
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

impl Server {
    /// Per-request era: names the server in `result`'s `_meta` (every result SHOULD), unless
    /// the handler already named one there; a result that is not an object is left alone.
    pub(crate) fn add_server_info(&self, result: &mut Value) {
        if result.is_object() {
            insert_server_info(result, Value::Object(self.info()));
        }
    }

    /// The server's `Implementation` object (`serverInfo`) as JSON text, made once (the
    /// server's options are final once it is built).
    pub(crate) fn server_info_json(&self) -> &str {
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
    /// carries the change notifications it asks for until the client goes away.
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
        let on = |key: &str| asked.get(key).and_then(Value::as_bool) == Some(true);
        let cap = |path: &[&str]| crate::session::has_capability(caps, path);
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
        ctx.cancellation().cancelled().await;
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

    async fn dispatch(&self, request: Request, ctx: RequestContext) -> Result<Value, McpError> {
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
                self.call_tool(name, arguments, task, ctx, version)
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
                ctx.session().subscriptions.lock().unwrap().insert(uri);
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
            "tasks/get" | "tasks/result" | "tasks/cancel" if has("tasks") => {
                let p = params_object(params)?;
                let id = required_str(&p, "taskId", &method)?;
                let owner = ctx.session().serial();
                match method.as_str() {
                    "tasks/get" => self.inner.tasks.get_task(owner, &id),
                    "tasks/result" => self.inner.tasks.result(owner, &id, &ctx).await,
                    _ => self.inner.tasks.cancel(owner, &id, &ctx),
                }
            }
            "tasks/list" if has("tasks") => {
                let p = params_object(params)?;
                self.inner.tasks.list(
                    ctx.session().serial(),
                    cursor(&p)?.as_deref(),
                    self.inner.options.page_size,
                )
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

    /// `tools/call` for a request whose params were read as [`ToolCallParams`]: what
    /// [`Self::dispatch`] does with such a request, without the params as a [`Value`].
    pub(crate) async fn call_tool_fast(
        self,
        name: String,
        arguments: Option<Value>,
        task: Option<Value>,
        ctx: RequestContext,
    ) -> Result<ToolOutput, McpError> {
        let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
        if self.capabilities_shared(version).get("tools").is_none() {
            // What `dispatch` answers: no custom method can be called `tools/call` (custom
            // names need a domain prefix).
            return Err(not_advertised("tools/call", "tools"));
        }
        self.call_tool(name, arguments, task, ctx, version).await
    }

    /// `tools/call` once its params are taken apart (`name` already checked to be a string).
    async fn call_tool(
        &self,
        name: String,
        arguments: Option<Value>,
        task: Option<Value>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<ToolOutput, McpError> {
        let entry = self.inner.tools.read().unwrap().get(&name);
        let Some(entry) = entry else {
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
        let task = task.filter(|t| !t.is_null());
        let support = entry.tool.task_support();
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
            return self
                .inner
                .tasks
                .start(&self.inner.options.tasks, ttl, &ctx, move |task_ctx| {
                    Box::pin(async move {
                        let result = server
                            .finish_tool_call(&entry, args, task_ctx, version)
                            .await?;
                        Ok(tool_result_value(result))
                    })
                })
                .map(ToolOutput::Created);
        }
        let result = self.finish_tool_call(&entry, args, ctx, version).await?;
        Ok(ToolOutput::Result(result))
    }

    async fn finish_tool_call(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Annotations, TextContent};

    fn same(result: CallToolResult) {
        assert_eq!(tool_result_value(result.clone()), to_value(&result));
        for id in [RequestId::Number(7), RequestId::from("a\"b")] {
            let mut written = Vec::new();
            write_tool_response(&mut written, &id, result.clone());
            let message = Message::response(id.clone(), to_value(&result));
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&message).unwrap()
            );
            // Per-request era: what the generic path sends (serverInfo in `_meta`, then
            // `resultType`), byte for byte.
            let server = Server::builder("srv \"x\"", "1.2").build().unwrap();
            let mut written = Vec::new();
            write_per_request_tool_response(
                &mut written,
                &id,
                result.clone(),
                server.server_info_json(),
            );
            let mut value = to_value(&result);
            server.add_server_info(&mut value);
            crate::session::per_request::shape_result(
                "tools/call",
                &mut value,
                crate::session::CacheHint::UNCACHED,
            );
            assert_eq!(value["resultType"], "complete");
            let info = &value["_meta"][crate::session::per_request::META_SERVER_INFO];
            assert_eq!(info["name"], "srv \"x\"");
            let message = Message::response(id, value);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&message).unwrap()
            );
        }
    }

    #[test]
    fn tool_result_value_matches_the_serializer() {
        same(CallToolResult::default());
        same(CallToolResult::text("hello \"quoted\" \n text"));
        same(CallToolResult::error_text("it failed"));
        same(CallToolResult::structured(
            json!({ "a": [1, 2, { "b": null }] }),
        ));
        same(CallToolResult::new(vec![
            ContentBlock::text("one"),
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::text("two"),
        ]));
        let mut annotated = TextContent::new("annotated");
        annotated.annotations = Some(Annotations::default());
        same(CallToolResult::new(vec![ContentBlock::Text(annotated)]));
        let mut with_meta = TextContent::new("meta");
        with_meta.meta = Some(Map::from_iter([("k".to_string(), json!(1))]));
        with_meta.extra.insert("x-extra".into(), json!("kept"));
        same(CallToolResult::new(vec![ContentBlock::Text(with_meta)]));
        let mut result = CallToolResult::text("extra");
        result.extra.insert("x-result".into(), json!({ "n": 1 }));
        same(result);
        let mut result = CallToolResult::text("meta");
        result.meta = Some(Map::from_iter([("progressToken".to_string(), json!("t"))]));
        result.is_error = Some(false);
        same(result);
    }

    fn params(json: &str) -> Result<ToolCallParams<'_>, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn tool_call_params_take_what_the_call_uses() {
        let p = params(
            r#"{"arguments":{"text":"hi"},"name":"echo","x":[1,{"y":2}],"task":null,"_meta":{"progressToken":"t"}}"#,
        )
        .unwrap();
        assert!(matches!(p.name, Cow::Borrowed("echo")));
        assert_eq!(p.arguments, Some(json!({ "text": "hi" })));
        assert_eq!(p.task, Some(Value::Null));
        assert_eq!(p.meta, Some(json!({ "progressToken": "t" })));
        let p =
            params(r#"{"name":"e","inputResponses":{"k":{"action":"accept"}},"requestState":"s"}"#)
                .unwrap();
        assert_eq!(
            p.input_responses,
            Some(json!({ "k": { "action": "accept" } }))
        );
        assert_eq!(p.request_state, Some(json!("s")));
        let p = params(r#"{"name":"a\u0062"}"#).unwrap();
        assert_eq!(p.name, "ab");
        assert_eq!((p.arguments, p.task, p.meta), (None, None, None));
        // Everything else is left to `dispatch`, which reads the params as a Value.
        for bad in [
            r#"{}"#,
            r#"{"name":null}"#,
            r#"{"name":1}"#,
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","arguments":{},"arguments":{}}"#,
            r#"{"name":"a","requestState":"x","requestState":"y"}"#,
            r#"["echo",{}]"#,
            r#"null"#,
        ] {
            assert!(params(bad).is_err(), "{bad}");
        }
    }
}
