//! What a handler gets besides its arguments: the request's identity, `_meta`, cancellation,
//! progress reporting, logging, and a way to ask the peer things while serving the request.

use super::core::STATE_READY;
use super::{Peer, RequestOptions, Session, SharedMeta};
use crate::jsonrpc::{Request, RequestId};
use crate::protocol::{ProtocolVersion, TaskStatus};
use crate::McpError;
use serde_json::{json, Map, Value};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

mod http_request;
pub use http_request::{AuthInfo, HeaderFields, HttpHeaders};
pub(crate) use http_request::{AUTH_INFO, HTTP_HEADERS};

/// The context of one incoming request. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    session: Arc<Session>,
    id: RequestId,
    /// `_meta` when it is an object (shared with other requests that sent the same text).
    meta: Option<Arc<SharedMeta>>,
    version: Option<ProtocolVersion>,
    cancel: CancellationToken,
    progress: Option<ProgressReporter>,
    done: AtomicBool,
    /// The HTTP request's header fields and its connection's peer address.
    http_headers: Option<HttpHeaders>,
    auth: Option<Arc<AuthInfo>>,
    /// Per-request era: this round of a multi round-trip request.
    input: InputSlot,
    /// A task of the tasks extension: where its input requests are parked.
    task_inputs: Option<Arc<super::TaskInputs>>,
    /// A task (either era): where its handler's status reports go
    /// ([`RequestContext::report_task_status`]).
    task_status: Option<TaskStatusSink>,
    /// The context this one was derived from with another `_meta` ([`RequestContext::with_meta_object`]):
    /// finished when it is.
    #[cfg(feature = "otel")]
    origin: Option<RequestContext>,
    /// Traces the requests a handler sends to the peer while serving this one (the
    /// OpenTelemetry layer's, on a request it traces).
    #[cfg(feature = "otel")]
    outbound: Option<Arc<dyn TraceOutbound>>,
}

/// How the requests this side sends to its peer are traced: a `CLIENT` span per request, its
/// context written into `params._meta`, its duration recorded. One implementation
/// (`telemetry/peer_requests.rs`), reached two ways by [`Peer`]'s one sending path: the
/// session's (its service's [`PeerRequestTracer`]: a server's OpenTelemetry layer, a client's
/// telemetry), for any request sent on the session (`ctx.peer().request(..)`, a server's push to
/// a session outside any handler, a client's handshake); and, for the requests a handler sends
/// through [`RequestContext::request`] while serving a request the layer traces, that
/// request's own (set by the layer with the `_meta` it rewrites), which puts them under the
/// request's span when nothing else names a parent. Told of each request once it has an id and
/// before it is sent.
#[cfg(feature = "otel")]
pub(crate) trait TraceOutbound: Send + Sync {
    /// A request `method` with `id` and `params` is about to be sent on `session`, while
    /// serving `serving`'s request when given: the returned call is told its answer (dropped
    /// unanswered: cancelled).
    fn start(
        &self,
        session: &Session,
        serving: Option<&RequestContext>,
        method: &str,
        id: &RequestId,
        params: &mut Option<Value>,
    ) -> Box<dyn OutboundCall>;

    /// A notification `method` with `params` is about to be sent on `session` (`notify.rs`):
    /// its `CLIENT` span when it is sampled (its context then written into `params._meta`),
    /// else `None`.
    fn notification(
        &self,
        session: &Session,
        method: &str,
        params: &mut Option<Value>,
    ) -> Option<Box<dyn super::notify::NotificationSpan + Send>>;

