//! One backend server behind the proxy: its connection (started, watched, restarted with
//! backoff when it dies), the calls in flight on it (where its notifications and requests to
//! the client go), and forwarding one request to it with progress, logs and cancellation
//! passed through.

pub(crate) mod forward;
mod per_client;
mod tasks;

use crate::config::BackendSpec;
use crate::era::{self, Route};
use crate::namespace::Namespace;
use ferromcp::client::{Client, ClientOptions, ProtocolMode};
use ferromcp::session::{RequestContext, RequestOptions, Session};
use ferromcp::transport::StderrMode;
use ferromcp::{codes, ErrorKind, McpError};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How the proxy treats its backends' connections.
#[derive(Clone, Debug)]
pub struct BackendOptions {
    /// How long a request waits for its backend to be (re)connected before it is answered
    /// with an error (default 10 s).
    pub connect_wait: Duration,
    /// How long one connection attempt (process start or HTTP, and the handshake) may take
    /// (default 30 s).
    pub connect_timeout: Duration,
    /// The first delay before restarting a backend that died or could not start (default
    /// 100 ms); it doubles after each failure up to [`Self::max_backoff`], and starts over once
    /// a backend has stayed up for [`Self::stable_after`].
    pub initial_backoff: Duration,
    /// The longest delay between restarts (default 30 s).
    pub max_backoff: Duration,
    /// How long a backend must stay up for its backoff to start over (default 10 s).
    pub stable_after: Duration,
    /// Where a stdio backend's stderr goes (default: the proxy's stderr).
    pub stderr: StderrMode,
    /// How many of a backend's listed resources the proxy subscribes to, so that their
    /// `notifications/resources/updated` reach subscribed clients (default 256).
    pub max_subscriptions: usize,
}

impl Default for BackendOptions {
    fn default() -> Self {
        Self {
            connect_wait: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(30),
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(30),
            stable_after: Duration::from_secs(10),
            stderr: StderrMode::Inherit,
            max_subscriptions: 256,
        }
    }
}

/// The state of a backend's connection.
#[derive(Clone)]
pub(crate) enum Link {
    /// Not connected yet (a lazy backend before its first client, or the first attempt).
    Starting,
    /// Connected.
    Up(Arc<Client>),
    /// Down since the last attempt failed or the connection closed; why.
    Down(String),
}

/// What a call in flight receives from its backend while it runs.
pub(crate) enum Forward {
    /// The params of a `notifications/progress` for this call.
    Progress(Value),
    /// The params of a `notifications/message` the backend sent while this call ran.
    Log(Value),
}

/// A backend's per-request-era (2026-07-28) connection beside its handshake one, for the
/// proxy's per-request clients: made when the first such client calls.
enum PerRequestLink {
    /// Not tried on the current handshake connection.
    Untried,
    /// The backend does not speak that era (`server/discover` failed): such calls are bridged
    /// over the handshake connection.
    Unsupported,
    /// Connected.
    Up(Arc<Client>),
}

/// A call in flight on a backend: the client's request it serves, and its forwarding queue.
struct InFlight {
    id: u64,
    ctx: RequestContext,
    forward: mpsc::UnboundedSender<Forward>,
}

/// What the proxy registered for a backend: proxy name (or URI) to the backend's own.
#[derive(Default)]
pub(crate) struct Registered {
    pub tools: HashMap<String, String>,
    pub prompts: HashMap<String, String>,
    pub resources: HashSet<String>,
    pub templates: HashMap<String, String>,
}

/// One backend server.
pub struct Backend {
    pub(crate) spec: BackendSpec,
    /// A server of this program served to the proxy in memory (an in-process backend,
    /// [`crate::InProcessBackend`]), instead of what `spec`'s transport names.
    in_process: Option<ferromcp::server::Server>,
    pub(crate) ns: Namespace,
    pub(crate) options: BackendOptions,
    pub(crate) link: watch::Sender<Link>,
    calls: Mutex<Vec<InFlight>>,
    next_call: AtomicU64,
    pub(crate) registered: Mutex<Registered>,
    restarts: AtomicU64,
    per_request: tokio::sync::Mutex<PerRequestLink>,
    pub(crate) per_client: per_client::PerClient,
    /// Progress tokens of the proxy's own, sent with backend tasks' calls, to where the
    /// backend's progress under each goes ([`Backend::progress_route`]).
    progress: Mutex<HashMap<String, ProgressCallback>>,
}

