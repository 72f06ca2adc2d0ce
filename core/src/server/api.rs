//! [`Server`] and its builder: the public face of the server side.

use super::handlers::{CompletionFn, MethodFn, PromptFn, ResourceFn, ToolFn};
use super::registry::{PromptEntry, Registry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::frame_io::{FrameReader, FrameWriter};
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};
use crate::schema::{CompiledSchema, SchemaCache};
use crate::session::{Connection, Session, SessionConfig};
use crate::uri_template::UriTemplate;
use crate::McpError;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

/// Server-wide options.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ServerOptions {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// `serverInfo.title` (2025-06-18+).
    pub title: Option<String>,
    /// Extra `serverInfo` fields (icons, websiteUrl, description).
    pub info_extra: serde_json::Map<String, Value>,
    /// `instructions` returned at initialize.
    pub instructions: Option<String>,
    /// Items per page of the list methods.
    pub page_size: usize,
    /// Session limits and timeouts.
    pub session: SessionConfig,
    /// Advertise tools even with none registered (so they can be added later).
    pub enable_tools: bool,
    /// Advertise resources even with none registered.
    pub enable_resources: bool,
    /// Advertise prompts even with none registered.
    pub enable_prompts: bool,
    /// Advertise logging (default on).
    pub enable_logging: bool,
    /// Limits of task-augmented tool calls (2025-11-25 tasks and the tasks extension's).
    pub tasks: super::tasks::TaskOptions,
    /// Declare and serve the tasks extension `io.modelcontextprotocol/tasks` (SEP-2663) to
    /// per-request-era (2026-07-28) clients: `capabilities.extensions` names it, and calls of
    /// tools whose `taskSupport` is `optional` or `required` from requests that declare it
    /// are answered with task handles (`tasks/get`, `tasks/update`, `tasks/cancel`). Default
    /// off; the 2025-11-25 tasks of handshake-era sessions do not depend on it.
    pub tasks_extension: bool,
    /// Most `subscriptions/listen` streams (2026-07-28) open at once on this server; one more
    /// is refused with an error saying so (default 1024; at least 1, [`ServerBuilder::build`]
    /// refuses 0).
    ///
    /// [`ServerBuilder::build`]: super::ServerBuilder::build
    pub max_listen_streams: usize,
}

/// The default of [`ServerOptions::max_listen_streams`].
pub const DEFAULT_MAX_LISTEN_STREAMS: usize = 1024;

impl ServerOptions {
    /// Options with the given name and version and defaults elsewhere.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            info_extra: Default::default(),
            instructions: None,
            page_size: 100,
            session: SessionConfig::default(),
            enable_tools: false,
            enable_resources: false,
            enable_prompts: false,
            enable_logging: true,
            tasks: Default::default(),
            tasks_extension: false,
            max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
        }
    }
}

/// What a completion handler completes: a prompt's argument or a resource template's variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompletionRef {
    /// `ref/prompt` by prompt name.
    Prompt(String),
    /// `ref/resource` by URI template.
    Resource(String),
}