    /// A notification `method` with `params` (whose `_meta` holds a `traceparent`) arrived on
    /// `session`: its `SERVER` span, current until it is finished, when it is sampled.
    fn received(
        &self,
        session: &Session,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Box<dyn super::notify::NotificationSpan>>;

    /// A request the session answers itself (`ping`) arrived with context `ctx`: traced and
    /// timed as the side's other requests are; the returned call is told its answer.
    fn answered_by_session(&self, request: &Request, ctx: &RequestContext)
        -> Box<dyn OutboundCall>;
}

/// What a side's [`Service::peer_request_tracer`](super::Service::peer_request_tracer) returns:
/// how the requests sent on its sessions are traced ([`TraceOutbound`]).
#[cfg(feature = "otel")]
#[doc(hidden)]
#[derive(Clone)]
pub struct PeerRequestTracer(pub(crate) Arc<dyn TraceOutbound>);

/// One traced request to the peer in flight ([`TraceOutbound::start`]).
#[cfg(feature = "otel")]
pub(crate) trait OutboundCall: Send {
    /// The answer (or the error) the request got.
    fn finish(self: Box<Self>, result: &Result<Value, McpError>);
}

/// Where a task's handler reports the task's status and message
/// ([`RequestContext::report_task_status`]): set by the task store that runs the task.
pub(crate) type TaskStatusSink = Arc<dyn Fn(TaskStatus, Option<String>) + Send + Sync>;

/// Where a request's multi round-trip round (per-request era) lives.
enum InputSlot {
    /// No round: not a per-request-era request that can ask for input.
    None,
    /// A round read from the request up front.
    Round(Arc<super::mrtr::InputRound>),
    /// A `tools/call` of tool `name` on the typed lane: `round` is set up front when the
    /// request carries input, else made on first use (an empty first round).
    Tool {
        name: String,
        round: OnceLock<Arc<super::mrtr::InputRound>>,
    },
}

impl InputSlot {
    /// The round, made now for a first round of a `tools/call` that had none yet.
    fn round(&self) -> Option<&Arc<super::mrtr::InputRound>> {
        match self {
            InputSlot::None => None,
            InputSlot::Round(round) => Some(round),
            InputSlot::Tool { name, round } => Some(
                round.get_or_init(|| Arc::new(super::mrtr::InputRound::first("tools/call", name))),
            ),
        }
    }

    /// The round if there is one already (a first round not made yet has no answers, no
    /// state and no pending requests).
    fn made(&self) -> Option<&Arc<super::mrtr::InputRound>> {
        match self {
            InputSlot::None => None,
            InputSlot::Round(round) => Some(round),
            InputSlot::Tool { round, .. } => round.get(),
        }
    }
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.inner.id)
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    pub(crate) fn new(session: Arc<Session>, req: &Request, cancel: CancellationToken) -> Self {
        let version = session.protocol_version();
        Self::build(session, req.id.clone(), request_meta(req), cancel, version)
    }

    pub(crate) fn new_initialize(
        session: Arc<Session>,
        req: &Request,
        version: ProtocolVersion,
    ) -> Self {
        Self::build(
            session,
            req.id.clone(),
            request_meta(req),
            CancellationToken::new(),
            Some(version),
        )
    }

    /// A context for request `id` whose `params._meta` was read apart from a [`Value`] tree:
    /// `meta` is that member as it was (a non-object counts as none, as in [`Self::new`]).
    pub(crate) fn with_meta(
        session: Arc<Session>,
        id: RequestId,
        meta: Option<Arc<SharedMeta>>,
        cancel: CancellationToken,
    ) -> Self {
        let meta = meta.filter(|m| m.object().is_some());
        let version = session.protocol_version();
        Self::build(session, id, meta, cancel, version)
    }

    fn build(
        session: Arc<Session>,
        id: RequestId,
        meta: Option<Arc<SharedMeta>>,
        cancel: CancellationToken,
        version: Option<ProtocolVersion>,
    ) -> Self {
        let progress = meta
            .as_deref()
            .filter(|m| m.names_progress())
            .and_then(SharedMeta::object)
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .map(|token| ProgressReporter {
                session: session.clone(),
                token: token.clone(),
                related: id.clone(),
                last: Arc::new(AtomicU64::new(f64::NEG_INFINITY.to_bits())),
                done: Arc::new(AtomicBool::new(false)),
                #[cfg(feature = "otel")]
                tracer: None,
            });
        RequestContext {
            inner: Arc::new(ContextInner {
                session,
                id,
                meta,
                version,
                cancel,
                progress,
                done: AtomicBool::new(false),
                http_headers: HTTP_HEADERS.try_with(Arc::clone).ok(),
                auth: AUTH_INFO.try_with(Arc::clone).ok(),
                input: InputSlot::None,
                task_inputs: None,
                task_status: None,
                #[cfg(feature = "otel")]
                origin: None,
                #[cfg(feature = "otel")]
                outbound: None,
            }),
        }
    }

