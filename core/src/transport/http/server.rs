//! The Streamable HTTP server (2025-03-26 and later) and the legacy HTTP+SSE endpoints
//! (2024-11-05), both driving the shared session engine.
//!
//! Every session has one routing table: the messages it sends (progress, logs, server-to-client
//! requests, list-changed notifications) and the answers of its handlers are routed as they are
//! sent, under one lock and in order, so a request's progress always precedes its response on
//! that request's SSE stream. Unrelated messages go to the session's GET stream, or
//! wait in a bounded backlog until one opens.

// Handlers return ready-made HTTP responses as their error values.
#![allow(clippy::result_large_err)]

use super::per_request;
use super::queue::{stream_queue, Refused, StreamRx, StreamTx};
use super::request::{Fields, HttpRequest};
use super::sse::encode;
use super::store::{EventStore, InMemoryEventStore, InMemorySessionStore, SessionStore};
use super::HttpServerOptions;
use crate::jsonrpc::{self, ErrorResponse, Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::server::Server;
use crate::session::{
    Incoming, Negotiated, Outbound, OutboundMessage, OutboundSink, Role, Session, STATE_READY,
};
use crate::McpError;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use serde_json::json;
use std::collections::{HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Header carrying the session id.
pub const SESSION_ID_HEADER: &str = "mcp-session-id";
/// Header carrying the negotiated protocol revision.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
const BACKLOG_LIMIT: usize = 1000;

/// How long a POST answered with an SSE stream waits for a still-running handler's answer (or
/// any new event) before sending the response head on its own (see the end of
/// [`handle_post_request`]).
const FIRST_EVENT_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// What a stream's receiver gets.
enum Frame {
    Sse(Bytes),
    Msg(Out),
}

/// A message on its way to a stream: as a [`Message`], or an answer already written as JSON
/// text (a `tools/call` result goes from the tool's output to text without a JSON value tree,
/// by the same writer the stdio connection uses).
enum Out {
    Msg(Message),
    Written(RequestId, String),
}

impl Out {
    /// Whether this answers a request (a response, or an error with an id).
    fn is_answer(&self) -> bool {
        match self {
            Out::Msg(m) => matches!(
                m,
                Message::Response(_) | Message::Error(ErrorResponse { id: Some(_), .. })
            ),
            Out::Written(..) => true,
        }
    }

    fn id(&self) -> Option<&RequestId> {
        match self {
            Out::Msg(m) => m.id(),
            Out::Written(id, _) => Some(id),
        }
    }

    /// The message as JSON text.
    fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Out::Msg(m) => serde_json::to_string(m).expect("messages serialize").into(),
            Out::Written(_, t) => t.as_str().into(),
        }
    }

    /// The message as a [`Message`] (a written answer is read back: only for the rare paths
    /// that keep messages, such as a legacy stream's backlog).
    fn into_message(self) -> Message {
        match self {
            Out::Msg(m) => m,
            Out::Written(_, t) => match jsonrpc::parse(t.as_bytes()) {
                Ok(jsonrpc::Incoming::Single(m)) => m,
                _ => panic!("a written answer is one message"),
            },
        }
    }
}

/// The answer to a `tools/call` started on the engine's lane, for an HTTP stream: a tool's
/// result already written as text; anything else as a message.
fn tool_call_out(
    id: RequestId,
    outcome: Option<Result<crate::server::ToolOutput, McpError>>,
) -> Option<Out> {
    match outcome? {
        Ok(crate::server::ToolOutput::Result(result)) => {
            let mut text = Vec::new();
            crate::server::write_tool_response(&mut text, &id, result);
            Some(Out::Written(
                id,
                String::from_utf8(text).expect("JSON text is UTF-8"),
            ))
        }
        other => crate::server::tool_call_reply(id, Some(other)).map(Out::Msg),
    }
}

/// The body of a JSON response: one message, or a batch's answers as an array.
fn json_body(out: &[Out], batch: bool) -> Vec<u8> {
    if !batch {
        return out
            .first()
            .map_or_else(Vec::new, |o| o.text().into_owned().into_bytes());
    }
    let mut body = vec![b'['];
    for (i, o) in out.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(o.text().as_bytes());
    }
    body.push(b']');
    body
}

type Tx = StreamTx<Frame>;
type Rx = StreamRx<Frame>;

/// Offers a frame to a stream without waiting. False when the stream is gone or its reader has
/// fallen a whole queue behind; the caller then drops the sender, which ends that stream (its
/// events stay in the event store for resumption) rather than blocking the session.
fn offer(tx: &Tx, frame: Frame) -> bool {
    match tx.try_send(frame) {
        Ok(()) => true,
        Err(Refused::Full) => {
            tracing::warn!("an SSE stream's reader is too slow; closing that stream");
            false
        }
        Err(Refused::Closed) => false,
    }
}

struct StreamRoute {
    slot: u64,
    tx: Option<Tx>,
    /// Requests of this stream still unanswered (usually one: no set is allocated for it).
    pending: SmallIds,
    json: bool,
    /// Bumped each time a client (re)attaches to the stream, so that a polling-mode close
    /// scheduled for an earlier attachment leaves a later one alone.
    generation: u64,
    /// Whether an event of this stream is in the event store (its priming event, or a message
    /// sent before the last answer); until then no client holds an id to resume it from.
    recorded: bool,
}

/// A few request ids, without a heap allocation for the common single one.
enum SmallIds {
    One(RequestId),
    Many(HashSet<RequestId>),
    Empty,
}

impl SmallIds {
    fn remove(&mut self, id: &RequestId) {
        match self {
            SmallIds::One(x) if x == id => *self = SmallIds::Empty,
            SmallIds::Many(set) => {
                set.remove(id);
            }
            _ => {}
        }
    }
    /// Whether `id` is the only id left.
    fn is_only(&self, id: &RequestId) -> bool {
        match self {
            SmallIds::One(x) => x == id,
            SmallIds::Many(set) => set.len() == 1 && set.contains(id),
            SmallIds::Empty => false,
        }
    }
    fn is_empty(&self) -> bool {
        match self {
            SmallIds::Empty => true,
            SmallIds::One(_) => false,
            SmallIds::Many(set) => set.is_empty(),
        }
    }
}

#[derive(Default)]
struct Routes {
    /// Request id → stream slot (hashed as the session's own request maps are).
    requests: HashMap<RequestId, u64, crate::session::IdHash>,
    /// Open request streams (few at a time: a Vec beats a map, and allocates nothing when idle).
    streams: Vec<StreamRoute>,
    next_stream: u64,
    get: Option<Tx>,
    backlog: VecDeque<Message>,
}

impl Routes {
    fn stream(&mut self, slot: u64) -> Option<&mut StreamRoute> {
        self.streams.iter_mut().find(|s| s.slot == slot)
    }
    fn remove_stream(&mut self, slot: u64) {
        if let Some(i) = self.streams.iter().position(|s| s.slot == slot) {
            self.streams.swap_remove(i);
        }
    }
    fn clear(&mut self) {
        self.get = None;
        self.streams = Vec::new();
        self.requests = HashMap::default();
    }
}

/// One HTTP-served session: the engine session plus the routing of its SSE streams.
///
/// The session's outbound messages are routed synchronously as they are sent (the session's
/// [`crate::session::Outbound`] is this value, held weakly), so an idle session owns no task
/// and no queue.
pub struct HttpSession {
    id: Option<Arc<str>>,
    session: Arc<Session>,
    routes: Mutex<Routes>,
    /// `None` in stateless mode: its streams cannot be resumed (GET answers 405), so their
    /// events are not kept.
    events: Option<Arc<dyn EventStore>>,
    /// Milliseconds since `EPOCH` when a request last touched this session.
    last_active: AtomicU64,
    legacy: bool,
}

/// The reference point of [`HttpSession::last_active`].
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