pub(crate) struct ServerInner {
    pub options: ServerOptions,
    pub tools: RwLock<Registry<ToolEntry>>,
    pub resources: RwLock<Registry<ResourceEntry>>,
    pub templates: RwLock<Registry<TemplateEntry>>,
    pub prompts: RwLock<Registry<PromptEntry>>,
    pub completions: RwLock<HashMap<(CompletionRef, String), CompletionFn>>,
    pub completion_fallback: RwLock<Option<CompletionFn>>,
    pub methods: RwLock<HashMap<String, MethodFn>>,
    pub schemas: SchemaCache,
    pub sessions: Mutex<HashMap<usize, Weak<Session>>>,
    pub tasks: super::tasks::TaskStore,
    /// Tasks of the tasks extension (2026-07-28) running on this replica.
    pub ext_tasks: super::tasks_ext::ExtTaskStore,
    /// Where the extension's tasks are shared with other replicas (default: in memory, this
    /// server alone; an HTTP endpoint with a shared store replaces it).
    pub task_store: RwLock<Arc<dyn super::task_store::TaskStore>>,
    /// Where `tasks/update` and `tasks/cancel` of tasks running elsewhere go (the event bus
    /// of each HTTP endpoint serving this server).
    pub task_relays: Mutex<Vec<super::tasks_ext::TaskRelay>>,
    /// [`Server::capabilities`] per protocol revision, emptied whenever a registry changes.
    pub caps_cache: Mutex<CapsCache>,
    /// How many times a registry changed (`caps_cache` is emptied each time): written under
    /// `caps_cache`'s lock, readable without it ([`Server::capabilities_generation`]).
    pub caps_generation: std::sync::atomic::AtomicU64,
    /// `options.session`, shared by the sessions made per HTTP request (set on first use: the
    /// options are final once the server is built).
    pub session_config: OnceLock<Arc<SessionConfig>>,
    /// Where server-wide notifications also go: the other replicas of an HTTP deployment
    /// (each hook returns false once its endpoint is gone, and is then dropped).
    pub fanout: Mutex<Vec<Fanout>>,
    /// Where an explicit response-cache invalidation also goes: the other replicas of an HTTP
    /// deployment (`middleware/cache.rs`; each hook returns false once its endpoint is gone).
    pub cache_relays: Mutex<Vec<super::middleware::CacheRelay>>,
    /// `subscriptions/listen` streams open now (at most `options.max_listen_streams`).
    pub listen_streams: std::sync::atomic::AtomicUsize,
    /// [`Server::server_info_json`], made on first use.
    pub server_info_json: OnceLock<Arc<str>>,
    /// Whether any tool registered so far declares `x-mcp-header` parameters (never reset):
    /// when none does, a per-request-era `tools/call` has no `Mcp-Param-*` headers to check
    /// and skips the registry read ([`Server::tool_header_params`]).
    pub any_header_params: std::sync::atomic::AtomicBool,
    /// The middleware chain, outermost first (the builder's layers, then
    /// [`Server::add_middleware`]'s until the chain is first read).
    pub middleware: MiddlewareLayers,
    /// Servers mounted on this one ([`Server::mount`], `compose.rs`).
    pub mounts: RwLock<Vec<Mounted>>,
}

/// A server's middleware chain: open to [`Server::add_middleware`] until its first read (the
/// first request or notification the server handles), fixed from then on, so that reading it
/// costs one atomic load and layers never change under a request.
pub(crate) struct MiddlewareLayers {
    /// Layers added so far; `None` once the chain is fixed.
    open: Mutex<Option<Vec<Arc<dyn super::middleware::Middleware>>>>,
    fixed: OnceLock<Box<[Arc<dyn super::middleware::Middleware>]>>,
}

impl Default for MiddlewareLayers {
    fn default() -> Self {
        Self {
            open: Mutex::new(Some(Vec::new())),
            fixed: OnceLock::new(),
        }
    }
}

impl MiddlewareLayers {
    /// Adds a layer while the builder owns the server.
    pub(crate) fn push(&mut self, layer: Arc<dyn super::middleware::Middleware>) {
        if let Some(open) = self.open.get_mut().unwrap().as_mut() {
            open.push(layer);
        }
    }

    /// Adds a layer to a built server; refused once the chain is fixed.
    fn add(&self, layer: Arc<dyn super::middleware::Middleware>) -> Result<(), McpError> {
        match self.open.lock().unwrap().as_mut() {
            Some(open) => {
                open.push(layer);
                Ok(())
            }
            None => Err(McpError::new(
                crate::error::codes::INVALID_REQUEST,
                "middleware must be added before the server handles its first request",
            )),
        }
    }
}

impl MiddlewareLayers {
    /// The layers as they are now, without fixing the chain (a look from outside a request:
    /// the chain stays open to [`Server::add_middleware`]).
    pub(crate) fn current(&self) -> Vec<Arc<dyn super::middleware::Middleware>> {
        if let Some(fixed) = self.fixed.get() {
            return fixed.to_vec();
        }
        let open = self.open.lock().unwrap().clone();
        // `None`: fixed (or being fixed) since the first look; the deref waits for it.
        open.unwrap_or_else(|| std::ops::Deref::deref(self).to_vec())
    }
}