    /// A context for work that outlives the request (a task): same session, id and `_meta`,
    /// its own cancellation token and completion; its messages are not tied to the request's
    /// stream any more; its handler's status reports go to `status`.
    pub(crate) fn detached(
        &self,
        cancel: CancellationToken,
        status: Option<TaskStatusSink>,
    ) -> RequestContext {
        let progress = self.inner.progress.as_ref().map(|p| ProgressReporter {
            session: p.session.clone(),
            token: p.token.clone(),
            related: p.related.clone(),
            last: p.last.clone(),
            done: Arc::new(AtomicBool::new(false)),
            #[cfg(feature = "otel")]
            tracer: p.tracer.clone(),
        });
        self.fork(cancel, progress, None, status)
    }

    /// A context for a task of the tasks extension (2026-07-28): same session, id, `_meta`,
    /// identity and multi round-trip round (answers gathered before the task was made stay
    /// readable), its own cancellation, no progress (the extension carries none); what the
    /// handler asks of the client (`request`, `input`) is parked in `inputs` until a
    /// `tasks/update` answers it; its handler's status reports go to `status`.
    pub(crate) fn for_task(
        &self,
        cancel: CancellationToken,
        inputs: Arc<super::TaskInputs>,
        status: TaskStatusSink,
    ) -> RequestContext {
        self.fork(cancel, None, Some(inputs), Some(status))
    }

    /// This request's context for work that outlives it: the same session, id, `_meta`,
    /// version, headers, identity and input round, with `cancel`, `progress`, `task_inputs`
    /// and `task_status` of its own and not yet done.
    fn fork(
        &self,
        cancel: CancellationToken,
        progress: Option<ProgressReporter>,
        task_inputs: Option<Arc<super::TaskInputs>>,
        task_status: Option<TaskStatusSink>,
    ) -> RequestContext {
        let i = &self.inner;
        RequestContext {
            inner: Arc::new(ContextInner {
                session: i.session.clone(),
                id: i.id.clone(),
                meta: i.meta.clone(),
                version: i.version,
                cancel,
                progress,
                done: AtomicBool::new(false),
                http_headers: i.http_headers.clone(),
                auth: i.auth.clone(),
                // A fork shares the round (made now if it was not yet).
                input: match i.input.round() {
                    Some(round) => InputSlot::Round(round.clone()),
                    None => InputSlot::None,
                },
                task_inputs,
                task_status,
                #[cfg(feature = "otel")]
                origin: None,
                #[cfg(feature = "otel")]
                outbound: i.outbound.clone(),
            }),
        }
    }

    /// The capabilities the client declared (for this request, in the per-request era).
    fn peer_capabilities(&self) -> Value {
        self.inner
            .session
            .negotiated()
            .map_or(Value::Null, |n| (*n.peer_capabilities).clone())
    }

    /// Attaches the multi round-trip state of a per-request-era request (right after
    /// construction, before anyone else holds the context).
    pub(crate) fn set_input_round(&mut self, round: Arc<super::mrtr::InputRound>) {
        self.inner_mut().input = InputSlot::Round(round);
    }

    /// Attaches the multi round-trip state of a per-request-era `tools/call` of tool `name`
    /// (right after construction): `round` when the request carries input
    /// ([`super::mrtr::InputRound::read_parts`]), `None` for a first round, which is made only
    /// when the handler asks for input or the request answers `input_required` (most calls
    /// never do, and pay nothing for it). The context keeps `name`: [`Self::tool_name`].
    pub(crate) fn set_tool_round(
        &mut self,
        name: String,
        round: Option<Arc<super::mrtr::InputRound>>,
    ) {
        self.inner_mut().input = InputSlot::Tool {
            name,
            round: round.map_or_else(OnceLock::new, OnceLock::from),
        };
    }