impl std::fmt::Debug for HttpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSession")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl OutboundSink for HttpSession {
    fn deliver(&self, m: OutboundMessage) -> Result<(), McpError> {
        if self.session.is_closed() {
            return Err(McpError::connection_closed("connection closed"));
        }
        self.route(m.message, m.related);
        Ok(())
    }

    fn is_closed(&self) -> bool {
        self.session.is_closed()
    }

    fn session_closed(&self) {
        self.routes.lock().unwrap().clear();
    }

    fn close_request_stream(&self, id: &RequestId) -> bool {
        // Only streams that were primed with an event id and `retry:` (2025-11-25+) can be
        // resumed; closing any other would lose the response.
        if self.events.is_none()
            || self.session.protocol_version() < Some(ProtocolVersion::V2025_11_25)
        {
            return false;
        }
        let mut r = self.routes.lock().unwrap();
        let Some(slot) = r.requests.get(id).copied() else {
            return false;
        };
        match r.stream(slot) {
            // Dropping the sender ends the SSE body; later events for this request are kept
            // in the event store and replayed when the client resumes with Last-Event-ID.
            Some(route) if !route.json && route.tx.is_some() => {
                route.tx = None;
                true
            }
            _ => false,
        }
    }
}

impl HttpSession {
    /// The `Mcp-Session-Id` (none in stateless mode).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The engine session.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// When a request last touched this session.
    pub fn last_active(&self) -> Instant {
        epoch() + Duration::from_millis(self.last_active.load(Ordering::Relaxed))
    }

    /// Whether a GET (server-to-client) stream is currently connected.
    pub fn has_open_stream(&self) -> bool {
        self.routes
            .lock()
            .unwrap()
            .get
            .as_ref()
            .is_some_and(|t| !t.is_closed())
    }

    fn touch(&self) {
        let ms = epoch().elapsed().as_millis() as u64;
        self.last_active.store(ms, Ordering::Relaxed);
    }

    /// Prefix of every event-store key of this session.
    fn key(&self) -> String {
        match &self.id {
            Some(id) => format!("{id}/"),
            None => format!("sl-{:p}/", self as *const Self),
        }
    }

    fn get_key(&self) -> String {
        format!("{}get", self.key())
    }

    fn stream_key(&self, slot: u64) -> String {
        match &self.id {
            Some(id) => {
                use std::fmt::Write;
                let mut k = String::with_capacity(id.len() + 8);
                k.push_str(id);
                k.push('/');
                let _ = write!(k, "{slot}");
                k
            }
            None => format!("{}{slot}", self.key()),
        }
    }

    /// Whether `event_id` names the only event of a finished request stream of this session,
    /// which the event store was not asked to keep.
    fn is_finished_only_event(&self, event_id: &str) -> bool {
        let Some((stream, "0")) = event_id.rsplit_once(':') else {
            return false;
        };
        let Some(slot) = stream
            .strip_prefix(self.key().as_str())
            .and_then(|n| n.parse::<u64>().ok())
        else {
            return false;
        };
        let mut r = self.routes.lock().unwrap();
        slot < r.next_stream && r.stream(slot).is_none()
    }

    /// Records an event of stream `key` for resumption; its id (`None` when not kept).
    fn record(&self, key: impl FnOnce() -> String, data: &str) -> Option<String> {
        self.events.as_ref().map(|e| e.append(&key(), data))
    }

    fn new(
        app: &App,
        id: Option<Arc<str>>,
        events: Option<Arc<dyn EventStore>>,
        legacy: bool,
    ) -> Arc<HttpSession> {
        let config = app.server.session_config();
        let service = app.service.clone();
        let http = Arc::new_cyclic(|weak: &Weak<HttpSession>| {
            let sink: Weak<dyn OutboundSink> = weak.clone();
            let session = Session::with_shared_config(
                Role::Server,
                service,
                config,
                Outbound::sink(sink),
                id.clone(),
            );
            HttpSession {
                id,
                session,
                routes: Mutex::new(Routes::default()),
                events,
                last_active: AtomicU64::new(0),
                legacy,
            }
        });
        http.touch();
        http
    }

    /// Routes one message to the stream it belongs to.
    fn route(&self, msg: Message, related: Option<RequestId>) {
        self.route_out(Out::Msg(msg), related);
    }

    /// [`Self::route`] for a message or a written answer.
    fn route_out(&self, msg: Out, related: Option<RequestId>) {
        let mut r = self.routes.lock().unwrap();
        let finished = self.route_locked(&mut r, msg, related);
        drop(r);
        if finished {
            // Closing calls back into this sink, which takes the routing lock again.
            self.session.close();
        }
    }

    /// [`Self::route`] under the routing lock; true when a stateless session has answered
    /// everything (the caller closes it once the lock is released).
    fn route_locked(&self, r: &mut Routes, msg: Out, related: Option<RequestId>) -> bool {
        if self.legacy {
            let data = msg.text().into_owned();
            match &r.get {
                Some(tx) => {
                    if !offer(tx, Frame::Sse(encode(None, Some("message"), &data, None))) {
                        // The legacy stream is the connection: ending it ends the session.
                        r.get = None;
                    }
                }
                None => push_backlog(&mut r.backlog, msg.into_message()),
            }
            return false;
        }
        let is_answer = msg.is_answer();
        if let Some(id) = related {
            if let Some(slot) = r.requests.get(&id).copied() {
                let answer_here = is_answer && msg.id() == Some(&id);
                let route = r.stream(slot).expect("request maps to a stream");
                let mut msg = Some(msg);
                if !route.json {
                    let m = msg.take().expect("present");
                    let data = m.text();
                    // The stream's only event (its answer, nothing before it) can never be
                    // asked for again: the store hands out its id without keeping it.
                    let only = answer_here && !route.recorded && route.pending.is_only(&id);
                    let eid = match &self.events {
                        Some(e) if only => Some(e.append_only_event(&self.stream_key(slot), &data)),
                        _ => {
                            route.recorded = true;
                            self.record(|| self.stream_key(slot), &data)
                        }
                    };
                    if let Some(tx) = &route.tx {
                        if !offer(tx, Frame::Sse(encode(eid.as_deref(), None, &data, None))) {
                            route.tx = None;
                        }
                    }
                } else if answer_here {
                    if let Some(tx) = &route.tx {
                        offer(tx, Frame::Msg(msg.take().expect("present")));
                    }
                }
                let mut finished = false;
                if answer_here {
                    route.pending.remove(&id);
                    let done = route.pending.is_empty();
                    r.requests.remove(&id);
                    if done {
                        r.remove_stream(slot);
                        finished = self.stream_done_closes(r);
                    }
                }
                if let Some(m) = msg {
                    if !answer_here {
                        self.to_get(r, m.into_message());
                    }
                }
                return finished;
            }
        }
        if is_answer {
            tracing::debug!("answer for a finished request stream dropped");
            return false;
        }
        self.to_get(r, msg.into_message());
        false
    }

    fn to_get(&self, r: &mut Routes, msg: Message) {
        if self.events.is_none() {
            tracing::debug!("stateless mode: message unrelated to an open request dropped");
            return;
        }
        if r.get.as_ref().is_some_and(|t| !t.is_closed()) {
            let data = serde_json::to_string(&msg).expect("messages serialize");
            let eid = self.record(|| self.get_key(), &data);
            let tx = r.get.as_ref().expect("checked");
            if !offer(tx, Frame::Sse(encode(eid.as_deref(), None, &data, None))) {
                r.get = None;
            }
        } else {
            r.get = None;
            push_backlog(&mut r.backlog, msg);
        }
    }

    /// Whether a stateless session, its last stream done, should now close.
    fn stream_done_closes(&self, r: &Routes) -> bool {
        self.events.is_none() && r.streams.is_empty()
    }

