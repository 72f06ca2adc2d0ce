//! [`Client`]: connects, performs the handshake (or, in the per-request era, the
//! `server/discover` probe) and offers a typed call for every server method.

use super::per_request::{self, PerRequestMeta, ProtocolMode};
use super::task_receiver::ClientService;
use super::tasks_held::{self, HeldResults};
use super::ClientHandlers;
use crate::protocol::*;
use crate::session::tasks::TaskOptions;
use crate::session::{Connection, Negotiated, Peer, RequestOptions, Role, Session, SessionConfig};
use crate::transport::{FrameReader, FrameWriter};
use crate::McpError;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

mod raw_request;
mod task_calls;

/// Client-wide options.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ClientOptions {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
    /// `clientInfo.title` (2025-06-18+; omitted for older revisions).
    pub title: Option<String>,
    /// Extra `clientInfo` fields (e.g. `icons`, `websiteUrl`, `description`); `name`, `version`
    /// and `title` above take precedence.
    pub info_extra: Map<String, Value>,
    /// The revision to request at initialize (default: the latest).
    pub protocol_version: ProtocolVersion,
    /// Which protocol era to speak: the `initialize` handshake (the default), the 2026-07-28
    /// per-request era, or `Auto` (probe `server/discover`, fall back to the handshake).
    pub mode: ProtocolMode,
    /// Session limits and timeouts.
    pub session: SessionConfig,
    /// Whether, in the per-request era, requests declare the tasks extension
    /// (`io.modelcontextprotocol/tasks`) in their capabilities (default `true`): the server may
    /// then answer a `tools/call` with a task, which the task calls and
    /// [`Client::call_tool`] follow (see [`super::tasks_ext`]). The handshake era is
    /// unaffected.
    pub tasks_extension: bool,
    /// The tasks this client runs for its server (2025-11-25, handshake era); `None` (the
    /// default): none. With limits here and a sampling or elicitation handler, the client
    /// declares `tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create`
    /// (and `tasks.list`, `tasks.cancel`); a server's task-augmented request (`params.task`)
    /// is then answered at once with a task while the handler runs as that task
    /// ([`RequestContext::in_task`](crate::session::RequestContext::in_task); cancelled by the
    /// server's `tasks/cancel`), and the server's `tasks/get`, `tasks/result`, `tasks/list` and
    /// `tasks/cancel` are answered by the client. Results are kept for the task's ttl (capped
    /// by [`TaskOptions::max_ttl`]); [`TaskOptions::first_answer_wait`] is not used.
    pub tasks: Option<TaskOptions>,
    /// Spans and durations of this client's requests, and their trace context sent in
    /// `params._meta`; `SERVER` spans around its answers to the server's requests (feature
    /// `otel`; docs/observability.md).
    #[cfg(feature = "otel")]
    pub telemetry: Option<crate::telemetry::Telemetry>,
}

impl ClientOptions {
    /// Options with the given client name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            info_extra: Map::new(),
            protocol_version: ProtocolVersion::LATEST,
            mode: ProtocolMode::Handshake,
            session: SessionConfig::default(),
            tasks_extension: true,
            tasks: None,
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }
}

/// A connected, initialized MCP client.
pub struct Client {
    pub(super) session: Arc<Session>,
    task: Mutex<Option<JoinHandle<Result<(), McpError>>>>,
    child: Mutex<Option<crate::transport::ChildHandle>>,
    /// The handshake's `initialize` result, or the `server/discover` result.
    init: Value,
    /// Set in the per-request era: what every request carries in its `_meta`.
    pub(super) per_request: Option<Arc<PerRequestMeta>>,
    /// Results an extension server answered at once to [`Self::call_tool_as_task`].
    pub(super) held: HeldResults,
    /// Spans and durations of the requests ([`ClientOptions::telemetry`]).
    #[cfg(feature = "otel")]
    telemetry: Option<crate::telemetry::Telemetry>,
    /// The session's duration, recorded when the client closes or is dropped (with telemetry).
    #[cfg(feature = "otel")]
    session_timer: Option<crate::telemetry::ClientSession>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

fn decode<T: DeserializeOwned>(method: &str, v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| {
        McpError::internal(format!("server sent a malformed {method} result: {e}"))
            .with_data(json!({ "method": method }))
    })
}