impl MiddlewareLayers {
    /// The first answer `f` gives over the layers as they are now, without fixing the chain;
    /// a fixed chain is read in place (no copy).
    #[cfg(feature = "otel")]
    pub(crate) fn find_map<T>(
        &self,
        f: impl FnMut(&Arc<dyn super::middleware::Middleware>) -> Option<T>,
    ) -> Option<T> {
        match self.fixed.get() {
            Some(fixed) => fixed.iter().find_map(f),
            None => self.current().iter().find_map(f),
        }
    }
}

impl std::ops::Deref for MiddlewareLayers {
    type Target = [Arc<dyn super::middleware::Middleware>];

    fn deref(&self) -> &Self::Target {
        self.fixed.get_or_init(|| {
            let layers = self.open.lock().unwrap().take().unwrap_or_default();
            layers.into_boxed_slice()
        })
    }
}

/// A server mounted on another under a prefix (`compose.rs` mounts and routes; the mounting
/// server keeps the list, and its capabilities include what each mounted one offers).
#[derive(Clone)]
pub(crate) struct Mounted {
    pub(super) prefix: String,
    pub(super) server: Server,
}

/// A hook passing a server-wide notification (`method`, `params`) on to other replicas; it
/// returns whether its endpoint is still there (called with an empty method only to ask that).
pub(crate) type Fanout = Arc<dyn Fn(&str, Option<&Value>) -> bool + Send + Sync>;

/// Cached capabilities objects (`ServerInner::caps_generation` counts registry changes so that
/// a value computed across a change is never stored).
#[derive(Default)]
pub(crate) struct CapsCache {
    by_version: Vec<(crate::ProtocolVersion, Arc<Value>)>,
}

