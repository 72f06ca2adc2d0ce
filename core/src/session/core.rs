//! The per-connection protocol state and the routing of every incoming message.

use super::{per_request, Outbound, Peer, RequestContext, Service};
use crate::jsonrpc::{
    ErrorResponse, IdGenerator, Message, Notification, Request, RequestId, Response,
};
use crate::protocol::{has_capability, CallToolResult, ProtocolVersion};
use crate::McpError;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use serde_json::{json, Value};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use tokio::sync::{oneshot, Notify};
use tokio_util::sync::CancellationToken;

mod handshake;
mod id_hash;
mod tool_lane;

pub(crate) use id_hash::IdHash;

/// Which side of the protocol a session plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// The server: answers `initialize`, offers tools, resources, prompts.
    Server,
    /// The client: sends `initialize`, offers roots, sampling, elicitation.
    Client,
}

/// Limits and defaults of a session. Every queue is bounded.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SessionConfig {
    /// Largest incoming frame accepted, in bytes.
    pub max_message_size: usize,
    /// Incoming requests handled concurrently; more are answered with an error.
    pub max_in_flight: usize,
    /// Capacity of the queue of notifications and peer-bound requests.
    pub outbound_capacity: usize,
    /// Default timeout of requests this side sends (`None`: wait forever).
    pub request_timeout: Option<Duration>,
    /// Upper bound on a request's total time even when progress keeps resetting its timeout.
    pub max_total_timeout: Option<Duration>,
    /// Revisions this side will speak, any order: the handshake-era ones `initialize`
    /// negotiates, and the per-request-era ones a request may name in its `_meta` (a server
    /// without any of those refuses per-request-era requests).
    pub supported_versions: Vec<ProtocolVersion>,
    /// How long in-flight handlers may run after the peer hung up, before they are cancelled.
    pub drain_timeout: Duration,
    /// Keys sealing the `requestState` of multi round-trip requests (2026-07-28). The default
    /// is one random key of this process; replicas that serve the same clients share a ring.
    pub request_state_keys: super::KeyRing,
    /// `ttlMs` / `cacheScope` on cacheable per-request-era results (default: `0` and
    /// `"private"` everywhere).
    pub cache_hints: super::CacheHints,
    /// Bounds on what a peer can make the session keep (client info, capabilities,
    /// subscriptions).
    pub peer_limits: super::PeerLimits,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            max_message_size: crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE,
            max_in_flight: 1024,
            outbound_capacity: 1024,
            request_timeout: Some(Duration::from_secs(60)),
            max_total_timeout: Some(Duration::from_secs(600)),
            supported_versions: ProtocolVersion::ALL
                .into_iter()
                .chain(ProtocolVersion::PER_REQUEST)
                .collect(),
            drain_timeout: Duration::from_secs(5),
            request_state_keys: super::KeyRing::default(),
            cache_hints: super::CacheHints::default(),
            peer_limits: super::PeerLimits::default(),
        }
    }
}

/// What the handshake settled.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Negotiated {
    /// The protocol revision in use.
    pub version: ProtocolVersion,
    /// The peer's `clientInfo` / `serverInfo` object (shared by the sessions of clients that
    /// sent the same one, and with the saved session state).
    pub peer_info: Arc<Value>,
    /// The peer's capabilities object (shared like `peer_info`).
    pub peer_capabilities: Arc<Value>,
    /// This side's own capabilities, as advertised (shared: a server hands every session the
    /// same cached object).
    pub own_capabilities: Arc<Value>,
    /// The server's `instructions`, if any (client side).
    pub instructions: Option<String>,
}

impl Negotiated {
    /// Whether the peer advertised capability `path` (e.g. `["sampling"]`, `["resources", "subscribe"]`).
    pub fn peer_has(&self, path: &[&str]) -> bool {
        has_capability(&self.peer_capabilities, path)
    }
    /// Whether this side advertised capability `path`.
    pub fn own_has(&self, path: &[&str]) -> bool {
        has_capability(&self.own_capabilities, path)
    }
}