    /// Polling mode ([`HttpServerOptions::close_streams_after`]): closes request stream `slot`
    /// after the configured time if it is still attached as `generation` and still waiting.
    fn schedule_close(self: &Arc<Self>, app: &App, slot: u64, generation: u64) {
        let Some(after) = app.options.close_streams_after else {
            return;
        };
        let weak = Arc::downgrade(self);
        let closed = self.session.closed.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(after) => {}
                _ = closed.cancelled() => return,
            }
            let Some(h) = weak.upgrade() else { return };
            let mut r = h.routes.lock().unwrap();
            if let Some(route) = r.stream(slot) {
                if route.generation == generation && !route.json {
                    // Its later events wait in the event store until the client resumes.
                    route.tx = None;
                }
            }
        });
    }

    /// A request's handler ended without an answer (cancelled).
    fn finish_silently(&self, id: &RequestId) {
        let mut r = self.routes.lock().unwrap();
        let mut finished = false;
        if let Some(slot) = r.requests.remove(id) {
            if let Some(route) = r.stream(slot) {
                route.pending.remove(id);
                if route.pending.is_empty() {
                    r.remove_stream(slot);
                    finished = self.stream_done_closes(&r);
                }
            }
        }
        drop(r);
        if finished {
            self.session.close();
        }
    }

    /// Hands a handler's outcome to the routing (the answer, or nothing when cancelled).
    fn answered(&self, reply: Option<Out>, rid: Option<RequestId>) {
        match reply {
            Some(reply) => self.route_out(reply, rid),
            None => {
                if let Some(id) = rid {
                    self.finish_silently(&id);
                }
            }
        }
    }

    fn close(&self) {
        self.session.close();
        self.routes.lock().unwrap().clear();
        if let Some(events) = &self.events {
            events.remove_streams(&self.key());
        }
    }
}

fn push_backlog(backlog: &mut VecDeque<Message>, msg: Message) {
    if backlog.len() >= BACKLOG_LIMIT {
        backlog.pop_front();
    }
    backlog.push_back(msg);
}

/// Shared state of one mounted HTTP endpoint.
pub(crate) struct App {
    server: Server,
    /// `server` as every session's service: one allocation shared by all of them.
    service: Arc<dyn crate::session::Service>,
    options: HttpServerOptions,
    sessions: Arc<dyn SessionStore>,
    events: Arc<dyn EventStore>,
    shutdown: CancellationToken,
    tasks: TaskTracker,
    reaper_started: AtomicBool,
    guard: Option<HostGuard>,
}

impl App {
    fn new(server: Server, options: HttpServerOptions, bound: Option<SocketAddr>) -> Arc<App> {
        let guard = resolve_host_guard(&options, bound);
        let sessions = options
            .session_store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemorySessionStore::default()));
        let events = options
            .event_store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemoryEventStore::default()));
        let service: Arc<dyn crate::session::Service> = Arc::new(server.clone());
        Arc::new(App {
            server,
            service,
            options,
            sessions,
            events,
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            reaper_started: AtomicBool::new(false),
            guard,
        })
    }

    fn start_reaper(self: &Arc<Self>) {
        if self.reaper_started.swap(true, Ordering::AcqRel) || self.options.stateless {
            return;
        }
        let weak = Arc::downgrade(self);
        let every = (self.options.session_idle_timeout / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(60));
        let shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = shutdown.cancelled() => break,
                }
                match weak.upgrade() {
                    Some(app) => app.reap(),
                    None => break,
                }
            }
        });
    }

    /// Removes sessions idle longer than the timeout (with no open stream and nothing in flight).
    fn reap(&self) {
        let now = Instant::now();
        for id in self.sessions.ids() {
            let Some(s) = self.sessions.get(&id) else {
                continue;
            };
            let idle = now.duration_since(s.last_active()) > self.options.session_idle_timeout;
            let busy = s.has_open_stream() || s.session.in_flight_count() > 0;
            if s.session.is_closed() || (idle && !busy) {
                self.sessions.remove(&id);
                s.close();
            }
        }
    }

    fn close_all(&self) {
        for id in self.sessions.ids() {
            if let Some(s) = self.sessions.remove(&id) {
                s.close();
            }
        }
    }
}

fn rpc_error(status: StatusCode, id: Option<RequestId>, error: McpError) -> Response {
    json_response(status, &Message::error(id, error), None)
}

/// [`SESSION_ID_HEADER`] as a header name, built at compile time.
const SESSION_ID_NAME: HeaderName = HeaderName::from_static(SESSION_ID_HEADER);

/// A response with `status`, `body`, a static `Content-Type` and the session id, if any (headers
/// inserted directly: no builder, no parsing of names or static values).
fn response_with(
    status: StatusCode,
    body: Body,
    content_type: &'static str,
    sid: Option<&str>,
) -> Response {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(v) = sid.and_then(|s| HeaderValue::from_str(s).ok()) {
        h.insert(SESSION_ID_NAME, v);
    }
    r
}

fn json_response(status: StatusCode, body: &impl serde::Serialize, sid: Option<&str>) -> Response {
    let body = Body::from(serde_json::to_vec(body).expect("serializes"));
    response_with(status, body, "application/json", sid)
}

fn status_only(status: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = status;
    r
}

/// (accepts JSON, accepts SSE)
fn accepts(h: &Fields) -> (bool, bool) {
    let mut json = false;
    let mut sse = false;
    for v in h.get_all("accept") {
        // What MCP clients send: both, with nothing to parse.
        if v == b"application/json, text/event-stream" {
            json = true;
            sse = true;
            continue;
        }
        let Ok(v) = std::str::from_utf8(v) else {
            continue;
        };
        for part in v.split(',') {
            let mt = part.split(';').next().unwrap_or("").trim();
            let is = |name: &str| mt.eq_ignore_ascii_case(name);
            if is("application/json") || is("application/*") {
                json = true;
            } else if is("text/event-stream") || is("text/*") {
                sse = true;
            } else if mt == "*/*" {
                json = true;
                sse = true;
            }
        }
    }
    (json, sse)
}

/// Splits an authority (`name`, `name:port`, `[v6]`, `[v6]:port`) into its lowercased host (IPv6
/// in brackets) and port.
fn split_authority(authority: &str) -> (String, Option<u16>) {
    let a = authority.trim().to_ascii_lowercase();
    if a.starts_with('[') {
        if let Some(end) = a.find(']') {
            let host = a[..=end].to_string();
            let port = a[end + 1..].strip_prefix(':').and_then(|p| p.parse().ok());
            return (host, port);
        }
        return (a, None);
    }
    match a.rsplit_once(':') {
        // A bare IPv6 address without brackets: no port.
        Some((h, _)) if h.contains(':') => (format!("[{a}]"), None),
        Some((h, p)) => match p.parse() {
            Ok(port) => (h.to_string(), Some(port)),
            Err(_) => (a, None),
        },
        None => (a, None),
    }
}

/// The resolved DNS-rebinding allow-list of one endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HostGuard {
    /// (host, port): `None` port matches any port.
    hosts: Vec<(String, Option<u16>)>,
    origins: Vec<String>,
    /// `host:port` of every entry with a port, as a client usually sends it: a Host header equal
    /// to one of these is allowed without parsing it.
    exact: Vec<String>,
}

impl HostGuard {
    fn new(hosts: Vec<(String, Option<u16>)>, origins: Vec<String>) -> HostGuard {
        let exact = hosts
            .iter()
            .filter_map(|(h, p)| p.map(|p| format!("{h}:{p}")))
            .collect();
        HostGuard {
            hosts,
            origins,
            exact,
        }
    }

    fn host_allowed(&self, host: &str, port: Option<u16>) -> bool {
        self.hosts
            .iter()
            .any(|(h, p)| h == host && (p.is_none() || *p == port))
    }