/// An MCP server: its features and the sessions connected to it. Cheap to clone.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.options.name)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server with `options` and nothing registered: what [`Server::builder_with`] starts
    /// from (`builder.rs`).
    pub(super) fn unregistered(options: ServerOptions) -> Server {
        Server {
            inner: Arc::new(ServerInner {
                options,
                tools: Default::default(),
                resources: Default::default(),
                templates: Default::default(),
                prompts: Default::default(),
                completions: Default::default(),
                completion_fallback: Default::default(),
                methods: Default::default(),
                schemas: SchemaCache::default(),
                sessions: Default::default(),
                tasks: Default::default(),
                ext_tasks: Default::default(),
                task_store: RwLock::new(Arc::new(super::task_store::InMemoryTaskStore::default())),
                task_relays: Mutex::new(Vec::new()),
                caps_cache: Default::default(),
                caps_generation: Default::default(),
                session_config: OnceLock::new(),
                fanout: Mutex::new(Vec::new()),
                cache_relays: Mutex::new(Vec::new()),
                listen_streams: Default::default(),
                server_info_json: OnceLock::new(),
                any_header_params: Default::default(),
                middleware: MiddlewareLayers::default(),
                mounts: Default::default(),
            }),
        }
    }

    /// Adds a middleware layer to a built server, after the builder's (see
    /// [`ServerBuilder::middleware`]); for servers whose layers are known only after they are
    /// built (the bindings' `add_middleware`). Refused once the server has handled a request
    /// or notification: the chain is then fixed.
    ///
    /// [`ServerBuilder::middleware`]: super::ServerBuilder::middleware
    pub fn add_middleware(
        &self,
        layer: impl super::middleware::Middleware,
    ) -> Result<(), McpError> {
        self.inner.middleware.add(Arc::new(layer))
    }

    /// Whether this server has middleware (its `tools/call` requests then take the general
    /// path, which the chain wraps).
    pub(crate) fn has_middleware(&self) -> bool {
        !self.inner.middleware.is_empty()
    }

    /// The server's options.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// `options().session`, as one value shared by every session that asks for it.
    pub(crate) fn session_config(&self) -> Arc<SessionConfig> {
        self.inner
            .session_config
            .get_or_init(|| Arc::new(self.inner.options.session.clone()))
            .clone()
    }

    /// Binds a new session to a message transport. Run the returned connection to serve it.
    pub fn connection<R: FrameReader, W: FrameWriter>(
        &self,
        reader: R,
        writer: W,
    ) -> Connection<R, W> {
        let conn = Connection::with_tool_lane(
            Arc::new(self.clone()),
            self.clone(),
            self.inner.options.session.clone(),
            reader,
            writer,
        );
        // A layer measuring sessions (OpenTelemetry's) is told when this one ends. The chain
        // is looked at, not fixed: layers may still be added until the first request.
        let observer = self
            .inner
            .middleware
            .current()
            .iter()
            .find_map(|layer| layer.session_end_observer().cloned());
        match observer {
            Some(observer) => conn.on_session_end(observer.0),
            None => conn,
        }
    }

    /// Serves one session over a message transport until the peer hangs up.
    ///
    /// On a multi-threaded tokio runtime the session runs as a task of its own on the runtime's
    /// workers, whoever awaits this: under `#[tokio::main]` the awaiting future is `main`'s, which
    /// runs on the main thread, outside the workers, and every message would otherwise cross
    /// from the worker that saw the input to the main thread and back. Dropping the returned
    /// future stops the session.
    ///
    /// ```
    /// use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// use ferromcp::server::Server;
    /// use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("in-process", "1.0").build()?;
    /// // Any FrameReader/FrameWriter pair: here an in-memory one, as tests use.
    /// let ((client_r, client_w), (server_r, server_w)) = memory_pair(16);
    /// let serving = tokio::spawn({
    ///     let server = server.clone();
    ///     async move { server.serve(server_r, server_w).await }
    /// });
    /// let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), client_r, client_w).await?;
    /// client.ping().await?;
    /// client.close().await;
    /// // The client hung up: the session ends.
    /// serving.await.unwrap()?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve<R: FrameReader, W: FrameWriter>(
        &self,
        reader: R,
        writer: W,
    ) -> Result<(), McpError> {
        crate::session::serve_on_worker(self.connection(reader, writer).run()).await
    }

    /// [`Self::serve`] until the peer hangs up or `shutdown` completes, then winds down
    /// gracefully (see [`Connection::run_until`]): reading stops, each open
    /// `subscriptions/listen` is answered with its completion result, requests being served
    /// finish (within the session's `drain_timeout`) and are answered, and the transport
    /// closes.
    pub async fn serve_until<R: FrameReader, W: FrameWriter>(
        &self,
        reader: R,
        writer: W,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        crate::session::serve_on_worker(self.connection(reader, writer).run_until(shutdown)).await
    }

    /// Registers (or replaces) a tool. Its input and output schemas are compiled now.
    ///
    /// Tools can be added and removed while the server runs; connected clients get
    /// `notifications/tools/list_changed`.
    ///
    /// ```
    /// use ferromcp::protocol::{CallToolResult, Tool};
    /// use ferromcp::server::{tool_fn, Server};
    ///
    /// let server = Server::builder("dynamic", "1.0").build().unwrap();
    /// server
    ///     .add_tool(
    ///         Tool::new("now").with_description("The server's clock"),
    ///         tool_fn(|_args, _ctx| async { Ok(CallToolResult::text("12:00")) }),
    ///     )
    ///     .unwrap();
    /// // A tool's input schema must be an object schema.
    /// let bad = Tool::new("broken").with_input_schema(serde_json::json!({ "type": "string" }));
    /// assert!(server.add_tool(bad, tool_fn(|_, _| async { Ok(CallToolResult::text("")) })).is_err());
    /// assert!(server.remove_tool("now"));
    /// assert!(!server.remove_tool("now"));
    /// ```
    pub fn add_tool(&self, tool: Tool, handler: ToolFn) -> Result<(), McpError> {
        let entry = self.tool_entry(tool, handler)?;
        let name = entry.tool.name.clone();
        if !entry.headers.is_empty() {
            // Set before the tool can be called (see `tool_header_params`).
            self.inner
                .any_header_params
                .store(true, std::sync::atomic::Ordering::Release);
        }
        self.inner.tools.write().unwrap().insert(name, entry);
        self.capabilities_changed();
        self.broadcast(
            "notifications/tools/list_changed",
            &["tools", "listChanged"],
        );
        Ok(())
    }

    pub(crate) fn tool_entry(
        &self,
        mut tool: Tool,
        handler: ToolFn,
    ) -> Result<ToolEntry, McpError> {
        if tool.name.is_empty() {
            return Err(McpError::invalid_params("tool name must not be empty"));
        }
        // Listed as the spec requires (an object schema): the official clients reject a whole
        // tools/list holding a tool whose schema lacks "type": "object".
        crate::schema::object_schema(
            &format!("tool {:?}: inputSchema", tool.name),
            &mut tool.input_schema,
        )?;
        if let Some(output) = &mut tool.output_schema {
            crate::schema::object_schema(&format!("tool {:?}: outputSchema", tool.name), output)?;
        }
        let input = self
            .inner
            .schemas
            .get_or_compile(&tool.input_schema)
            .map_err(|e| {
                McpError::invalid_params(format!(
                    "tool {:?}: invalid inputSchema: {}",
                    tool.name, e.message
                ))
            })?;
        let output: Option<Arc<CompiledSchema>> = match &tool.output_schema {
            Some(s) => Some(self.inner.schemas.get_or_compile(s).map_err(|e| {
                McpError::invalid_params(format!(
                    "tool {:?}: invalid outputSchema: {}",
                    tool.name, e.message
                ))
            })?),
            None => None,
        };
        let headers = super::header_params(&tool.input_schema).into();
        Ok(ToolEntry {
            tool,
            handler,
            input,
            output,
            headers,
        })
    }

    /// The `x-mcp-header` parameters of tool `name` (`None`: no such tool, or no tool of this
    /// server has any).
    pub(crate) fn tool_header_params(&self, name: &str) -> Option<Arc<[super::HeaderParam]>> {
        if !self
            .inner
            .any_header_params
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return None;
        }
        let entry = self.inner.tools.read().unwrap().get(name)?;
        Some(entry.headers.clone())
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.inner.tools.write().unwrap().remove(name);
        self.capabilities_changed();
        if removed {
            self.broadcast(
                "notifications/tools/list_changed",
                &["tools", "listChanged"],
            );
        }
        removed
    }

    /// Registers (or replaces) a static resource.
    pub fn add_resource(&self, resource: Resource, handler: ResourceFn) {
        let uri = resource.uri.clone();
        self.inner
            .resources
            .write()
            .unwrap()
            .insert(uri, ResourceEntry { resource, handler });
        self.capabilities_changed();
        self.broadcast(
            "notifications/resources/list_changed",
            &["resources", "listChanged"],
        );
    }

    /// Removes a static resource; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.inner.resources.write().unwrap().remove(uri);
        self.capabilities_changed();
        if removed {
            self.broadcast(
                "notifications/resources/list_changed",
                &["resources", "listChanged"],
            );
        }
        removed
    }

    /// Registers (or replaces) a resource template (RFC 6570).
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        handler: ResourceFn,
    ) -> Result<(), McpError> {
        let matcher = UriTemplate::parse(&template.uri_template)?;
        let key = template.uri_template.clone();
        self.inner.templates.write().unwrap().insert(
            key,
            TemplateEntry {
                template,
                matcher,
                handler,
            },
        );
        self.capabilities_changed();
        self.broadcast(
            "notifications/resources/list_changed",
            &["resources", "listChanged"],
        );
        Ok(())
    }

    /// Registers (or replaces) a prompt.
    pub fn add_prompt(&self, prompt: Prompt, handler: PromptFn) {
        let name = prompt.name.clone();
        self.inner
            .prompts
            .write()
            .unwrap()
            .insert(name, PromptEntry { prompt, handler });
        self.capabilities_changed();
        self.broadcast(
            "notifications/prompts/list_changed",
            &["prompts", "listChanged"],
        );
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.inner.prompts.write().unwrap().remove(name);
        self.capabilities_changed();
        if removed {
            self.broadcast(
                "notifications/prompts/list_changed",
                &["prompts", "listChanged"],
            );
        }
        removed
    }

    /// Registers a completion handler for one argument of a prompt or resource template.
    pub fn add_completion(
        &self,
        target: CompletionRef,
        argument: impl Into<String>,
        handler: CompletionFn,
    ) {
        self.inner
            .completions
            .write()
            .unwrap()
            .insert((target, argument.into()), handler);
        self.capabilities_changed();
    }

    /// Registers the completion handler used when no specific one matches.
    pub fn set_completion_fallback(&self, handler: CompletionFn) {
        *self.inner.completion_fallback.write().unwrap() = Some(handler);
        self.capabilities_changed();
    }

    /// Registers a user-defined request method. Its name must carry a domain prefix
    /// (`example.com/method`) so it cannot clash with MCP's own methods.
    pub fn add_method(&self, name: impl Into<String>, handler: MethodFn) -> Result<(), McpError> {
        let name = name.into();
        let Some((prefix, rest)) = name.split_once('/') else {
            return Err(McpError::invalid_params(format!(
                "custom method {name:?} needs a domain prefix, e.g. \"example.com/{name}\""
            )));
        };
        if prefix.is_empty() || rest.is_empty() || !prefix.contains('.') {
            return Err(McpError::invalid_params(format!(
                "custom method {name:?}: the prefix must be a domain-like name such as \"example.com/\""
            )));
        }
        self.inner.methods.write().unwrap().insert(name, handler);
        Ok(())
    }

    /// Tells every subscribed session that a resource changed (`notifications/resources/updated`),
    /// on every replica of an HTTP deployment.
    pub fn notify_resource_updated(&self, uri: &str) {
        let params = json!({ "uri": uri });
        self.fan_out("notifications/resources/updated", Some(&params));
        self.notify_here("notifications/resources/updated", Some(params));
    }

    /// Delivers a server-wide notification to the sessions of this process: list-changed to
    /// the sessions told to expect it, resource updates to the sessions subscribed to the URI.
    /// Sessions whose stream another replica holds are left to that replica.
    pub(crate) fn notify_here(&self, method: &str, params: Option<Value>) {
        let cap: &[&str] = match method {
            "notifications/tools/list_changed" => &["tools", "listChanged"],
            "notifications/prompts/list_changed" => &["prompts", "listChanged"],
            "notifications/resources/list_changed" => &["resources", "listChanged"],
            "notifications/resources/updated" => &[],
            _ => return,
        };
        let uri = params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str);
        for s in self.live_sessions() {
            if !s.outbound.takes_broadcasts() {
                continue;
            }
            let wanted = match uri {
                Some(uri) if cap.is_empty() => s.subscriptions.lock().unwrap().contains(uri),
                _ => !cap.is_empty() && s.negotiated().is_some_and(|n| n.own_has(cap)),
            };
            if wanted {
                s.notify_change(method, params.clone());
            }
        }
    }

    /// Hands a server-wide notification to the fan-out hooks (other replicas).
    pub(crate) fn fan_out(&self, method: &str, params: Option<&Value>) {
        let hooks: Vec<Fanout> = self.inner.fanout.lock().unwrap().clone();
        if hooks.is_empty() {
            return;
        }
        let mut dead = false;
        for h in &hooks {
            dead |= !h(method, params);
        }
        if dead {
            self.inner.fanout.lock().unwrap().retain(|h| h("", None));
        }
    }

    /// Adds a fan-out hook (an HTTP endpoint whose replicas share an event bus).
    pub(crate) fn add_fanout(&self, hook: Fanout) {
        self.inner.fanout.lock().unwrap().push(hook);
    }

    /// Sessions that completed their handshake and are still open.
    pub fn live_sessions(&self) -> Vec<Arc<Session>> {
        self.inner
            .sessions
            .lock()
            .unwrap()
            .values()
            .filter_map(Weak::upgrade)
            .filter(|s| !s.is_closed())
            .collect()
    }

    /// A server-wide notification of a mounted server, passed on to this server's sessions and
    /// replicas (`compose.rs`).
    pub(crate) fn relay(&self, method: &str, params: Option<&Value>) {
        self.fan_out(method, params);
        self.notify_here(method, params.cloned());
    }

    /// Sends `method` to every ready session that was told it can expect it (`cap` advertised),
    /// on every replica of an HTTP deployment.
    fn broadcast(&self, method: &str, _cap: &[&str]) {
        self.fan_out(method, None);
        self.notify_here(method, None);
    }

    /// The `capabilities` object this server advertises to a client speaking `version`.
    pub fn capabilities(&self, version: crate::ProtocolVersion) -> Value {
        (*self.capabilities_shared(version)).clone()
    }

    /// [`Server::capabilities`], computed once per revision and shared until a registry changes.
    pub(crate) fn capabilities_shared(&self, version: crate::ProtocolVersion) -> Arc<Value> {
        let generation = {
            let c = self.inner.caps_cache.lock().unwrap();
            if let Some((_, v)) = c.by_version.iter().find(|(v, _)| *v == version) {
                return v.clone();
            }
            self.capabilities_generation()
        };
        let caps = Arc::new(self.compute_capabilities(version));
        let mut c = self.inner.caps_cache.lock().unwrap();
        if self.capabilities_generation() == generation
            && !c.by_version.iter().any(|(v, _)| *v == version)
        {
            c.by_version.push((version, caps.clone()));
        }
        caps
    }

    /// Forgets the cached capabilities (a registry changed).
    pub(crate) fn capabilities_changed(&self) {
        let mut c = self.inner.caps_cache.lock().unwrap();
        self.inner
            .caps_generation
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        c.by_version.clear();
    }

    /// How many times the advertised capabilities changed so far: what
    /// [`Self::capabilities_shared`] gives for a revision is the same object for as long as this
    /// stays the same (read it before asking for them, to know which they are).
    pub(crate) fn capabilities_generation(&self) -> u64 {
        self.inner
            .caps_generation
            .load(std::sync::atomic::Ordering::Acquire)
    }

    fn compute_capabilities(&self, version: crate::ProtocolVersion) -> Value {
        let o = &self.inner.options;
        let mut caps = serde_json::Map::new();
        if o.enable_tools || !self.inner.tools.read().unwrap().is_empty() {
            caps.insert("tools".into(), json!({ "listChanged": true }));
        }
        if o.enable_resources
            || !self.inner.resources.read().unwrap().is_empty()
            || !self.inner.templates.read().unwrap().is_empty()
        {
            caps.insert(
                "resources".into(),
                json!({ "subscribe": true, "listChanged": true }),
            );
        }
        if o.enable_prompts || !self.inner.prompts.read().unwrap().is_empty() {
            caps.insert("prompts".into(), json!({ "listChanged": true }));
        }
        if o.enable_logging {
            caps.insert("logging".into(), json!({}));
        }
        let has_completions = !self.inner.completions.read().unwrap().is_empty()
            || self.inner.completion_fallback.read().unwrap().is_some();
        if has_completions && version.has_audio() {
            caps.insert("completions".into(), json!({}));
        }
        let task_tools = self
            .inner
            .tools
            .read()
            .unwrap()
            .iter()
            .any(|e| e.tool.task_support() != crate::protocol::TaskSupport::Forbidden);
        // 2026-07-28 moved tasks into an extension (`io.modelcontextprotocol/tasks`), declared
        // when the options ask for it.
        if task_tools && version.has_tasks() && !version.is_per_request() {
            caps.insert(
                "tasks".into(),
                json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }),
            );
        }
        self.add_mounted_capabilities(version, &mut caps);
        if o.tasks_extension && version.is_per_request() {
            caps.insert(
                "extensions".into(),
                json!({ crate::protocol::TASKS_EXTENSION: {} }),
            );
        }
        Value::Object(caps)
    }
}

impl Server {
    /// What the capabilities of a server with mounts add: each feature a mounted server offers.
    fn add_mounted_capabilities(
        &self,
        version: crate::ProtocolVersion,
        caps: &mut Map<String, Value>,
    ) {
        let mounts = self.inner.mounts.read().unwrap().clone();
        for m in mounts {
            let theirs = m.server.capabilities_shared(version);
            for key in ["tools", "resources", "prompts", "completions"] {
                if let (Some(v), false) = (theirs.get(key), caps.contains_key(key)) {
                    caps.insert(key.into(), v.clone());
                }
            }
        }
    }
}