/// The child sessions of a connection, by the id of the request each serves (the per-request
/// era on a message stream, `per_request_stream.rs`).
pub(crate) type Children = Mutex<HashMap<RequestId, Weak<Session>, IdHash>>;

static NEXT_SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(crate) const STATE_NEW: u8 = 0;
pub(crate) const STATE_NEGOTIATING: u8 = 1;
pub(crate) const STATE_INITIALIZING: u8 = 2;
pub(crate) const STATE_READY: u8 = 3;
pub(crate) const STATE_CLOSED: u8 = 4;

/// Progress callback for a request this side sent: receives the `notifications/progress` params.
pub(crate) type ProgressCallback = Arc<dyn Fn(Value) + Send + Sync>;

/// Receives the notifications tagged with a request's id as their subscription id
/// (`_meta["io.modelcontextprotocol/subscriptionId"]`, a `subscriptions/listen` this side sent).
pub(crate) type TaggedSink = Arc<dyn Fn(Notification) + Send + Sync>;

pub(crate) struct PendingRequest {
    pub tx: oneshot::Sender<Result<Value, McpError>>,
    pub on_progress: Option<ProgressCallback>,
    pub activity: Option<Arc<Notify>>,
    /// Where the notifications of this request's subscription go instead of the service.
    pub on_tagged: Option<TaggedSink>,
}

/// The answer of a `tools/call` started with [`Session::start_tool_call`].
pub(crate) enum LaneAnswer {
    /// A tool's result, for the transport to write straight to text ([`Self::write`]) as the
    /// response to the request; the server's identity (`serverInfo`, JSON text) is given in
    /// the per-request era, whose results carry it in `_meta`, and `resultType`.
    Tool(RequestId, CallToolResult, Option<Arc<str>>),
    /// Any other answer (an error, `input_required`, a created task), as a message.
    Msg(Message),
}

impl LaneAnswer {
    /// Writes the answer as JSON text (one line, without its newline): a tool's result goes
    /// from the tool's output to text without a JSON value tree.
    pub(crate) fn write(self, out: &mut Vec<u8>) {
        match self {
            LaneAnswer::Tool(id, result, None) => {
                super::tool_wire::write_tool_response(out, &id, result)
            }
            LaneAnswer::Tool(id, result, Some(info)) => {
                super::tool_wire::write_per_request_tool_response(out, &id, result, &info)
            }
            LaneAnswer::Msg(m) => serde_json::to_writer(out, &m).expect("messages serialize"),
        }
    }
}

/// What the session made of one incoming message.
#[non_exhaustive]
pub enum Incoming {
    /// Nothing to send back.
    Nothing,
    /// An immediate answer.
    Reply(Message),
    /// An answer that a handler is still computing; `None` means "send nothing" (cancelled).
    Pending(BoxFuture<'static, Option<Message>>),
}

/// One connection's protocol state: lifecycle, negotiated revision, requests in both directions.
pub struct Session {
    pub(crate) role: Role,
    pub(crate) config: Arc<SessionConfig>,
    pub(crate) service: Arc<dyn Service>,
    pub(crate) outbound: Outbound,
    state: AtomicU8,
    negotiated: OnceLock<Negotiated>,
    pub(crate) ids: IdGenerator,
    pub(crate) pending: Mutex<HashMap<RequestId, PendingRequest, IdHash>>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken, IdHash>>,
    /// Minimum log level the peer asked for (`u8::MAX`: not set; server role).
    pub(crate) log_level: AtomicU8,
    /// Resource URIs the peer subscribed to (server role).
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    /// The subscription this per-request session carries (`subscriptions/listen`).
    pub(crate) listen: OnceLock<super::listen::Listen>,
    /// Fired when the server winds the connection down: the subscription answers its listen
    /// request and ends (made on first use; see [`Session::end_listening`]).
    pub(crate) listen_end: OnceLock<CancellationToken>,
    /// Per-request-era children of a message-stream connection (see `per_request_stream`).
    pub(crate) children: Children,
    pub(crate) closed: CancellationToken,
    session_id: Option<Arc<str>>,
    serial: u64,
    stream_closer: OnceLock<StreamCloser>,
    /// Whether the server listed this session among its live sessions (see
    /// `Server::live_sessions`); one never listed has nothing to unlist.
    pub(crate) listed: AtomicBool,
    /// Set for a session that serves one request at a time for its whole life
    /// ([`Self::serve_alone`]): that request's cancellation is the session's own.
    alone: AtomicBool,
}

/// Closes the transport stream carrying a request's messages (Streamable HTTP's SSE polling);
/// returns whether there was such a stream.
pub type StreamCloser = Arc<dyn Fn(&RequestId) -> bool + Send + Sync>;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("role", &self.role)
            .field("state", &self.state.load(Ordering::Relaxed))
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A new session for `role`, answering with `service`, queuing outbound messages on `outbound`.
    pub(crate) fn new(
        role: Role,
        service: Arc<dyn Service>,
        config: SessionConfig,
        outbound: Outbound,
        session_id: Option<Arc<str>>,
    ) -> Arc<Session> {
        Self::with_shared_config(role, service, Arc::new(config), outbound, session_id)
    }