    /// Whether `authority` (`name:port`) is an allowed host: first as one of the precomputed
    /// `host:port` strings, then without allocating when it is plainly one of the allowed names
    /// (the usual cases; anything unusual takes the full path).
    fn authority_allowed(&self, authority: &str, default_port: u16) -> bool {
        if self.exact.iter().any(|e| e == authority) {
            return true;
        }
        if let Some((name, port)) = authority.rsplit_once(':') {
            let plain = !name.contains([':', '[', ']', ' ']) && !port.is_empty();
            if plain {
                if let Ok(port) = port.parse::<u16>() {
                    return self.hosts.iter().any(|(h, p)| {
                        h.eq_ignore_ascii_case(name) && (p.is_none() || *p == Some(port))
                    });
                }
            }
        }
        let (name, port) = split_authority(authority);
        self.host_allowed(&name, port.or(Some(default_port)))
    }

    fn check(&self, h: &Fields) -> Result<(), Response> {
        let forbid = |why: String| {
            Err(rpc_error(
                StatusCode::FORBIDDEN,
                None,
                McpError::invalid_request(why),
            ))
        };
        match h.get_str("host") {
            Some(host) => {
                if !self.authority_allowed(host, 80) {
                    return forbid(format!("Host {host:?} is not allowed"));
                }
            }
            None => return forbid("Host header required".into()),
        }
        if let Some(origin) = h.get_str("origin") {
            if self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
                return Ok(());
            }
            let (scheme, rest) = origin.split_once("://").unwrap_or(("", origin));
            let authority = rest.split('/').next().unwrap_or("");
            let (name, port) = split_authority(authority);
            let default_port = if scheme.eq_ignore_ascii_case("https") {
                443
            } else {
                80
            };
            if scheme.is_empty() || !self.host_allowed(&name, port.or(Some(default_port))) {
                return forbid(format!("Origin {origin:?} is not allowed"));
            }
        }
        Ok(())
    }
}

/// Resolves the DNS-rebinding protection of `opts` for an endpoint bound to `bound` (`None`:
/// unknown, as for [`router`]). `None` means the protection is off.
pub(crate) fn resolve_host_guard(
    opts: &HttpServerOptions,
    bound: Option<SocketAddr>,
) -> Option<HostGuard> {
    let configured = !opts.allowed_hosts.is_empty() || !opts.allowed_origins.is_empty();
    let loopback = bound.is_none_or(|a| a.ip().is_loopback());
    let on = opts
        .dns_rebinding_protection
        .unwrap_or(loopback || configured);
    if !on {
        return None;
    }
    let hosts = if opts.allowed_hosts.is_empty() {
        let port = bound.map(|a| a.port());
        ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|h| (h.to_string(), port))
            .collect()
    } else {
        opts.allowed_hosts
            .iter()
            .map(|h| split_authority(h))
            .collect()
    };
    Some(HostGuard::new(hosts, opts.allowed_origins.clone()))
}

/// Host/Origin validation against DNS rebinding. `Err` carries the rejection.
fn check_origin(app: &App, h: &Fields) -> Result<(), Response> {
    match &app.guard {
        Some(g) => g.check(h),
        None => Ok(()),
    }
}

fn check_version_header(app: &App, h: &Fields) -> Result<Option<ProtocolVersion>, Response> {
    match h.get(PROTOCOL_VERSION_HEADER) {
        None => Ok(None),
        Some(raw) => {
            let s = super::request::visible_str(raw).unwrap_or("");
            match ProtocolVersion::parse(s)
                .filter(|v| app.server.options().session.supported_versions.contains(v))
            {
                Some(v) => Ok(Some(v)),
                None => Err(rpc_error(
                    StatusCode::BAD_REQUEST,
                    None,
                    McpError::invalid_request(format!("unsupported MCP-Protocol-Version: {s:?}"))
                        .with_data(json!({
                            "supported": app.server.options().session.supported_versions.iter().map(|v| v.as_str()).collect::<Vec<_>>()
                        })),
                )),
            }
        }
    }
}

fn new_session_id() -> Arc<str> {
    Arc::from(format!("{:032x}", rand::random::<u128>()))
}

/// An SSE response (200, `text/event-stream`, not cached nor buffered by proxies) with `body`.
fn sse_response(sid: Option<&str>, body: Body) -> Response {
    const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");
    let mut r = response_with(StatusCode::OK, body, "text/event-stream", sid);
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    r
}

/// An SSE body fed by `rx`; `shutdown` ends it early; `on_drop` runs when the body is dropped.
fn sse_body(
    rx: Rx,
    shutdown: Option<CancellationToken>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
) -> Body {
    Body::new(SseBody {
        rx,
        shutdown: shutdown.map(|t| Box::pin(t.cancelled_owned())),
        on_drop,
        buf: Vec::new(),
    })
}

/// A streaming SSE body: each poll sends every event already queued as one chunk (one write).
struct SseBody {
    rx: Rx,
    shutdown: Option<std::pin::Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    buf: Vec<Frame>,
}

impl Drop for SseBody {
    fn drop(&mut self) {
        if let Some(f) = self.on_drop.take() {
            f();
        }
    }
}

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        use std::future::Future;
        use std::task::Poll;
        let this = &mut *self;
        if let Some(s) = &mut this.shutdown {
            if s.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
        }
        loop {
            this.buf.clear();
            match this.rx.poll_drain(cx, &mut this.buf) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(false) => return Poll::Ready(None),
                Poll::Ready(true) => {
                    if let Some(b) = join_sse(this.buf.drain(..)) {
                        return Poll::Ready(Some(Ok(hyper::body::Frame::data(b))));
                    }
                }
            }
        }
    }
}

/// The SSE frames among `frames`, as one buffer (`None` if there were none).
fn join_sse(frames: impl IntoIterator<Item = Frame>) -> Option<Bytes> {
    let mut first: Option<Bytes> = None;
    let mut joined: Option<Vec<u8>> = None;
    for f in frames {
        let Frame::Sse(b) = f else { continue };
        match (&mut joined, &first) {
            (Some(v), _) => v.extend_from_slice(&b),
            (None, Some(a)) => {
                let mut v = Vec::with_capacity(a.len() + b.len());
                v.extend_from_slice(a);
                v.extend_from_slice(&b);
                joined = Some(v);
            }
            (None, None) => first = Some(b),
        }
    }
    joined.map(Bytes::from).or(first)
}

/// A request with its whole body: what the handlers below take. [`serve_http`]'s connection
/// layer reads bodies whole (within [`HttpServerOptions::max_body_size`]); [`router`]'s handlers
/// buffer them first ([`buffered`]).
type Req = HttpRequest;

/// Reads an axum request's body whole, within [`HttpServerOptions::max_body_size`] (413 beyond).
async fn buffered(app: &App, req: Request) -> Result<Req, Response> {
    let (parts, body) = req.into_parts();
    let body = read_body(app, &parts.headers, body).await?;
    Ok(from_axum(parts, body))
}

/// The endpoint's view of an axum request's head, with `body`.
fn from_axum(parts: axum::http::request::Parts, body: Bytes) -> Req {
    let target = parts.uri.path_and_query().map_or_else(
        || Bytes::from_static(b"/"),
        |pq| Bytes::copy_from_slice(pq.as_str().as_bytes()),
    );
    HttpRequest {
        method: parts.method,
        target,
        headers: Fields::from_map(&parts.headers),
        body,
    }
}

/// [`handle`] for axum's router.
async fn handle_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    match buffered(&app, req).await {
        Ok(req) => handle(app, req).await,
        Err(r) => r,
    }
}

/// [`legacy_sse`] for axum's router.
async fn legacy_sse_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    legacy_sse(app, from_axum(parts, Bytes::new())).await
}

/// [`legacy_post`] for axum's router.
async fn legacy_post_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    match buffered(&app, req).await {
        Ok(req) => legacy_post(app, req).await,
        Err(r) => r,
    }
}

async fn handle(app: Arc<App>, req: Req) -> Response {
    if app.shutdown.is_cancelled() {
        return shutting_down();
    }
    app.start_reaper();
    if let Err(r) = check_origin(&app, req.headers()) {
        return r;
    }
    match *req.method() {
        Method::POST => handle_post(app, req).await,
        Method::GET => handle_get(app, req),
        Method::DELETE => handle_delete(app, req),
        _ => method_not_allowed(&app),
    }
}