impl Client {
    /// Connects over a message transport (in-memory, WebSocket, a child's stdio, ...) and performs
    /// the handshake. The connection runs on a task spawned on the current tokio runtime.
    ///
    /// ```
    /// use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// use ferromcp::server::Server;
    /// use ferromcp::transport::memory_pair;
    /// use ferromcp::ProtocolVersion;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("hello", "1.0").instructions("Be brief.").build()?;
    /// let ((client_reader, client_writer), (server_reader, server_writer)) = memory_pair(16);
    /// tokio::spawn(async move { server.serve(server_reader, server_writer).await });
    ///
    /// let client = Client::connect(
    ///     ClientOptions::new("my-client", "0.1"),
    ///     ClientHandlers::default(),
    ///     client_reader,
    ///     client_writer,
    /// )
    /// .await?;
    /// assert_eq!(client.protocol_version(), ProtocolVersion::LATEST);
    /// assert_eq!(client.server_info().unwrap()["name"], "hello");
    /// assert_eq!(client.instructions(), Some("Be brief."));
    /// client.ping().await?;
    /// client.close().await;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect<R: FrameReader, W: FrameWriter>(
        options: ClientOptions,
        handlers: ClientHandlers,
        reader: R,
        writer: W,
    ) -> Result<Client, McpError> {
        Self::connect_inner(options, handlers, reader, writer, None).await
    }

    /// Spawns a server process and connects to it over its stdin/stdout.
    ///
    /// The child is killed when the client is closed or dropped. Not run here: it needs a server
    /// program.
    ///
    /// ```no_run
    /// use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// use ferromcp::transport::ChildProcessOptions;
    ///
    /// # #[tokio::main]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let client = Client::spawn(
    ///     ChildProcessOptions::new("my-mcp-server").args(["--stdio"]),
    ///     ClientOptions::new("my-client", "0.1"),
    ///     ClientHandlers::default(),
    /// )
    /// .await?;
    /// for tool in client.list_all_tools().await? {
    ///     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn spawn(
        process: crate::transport::ChildProcessOptions,
        options: ClientOptions,
        handlers: ClientHandlers,
    ) -> Result<Client, McpError> {
        // One limit for what this client accepts: its session's, which the child's reader
        // applies too (else a frame over the reader's default failed before the session saw it).
        let process = process.max_message_size(options.session.max_message_size);
        let (reader, writer, child) = crate::transport::child::spawn(process)?;
        Self::connect_inner(options, handlers, reader, writer, Some(child)).await
    }

    async fn connect_inner<R: FrameReader, W: FrameWriter>(
        options: ClientOptions,
        handlers: ClientHandlers,
        reader: R,
        writer: W,
        child: Option<crate::transport::ChildHandle>,
    ) -> Result<Client, McpError> {
        let own_capabilities = handlers.capabilities_with_tasks(options.tasks.is_some());
        let service: Arc<dyn crate::session::Service> =
            Arc::new(ClientService::new(handlers, options.tasks.clone()));
        // The server's requests answered under SERVER spans (telemetry/peer_requests.rs).
        #[cfg(feature = "otel")]
        let service = match &options.telemetry {
            Some(telemetry) => telemetry.answering(service),
            None => service,
        };
        let conn = Connection::new(
            Role::Client,
            service,
            options.session.clone(),
            reader,
            writer,
        );
        let session = conn.session().clone();
        let task = tokio::spawn(conn.run());
        let client = Client {
            session,
            task: Mutex::new(Some(task)),
            child: Mutex::new(child),
            init: Value::Null,
            per_request: None,
            held: HeldResults::default(),
            #[cfg(feature = "otel")]
            telemetry: options.telemetry.clone(),
            #[cfg(feature = "otel")]
            session_timer: None,
        };
        match client.negotiate(&options, own_capabilities).await {
            Ok((init, per_request)) => Ok(Client {
                init,
                per_request,
                #[cfg(feature = "otel")]
                session_timer: client
                    .telemetry
                    .as_ref()
                    .map(|t| t.client_session(client.protocol_version())),
                ..client
            }),
            Err(e) => {
                client.close().await;
                Err(e)
            }
        }
    }

    /// The `clientInfo` object for `version`.
    fn client_info(options: &ClientOptions, version: ProtocolVersion) -> Value {
        let mut info = options.info_extra.clone();
        info.insert("name".into(), json!(options.name));
        info.insert("version".into(), json!(options.version));
        if let Some(t) = &options.title {
            if version >= ProtocolVersion::V2025_06_18 {
                info.insert("title".into(), json!(t));
            }
        }
        Value::Object(info)
    }

    /// The per-request era when `options.mode` asks for it and the server offers it, else the
    /// handshake.
    async fn negotiate(
        &self,
        options: &ClientOptions,
        own_capabilities: Value,
    ) -> Result<(Value, Option<Arc<PerRequestMeta>>), McpError> {
        if options.mode != ProtocolMode::Handshake {
            // The tasks a client runs for its server are the handshake era's.
            let mut own = own_capabilities.clone();
            if let (Some(_), Value::Object(caps)) = (&options.tasks, &mut own) {
                caps.remove("tasks");
            }
            let per_request_capabilities = if options.tasks_extension {
                tasks_held::declare(own)
            } else {
                own
            };
            match self.discover(options, &per_request_capabilities).await {
                Ok((result, meta)) => return Ok((result, Some(meta))),
                Err(e) if options.mode == ProtocolMode::PerRequest => return Err(e),
                // The connection is gone: nothing to fall back on.
                Err(e) if e.kind() == crate::ErrorKind::Closed => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "server/discover failed; using the initialize handshake");
                }
            }
        }
        self.handshake(options, own_capabilities)
            .await
            .map(|r| (r, None))
    }

    /// `server/discover` at the newest per-request revision this client speaks (once more at
    /// the one a `-32022` answer names, if it speaks that one); adopts the result.
    async fn discover(
        &self,
        options: &ClientOptions,
        own_capabilities: &Value,
    ) -> Result<(Value, Arc<PerRequestMeta>), McpError> {
        let ours: Vec<ProtocolVersion> = options
            .session
            .supported_versions
            .iter()
            .copied()
            .filter(|v| v.is_per_request())
            .collect();
        let Some(mut version) = ours.iter().copied().max() else {
            return Err(McpError::new(
                crate::codes::UNSUPPORTED_PROTOCOL_VERSION,
                "this client's supported versions include no per-request revision (2026-07-28)",
            ));
        };
        let mut retried = false;
        loop {
            let meta = Arc::new(PerRequestMeta::new(
                version,
                own_capabilities.clone(),
                Self::client_info(options, version),
            ));
            let outcome = self
                .peer()
                .request(
                    "server/discover",
                    Some(meta.stamp(None)),
                    RequestOptions::default(),
                )
                .await;
            let result = match outcome {
                Ok(r) => r,
                Err(e) => match per_request::supported_alternative(&e, &ours) {
                    Some(v) if !retried => {
                        retried = true;
                        version = v;
                        continue;
                    }
                    _ => return Err(e),
                },
            };
            let offered = result
                .get("supportedVersions")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>())
                .unwrap_or_default();
            if !offered.contains(&version.as_str()) {
                match offered
                    .iter()
                    .filter_map(|v| ProtocolVersion::parse(v))
                    .find(|v| ours.contains(v))
                {
                    Some(v) if !retried => {
                        retried = true;
                        version = v;
                        continue;
                    }
                    _ => {
                        return Err(McpError::new(
                            crate::codes::UNSUPPORTED_PROTOCOL_VERSION,
                            format!("the server offers {offered:?}, none of which this client speaks in the per-request era"),
                        )
                        .with_data(json!({ "supported": offered, "requested": version.as_str() })))
                    }
                }
            }
            // The server's info travels in `_meta` (2026-07-28); older drafts put it beside
            // the capabilities. Kept as `serverInfo` either way, as after a handshake.
            let mut result = result;
            if result.get("serverInfo").is_none() {
                let info = result
                    .get("_meta")
                    .and_then(|m| m.get(crate::session::per_request::META_SERVER_INFO))
                    .cloned();
                if let (Some(info), Some(obj)) = (info, result.as_object_mut()) {
                    obj.insert("serverInfo".into(), info);
                }
            }
            self.adopt(version, &result, own_capabilities.clone());
            self.session.service.on_initialized(&self.peer());
            return Ok((result, meta));
        }
    }

    /// Records what negotiation settled (`result`: the `initialize` or `server/discover`
    /// result) and marks the session ready.
    fn adopt(&self, version: ProtocolVersion, result: &Value, own_capabilities: Value) {
        self.session.set_negotiated(Negotiated {
            version,
            peer_info: Arc::new(result.get("serverInfo").cloned().unwrap_or(Value::Null)),
            peer_capabilities: Arc::new(
                result
                    .get("capabilities")
                    .cloned()
                    .unwrap_or_else(|| json!({})),
            ),
            own_capabilities: Arc::new(own_capabilities),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
        self.session.set_state(crate::session::STATE_READY);
    }

    async fn handshake(
        &self,
        options: &ClientOptions,
        own_capabilities: Value,
    ) -> Result<Value, McpError> {
        let info = Self::client_info(options, options.protocol_version);
        let params = json!({
            "protocolVersion": options.protocol_version.as_str(),
            "capabilities": &own_capabilities,
            "clientInfo": info,
        });
        let result = self
            .peer()
            .request("initialize", Some(params), RequestOptions::default())
            .await?;
        let chosen = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let version = ProtocolVersion::parse(chosen).filter(|v| options.session.supported_versions.contains(v)).ok_or_else(|| {
            McpError::new(
                crate::codes::UNSUPPORTED_VERSION,
                format!("server chose protocol version {chosen:?}, which this client does not speak; disconnecting"),
            )
            .with_data(json!({
                "requested": options.protocol_version.as_str(),
                "chosen": chosen,
                "supported": options.session.supported_versions.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            }))
        })?;
        self.adopt(version, &result, own_capabilities);
        // Returned once written (Streamable HTTP: once the server answered the POST, having
        // listed the session), not when queued: a server asked for its live sessions right
        // after the client connected finds this one.
        self.session
            .send_notification_written("notifications/initialized", None)
            .await?;
        self.session.service.on_initialized(&self.peer());
        Ok(result)
    }

    /// The process id of the server started by [`spawn`](Self::spawn) (the leader of its
    /// process group), until [`close`](Self::close) shuts it down; `None` for other transports.
    pub fn child_pid(&self) -> Option<u32> {
        self.child.lock().unwrap().as_ref().map(|c| c.pid())
    }

    /// A handle for raw requests and notifications.
    pub fn peer(&self) -> Peer {
        self.session.peer()
    }

    /// The session.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.session
            .protocol_version()
            .unwrap_or(ProtocolVersion::LATEST)
    }

    /// The server's `initialize` result (serverInfo, capabilities, instructions).
    pub fn initialize_result(&self) -> &Value {
        &self.init
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Option<&Value> {
        self.init.get("serverInfo")
    }

    /// The server's capabilities.
    pub fn server_capabilities(&self) -> Option<&Value> {
        self.init.get("capabilities")
    }

    /// The server's instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.init.get("instructions").and_then(Value::as_str)
    }

    /// Whether this client speaks the per-request era (2026-07-28) with its server.
    pub fn is_per_request(&self) -> bool {
        self.per_request.is_some()
    }

    async fn call<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T, McpError> {
        let v = self
            .request(method, Some(params), RequestOptions::default())
            .await?;
        decode(method, v)
    }

    fn page(cursor: Option<&str>) -> Value {
        match cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        }
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<(), McpError> {
        self.request("ping", None, RequestOptions::default())
            .await
            .map(|_| ())
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, McpError> {
        self.call("tools/list", Self::page(cursor)).await
    }

    /// Every tool, following `nextCursor` to the end.
    ///
    /// ```
    /// use ferromcp::server::Server;
    /// use serde_json::Value;
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let mut builder = Server::builder("many", "1.0");
    /// for i in 0..5 {
    ///     builder = builder.tool(&format!("tool_{i}"), "A tool", |_: Value, _ctx| async { "ok" });
    /// }
    /// // Two tools a page: `list_tools` gives one page, `list_all_tools` follows the cursor.
    /// let server = builder.options(|o| o.page_size = 2).build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// assert_eq!(client.list_tools(None).await?.tools.len(), 2);
    /// let names: Vec<String> = client.list_all_tools().await?.into_iter().map(|t| t.name).collect();
    /// assert_eq!(names, ["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, McpError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = self.list_tools(cursor.as_deref()).await?;
            all.extend(page.tools);
            match page.next_cursor {
                Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
                _ => return Ok(all),
            }
        }
    }

    /// `tools/call`.
    ///
    /// A tool that ran and failed answers with a result whose `is_error` is set; a call the
    /// server refused (unknown tool, bad arguments) or could not make is an `Err`, whose
    /// [`McpError::kind`] says whether the server answered it ([`crate::ErrorKind::Rpc`]: its
    /// code, message and data) or it failed on this side (transport, closed, timeout,
    /// cancelled).
    ///
    /// ```
    /// use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// use ferromcp::protocol::CallToolResult;
    /// use ferromcp::server::Server;
    /// use ferromcp::{codes, ErrorKind};
    /// use serde_json::{json, Value};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("calc", "1.0")
    ///     .tool("div", "Divides a by b", |args: Value, _ctx| async move {
    ///         let (a, b) = (args["a"].as_f64().unwrap_or(0.0), args["b"].as_f64().unwrap_or(0.0));
    ///         if b == 0.0 {
    ///             return CallToolResult::error_text("division by zero");
    ///         }
    ///         CallToolResult::text((a / b).to_string())
    ///     })
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let ok = client.call_tool("div", json!({ "a": 6, "b": 3 })).await?;
    /// assert_eq!(ok.content[0].as_text(), Some("2"));
    ///
    /// let failed = client.call_tool("div", json!({ "a": 1, "b": 0 })).await?;
    /// assert_eq!(failed.is_error, Some(true));
    ///
    /// let refused = client.call_tool("mul", json!({})).await.unwrap_err();
    /// assert_eq!((refused.kind(), refused.code), (ErrorKind::Rpc, codes::INVALID_PARAMS));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, McpError> {
        self.call_tool_with(name, arguments, RequestOptions::default())
            .await
    }

    /// `tools/call` with options (progress callback, timeout, cancellation).
    ///
    /// ```
    /// use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// use ferromcp::server::Server;
    /// use ferromcp::session::RequestOptions;
    /// use ferromcp::transport::memory_pair;
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("slow", "1.0")
    ///     .tool("count", "Counts to three", |_: serde_json::Value, ctx| async move {
    ///         for i in 1..=3 {
    ///             ctx.progress(i as f64, Some(3.0), None).await.ok();
    ///         }
    ///         "counted"
    ///     })
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = seen.clone();
    /// let mut options = RequestOptions::default();
    /// options.timeout = Some(Duration::from_secs(5));
    /// options.on_progress = Some(Arc::new(move |p| sink.lock().unwrap().push(p["progress"].clone())));
    /// let result = client.call_tool_with("count", serde_json::json!({}), options).await?;
    /// assert_eq!(result.content[0].as_text(), Some("counted"));
    /// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
    ) -> Result<CallToolResult, McpError> {
        let v = self
            .request(
                "tools/call",
                Some(json!({ "name": name, "arguments": arguments })),
                opts,
            )
            .await?;
        decode("tools/call", v)
    }

    /// One page of `resources/list`.
    pub async fn list_resources(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourcesResult, McpError> {
        self.call("resources/list", Self::page(cursor)).await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.call("resources/templates/list", Self::page(cursor))
            .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, McpError> {
        self.call("resources/read", json!({ "uri": uri })).await
    }

    /// `resources/subscribe`.
    pub async fn subscribe(&self, uri: &str) -> Result<(), McpError> {
        self.request(
            "resources/subscribe",
            Some(json!({ "uri": uri })),
            RequestOptions::default(),
        )
        .await
        .map(|_| ())
    }

    /// `resources/unsubscribe`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), McpError> {
        self.request(
            "resources/unsubscribe",
            Some(json!({ "uri": uri })),
            RequestOptions::default(),
        )
        .await
        .map(|_| ())
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, McpError> {
        self.call("prompts/list", Self::page(cursor)).await
    }

    /// `prompts/get`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, McpError> {
        self.call(
            "prompts/get",
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        params: CompleteRequestParams,
    ) -> Result<CompleteResult, McpError> {
        let p = serde_json::to_value(params).expect("protocol types serialize");
        self.call("completion/complete", p).await
    }

    /// `logging/setLevel`. In the per-request era (where that method does not exist) every
    /// later request opts in to log messages at `level` and above through its `_meta`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), McpError> {
        if let Some(meta) = &self.per_request {
            let level = serde_json::to_value(level).expect("serializes");
            meta.set_log_level(level.as_str().unwrap_or("info"));
            return Ok(());
        }
        self.request(
            "logging/setLevel",
            Some(json!({ "level": level })),
            RequestOptions::default(),
        )
        .await
        .map(|_| ())
    }

    /// Sends `notifications/roots/list_changed`.
    pub async fn notify_roots_list_changed(&self) -> Result<(), McpError> {
        self.peer()
            .notify("notifications/roots/list_changed", None)
            .await
    }

    /// Closes the session and, for a spawned server, shuts the process down as the spec says
    /// (close its stdin, wait, SIGTERM, SIGKILL; the whole process group).
    pub async fn close(&self) {
        #[cfg(feature = "otel")]
        if let Some(t) = &self.session_timer {
            t.end();
        }
        self.session.close();
        let task = self.task.lock().unwrap().take();
        if let Some(t) = task {
            let _ = t.await;
        }
        let child = self.child.lock().unwrap().take();
        if let Some(c) = child {
            let _ = c.shutdown().await;
        }
    }
}