    /// The tool a per-request-era `tools/call` context was made for ([`Self::set_tool_round`]).
    pub(crate) fn tool_name(&self) -> &str {
        match &self.inner.input {
            InputSlot::Tool { name, .. } => name,
            _ => "",
        }
    }

    /// This request's multi round-trip round, made now for a first round that had none yet;
    /// `None` outside the per-request era's input-taking requests.
    pub(crate) fn input_round(&self) -> Option<&Arc<super::mrtr::InputRound>> {
        self.inner.input.round()
    }

    /// Whether the handler recorded input requests this round (see
    /// [`super::mrtr::InputRound::has_pending`]): a first round never made has none.
    pub(crate) fn input_pending(&self) -> bool {
        self.inner
            .input
            .made()
            .is_some_and(|round| round.has_pending())
    }

    fn inner_mut(&mut self) -> &mut ContextInner {
        Arc::get_mut(&mut self.inner).expect("a fresh context has one owner")
    }

    /// Per-request era (2026-07-28): the client's answer to the input request `key` of an
    /// earlier [`super::input_required`] result, carried by this retry's `inputResponses`.
    pub fn input_response(&self, key: &str) -> Option<&Value> {
        self.inner.input.made()?.response(key)
    }

    /// Per-request era (2026-07-28): the state the handler gave [`super::input_required`] in
    /// the previous round, verified (the client cannot alter it).
    pub fn request_state(&self) -> Option<&Value> {
        self.inner.input.made()?.state()
    }

    /// The header fields of the HTTP request this request arrived in (Streamable HTTP and the
    /// legacy HTTP+SSE endpoint), in order; `None` on other transports.
    pub fn http_headers(&self) -> Option<Vec<(String, String)>> {
        self.inner.http_headers.as_ref().map(|h| h.pairs())
    }

    /// One header field's value (`name` in lowercase) without building the others.
    #[cfg(feature = "otel")]
    pub(crate) fn http_header(&self, name: &str) -> Option<String> {
        self.inner.http_headers.as_ref()?.get(name)
    }

    /// Whether the request came over HTTP (without building [`Self::http_headers`]).
    #[cfg(feature = "otel")]
    pub(crate) fn has_http_headers(&self) -> bool {
        self.inner.http_headers.is_some()
    }

    /// Whether the HTTP request this request arrived in has a `traceparent` header field.
    #[cfg(feature = "otel")]
    pub(crate) fn has_http_traceparent(&self) -> bool {
        self.inner
            .http_headers
            .as_ref()
            .is_some_and(|h| h.has_traceparent())
    }

    /// The IP address of the peer of the HTTP connection this request arrived on: the socket
    /// address `serve_http`'s listener accepted, or axum's `ConnectInfo` (a
    /// [`FairListener`](crate::transport::http::FairListener)'s `ConnectionSeat` or a
    /// `SocketAddr`); `None` on other transports or when axum was served without connect info.
    /// Behind a proxy this is the proxy's address.
    pub fn client_address(&self) -> Option<IpAddr> {
        self.inner.http_headers.as_ref()?.client_address()
    }