/// 503 for requests arriving while the server shuts down (in-flight ones still finish).
fn shutting_down() -> Response {
    let mut r = rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        McpError::internal("the server is shutting down"),
    );
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

fn method_not_allowed(app: &App) -> Response {
    let allow = if app.options.stateless {
        "POST"
    } else if app.options.enable_get_stream {
        "GET, POST, DELETE"
    } else {
        "POST, DELETE"
    };
    let mut r = rpc_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        McpError::invalid_request("method not allowed"),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}

async fn read_body(app: &App, headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    let limit = app.options.max_body_size;
    let too_large = || {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            McpError::invalid_request(format!("request body exceeds {limit} bytes")),
        )
    };
    if let Some(len) =
        (headers.get(header::CONTENT_LENGTH)).and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
    {
        if len > limit {
            return Err(too_large());
        }
    }
    axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| too_large())
}

fn check_content_type(h: &Fields) -> Result<(), Response> {
    // What clients send, with nothing to parse; anything else takes the full check.
    if h.get("content-type") == Some(b"application/json") {
        return Ok(());
    }
    let ok = h.get_str("content-type").is_some_and(|ct| {
        ct.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/json")
    });
    if ok {
        Ok(())
    } else {
        Err(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            McpError::invalid_request("Content-Type must be application/json"),
        ))
    }
}

/// [`handle_post_request`] with the request's headers available to the contexts of the
/// requests it carries ([`crate::session::RequestContext::http_headers`]).
async fn handle_post(app: Arc<App>, req: Req) -> Response {
    let headers = req.headers.shared();
    crate::session::HTTP_HEADERS
        .scope(headers, handle_post_request(app, req))
        .await
}