/// Where a backend's progress notification goes (its params).
pub(crate) type ProgressCallback = Arc<dyn Fn(Value) + Send + Sync>;

/// Removes a progress token's route when the call that made it ends.
pub(crate) struct ProgressRoute<'a> {
    backend: &'a Backend,
    token: String,
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.backend.progress.lock().unwrap().remove(&self.token);
    }
}

/// Removes a call from its backend's list when it ends, however it ends.
struct CallGuard<'a> {
    backend: &'a Backend,
    id: u64,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.backend
            .calls
            .lock()
            .unwrap()
            .retain(|c| c.id != self.id);
    }
}

impl Backend {
    pub(crate) fn new(spec: BackendSpec, namespaced: bool, options: BackendOptions) -> Arc<Self> {
        Self::with_server(spec, None, namespaced, options)
    }

    /// A backend whose connections are made to `in_process` in memory when given, else as
    /// `spec`'s transport says.
    pub(crate) fn with_server(
        spec: BackendSpec,
        in_process: Option<ferromcp::server::Server>,
        namespaced: bool,
        options: BackendOptions,
    ) -> Arc<Self> {
        let ns = Namespace::new(&spec.name, namespaced);
        Arc::new(Self {
            spec,
            in_process,
            ns,
            options,
            link: watch::Sender::new(Link::Starting),
            calls: Mutex::new(Vec::new()),
            next_call: AtomicU64::new(1),
            registered: Mutex::new(Registered::default()),
            restarts: AtomicU64::new(0),
            per_request: tokio::sync::Mutex::new(PerRequestLink::Untried),
            per_client: Default::default(),
            progress: Mutex::new(HashMap::new()),
        })
    }

    /// A progress token of the proxy's own whose notifications from the backend go to
    /// `on_progress` for as long as the guard lives: for a call whose progress outlives its
    /// answer (a 2025-11-25 task's, after the `CreateTaskResult`), which the engine's client
    /// routes by request no longer.
    pub(crate) fn progress_route(
        &self,
        on_progress: ProgressCallback,
    ) -> (String, ProgressRoute<'_>) {
        let token = format!(
            "ferromcp-proxy-progress-{}",
            self.next_call.fetch_add(1, Ordering::Relaxed)
        );
        self.progress
            .lock()
            .unwrap()
            .insert(token.clone(), on_progress);
        let guard = ProgressRoute {
            backend: self,
            token: token.clone(),
        };
        (token, guard)
    }

    /// Delivers a backend's `notifications/progress` under a token of
    /// [`Backend::progress_route`]; false when the token is not one of those.
    pub(crate) fn route_progress(&self, params: Value) -> bool {
        let Some(token) = params.get("progressToken").and_then(Value::as_str) else {
            return false;
        };
        let cb = self.progress.lock().unwrap().get(token).cloned();
        match cb {
            Some(cb) => {
                cb(params);
                true
            }
            None => false,
        }
    }

    /// The backend's name (its key in `mcpServers`).
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Whether it is connected now.
    pub fn is_up(&self) -> bool {
        matches!(&*self.link.borrow(), Link::Up(c) if !c.session().is_closed())
    }

    /// The process id of a stdio backend while it runs.
    pub fn child_pid(&self) -> Option<u32> {
        match &*self.link.borrow() {
            Link::Up(c) => c.child_pid(),
            _ => None,
        }
    }

    /// How many times it was connected again after its first connection.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// Why it is down, if it is.
    pub fn last_error(&self) -> Option<String> {
        match &*self.link.borrow() {
            Link::Down(why) => Some(why.clone()),
            _ => None,
        }
    }