    /// Every value of header field `name` (given in lowercase) joined by `, `, as one field
    /// sent on several lines means; `None` when absent or not over HTTP.
    pub(crate) fn http_header_lines(&self, name: &str) -> Option<String> {
        let values = self.inner.http_headers.as_ref()?.get_all(name);
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The identity of the verified bearer token the HTTP request carried (protected servers,
    /// see `ferromcp::auth::ResourceAuth`); `None` otherwise.
    pub fn auth(&self) -> Option<&AuthInfo> {
        self.inner.auth.as_deref()
    }

    /// The same request with `meta` as its `_meta` (the OpenTelemetry layer names the server
    /// span there, for handlers in other languages that read their parent from `_meta`) and
    /// `outbound` tracing the requests its handler sends to the peer: session, id,
    /// cancellation, progress, headers, identity and input round are this context's, and it is
    /// finished when this one is.
    #[cfg(feature = "otel")]
    pub(crate) fn with_meta_object(
        &self,
        meta: Map<String, Value>,
        outbound: Option<Arc<dyn TraceOutbound>>,
    ) -> RequestContext {
        let i = &self.inner;
        RequestContext {
            inner: Arc::new(ContextInner {
                session: i.session.clone(),
                id: i.id.clone(),
                meta: Some(Arc::new(SharedMeta::new(Value::Object(meta)))),
                version: i.version,
                cancel: i.cancel.clone(),
                // Its notifications traced as the requests its handler sends.
                progress: i.progress.as_ref().map(|p| ProgressReporter {
                    tracer: outbound.clone(),
                    ..p.clone()
                }),
                done: AtomicBool::new(i.done.load(Ordering::Acquire)),
                http_headers: i.http_headers.clone(),
                auth: i.auth.clone(),
                input: match i.input.round() {
                    Some(round) => InputSlot::Round(round.clone()),
                    None => InputSlot::None,
                },
                task_inputs: i.task_inputs.clone(),
                task_status: i.task_status.clone(),
                origin: Some(self.clone()),
                outbound,
            }),
        }
    }

    /// Whether the request was answered (this context, or the one it was derived from).
    fn is_done(&self) -> bool {
        #[cfg(feature = "otel")]
        if let Some(origin) = &self.inner.origin {
            if origin.is_done() {
                return true;
            }
        }
        self.inner.done.load(Ordering::Acquire)
    }

    /// Marks the request finished: progress and related messages stop.
    pub(crate) fn finish(&self) {
        self.inner.done.store(true, Ordering::Release);
        if let Some(p) = &self.inner.progress {
            p.done.store(true, Ordering::Release);
        }
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The request's `_meta` object, if it had one.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.inner.meta.as_deref().and_then(SharedMeta::object)
    }

    /// The negotiated protocol revision (for `initialize`: the one being negotiated).
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.inner.version
    }

    /// The token that fires when the peer cancels this request (or the session closes).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Whether this context runs a task of the tasks extension (2026-07-28): a call of a
    /// task-supporting tool from a request declaring the extension, which becomes a task unless
    /// the handler answers first (see [`crate::server::TaskOptions::first_answer_wait`]).
    pub fn in_extension_task(&self) -> bool {
        self.inner.task_inputs.is_some()
    }

    /// In a call of the tasks extension that waits for its handler's first answer
    /// ([`crate::server::TaskOptions::first_answer_wait`]): the handler says no early answer
    /// (a result, or an `input_required` round) is coming, so the call becomes a task now
    /// rather than when the wait ends. A no-op anywhere else, and once the task was made.
    pub fn start_task(&self) {
        if let Some(inputs) = &self.inner.task_inputs {
            inputs.start_now();
        }
    }

    /// Whether this context runs a task's handler (a 2025-11-25 task-augmented call, or a
    /// call of the tasks extension, see [`RequestContext::in_extension_task`]): where
    /// [`RequestContext::report_task_status`] is heard.
    pub fn in_task(&self) -> bool {
        self.inner.task_status.is_some()
    }

    /// In a task's handler (a 2025-11-25 task-augmented call, or a task of the tasks
    /// extension): tells the task's requestor what the task is doing, as `tasks/get` and the
    /// status notifications show it. A no-op outside a task.
    ///
    /// - `working` or `input_required`, with `message` (`statusMessage`; `None` clears it):
    ///   the task's state from now on, until the next report or its end. With the tasks
    ///   extension the status stays what the task's parked input requests make it (a task is
    ///   `input_required` while it has some), and only the message is taken.
    /// - `completed`, `failed` or `cancelled`: how the task is to end when the handler
    ///   returns. `cancelled` ends it cancelled (with `message`) whatever the handler
    ///   returns; `completed` or `failed` gives the task's final `statusMessage` when the
    ///   handler's outcome ends it with that status (else the outcome's status and message
    ///   stand; a `None` message keeps the engine's).
    ///
    /// A proxy reports what its backend's task says this way.
    pub fn report_task_status(&self, status: TaskStatus, message: Option<&str>) {
        if let Some(sink) = &self.inner.task_status {
            sink(status, message.map(str::to_string));
        }
    }

    /// In a call of the tasks extension: whether the call has become a task (the engine made
    /// it when the first-answer wait ended, or when the handler parked input or called
    /// [`RequestContext::start_task`]). From then on the handler's answer is the task's
    /// outcome: an `input_required` answer can no longer be the client's own round, so a
    /// handler asks with [`RequestContext::input`] instead. False anywhere else.
    pub fn task_made(&self) -> bool {
        self.inner.task_inputs.as_ref().is_some_and(|i| i.made())
    }

    /// Whether the request has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// The session this request arrived on.
    pub fn session(&self) -> &Arc<Session> {
        &self.inner.session
    }

    /// A handle for sending to the peer.
    pub fn peer(&self) -> Peer {
        self.inner.session.peer()
    }

    /// The progress reporter, if the requester asked for progress (sent a `progressToken`).
    pub fn progress_reporter(&self) -> Option<&ProgressReporter> {
        self.inner.progress.as_ref()
    }

    /// Reports progress if the requester asked for it; a no-op otherwise.
    /// Progress must increase; values that do not are dropped, as is anything after completion.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), McpError> {
        match &self.inner.progress {
            Some(p) => p.report(progress, total, message).await,
            None => Ok(()),
        }
    }