async fn handle_post_request(app: Arc<App>, req: Req) -> Response {
    let HttpRequest { headers, body, .. } = req;
    let headers = &headers;
    if let Err(r) = check_content_type(headers) {
        return r;
    }
    let (json_ok, sse_ok) = accepts(headers);
    if !json_ok || (!app.options.json_response && !sse_ok) {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            McpError::invalid_request(
                "Accept must list both application/json and text/event-stream",
            ),
        );
    }
    let sid = headers.get_str(SESSION_ID_HEADER);
    // 2026-07-28 and later: no session, the version in every request (see `per_request`).
    let modern =
        sid.is_none() && per_request::is_per_request_post(headers.get(PROTOCOL_VERSION_HEADER));
    let header_version = match check_version_header(&app, headers) {
        Ok(v) => v,
        Err(_) if modern => None,
        Err(r) => return r,
    };
    /// One message of the body: as parsed, or a `tools/call` request on the engine's lane (its
    /// params read straight into what the call uses; see `Session::start_tool_call`).
    enum Item<'a> {
        Msg(Message),
        Call(RequestId, crate::server::ToolCallParams<'a>),
    }
    // Per-request era: a call needs its `inputResponses` and `requestState`, which the lane skips.
    let lane = match modern {
        true => None,
        false => {
            jsonrpc::parse_request_as::<crate::server::ToolCallParams<'_>>(&body, "tools/call")
        }
    };
    let (items, batch) = match lane {
        Some(jsonrpc::Fast::Typed(id, params)) => (vec![Ok(Item::Call(id, params))], false),
        Some(jsonrpc::Fast::Message(m)) => (vec![Ok(Item::Msg(m))], false),
        None => match jsonrpc::parse(&body) {
            Err(ErrorResponse { id, error }) => {
                return rpc_error(StatusCode::BAD_REQUEST, id, error);
            }
            Ok(jsonrpc::Incoming::Single(m)) => (vec![Ok(Item::Msg(m))], false),
            Ok(jsonrpc::Incoming::Batch(items)) => {
                (items.into_iter().map(|m| m.map(Item::Msg)).collect(), true)
            }
        },
    };
    let is_init = items
        .iter()
        .any(|m| matches!(m, Ok(Item::Msg(Message::Request(r))) if r.method == "initialize"));
    let mut new_session = false;
    // Per-request era: whether the request asked for progress or logs, or is a subscription.
    let (mut modern_stream, mut modern_listen) = (false, false);
    let http = if modern {
        if batch {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                McpError::invalid_request(
                    "JSON-RPC batches are not allowed in this protocol revision",
                ),
            );
        }
        // The typed lane is off in this era: a request is a message.
        let [Ok(Item::Msg(Message::Request(r)))] = items.as_slice() else {
            // A notification or a response: accepted, nothing to serve.
            return status_only(StatusCode::ACCEPTED);
        };
        let (id, method, meta) = (
            &r.id,
            r.method.as_str(),
            r.params.as_ref().and_then(|p| p.get("_meta")),
        );
        let meta_read = match per_request::check(headers, &app.server, method, r.params.as_ref()) {
            Ok(m) => m,
            Err(e) => return rpc_error(StatusCode::BAD_REQUEST, Some(id.clone()), e),
        };
        modern_listen = method == "subscriptions/listen";
        modern_stream = per_request::wants_stream(meta);
        let h = HttpSession::new(&app, None, None, false);
        let caps = app.server.capabilities_shared(meta_read.version);
        h.session.begin_per_request(meta_read, caps);
        h
    } else if app.options.stateless {
        // Stateless: a throwaway session with no id, no event store and no stream keys.
        let h = HttpSession::new(&app, None, None, false);
        if !is_init {
            let version = header_version.unwrap_or(ProtocolVersion::LATEST);
            h.session.set_negotiated(Negotiated {
                version,
                peer_info: json!({}),
                peer_capabilities: json!({}),
                own_capabilities: app.server.capabilities_shared(version),
                instructions: None,
            });
            h.session.set_state(STATE_READY);
        }
        h
    } else if let Some(sid) = sid {
        match app.sessions.get(sid) {
            Some(h) if !h.session.is_closed() && !h.legacy => h,
            _ => {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    None,
                    McpError::invalid_request("session not found (unknown, expired or deleted)"),
                )
            }
        }
    } else if is_init {
        if batch {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                McpError::invalid_request("initialize must not be part of a JSON-RPC batch"),
            );
        }
        if app.sessions.len() >= app.options.max_sessions {
            app.reap();
            if app.sessions.len() >= app.options.max_sessions {
                return rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    None,
                    McpError::internal(format!(
                        "too many sessions (limit {}); try again later",
                        app.options.max_sessions
                    )),
                );
            }
        }
        let id = new_session_id();
        let h = HttpSession::new(&app, Some(id.clone()), Some(app.events.clone()), false);
        app.sessions.insert(id, h.clone());
        new_session = true;
        h
    } else {
        // A per-request-era request that left out its version header.
        let modern_body = items.iter().any(|m| match m {
            Ok(Item::Msg(Message::Request(r))) => {
                per_request::names_meta_version(r.params.as_ref())
            }
            Ok(Item::Call(_, p)) => {
                per_request::names_meta_version(Some(&json!({ "_meta": p.meta })))
            }
            _ => false,
        });
        let error = if modern_body {
            crate::session::per_request::header_mismatch(
                "the MCP-Protocol-Version header is required",
            )
        } else {
            McpError::invalid_request("Mcp-Session-Id header is required")
        };
        return rpc_error(StatusCode::BAD_REQUEST, None, error);
    };
    if !app.options.stateless && !modern {
        http.touch();
    }
    if batch {
        let s = &http.session;
        let allowed = s.protocol_version().is_some_and(|v| v.supports_batches());
        if !allowed {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                McpError::invalid_request(
                    "JSON-RPC batches are not allowed in this protocol revision",
                ),
            );
        }
    }
    let mut request_ids = items.iter().filter_map(|m| match m {
        Ok(Item::Msg(Message::Request(r))) => Some(&r.id),
        Ok(Item::Call(id, _)) => Some(id),
        _ => None,
    });
    let pending = match (request_ids.next(), request_ids.next()) {
        (None, _) => SmallIds::Empty,
        (Some(a), None) => SmallIds::One(a.clone()),
        (Some(a), Some(b)) => {
            let mut set: HashSet<RequestId> = [a.clone(), b.clone()].into_iter().collect();
            set.extend(request_ids.cloned());
            SmallIds::Many(set)
        }
    };
    if pending.is_empty() {
        // No requests: every item is a message (a `tools/call` request has an id).
        for m in items.into_iter().flatten() {
            if let Item::Msg(m) = m {
                let _ = http.session.handle_incoming(m);
            }
        }
        if app.options.stateless {
            http.session.close();
        }
        return status_only(StatusCode::ACCEPTED);
    }
    // Per-request era: JSON unless the request asked for progress or logs (the server's JSON
    // choice still holds then); a subscription is always a stream.
    let json_mode = match modern {
        true => !modern_listen && (app.options.json_response || !modern_stream),
        false => app.options.json_response || new_session,
    };
    let (tx, rx) = stream_queue(app.options.stream_queue_capacity.max(items.len() + 2));
    let version = header_version
        .or_else(|| http.session.protocol_version())
        .unwrap_or(ProtocolVersion::V2025_03_26);
    // Resumable (primed) streams need the event store: none in stateless mode.
    let polling = !json_mode && version >= ProtocolVersion::V2025_11_25 && http.events.is_some();
    let slot = {
        let mut r = http.routes.lock().unwrap();
        let slot = r.next_stream;
        r.next_stream += 1;
        if polling {
            let eid = http.record(|| http.stream_key(slot), "");
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            offer(&tx, Frame::Sse(encode(eid.as_deref(), None, "", retry)));
        }
        for e in items.iter().filter_map(|m| m.as_ref().err()) {
            let m = Message::error(e.id.clone(), e.error.clone());
            let frame = if json_mode {
                Frame::Msg(Out::Msg(m))
            } else {
                Frame::Sse(encode(
                    None,
                    None,
                    &serde_json::to_string(&m).expect("serializes"),
                    None,
                ))
            };
            offer(&tx, frame);
        }
        let ids: Vec<&RequestId> = match &pending {
            SmallIds::One(id) => vec![id],
            SmallIds::Many(set) => set.iter().collect(),
            SmallIds::Empty => Vec::new(),
        };
        for id in ids {
            r.requests.insert(id.clone(), slot);
        }
        r.streams.push(StreamRoute {
            slot,
            tx: Some(tx),
            pending,
            json: json_mode,
            generation: 0,
            recorded: polling,
        });
        slot
    };
    if polling {
        http.schedule_close(&app, slot, 0);
    }
    for m in items.into_iter().flatten() {
        match m {
            Item::Msg(m) => {
                let rid = match &m {
                    Message::Request(r) => Some(r.id.clone()),
                    _ => None,
                };
                match http.session.handle_incoming(m) {
                    Incoming::Nothing => {
                        if let Some(id) = rid {
                            http.finish_silently(&id);
                        }
                    }
                    Incoming::Reply(reply) => http.route(reply, rid),
                    Incoming::Pending(fut) => drive(&app, &http, fut, rid, Out::Msg),
                }
            }
            Item::Call(id, params) => {
                let rid = Some(id.clone());
                match http
                    .session
                    .start_tool_call(&app.server, id, params, tool_call_out)
                {
                    Ok(fut) => drive(&app, &http, fut, rid, |o| o),
                    Err(Some(reply)) => http.route_out(reply, rid),
                    Err(None) => {
                        if let Some(id) = rid {
                            http.finish_silently(&id);
                        }
                    }
                }
            }
        }
    }
    let sid_out = http.id.clone();
    if json_mode {
        let mut out: Vec<Out> = Vec::new();
        match rx.take_finished() {
            Some(frames) => out.extend(frames.into_iter().filter_map(|f| match f {
                Frame::Msg(m) => Some(m),
                Frame::Sse(_) => None,
            })),
            None => {
                while let Some(f) = rx.recv().await {
                    if let Frame::Msg(m) = f {
                        out.push(m);
                    }
                }
            }
        }
        if new_session {
            let failed = out.is_empty() || matches!(out[0], Out::Msg(Message::Error(_)));
            if failed {
                if let Some(id) = &sid_out {
                    app.sessions.remove(id);
                }
                http.close();
                let body = if out.is_empty() {
                    b"null".to_vec()
                } else {
                    json_body(&out, false)
                };
                return response_with(StatusCode::OK, Body::from(body), "application/json", None);
            }
        }
        let sid = sid_out.as_deref();
        if out.is_empty() {
            return status_only(StatusCode::ACCEPTED);
        }
        let status = match out.as_slice() {
            [Out::Msg(Message::Error(e))] if modern => per_request::error_status(e.error.code),
            _ => StatusCode::OK,
        };
        let body = Body::from(json_body(&out, batch));
        return response_with(status, body, "application/json", sid);
    }
    let mut finished = rx.take_finished();
    if finished.is_none() {
        // A handler is still running, typically in another language on another thread, and its
        // answer is usually microseconds away. Wait briefly for it (or for any new event)
        // before the head goes out, so that head, priming event and answer leave in one write:
        // otherwise the head goes now and the answer later as a chunk, a second write and a
        // second wake-up of the client per call. Bounded and short, so a slow tool's client
        // gets its head and priming event (its resumption point) at once all the same.
        let queued = rx.len();
        if tokio::time::timeout(FIRST_EVENT_WAIT, rx.grown_past(queued))
            .await
            .is_ok()
        {
            finished = rx.take_finished();
            if finished.is_none() {
                // The answer's sender may be ending the stream on another worker right now.
                tokio::task::yield_now().await;
                finished = rx.take_finished();
            }
        }
    }
    // Every answer is already there: send the whole stream at once (one write, with a length).
    if let Some(frames) = finished {
        let body = join_sse(frames).unwrap_or_default();
        return sse_response(sid_out.as_deref(), Body::from(body));
    }
    // The body keeps the session alive until the stream ends (stateless sessions have no other owner).
    // Per-request era: a closed response stream cancels its request (and ends a subscription).
    let keep: Box<dyn FnOnce() + Send> = if modern {
        Box::new(move || http.session.close())
    } else {
        Box::new(move || drop(http))
    };
    sse_response(sid_out.as_deref(), sse_body(rx, None, Some(keep)))
}

/// Runs a handler's first poll here, so that most requests are answered from their own POST
/// task; a handler still running goes on a task of its own (it outlives a client that
/// disconnects, so its stream can be resumed). `into` makes the answer routable.
fn drive<T: Send + 'static>(
    app: &App,
    http: &Arc<HttpSession>,
    mut fut: futures_util::future::BoxFuture<'static, Option<T>>,
    rid: Option<RequestId>,
    into: fn(T) -> Out,
) {
    // The first poll needs no waker: a future still pending is polled again by its own task.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(reply) => http.answered(reply.map(into), rid),
        std::task::Poll::Pending => {
            let h = http.clone();
            app.tasks.spawn(async move {
                let reply = fut.await;
                h.answered(reply.map(into), rid);
            });
        }
    }
}

fn session_from_headers(app: &App, h: &Fields) -> Result<Arc<HttpSession>, Response> {
    let Some(sid) = h.get_str(SESSION_ID_HEADER) else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            McpError::invalid_request("Mcp-Session-Id header is required"),
        ));
    };
    match app.sessions.get(sid) {
        Some(s) if !s.session.is_closed() && !s.legacy => Ok(s),
        _ => Err(rpc_error(
            StatusCode::NOT_FOUND,
            None,
            McpError::invalid_request("session not found (unknown, expired or deleted)"),
        )),
    }
}