    pub(crate) fn count_restart(&self) {
        self.restarts.fetch_add(1, Ordering::Relaxed);
    }

    /// The client of the live connection, waiting up to `connect_wait` for one.
    pub(crate) async fn client(&self) -> Result<Arc<Client>, McpError> {
        let mut rx = self.link.subscribe();
        let deadline = tokio::time::Instant::now() + self.options.connect_wait;
        loop {
            let why = match &*rx.borrow_and_update() {
                Link::Up(c) if !c.session().is_closed() => return Ok(c.clone()),
                Link::Up(_) => "its connection closed; restarting".to_string(),
                Link::Starting => "it is starting".to_string(),
                Link::Down(why) => why.clone(),
            };
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => continue,
                _ => {
                    return Err(McpError::internal(format!(
                        "backend {:?} is not available ({why}); waited {} ms",
                        self.spec.name,
                        self.options.connect_wait.as_millis()
                    ))
                    .with_data(json!({ "backend": self.spec.name, "reason": why })))
                }
            }
        }
    }

    /// Connects once: starts the process or reaches the URL, and performs the handshake; a
    /// backend that refuses the handshake as an unsupported version (a 2026-07-28-only server)
    /// is connected again in the per-request era.
    pub(crate) async fn connect(
        self: &Arc<Self>,
        events: mpsc::UnboundedSender<forward::Event>,
    ) -> Result<Client, McpError> {
        match self
            .connect_bound(events.clone(), ProtocolMode::Handshake, None)
            .await
        {
            Err(e) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                tracing::info!(
                    backend = self.name(),
                    "the backend refused the handshake; using the per-request era"
                );
                self.connect_bound(events, ProtocolMode::PerRequest, None)
                    .await
            }
            other => other,
        }
    }

    /// Connects once in protocol era `mode` (within `connect_timeout`); the backend's requests
    /// to the client go to the client session `bound` when given (a per-client connection),
    /// else to the client whose call is in flight.
    pub(crate) async fn connect_bound(
        self: &Arc<Self>,
        events: mpsc::UnboundedSender<forward::Event>,
        mode: ProtocolMode,
        bound: Option<Weak<Session>>,
    ) -> Result<Client, McpError> {
        let handlers = forward::handlers(Arc::downgrade(self), events, bound);
        let mut options = ClientOptions::new("ferromcp-proxy", env!("CARGO_PKG_VERSION"));
        options.mode = mode;
        // Declared so that a 2026-07-28 connection can run a backend's tool as a task
        // (`tasks.rs`); a client's plain calls passed through carry its own envelope without
        // the extension (`era.rs`).
        options.tasks_extension = true;
        // A backend's task-augmented sampling and elicitation run as tasks of the proxy's
        // (`forward/client_tasks.rs`), suggesting the proxy's own poll interval.
        let mut tasks = ferromcp::client::TaskOptions::default();
        tasks.poll_interval = Duration::from_millis(50);
        options.tasks = Some(tasks);
        // The real client times its requests and cancels them; the proxy waits as long.
        options.session.request_timeout = None;
        options.session.max_total_timeout = None;
        let connecting = async {
            match &self.in_process {
                Some(server) => crate::connect::connect_in_process(server, options, handlers).await,
                None => {
                    crate::connect::connect(&self.spec, options, handlers, self.options.stderr)
                        .await
                }
            }
        };
        match tokio::time::timeout(self.options.connect_timeout, connecting).await {
            Ok(r) => r,
            Err(_) => Err(McpError::timeout(format!(
                "no answer to the handshake within {} ms",
                self.options.connect_timeout.as_millis()
            ))),
        }
    }

    /// Forgets the per-request-era connection made beside a handshake connection (closing it):
    /// called when the handshake connection is made again.
    pub(crate) async fn reset_per_request(&self) {
        let old = std::mem::replace(&mut *self.per_request.lock().await, PerRequestLink::Untried);
        if let PerRequestLink::Up(c) = old {
            c.close().await;
        }
    }

    /// How many client sessions have a backend connection of their own now
    /// (`"sessions": "per-client"`).
    pub async fn client_sessions(&self) -> usize {
        self.per_client.len().await
    }

    /// The connection and route for the client request `ctx` given the live connection
    /// `primary`: a handshake client of a per-client backend gets its own connection; a
    /// per-request client goes to a per-request connection when the backend has one (made now
    /// beside a handshake connection when the backend speaks that era), else it is bridged
    /// over the handshake connection (see [`crate::era`]).
    async fn route(
        self: &Arc<Self>,
        primary: Arc<Client>,
        ctx: &RequestContext,
    ) -> Result<(Arc<Client>, Route), McpError> {
        let per_request_client = era::is_per_request(ctx);
        if primary.is_per_request() {
            let route = if per_request_client {
                Route::PassThrough
            } else {
                Route::Bridged
            };
            return Ok((primary, route));
        }
        if !per_request_client {
            if !self.spec.per_client {
                return Ok((primary, Route::Handshake));
            }
            // Boxed, as is the connection below: a connection's future is several KB, and
            // held inline it would make every call's future that big, copied into the
            // handler's box on every call (callgrind: 9.6k of 57.9k instructions per call).
            return match Box::pin(self.session_client(ctx.session())).await {
                Ok(c) => Ok((c, Route::Handshake)),
                Err(e) => Err(McpError::internal(format!(
                    "backend {:?}: no connection for this client session ({})",
                    self.spec.name, e.message
                ))
                .with_data(json!({ "backend": self.spec.name, "reason": e.message }))),
            };
        }
        let mut link = self.per_request.lock().await;
        match &*link {
            PerRequestLink::Up(c) if !c.session().is_closed() => {
                return Ok((c.clone(), Route::PassThrough))
            }
            PerRequestLink::Unsupported => return Ok((primary, Route::Handshake)),
            _ => {}
        }
        // Its own notifications have nowhere to go: the handshake connection brings them.
        let (events, _) = mpsc::unbounded_channel();
        match Box::pin(self.connect_bound(events, ProtocolMode::PerRequest, None)).await {
            Ok(c) => {
                let c = Arc::new(c);
                *link = PerRequestLink::Up(c.clone());
                Ok((c, Route::PassThrough))
            }
            Err(e) => {
                tracing::debug!(backend = self.name(), error = %e, "no per-request era: bridging over the handshake");
                *link = PerRequestLink::Unsupported;
                Ok((primary, Route::Handshake))
            }
        }
    }

    /// The client request of the most recent call in flight of the client session `of` (any
    /// session when `None`), and its forwarding queue: where the backend's requests and logs
    /// go while calls run (with several at once, the newest).
    pub(crate) fn current_call_of(
        &self,
        of: Option<&Arc<Session>>,
    ) -> Option<(RequestContext, mpsc::UnboundedSender<Forward>)> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|c| of.is_none_or(|s| Arc::ptr_eq(c.ctx.session(), s)))
            .map(|c| (c.ctx.clone(), c.forward.clone()))
    }

    fn track(&self, ctx: RequestContext, forward: mpsc::UnboundedSender<Forward>) -> CallGuard<'_> {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        self.calls
            .lock()
            .unwrap()
            .push(InFlight { id, ctx, forward });
        CallGuard { backend: self, id }
    }

    /// Sends `method` to the backend for the client request `ctx`: the client's `_meta`
    /// (but its progress token) goes along, the backend's progress comes back under the
    /// client's token, its logs while the call runs go to this client, cancelling the client's
    /// request cancels the backend's, and a backend that dies meanwhile gives an error saying so.
    ///
    /// Across protocol eras as [`crate::era`] says: a per-request client's `input_required`
    /// round trips pass through (the handler answers [`ferromcp::session::input_required`]).
    pub(crate) async fn forward(
        self: &Arc<Self>,
        method: &str,
        mut params: Map<String, Value>,
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        let primary = self.client().await?;
        let (client, route) = self.route(primary, ctx).await?;
        let meta = era::outgoing_meta(ctx, route);
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        if route == Route::PassThrough {
            era::add_retry_input(ctx, &mut params);
        }
        let params = Some(Value::Object(params));
        let client = &client;
        let result = self
            .passing_on(ctx, |opts| async move {
                match route {
                    // One round, sent as it is: the envelope is the client's own.
                    Route::PassThrough => client.peer().request(method, params, opts).await,
                    _ => client.request(method, params, opts).await,
                }
            })
            .await;
        let result = result.map_err(|e| self.call_error(method, e))?;
        if route == Route::PassThrough {
            return era::take_result(result);
        }
        Ok(result)
    }

    /// Runs `call`, a request to the backend made with the options it is given, for the client
    /// request `ctx`: the backend's progress (under the client's token), its logs and its
    /// requests to the client while the call runs go to that client, and cancelling `ctx`
    /// cancels the call. The one loop for every call the proxy forwards, plain requests
    /// ([`Backend::forward`]) and tools run as tasks ([`Backend::call_task_tool`]).
    async fn passing_on<F, Fut>(
        self: &Arc<Self>,
        ctx: &RequestContext,
        call: F,
    ) -> Result<Value, McpError>
    where
        F: FnOnce(RequestOptions) -> Fut,
        Fut: std::future::Future<Output = Result<Value, McpError>>,
    {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _guard = self.track(ctx.clone(), tx.clone());
        let mut opts = RequestOptions::default().with_cancel(Some(ctx.cancellation().clone()));
        if ctx.progress_reporter().is_some() {
            let tx = tx.clone();
            opts.on_progress = Some(Arc::new(move |p| {
                let _ = tx.send(Forward::Progress(p));
            }));
        }
        drop(tx);
        let call = std::pin::pin!(call(opts));
        // The backend's answer is usually some µs away: while calls come one at a time and
        // the thread's wait policy spins (the `ferromcp` command's runtime does by default),
        // the worker stays awake for it, running other tasks and polling I/O between tries,
        // instead of parking and paying a wake-up on the way back (`ferromcp::wait`).
        let mut call = ferromcp::wait::handover(call);
        let result = loop {
            tokio::select! {
                biased;
                Some(f) = rx.recv() => pass_on(ctx, f).await,
                r = &mut call => break r,
            }
        };
        while let Ok(f) = rx.try_recv() {
            pass_on(ctx, f).await;
        }
        result
    }

    /// The error a client gets: the backend's own, or one saying that the backend's
    /// connection closed during the call (it is restarted; the next call can succeed).
    /// Told by the error's kind: a backend's own -32000 answer is passed on as it is.
    fn call_error(&self, method: &str, e: McpError) -> McpError {
        if e.kind() != ErrorKind::Closed {
            return e;
        }
        McpError::internal(format!(
            "backend {:?} closed its connection during {method} ({}); it is being restarted, \
             the request was not completed",
            self.spec.name, e.message
        ))
        .with_data(json!({ "backend": self.spec.name, "reason": "backend connection closed" }))
    }
}

/// Delivers what a backend sent during a call to the client that made it.
async fn pass_on(ctx: &RequestContext, f: Forward) {
    match f {
        Forward::Progress(p) => {
            let Some(progress) = p.get("progress").and_then(Value::as_f64) else {
                return;
            };
            let total = p.get("total").and_then(Value::as_f64);
            let message = p.get("message").and_then(Value::as_str);
            let _ = ctx.progress(progress, total, message).await;
        }
        Forward::Log(p) => {
            let (level, logger, data) = log_parts(&p);
            let _ = ctx.log(&level, logger.as_deref(), data).await;
        }
    }
}

/// The level, logger and data of a `notifications/message`.
pub(crate) fn log_parts(p: &Value) -> (String, Option<String>, Value) {
    (
        p.get("level")
            .and_then(Value::as_str)
            .unwrap_or("info")
            .to_string(),
        p.get("logger").and_then(Value::as_str).map(str::to_string),
        p.get("data").cloned().unwrap_or(Value::Null),
    )
}

/// Waits until the connection closes.
pub(crate) async fn closed(client: &Client) {
    client.session().closed().await
}