    /// Sends a log message to the peer (`notifications/message`) if the peer's log level admits
    /// it and this server advertised logging. `level` is an RFC 5424 level name (`"info"`, ...).
    pub async fn log(
        &self,
        level: &str,
        logger: Option<&str>,
        data: Value,
    ) -> Result<(), McpError> {
        self.peer()
            .log_related(
                level,
                logger,
                data,
                Some(self.inner.id.clone()),
                self.notifier(),
            )
            .await
    }

    /// Sends a notification related to this request (routed onto its stream over HTTP).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        if self.is_done() {
            return Err(McpError::invalid_request("request already completed"));
        }
        self.inner
            .session
            .send_notification(self.notifier(), method, params, Some(self.inner.id.clone()))
            .await
    }

    /// Sends a request to the peer while serving this one (e.g. `sampling/createMessage`,
    /// `elicitation/create`, `roots/list`), related to this request.
    ///
    /// In the per-request era (2026-07-28) nothing is sent: the request answers
    /// `input_required` with this one among its input requests, and when the client retries
    /// with the answer the handler runs again and this call returns it.
    ///
    /// In a task of the tasks extension, it is parked as one of the task's `inputRequests`
    /// (`tasks/get`) and this call returns when a `tasks/update` answers it.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        if let Some(inputs) = &self.inner.task_inputs {
            return inputs
                .request(&self.peer_capabilities(), method, params)
                .await;
        }
        if let Some(round) = self.inner.input.round() {
            return self.input_request(round, method, params);
        }
        let opts = RequestOptions {
            related: Some(self.inner.id.clone()),
            cancel: Some(self.inner.cancel.clone()),
            ..Default::default()
        };
        self.send_request(method, params, opts).await
    }

    /// Sends a request to the peer, traced as every request sent on the session is
    /// ([`TraceOutbound`]), under this request's span when the layer traces it.
    async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        self.peer()
            .request_traced(method, params, opts, super::Tracing::BySession(Some(self)))
            .await
    }

    /// The tracer of the requests a handler sends while serving this request, when the
    /// OpenTelemetry layer traces it.
    #[cfg(feature = "otel")]
    pub(crate) fn outbound_tracer(&self) -> Option<&Arc<dyn TraceOutbound>> {
        self.inner.outbound.as_ref()
    }

    /// Like [`RequestContext::request`] with explicit options (the relation to this request is kept).
    pub async fn request_with(
        &self,
        method: &str,
        params: Option<Value>,
        mut opts: RequestOptions,
    ) -> Result<Value, McpError> {
        if let Some(inputs) = &self.inner.task_inputs {
            return inputs
                .request(&self.peer_capabilities(), method, params)
                .await;
        }
        if let Some(round) = self.inner.input.round() {
            return self.input_request(round, method, params);
        }
        opts.related = Some(self.inner.id.clone());
        if opts.cancel.is_none() {
            opts.cancel = Some(self.inner.cancel.clone());
        }
        self.send_request(method, params, opts).await
    }

    /// Asks the client for several things at once: `requests` maps keys of the handler's
    /// choosing to `{ "method": ..., "params": ... }` (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`); the answers come back under the same keys.
    ///
    /// Handshake era: each is sent to the client as a request. Per-request era (2026-07-28):
    /// the request answers `input_required` with those it has no answer for yet; the client
    /// retries with the answers, the handler runs again, and this call returns them (answers of
    /// earlier rounds travel in `requestState`, so a handler may call it several times in turn).
    ///
    /// In a task of the tasks extension, they are parked as the task's `inputRequests` and
    /// this call returns once `tasks/update` has answered them all (in one go or several).
    pub async fn input(
        &self,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, McpError> {
        if let Some(inputs) = &self.inner.task_inputs {
            return inputs.ask(&self.peer_capabilities(), requests).await;
        }
        if let Some(round) = self.inner.input.round() {
            let caps = self
                .inner
                .session
                .negotiated()
                .map(|n| &*n.peer_capabilities);
            return round.input(caps.unwrap_or(&Value::Null), requests);
        }
        let mut answers = Map::new();
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let answer = self.request(method, request.get("params").cloned()).await?;
            answers.insert(key, answer);
        }
        Ok(answers)
    }

    fn input_request(
        &self,
        round: &super::mrtr::InputRound,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, McpError> {
        let caps = self
            .inner
            .session
            .negotiated()
            .map(|n| &*n.peer_capabilities);
        round.request(caps.unwrap_or(&Value::Null), method, params)
    }

    /// Closes the transport stream that carries this request's messages (Streamable HTTP with
    /// SSE), after the server has sent an event id and a `retry:` hint: the client reconnects
    /// and resumes with `Last-Event-ID`, and the response arrives on the resumed stream
    /// (2025-11-25 SSE polling). Returns false where there is no such stream (stdio, JSON mode).
    pub fn close_sse_stream(&self) -> bool {
        self.inner.session.close_request_stream(&self.inner.id)
    }

    /// Whether the session has completed its handshake.
    pub fn session_ready(&self) -> bool {
        self.inner.session.state() == STATE_READY
    }
}