fn handle_get(app: Arc<App>, req: Req) -> Response {
    if app.options.stateless || !app.options.enable_get_stream {
        return method_not_allowed(&app);
    }
    let h = req.headers();
    if !accepts(h).1 {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            McpError::invalid_request("Accept must include text/event-stream"),
        );
    }
    if let Err(r) = check_version_header(&app, h) {
        return r;
    }
    let http = match session_from_headers(&app, h) {
        Ok(s) => s,
        Err(r) => return r,
    };
    http.touch();
    let cap = app.options.stream_queue_capacity.max(1);
    let sid = http.id.clone();
    let get_key = http.get_key();
    if let Some(last) = h.get_str("last-event-id") {
        if let Some((key, events)) = app.events.replay_after(last) {
            let prefix = http.key();
            if let Some(rest) = key.strip_prefix(&prefix) {
                let (tx, rx) = stream_queue(cap + events.len());
                let mut r = http.routes.lock().unwrap();
                for (eid, data) in &events {
                    if !data.is_empty() {
                        offer(&tx, Frame::Sse(encode(Some(eid), None, data, None)));
                    }
                }
                if key == get_key {
                    r.get = Some(tx);
                } else if let Some(route) = rest.parse::<u64>().ok().and_then(|n| r.stream(n)) {
                    route.tx = Some(tx);
                    route.generation += 1;
                    let (slot, generation) = (route.slot, route.generation);
                    drop(r);
                    http.schedule_close(&app, slot, generation);
                }
                return sse_response(
                    sid.as_deref(),
                    sse_body(rx, Some(app.shutdown.clone()), None),
                );
            }
        } else if http.is_finished_only_event(last) {
            // Not kept (`EventStore::append_only_event`): nothing follows it, so the resumed
            // stream ends at once, as it would have after replaying nothing.
            return sse_response(sid.as_deref(), Body::empty());
        }
    }
    let rx = {
        let mut r = http.routes.lock().unwrap();
        if r.get.as_ref().is_some_and(|t| !t.is_closed()) {
            return rpc_error(
                StatusCode::CONFLICT,
                None,
                McpError::invalid_request("a GET stream is already open for this session"),
            );
        }
        let version = http
            .session
            .protocol_version()
            .unwrap_or(ProtocolVersion::V2025_03_26);
        let (tx, rx) = stream_queue(cap + r.backlog.len() + 1);
        if version >= ProtocolVersion::V2025_11_25 {
            let eid = app.events.append(&get_key, "");
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, "", retry)));
        }
        while let Some(m) = r.backlog.pop_front() {
            let data = serde_json::to_string(&m).expect("serializes");
            let eid = app.events.append(&get_key, &data);
            offer(&tx, Frame::Sse(encode(Some(&eid), None, &data, None)));
        }
        r.get = Some(tx);
        rx
    };
    sse_response(
        sid.as_deref(),
        sse_body(rx, Some(app.shutdown.clone()), None),
    )
}

fn handle_delete(app: Arc<App>, req: Req) -> Response {
    if app.options.stateless {
        return method_not_allowed(&app);
    }
    let http = match session_from_headers(&app, req.headers()) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(id) = &http.id {
        app.sessions.remove(id);
    }
    http.close();
    status_only(StatusCode::OK)
}

// ---------------------------------------------------------------- legacy HTTP+SSE (2024-11-05)

async fn legacy_sse(app: Arc<App>, req: Req) -> Response {
    if app.shutdown.is_cancelled() {
        return shutting_down();
    }
    app.start_reaper();
    if let Err(r) = check_origin(&app, req.headers()) {
        return r;
    }
    if app.sessions.len() >= app.options.max_sessions {
        app.reap();
        if app.sessions.len() >= app.options.max_sessions {
            return rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                McpError::internal("too many sessions"),
            );
        }
    }
    let id = new_session_id();
    let http = HttpSession::new(&app, Some(id.clone()), Some(app.events.clone()), true);
    app.sessions.insert(id.clone(), http.clone());
    let (tx, rx) = stream_queue(app.options.stream_queue_capacity.max(1));
    let endpoint = format!("{}?sessionId={}", app.options.legacy_messages_path, id);
    offer(
        &tx,
        Frame::Sse(encode(None, Some("endpoint"), &endpoint, None)),
    );
    http.routes.lock().unwrap().get = Some(tx);
    let weak_app = Arc::downgrade(&app);
    let on_drop: Box<dyn FnOnce() + Send> = Box::new(move || {
        if let Some(app) = weak_app.upgrade() {
            if let Some(s) = app.sessions.remove(&id) {
                s.close();
            }
        }
    });
    sse_response(
        None,
        sse_body(rx, Some(app.shutdown.clone()), Some(on_drop)),
    )
}

/// [`legacy_post_request`] with the request's headers available to the contexts of the requests
/// it carries.
async fn legacy_post(app: Arc<App>, req: Req) -> Response {
    let headers = req.headers.shared();
    crate::session::HTTP_HEADERS
        .scope(headers, legacy_post_request(app, req))
        .await
}

async fn legacy_post_request(app: Arc<App>, req: Req) -> Response {
    if app.shutdown.is_cancelled() {
        return shutting_down();
    }
    if let Err(r) = check_origin(&app, req.headers()) {
        return r;
    }
    let sid = req.query().and_then(|q| {
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == "sessionId" || *k == "session_id")
            .map(|(_, v)| v.to_string())
    });
    let Some(sid) = sid else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            McpError::invalid_request("sessionId query parameter is required"),
        );
    };
    let http = match app.sessions.get(&sid) {
        Some(s) if s.legacy && !s.session.is_closed() => s,
        _ => {
            return rpc_error(
                StatusCode::NOT_FOUND,
                None,
                McpError::invalid_request("session not found"),
            )
        }
    };
    let HttpRequest { headers, body, .. } = req;
    if let Err(r) = check_content_type(&headers) {
        return r;
    }
    http.touch();
    let items = match jsonrpc::parse(&body) {
        Err(ErrorResponse { id, error }) => {
            return rpc_error(StatusCode::BAD_REQUEST, id, error);
        }
        Ok(jsonrpc::Incoming::Single(m)) => vec![m],
        Ok(jsonrpc::Incoming::Batch(items)) => items.into_iter().flatten().collect(),
    };
    for m in items {
        match http.session.handle_incoming(m) {
            Incoming::Nothing => {}
            Incoming::Reply(reply) => http.route(reply, None),
            Incoming::Pending(fut) => {
                let h = http.clone();
                app.tasks.spawn(async move {
                    if let Some(reply) = fut.await {
                        h.route(reply, None);
                    }
                });
            }
        }
    }
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(Body::from("Accepted"))
        .expect("valid response")
}

// ---------------------------------------------------------------- public entry points

fn build(
    server: Server,
    options: HttpServerOptions,
    bound: Option<SocketAddr>,
) -> (Router, Arc<App>) {
    let app = App::new(server, options, bound);
    let o = &app.options;
    let mut router = Router::new().route(&o.path, axum::routing::any(handle_axum));
    if o.legacy_sse {
        router = router
            .route(&o.legacy_sse_path, axum::routing::get(legacy_sse_axum))
            .route(
                &o.legacy_messages_path,
                axum::routing::post(legacy_post_axum),
            );
    }
    (router.with_state(app.clone()), app)
}

/// An axum [`Router`] serving `server` over Streamable HTTP at `options.path` (and, when
/// `options.legacy_sse` is set, the 2024-11-05 endpoints). Merge or nest it into your own app.
pub fn router(server: Server, options: HttpServerOptions) -> Router {
    build(server, options, None).0
}

/// A running HTTP server started by [`serve_http`].
#[derive(Debug)]
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServerHandle {
    /// The address the server is listening on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The server's base URL with the MCP path, e.g. `http://127.0.0.1:3000/mcp`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.local_addr, path)
    }

    /// Stops accepting connections, ends open GET streams, lets in-flight requests finish, then
    /// closes every session.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shutdown.cancel();
        self.task.await.map_err(std::io::Error::other)?
    }

    /// Runs until the server stops (for example after a shutdown from another task).
    pub async fn wait(self) -> std::io::Result<()> {
        self.task.await.map_err(std::io::Error::other)?
    }

    /// A token that stops the server when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }
}