    /// [`Session::new`] with a configuration shared by many sessions (a server's, over HTTP).
    pub(crate) fn with_shared_config(
        role: Role,
        service: Arc<dyn Service>,
        config: Arc<SessionConfig>,
        outbound: Outbound,
        session_id: Option<Arc<str>>,
    ) -> Arc<Session> {
        Arc::new(Session {
            role,
            config,
            service,
            outbound,
            state: AtomicU8::new(STATE_NEW),
            negotiated: OnceLock::new(),
            ids: IdGenerator::new(),
            pending: Mutex::new(HashMap::with_hasher(IdHash::get())),
            in_flight: Mutex::new(HashMap::with_hasher(IdHash::get())),
            log_level: AtomicU8::new(u8::MAX),
            subscriptions: Mutex::new(HashSet::new()),
            listen: OnceLock::new(),
            listen_end: OnceLock::new(),
            children: Mutex::new(HashMap::with_hasher(IdHash::get())),
            closed: CancellationToken::new(),
            session_id,
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
            stream_closer: OnceLock::new(),
            listed: AtomicBool::new(false),
            alone: AtomicBool::new(false),
        })
    }

    /// A process-unique number identifying this session (tasks are bound to it).
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// Installs the transport's way of closing a request's stream (set once, by the transport).
    pub fn set_stream_closer(&self, closer: StreamCloser) {
        let _ = self.stream_closer.set(closer);
    }

    /// Asks the transport to close the stream carrying request `id`'s messages, so the client
    /// reconnects and resumes (2025-11-25 SSE polling). Returns whether a stream was closed.
    pub fn close_request_stream(&self, id: &RequestId) -> bool {
        match self.stream_closer.get() {
            Some(c) => c(id),
            None => self.outbound.close_request_stream(id),
        }
    }

    /// The role this session plays.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The session's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The transport-level session id (Streamable HTTP), if any.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// What the handshake settled, once it has.
    pub fn negotiated(&self) -> Option<&Negotiated> {
        self.negotiated.get()
    }