/// A request's `params._meta` object, if it has one.
fn request_meta(req: &Request) -> Option<Arc<SharedMeta>> {
    req.params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .filter(|m| m.is_object())
        .map(|m| Arc::new(SharedMeta::new(m.clone())))
}

/// Sends `notifications/progress` for one request, enforcing monotonic progress and silence
/// after completion.
#[derive(Clone)]
pub struct ProgressReporter {
    session: Arc<Session>,
    token: Value,
    related: RequestId,
    last: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    /// Traces its notifications: the OpenTelemetry layer's tracer of the request, when it
    /// traces it and its span is sampled ([`RequestContext::with_meta_object`]).
    #[cfg(feature = "otel")]
    tracer: Option<Arc<dyn TraceOutbound>>,
}

impl ProgressReporter {
    /// The requester's progress token.
    pub fn token(&self) -> &Value {
        &self.token
    }

    /// Sends one progress notification. Non-increasing values and reports after the request
    /// completed are dropped (returns `Ok(())`, nothing sent).
    pub async fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), McpError> {
        if self.done.load(Ordering::Acquire) || !progress.is_finite() {
            return Ok(());
        }
        let mut last = self.last.load(Ordering::Acquire);
        loop {
            if progress <= f64::from_bits(last) {
                return Ok(());
            }
            match self.last.compare_exchange(
                last,
                progress.to_bits(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(now) => last = now,
            }
        }
        let mut params = json!({ "progressToken": self.token, "progress": progress });
        if let Some(t) = total {
            params["total"] = json!(t);
        }
        if let Some(m) = message {
            params["message"] = json!(m);
        }
        #[cfg(feature = "otel")]
        let by = super::Notifier::Request(self.tracer.as_ref());
        #[cfg(not(feature = "otel"))]
        let by = super::Notifier::Request(None);
        self.session
            .send_notification(
                by,
                "notifications/progress",
                Some(params),
                Some(self.related.clone()),
            )
            .await
    }
}