/// Binds `addr` and serves `server` over HTTP on a spawned task.
///
/// Connections are served by ferromcp's own HTTP/1.1 layer (see the `h1` module): keep-alive,
/// pipelining, chunked bodies, `Expect: 100-continue`, limits on the head (64 KiB) and the body
/// ([`HttpServerOptions::max_body_size`]), 30 s for a request to arrive once begun, and 5 minutes
/// for an idle kept-alive connection. Use [`router`] to mount the endpoint in an axum app
/// instead.
///
/// Serving runs on the caller's tokio runtime. Where the server shares a few cores with its
/// clients, a current-thread runtime serves fastest (no wake-ups across workers; see
/// `bench/servers/src/bin/ferromcp_echo.rs` for the measured difference).
pub async fn serve_http(
    server: Server,
    addr: impl tokio::net::ToSocketAddrs,
    options: HttpServerOptions,
) -> std::io::Result<HttpServerHandle> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let app = App::new(server, options, Some(local_addr));
    let shutdown = app.shutdown.clone();
    let task = tokio::spawn(accept_loop(listener, app));
    Ok(HttpServerHandle {
        local_addr,
        shutdown,
        task,
    })
}

/// Accepts connections until shutdown, then lets them finish and closes every session.
async fn accept_loop(listener: tokio::net::TcpListener, app: Arc<App>) -> std::io::Result<()> {
    let limits = super::h1::Limits {
        max_head: 64 * 1024,
        max_body: app.options.max_body_size,
        request_timeout: Duration::from_secs(30),
        idle_timeout: Duration::from_secs(5 * 60),
    };
    let connections = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            biased;
            _ = app.shutdown.cancelled() => break,
            r = listener.accept() => r,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                use std::io::ErrorKind::*;
                // A connection that failed before it was accepted concerns only that peer;
                // anything else (out of file descriptors, say) is worth a pause.
                if !matches!(
                    e.kind(),
                    ConnectionRefused | ConnectionAborted | ConnectionReset
                ) {
                    tracing::warn!(error = %e, "accept failed; retrying in 1 s");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                continue;
            }
        };
        // Answers are small writes (an SSE event, then the stream's end): without TCP_NODELAY,
        // Nagle's algorithm and delayed ACKs add ~40 ms to every request.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY failed");
        }
        let app = app.clone();
        let token = app.shutdown.clone();
        connections.spawn(super::h1::serve_connection(
            tcp,
            limits.clone(),
            refusal,
            token,
            move |req| endpoint(app.clone(), req),
        ));
    }
    drop(listener);
    connections.close();
    connections.wait().await;
    app.tasks.close();
    let _ = tokio::time::timeout(Duration::from_secs(30), app.tasks.wait()).await;
    app.close_all();
    Ok(())
}

/// The answer to a request the HTTP layer refuses by itself (malformed, too large, too slow).
fn refusal(status: StatusCode, message: String) -> Response {
    rpc_error(status, None, McpError::invalid_request(message))
}

/// Routes a request to the Streamable HTTP endpoint or the legacy ones (what [`router`] does
/// with axum's router).
async fn endpoint(app: Arc<App>, req: Req) -> Response {
    let o = &app.options;
    let path = req.path();
    if path == o.path {
        return handle(app, req).await;
    }
    if o.legacy_sse && path == o.legacy_sse_path {
        if *req.method() == Method::GET {
            return legacy_sse(app, req).await;
        }
        return allow_only("GET");
    }
    if o.legacy_sse && path == o.legacy_messages_path {
        if *req.method() == Method::POST {
            return legacy_post(app, req).await;
        }
        return allow_only("POST");
    }
    status_only(StatusCode::NOT_FOUND)
}

/// 405 with the methods a legacy endpoint takes.
fn allow_only(methods: &'static str) -> Response {
    let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(methods));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> Fields {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        Fields::from_map(&h)
    }

    #[test]
    fn dns_protection_defaults_follow_the_bind() {
        let o = HttpServerOptions::default();
        let lo: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let lo6: SocketAddr = "[::1]:4000".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:4000".parse().unwrap();
        let g = resolve_host_guard(&o, Some(lo)).expect("on for a loopback bind");
        assert!(g.check(&headers(&[("host", "127.0.0.1:4000")])).is_ok());
        assert!(g.check(&headers(&[("host", "localhost:4000")])).is_ok());
        assert!(g.check(&headers(&[("host", "[::1]:4000")])).is_ok());
        assert!(g.check(&headers(&[("host", "127.0.0.1:4001")])).is_err());
        assert!(g.check(&headers(&[("host", "127.0.0.1")])).is_err());
        assert!(g.check(&headers(&[("host", "evil.example:4000")])).is_err());
        assert!(g.check(&headers(&[])).is_err());
        let ok_origin = headers(&[
            ("host", "localhost:4000"),
            ("origin", "http://localhost:4000"),
        ]);
        assert!(g.check(&ok_origin).is_ok());
        let bad_origin = headers(&[
            ("host", "localhost:4000"),
            ("origin", "http://localhost:5173"),
        ]);
        assert!(g.check(&bad_origin).is_err());
        assert!(resolve_host_guard(&o, Some(lo6)).is_some());
        // Unknown bind (router()): on, loopback names with any port.
        let g = resolve_host_guard(&o, None).expect("on");
        assert!(g.check(&headers(&[("host", "localhost:1234")])).is_ok());
        // Non-loopback bind: off unless configured.
        assert_eq!(resolve_host_guard(&o, Some(any)), None);
        let configured = HttpServerOptions {
            allowed_hosts: vec!["mcp.example.com".into()],
            ..Default::default()
        };
        let g = resolve_host_guard(&configured, Some(any)).expect("on when configured");
        assert!(g
            .check(&headers(&[("host", "mcp.example.com:4000")]))
            .is_ok());
        assert!(g.check(&headers(&[("host", "localhost:4000")])).is_err());
        let origins = HttpServerOptions {
            allowed_origins: vec!["https://app.example.com".into()],
            ..Default::default()
        };
        assert!(resolve_host_guard(&origins, Some(any)).is_some());
        // Explicit settings win either way.
        let forced = HttpServerOptions {
            dns_rebinding_protection: Some(true),
            ..Default::default()
        };
        let g = resolve_host_guard(&forced, Some(any)).expect("forced on");
        assert!(g.check(&headers(&[("host", "127.0.0.1:4000")])).is_ok());
        assert!(g.check(&headers(&[("host", "10.0.0.5:4000")])).is_err());
        let off = HttpServerOptions {
            dns_rebinding_protection: Some(false),
            ..Default::default()
        };
        assert_eq!(resolve_host_guard(&off, Some(lo)), None);
    }

    #[test]
    fn host_entries_with_and_without_port() {
        let o = HttpServerOptions {
            allowed_hosts: vec![
                "a.example".into(),
                "b.example:8080".into(),
                "[::1]:9".into(),
            ],
            allowed_origins: vec!["https://ui.example".into()],
            ..Default::default()
        };
        let g = resolve_host_guard(&o, None).unwrap();
        assert!(g.check(&headers(&[("host", "A.example:1")])).is_ok());
        assert!(g.check(&headers(&[("host", "b.example:8080")])).is_ok());
        assert!(g.check(&headers(&[("host", "b.example")])).is_err());
        assert!(g.check(&headers(&[("host", "[::1]:9")])).is_ok());
        let h = headers(&[("host", "a.example"), ("origin", "https://ui.example")]);
        assert!(g.check(&h).is_ok());
        let h = headers(&[("host", "a.example"), ("origin", "https://a.example")]);
        assert!(g.check(&h).is_ok());
        let h = headers(&[("host", "a.example"), ("origin", "null")]);
        assert!(g.check(&h).is_err());
    }
}
