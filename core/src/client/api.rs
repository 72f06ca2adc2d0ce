//! [`Client`]: connects, performs the handshake and offers a typed call for every server method.

use super::ClientHandlers;
use crate::protocol::*;
use crate::session::{Connection, Negotiated, Peer, RequestOptions, Role, Session, SessionConfig};
use crate::transport::{FrameReader, FrameWriter};
use crate::McpError;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// Client-wide options.
#[derive(Clone, Debug)]
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
    /// Session limits and timeouts.
    pub session: SessionConfig,
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
            session: SessionConfig::default(),
        }
    }
}

/// A connected, initialized MCP client.
pub struct Client {
    session: Arc<Session>,
    task: Mutex<Option<JoinHandle<Result<(), McpError>>>>,
    child: Mutex<Option<crate::transport::ChildHandle>>,
    init: Value,
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
    pub async fn connect<R: FrameReader, W: FrameWriter>(
        options: ClientOptions,
        handlers: ClientHandlers,
        reader: R,
        writer: W,
    ) -> Result<Client, McpError> {
        Self::connect_inner(options, handlers, reader, writer, None).await
    }

    /// Spawns a server process and connects to it over its stdin/stdout.
    pub async fn spawn(
        process: crate::transport::ChildProcessOptions,
        options: ClientOptions,
        handlers: ClientHandlers,
    ) -> Result<Client, McpError> {
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
        let own_capabilities = handlers.capabilities();
        let conn = Connection::new(
            Role::Client,
            Arc::new(handlers),
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
        };
        match client.handshake(&options, own_capabilities).await {
            Ok(init) => Ok(Client { init, ..client }),
            Err(e) => {
                client.close().await;
                Err(e)
            }
        }
    }

    async fn handshake(
        &self,
        options: &ClientOptions,
        own_capabilities: Value,
    ) -> Result<Value, McpError> {
        let mut info = options.info_extra.clone();
        info.insert("name".into(), json!(options.name));
        info.insert("version".into(), json!(options.version));
        if let Some(t) = &options.title {
            if options.protocol_version >= ProtocolVersion::V2025_06_18 {
                info.insert("title".into(), json!(t));
            }
        }
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
        self.session.set_negotiated(Negotiated {
            version,
            peer_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            peer_capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            own_capabilities: Arc::new(own_capabilities),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
        self.session.set_state(crate::session::STATE_READY);
        self.peer()
            .notify("notifications/initialized", None)
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

    /// Sends a raw request.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        self.peer().request(method, params, opts).await
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
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, McpError> {
        self.call_tool_with(name, arguments, RequestOptions::default())
            .await
    }

    /// `tools/call` with options (progress callback, timeout, cancellation).
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

    /// Task-augmented `tools/call` (2025-11-25): the server answers at once with the created
    /// task while the tool runs; `ttl` asks for a retention in milliseconds (the server may cap
    /// it). Poll with [`get_task`](Self::get_task), fetch with
    /// [`get_task_result`](Self::get_task_result).
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
    ) -> Result<CreateTaskResult, McpError> {
        let mut task = json!({});
        if let Some(ttl) = ttl {
            task["ttl"] = json!(ttl);
        }
        self.call(
            "tools/call",
            json!({ "name": name, "arguments": arguments, "task": task }),
        )
        .await
    }

    /// `tasks/get`: the task's current state.
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult, McpError> {
        self.call("tasks/get", json!({ "taskId": task_id })).await
    }

    /// `tasks/result` of a task-augmented `tools/call`: waits until the task is terminal and
    /// returns the tool's result (or the error the call failed with). Its `_meta` carries
    /// `io.modelcontextprotocol/related-task`.
    pub async fn get_task_result(&self, task_id: &str) -> Result<CallToolResult, McpError> {
        self.get_task_result_with(task_id, RequestOptions::default())
            .await
    }

    /// [`get_task_result`](Self::get_task_result) with options (a longer timeout for long
    /// tasks, cancellation).
    pub async fn get_task_result_with(
        &self,
        task_id: &str,
        opts: RequestOptions,
    ) -> Result<CallToolResult, McpError> {
        let v = self
            .request("tasks/result", Some(json!({ "taskId": task_id })), opts)
            .await?;
        decode("tasks/result", v)
    }

    /// `tasks/result` as an open payload, for tasks of any request type.
    pub async fn get_task_payload(&self, task_id: &str) -> Result<GetTaskPayloadResult, McpError> {
        self.call("tasks/result", json!({ "taskId": task_id }))
            .await
    }

    /// One page of `tasks/list` (this session's tasks).
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<ListTasksResult, McpError> {
        self.call("tasks/list", Self::page(cursor)).await
    }

    /// `tasks/cancel`: the task's state after cancellation. Cancelling a task that already
    /// finished fails with -32602.
    pub async fn cancel_task(&self, task_id: &str) -> Result<CancelTaskResult, McpError> {
        self.call("tasks/cancel", json!({ "taskId": task_id }))
            .await
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

    /// `logging/setLevel`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), McpError> {
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