    /// The negotiated revision, once negotiated.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.negotiated.get().map(|n| n.version)
    }

    /// Whether this session serves a per-request-era request (opened by
    /// `Session::begin_per_request`, not by a handshake).
    pub fn is_per_request(&self) -> bool {
        self.protocol_version().is_some_and(|v| v.is_per_request())
    }

    /// Opens this new session for one per-request-era request whose `_meta` said `meta`: the
    /// client's capabilities and identity are that request's, this side's capabilities are
    /// `own_capabilities`, logs pass only at or above the level the request asked for (none when
    /// it asked for none), and the session is ready at once (there is no handshake).
    pub(crate) fn begin_per_request(&self, meta: super::RequestMeta, own_capabilities: Arc<Value>) {
        self.log_level.store(
            meta.log_level.unwrap_or(super::per_request::LOG_OFF),
            Ordering::Release,
        );
        self.set_negotiated(Negotiated {
            version: meta.version,
            peer_info: meta.client_info,
            peer_capabilities: meta.client_capabilities,
            own_capabilities,
            instructions: None,
        });
        self.set_state(STATE_READY);
    }

    /// Makes this new session one that serves a single request at a time, and closes (or is
    /// no longer used) when it is answered or abandoned: a per-request-era request answered with
    /// one JSON body over HTTP. Its request is not entered in the in-flight table and its
    /// cancellation token is the session's own (closing the session cancels it, as it cancels
    /// what is in flight), which spares a token and a table entry per request.
    pub(crate) fn serve_alone(&self) {
        self.alone.store(true, Ordering::Relaxed);
    }

    /// Whether the handshake has completed.
    pub fn is_ready(&self) -> bool {
        self.state.load(Ordering::Acquire) == STATE_READY
    }

    /// Whether the session has closed.
    pub fn is_closed(&self) -> bool {
        self.state.load(Ordering::Acquire) == STATE_CLOSED
    }

    /// Completes when the session closes (at once if it has): for code that keeps something
    /// per session and must let go of it then (the proxy's per-client backend connections).
    pub async fn closed(&self) {
        self.closed.cancelled().await
    }

    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    /// A handle for sending to the peer.
    pub fn peer(self: &Arc<Self>) -> Peer {
        Peer::new(self.clone())
    }

    /// Number of incoming requests currently being handled.
    pub fn in_flight_count(&self) -> usize {
        self.in_flight.lock().unwrap().len()
    }

    /// Whether incoming request `id` is being handled here.
    pub(crate) fn is_in_flight(&self, id: &RequestId) -> bool {
        self.in_flight.lock().unwrap().contains_key(id)
    }

    /// Whether a request this side sent as `id` still waits for its answer here.
    pub(crate) fn is_waiting_for(&self, id: &RequestId) -> bool {
        self.pending.lock().unwrap().contains_key(id)
    }

    /// Records the handshake outcome (client role: after the `initialize` response).
    pub(crate) fn set_negotiated(&self, n: Negotiated) {
        let _ = self.negotiated.set(n);
    }

    pub(crate) fn set_state(&self, s: u8) {
        self.state.store(s, Ordering::Release);
    }

    /// Closes the session: cancels every handler, fails every request waiting for the peer.
    pub fn close(self: &Arc<Self>) {
        if self.state.swap(STATE_CLOSED, Ordering::AcqRel) == STATE_CLOSED {
            return;
        }
        self.closed.cancel();
        for (_, token) in self.in_flight.lock().unwrap().drain() {
            token.cancel();
        }
        self.fail_pending(McpError::connection_closed("connection closed"));
        self.close_children();
        self.service.on_closed(&self.peer());
        self.outbound.session_closed();
    }

    /// Fails every request waiting for the peer (the peer can no longer answer) with `error`,
    /// an [`crate::ErrorKind::Closed`] error keeping what the transport reported as its source.
    pub(crate) fn fail_pending(&self, error: McpError) {
        let drained: Vec<_> = self.pending.lock().unwrap().drain().collect();
        for (_, p) in drained {
            let _ = p.tx.send(Err(error.clone()));
        }
    }

    /// Routes one incoming message: resolves responses, consumes session-level notifications and
    /// starts handlers for requests.
    pub(crate) fn handle_incoming(self: &Arc<Self>, message: Message) -> Incoming {
        match message {
            Message::Request(r) => self.handle_request(r),
            Message::Notification(n) => {
                self.handle_notification(n);
                Incoming::Nothing
            }
            Message::Response(Response { id, result }) => {
                self.resolve(&id, Ok(result));
                Incoming::Nothing
            }
            Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }) => {
                self.resolve(&id, Err(error));
                Incoming::Nothing
            }
            Message::Error(ErrorResponse { id: None, error }) => {
                tracing::warn!(code = error.code, message = %error.message, "peer reported an error without id");
                Incoming::Nothing
            }
        }
    }

    /// Fails the request `id` is waiting for with `error` (an answer that cannot be taken,
    /// such as a response over the size limit).
    pub(crate) fn fail_request(&self, id: &RequestId, error: McpError) {
        self.resolve(id, Err(error));
    }

    fn resolve(&self, id: &RequestId, result: Result<Value, McpError>) {
        let pending = self.pending.lock().unwrap().remove(id);
        match pending {
            Some(p) => {
                let _ = p.tx.send(result);
            }
            None => tracing::debug!(%id, "response for an unknown or finished request ignored"),
        }
    }

    /// Routes one incoming notification: consumed by the session (cancellation, progress,
    /// `initialized`), or handed to a subscription's listener or the service
    /// ([`Self::handle_notification`] traces it first).
    pub(super) fn route_notification(self: &Arc<Self>, n: Notification) {
        match n.method.as_str() {
            "notifications/cancelled" => {
                let Some(id) = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_value)
                else {
                    return;
                };
                // Late or unknown cancellations are ignored; initialize is never registered.
                if let Some(token) = self.in_flight.lock().unwrap().get(&id) {
                    token.cancel();
                    return;
                }
                self.cancel_child(&id, n);
            }
            "notifications/progress" => {
                let Some(params) = n.params else { return };
                let Some(id) = params.get("progressToken").and_then(RequestId::from_value) else {
                    return;
                };
                let found = self
                    .pending
                    .lock()
                    .unwrap()
                    .get(&id)
                    .map(|p| (p.on_progress.clone(), p.activity.clone()));
                let Some((cb, activity)) = found else {
                    // No request of ours waits with that token: a client's handler may know it
                    // (a 2025-11-25 task's progress after its `CreateTaskResult`, under the
                    // token the task-augmented call sent).
                    if self.role == Role::Client && self.state() >= STATE_INITIALIZING {
                        self.service.handle_notification(
                            Notification {
                                method: n.method,
                                params: Some(params),
                            },
                            &self.peer(),
                        );
                    }
                    return;
                };
                if let Some(a) = activity {
                    a.notify_one();
                }
                if let Some(cb) = cb {
                    cb(params);
                }
            }
            "notifications/initialized" if self.role == Role::Server => {
                if self
                    .state
                    .compare_exchange(
                        STATE_INITIALIZING,
                        STATE_READY,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_ok()
                {
                    self.service.on_initialized(&self.peer());
                }
            }
            _ => {
                if let Some(sink) = self.tagged_sink(&n) {
                    sink(n);
                } else if self.state() >= STATE_INITIALIZING && !self.is_closed() {
                    self.service.handle_notification(n, &self.peer());
                } else {
                    tracing::debug!(method = %n.method, "notification before initialization ignored");
                }
            }
        }
    }

    /// The sink of the pending `subscriptions/listen` request `n` names as its subscription
    /// (client role), if any: a notification of a subscription goes to its listener only.
    fn tagged_sink(&self, n: &Notification) -> Option<TaggedSink> {
        if self.role != Role::Client {
            return None;
        }
        let id = n
            .params
            .as_ref()?
            .get("_meta")?
            .get(super::per_request::META_SUBSCRIPTION_ID)
            .and_then(RequestId::from_value)?;
        self.pending.lock().unwrap().get(&id)?.on_tagged.clone()
    }

    /// Answers `ping`, which no service sees. With OpenTelemetry on this side (a server's
    /// layer, a client's telemetry) it is traced and timed as the side's other requests are
    /// (a `SERVER` span under the context in its `_meta`, its duration): the side's tracer is
    /// asked here, as the middleware chain never sees it. Without, the answer alone.
    fn answer_ping(self: &Arc<Self>, req: Request) -> Incoming {
        #[cfg(feature = "otel")]
        if let Some(tracer) = self.service.peer_request_tracer() {
            let ctx = RequestContext::new(self.clone(), &req, CancellationToken::new());
            let call = tracer.0.answered_by_session(&req, &ctx);
            call.finish(&Ok(json!({})));
            return Incoming::Reply(Message::response(req.id, json!({})));
        }
        Incoming::Reply(Message::response(req.id, json!({})))
    }

    fn handle_request(self: &Arc<Self>, req: Request) -> Incoming {
        let id = req.id.clone();
        let fail = |e: McpError| Incoming::Reply(Message::error(Some(id.clone()), e));
        if req.method.starts_with("notifications/") {
            return fail(McpError::invalid_request(format!(
                "{} is a notification and must not carry an id",
                req.method
            )));
        }
        // `_meta` an object, its `progressToken` a string or an integer (every era, every method).
        if let Err(e) = crate::protocol::check_request_meta(req.params.as_ref()) {
            return fail(e);
        }
        if self.opens_per_request(
            &req.method,
            req.params.as_ref().and_then(|p| p.get("_meta")),
        ) {
            return self.serve_in_child(req);
        }
        let per_request = self.is_per_request();
        if per_request && per_request::is_removed(&req.method) {
            return fail(McpError::method_not_found(&req.method));
        }
        match req.method.as_str() {
            "ping" => return self.answer_ping(req),
            "initialize" if self.role == Role::Server => return self.handle_initialize(req),
            _ => {}
        }
        let token = match self.admit(&id, &req.method) {
            Ok(token) => token,
            Err(e) => return fail(e),
        };
        let mut ctx = RequestContext::new(self.clone(), &req, token);
        if !per_request {
            let fut = self.service.handle_request(req, ctx.clone());
            return Incoming::Pending(Box::pin(self.clone().serve(
                id,
                ctx,
                move |_| fut,
                |id, _, outcome| match outcome {
                    None => None, // cancelled: no response is sent
                    Some(Ok(result)) => Some(Message::response(id, result)),
                    Some(Err(e)) => Some(Message::error(Some(id), e)),
                },
            )));
        }
        // Per-request era: input from earlier rounds, `input_required` results, and every
        // result with `resultType` (cacheable ones with their hints).
        let round = if super::mrtr::allows_input(&req.method) {
            match super::mrtr::InputRound::read(&req, &self.config.request_state_keys) {
                Ok(round) => Some(Arc::new(round)),
                Err(e) => {
                    self.in_flight.lock().unwrap().remove(&id);
                    return fail(e);
                }
            }
        } else {
            None
        };
        if let Some(round) = &round {
            ctx.set_input_round(round.clone());
        }
        let method = req.method.clone();
        let session = self.clone();
        let fut: BoxFuture<'static, Result<Value, McpError>> =
            match round.as_ref().and_then(|r| r.take_use_check()) {
                None => self.service.handle_request(req, ctx.clone()),
                // A `requestState` checked for reuse across replicas: the handler starts once the
                // shared store says this is the token's first use.
                Some(check) => {
                    let (service, ctx) = (self.service.clone(), ctx.clone());
                    Box::pin(async move {
                        check.await?;
                        service.handle_request(req, ctx).await
                    })
                }
            };
        Incoming::Pending(Box::pin(self.clone().serve(
            id,
            ctx,
            move |_| fut,
            move |id, _, outcome| {
                // Cancelled: no response is sent.
                Some(session.per_request_answer(&method, round.as_deref(), id, outcome?))
            },
        )))
    }

    /// The answer of per-request-era request `id` (of `method`, on this per-request session)
    /// whose handler ended with `outcome`: an `input_required` result when the handler asked for
    /// input this `round`, else the outcome with what every result of the era carries
    /// (`resultType`, and the caching hints on cacheable ones) and the era's error codes.
    fn per_request_answer(
        &self,
        method: &str,
        round: Option<&super::mrtr::InputRound>,
        id: RequestId,
        outcome: Result<Value, McpError>,
    ) -> Message {
        let caps = self.negotiated().map(|n| &*n.peer_capabilities);
        let keys = &self.config.request_state_keys;
        let outcome = match round {
            Some(round) => round.finish(caps.unwrap_or(&Value::Null), keys, outcome),
            None => super::mrtr::no_input(outcome),
        };
        match outcome {
            Ok(mut result) => {
                // A retried round's result depends on inputs outside the cache key: the spec
                // forbids caching it.
                let hint = match round {
                    Some(round) if round.is_retry() => super::CacheHint::UNCACHED,
                    _ => self.config.cache_hints.for_method(method),
                };
                per_request::shape_result(method, &mut result, hint);
                Message::response(id, result)
            }
            Err(e) => Message::error(Some(id), per_request::shape_error(e)),
        }
    }

    /// Lets request `id` (of `method`, neither ping nor initialize) in: the session must be
    /// initializing or ready, the id unused by the requests in flight and their limit not
    /// reached. Returns the request's cancellation token, registered as in flight (a session
    /// serving one request alone, [`Self::serve_alone`]: its own token, not registered).
    fn admit(&self, id: &RequestId, method: &str) -> Result<CancellationToken, McpError> {
        let state = self.state();
        if state == STATE_CLOSED {
            return Err(McpError::connection_closed("session closed"));
        }
        if state < STATE_INITIALIZING {
            return Err(McpError::invalid_request(format!(
                "{method} received before initialization; only ping is allowed until initialize completes"
            )));
        }
        if self.alone.load(Ordering::Relaxed) {
            // The only request: cancelled when the session closes (`close` cancels `closed`
            // first), nothing to register.
            return Ok(self.closed.clone());
        }
        // Not a child of `closed`: `close` cancels whatever is in flight itself, and a token
        // registered after that is cancelled here, so no request outlives the session uncancelled.
        let token = CancellationToken::new();
        let mut in_flight = self.in_flight.lock().unwrap();
        let full = in_flight.len() >= self.config.max_in_flight;
        match in_flight.entry(id.clone()) {
            Entry::Occupied(_) => Err(McpError::invalid_request(format!(
                "duplicate request id {id}: a request with this id is in flight"
            ))),
            Entry::Vacant(_) if full => Err(McpError::internal(format!(
                "server busy: {} requests already in flight",
                self.config.max_in_flight
            ))
            .with_data(json!({ "limit": self.config.max_in_flight }))),
            Entry::Vacant(slot) => {
                slot.insert(token.clone());
                // `close` marks the session closed before it cancels what is in flight (under
                // this lock): a request registered after that is cancelled from birth.
                if self.state.load(Ordering::Acquire) == STATE_CLOSED {
                    token.cancel();
                }
                Ok(token)
            }
        }
    }

    /// Runs admitted request `id`'s handler (the future `handler` makes of its context) until
    /// it finishes, panics or is cancelled (through `ctx`'s token), then retires the request and
    /// makes `answer` of the outcome (`None`: cancelled) and the request's context.
    async fn serve<R, T, F: Future<Output = Result<R, McpError>>>(
        self: Arc<Self>,
        id: RequestId,
        ctx: RequestContext,
        handler: impl FnOnce(RequestContext) -> F,
        answer: impl FnOnce(RequestId, &RequestContext, Option<Result<R, McpError>>) -> T,
    ) -> T {
        let fut = handler(ctx.clone());
        let outcome = tokio::select! {
            biased;
            r = AssertUnwindSafe(fut).catch_unwind() => Some(r),
            _ = ctx.cancellation().cancelled() => None,
        };
        ctx.finish();
        if !self.alone.load(Ordering::Relaxed) {
            self.in_flight.lock().unwrap().remove(&id);
        }
        answer(
            id,
            &ctx,
            outcome.map(|r| r.unwrap_or_else(|panic| Err(panic_error(panic)))),
        )
    }
}

fn panic_error(panic: Box<dyn std::any::Any + Send>) -> McpError {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    tracing::error!(panic = %what, "handler panicked");
    McpError::internal(format!("handler panicked: {what}"))
}
