//! The Streamable HTTP server (2025-03-26 and later) and the legacy HTTP+SSE endpoints
//! (2024-11-05), both driving the shared session engine.
//!
//! Every session has one routing table: the messages its outbound queue produces (progress, logs,
//! server-to-client requests, list-changed notifications) and the answers of its handlers go
//! through a single pump task in queue order, so a request's progress always precedes its
//! response on that request's SSE stream. Unrelated messages go to the session's GET stream, or
//! wait in a bounded backlog until one opens.

// Handlers return ready-made HTTP responses as their error values.
#![allow(clippy::result_large_err)]

use super::sse::encode;
use super::store::{EventStore, InMemoryEventStore, InMemorySessionStore, SessionStore};
use super::HttpServerOptions;
use crate::jsonrpc::{self, ErrorResponse, Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::server::Server;
use crate::session::{Incoming, Negotiated, Outbound, Role, Session, STATE_READY};
use crate::McpError;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use serde_json::json;
use std::collections::{HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Header carrying the session id.
pub const SESSION_ID_HEADER: &str = "mcp-session-id";
/// Header carrying the negotiated protocol revision.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
const BACKLOG_LIMIT: usize = 1000;

/// What a stream's receiver gets.
enum Frame {
    Sse(Bytes),
    Msg(Message),
}

type Tx = mpsc::UnboundedSender<Frame>;

struct StreamRoute {
    key: String,
    tx: Option<Tx>,
    pending: HashSet<RequestId>,
    json: bool,
}

#[derive(Default)]
struct Routes {
    requests: HashMap<RequestId, u64>,
    streams: HashMap<u64, StreamRoute>,
    next_stream: u64,
    get: Option<Tx>,
    backlog: VecDeque<Message>,
}

/// One HTTP-served session: the engine session plus the routing of its SSE streams.
pub struct HttpSession {
    id: Option<Arc<str>>,
    key: String,
    session: Arc<Session>,
    outbound: Outbound,
    routes: Mutex<Routes>,
    events: Arc<dyn EventStore>,
    last_active: Mutex<Instant>,
    stateless: bool,
    legacy: bool,
}

impl std::fmt::Debug for HttpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSession")
            .field("id", &self.id)
            .finish_non_exhaustive()
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
        *self.last_active.lock().unwrap()
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
        *self.last_active.lock().unwrap() = Instant::now();
    }

    fn get_key(&self) -> String {
        format!("{}get", self.key)
    }

    fn new(
        server: &Server,
        id: Option<Arc<str>>,
        events: Arc<dyn EventStore>,
        stateless: bool,
        legacy: bool,
    ) -> Arc<HttpSession> {
        let config = server.options().session.clone();
        let (outbound, mut rx) = Outbound::channel(config.outbound_capacity);
        let session = Session::new(
            Role::Server,
            Arc::new(server.clone()),
            config,
            outbound.clone(),
            id.clone(),
        );
        let key = match &id {
            Some(id) => format!("{id}/"),
            None => format!("sl-{:032x}/", rand::random::<u128>()),
        };
        let http = Arc::new(HttpSession {
            id,
            key,
            session: session.clone(),
            outbound,
            routes: Mutex::new(Routes::default()),
            events,
            last_active: Mutex::new(Instant::now()),
            stateless,
            legacy,
        });
        let weak: Weak<HttpSession> = Arc::downgrade(&http);
        let closed = session.closed.clone();
        drop(session);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    m = rx.recv() => match m {
                        Some(ob) => match weak.upgrade() {
                            Some(h) => h.deliver(ob.message, ob.related),
                            None => break,
                        },
                        None => break,
                    },
                    _ = closed.cancelled() => {
                        while let Ok(ob) = rx.try_recv() {
                            if let Some(h) = weak.upgrade() { h.deliver(ob.message, ob.related); }
                        }
                        break;
                    }
                }
            }
            if let Some(h) = weak.upgrade() {
                let mut r = h.routes.lock().unwrap();
                r.get = None;
                r.streams.clear();
                r.requests.clear();
            }
        });
        http
    }

    /// Routes one message to the stream it belongs to.
    fn deliver(&self, msg: Message, related: Option<RequestId>) {
        let mut r = self.routes.lock().unwrap();
        if self.legacy {
            let data = serde_json::to_string(&msg).expect("messages serialize");
            match &r.get {
                Some(tx)
                    if tx
                        .send(Frame::Sse(encode(None, Some("message"), &data, None)))
                        .is_ok() => {}
                _ => push_backlog(&mut r.backlog, msg),
            }
            return;
        }
        let is_answer = matches!(
            msg,
            Message::Response(_) | Message::Error(ErrorResponse { id: Some(_), .. })
        );
        if let Some(id) = related {
            if let Some(slot) = r.requests.get(&id).copied() {
                let answer_here = is_answer && msg.id() == Some(&id);
                let route = r.streams.get_mut(&slot).expect("request maps to a stream");
                let mut msg = Some(msg);
                if !route.json {
                    let m = msg.take().expect("present");
                    let data = serde_json::to_string(&m).expect("messages serialize");
                    let eid = self.events.append(&route.key, &data);
                    if let Some(tx) = &route.tx {
                        if tx
                            .send(Frame::Sse(encode(Some(&eid), None, &data, None)))
                            .is_err()
                        {
                            route.tx = None;
                        }
                    }
                } else if answer_here {
                    if let Some(tx) = &route.tx {
                        let _ = tx.send(Frame::Msg(msg.take().expect("present")));
                    }
                }
                if answer_here {
                    route.pending.remove(&id);
                    let done = route.pending.is_empty();
                    r.requests.remove(&id);
                    if done {
                        r.streams.remove(&slot);
                        self.after_stream_done(&r);
                    }
                }
                match msg {
                    Some(m) if !answer_here => self.to_get(&mut r, m),
                    _ => return,
                }
                return;
            }
        }
        if is_answer {
            tracing::debug!("answer for a finished request stream dropped");
            return;
        }
        self.to_get(&mut r, msg);
    }

    fn to_get(&self, r: &mut Routes, msg: Message) {
        if self.stateless {
            tracing::debug!("stateless mode: message unrelated to an open request dropped");
            return;
        }
        if r.get.as_ref().is_some_and(|t| !t.is_closed()) {
            let data = serde_json::to_string(&msg).expect("messages serialize");
            let eid = self.events.append(&self.get_key(), &data);
            let tx = r.get.as_ref().expect("checked");
            if tx
                .send(Frame::Sse(encode(Some(&eid), None, &data, None)))
                .is_err()
            {
                r.get = None;
            }
        } else {
            r.get = None;
            push_backlog(&mut r.backlog, msg);
        }
    }

    fn after_stream_done(&self, r: &Routes) {
        if self.stateless && r.streams.is_empty() {
            self.session.close();
        }
    }

    /// A request's handler ended without an answer (cancelled).
    fn finish_silently(&self, id: &RequestId) {
        let mut r = self.routes.lock().unwrap();
        if let Some(slot) = r.requests.remove(id) {
            if let Some(route) = r.streams.get_mut(&slot) {
                route.pending.remove(id);
                if route.pending.is_empty() {
                    r.streams.remove(&slot);
                    self.after_stream_done(&r);
                }
            }
        }
    }

    fn close(&self) {
        self.session.close();
        let mut r = self.routes.lock().unwrap();
        r.get = None;
        r.streams.clear();
        r.requests.clear();
        drop(r);
        self.events.remove_streams(&self.key);
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
    options: HttpServerOptions,
    sessions: Arc<dyn SessionStore>,
    events: Arc<dyn EventStore>,
    shutdown: CancellationToken,
    tasks: TaskTracker,
    reaper_started: AtomicBool,
}

impl App {
    fn new(server: Server, options: HttpServerOptions) -> Arc<App> {
        let sessions = options
            .session_store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemorySessionStore::default()));
        let events = options
            .event_store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemoryEventStore::default()));
        Arc::new(App {
            server,
            options,
            sessions,
            events,
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            reaper_started: AtomicBool::new(false),
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

fn json_response(status: StatusCode, body: &impl serde::Serialize, sid: Option<&str>) -> Response {
    let mut b = Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(sid) = sid {
        b = b.header(SESSION_ID_HEADER, sid);
    }
    b.body(Body::from(serde_json::to_vec(body).expect("serializes")))
        .expect("valid response")
}

fn status_only(status: StatusCode) -> Response {
    Response::builder()
        .status(status)
        .body(Body::empty())
        .expect("valid response")
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// (accepts JSON, accepts SSE)
fn accepts(h: &HeaderMap) -> (bool, bool) {
    let mut json = false;
    let mut sse = false;
    for v in h.get_all(header::ACCEPT) {
        let Ok(v) = v.to_str() else { continue };
        for part in v.split(',') {
            let mt = part
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            match mt.as_str() {
                "application/json" | "application/*" => json = true,
                "text/event-stream" | "text/*" => sse = true,
                "*/*" => {
                    json = true;
                    sse = true;
                }
                _ => {}
            }
        }
    }
    (json, sse)
}

fn host_of(authority: &str) -> &str {
    let a = authority.trim();
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    a.rsplit_once(':')
        .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
        .map(|(h, _)| h)
        .unwrap_or(a)
}

/// Host/Origin validation against DNS rebinding. `Err` carries the rejection.
fn check_origin(opts: &HttpServerOptions, h: &HeaderMap) -> Result<(), Response> {
    if !opts.dns_rebinding_protection {
        return Ok(());
    }
    let forbid = |why: String| {
        Err(rpc_error(
            StatusCode::FORBIDDEN,
            None,
            McpError::invalid_request(why),
        ))
    };
    let host_ok = |host: &str| {
        let host = host.to_ascii_lowercase();
        opts.allowed_hosts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&host) || host_of(a).eq_ignore_ascii_case(&host))
    };
    match header_str(h, "host") {
        Some(host)
            if host_ok(host_of(host))
                || opts
                    .allowed_hosts
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(host)) => {}
        Some(host) => return forbid(format!("Host {host:?} is not allowed")),
        None => return forbid("Host header required".into()),
    }
    if let Some(origin) = header_str(h, "origin") {
        let explicit = opts
            .allowed_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(origin));
        let authority = origin.split_once("://").map(|(_, a)| a).unwrap_or(origin);
        let authority = authority.split('/').next().unwrap_or("");
        if !explicit && !host_ok(host_of(authority)) {
            return forbid(format!("Origin {origin:?} is not allowed"));
        }
    }
    Ok(())
}

fn check_version_header(app: &App, h: &HeaderMap) -> Result<Option<ProtocolVersion>, Response> {
    match h.get(PROTOCOL_VERSION_HEADER) {
        None => Ok(None),
        Some(v) => {
            let s = v.to_str().unwrap_or("");
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

fn sse_headers(sid: Option<&str>) -> axum::http::response::Builder {
    let mut b = Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-accel-buffering", "no");
    if let Some(sid) = sid {
        b = b.header(SESSION_ID_HEADER, sid);
    }
    b
}

/// An SSE body fed by `rx`; `shutdown` ends it early; `on_drop` runs when the body is dropped.
fn sse_body(
    rx: mpsc::UnboundedReceiver<Frame>,
    shutdown: Option<CancellationToken>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
) -> Body {
    struct St {
        rx: mpsc::UnboundedReceiver<Frame>,
        shutdown: Option<CancellationToken>,
        _guard: Guard,
    }
    struct Guard(Option<Box<dyn FnOnce() + Send>>);
    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(f) = self.0.take() {
                f();
            }
        }
    }
    let st = St {
        rx,
        shutdown,
        _guard: Guard(on_drop),
    };
    let stream = futures_util::stream::unfold(st, |mut st| async move {
        loop {
            let next = match &st.shutdown {
                Some(t) => tokio::select! {
                    f = st.rx.recv() => f,
                    _ = t.cancelled() => None,
                },
                None => st.rx.recv().await,
            };
            match next? {
                Frame::Sse(b) => return Some((Ok::<_, Infallible>(b), st)),
                Frame::Msg(_) => continue,
            }
        }
    });
    Body::from_stream(stream)
}

async fn handle(State(app): State<Arc<App>>, req: Request) -> Response {
    app.start_reaper();
    if let Err(r) = check_origin(&app.options, req.headers()) {
        return r;
    }
    match *req.method() {
        Method::POST => handle_post(app, req).await,
        Method::GET => handle_get(app, req),
        Method::DELETE => handle_delete(app, req),
        _ => method_not_allowed(&app),
    }
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

async fn read_body(app: &App, req: Request) -> Result<Bytes, Response> {
    let limit = app.options.max_body_size;
    let too_large = || {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            McpError::invalid_request(format!("request body exceeds {limit} bytes")),
        )
    };
    if let Some(len) =
        header_str(req.headers(), "content-length").and_then(|v| v.parse::<usize>().ok())
    {
        if len > limit {
            return Err(too_large());
        }
    }
    axum::body::to_bytes(req.into_body(), limit)
        .await
        .map_err(|_| too_large())
}

fn check_content_type(h: &HeaderMap) -> Result<(), Response> {
    let ok = header_str(h, "content-type").is_some_and(|ct| {
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

async fn handle_post(app: Arc<App>, req: Request) -> Response {
    let headers = req.headers().clone();
    if let Err(r) = check_content_type(&headers) {
        return r;
    }
    let (json_ok, sse_ok) = accepts(&headers);
    if !json_ok || (!app.options.json_response && !sse_ok) {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            McpError::invalid_request(
                "Accept must list both application/json and text/event-stream",
            ),
        );
    }
    let header_version = match check_version_header(&app, &headers) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let body = match read_body(&app, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let (items, batch) = match jsonrpc::parse(&body) {
        Err(ErrorResponse { id, error }) => {
            return rpc_error(StatusCode::BAD_REQUEST, id, error);
        }
        Ok(jsonrpc::Incoming::Single(m)) => (vec![Ok(m)], false),
        Ok(jsonrpc::Incoming::Batch(items)) => (items, true),
    };
    let is_init = items
        .iter()
        .any(|m| matches!(m, Ok(Message::Request(r)) if r.method == "initialize"));
    let sid = header_str(&headers, SESSION_ID_HEADER).map(str::to_string);
    let mut new_session = false;
    let http = if app.options.stateless {
        let h = HttpSession::new(&app.server, None, app.events.clone(), true, false);
        if !is_init {
            let version = header_version.unwrap_or(ProtocolVersion::LATEST);
            h.session.set_negotiated(Negotiated {
                version,
                peer_info: json!({}),
                peer_capabilities: json!({}),
                own_capabilities: app.server.capabilities(version),
                instructions: None,
            });
            h.session.set_state(STATE_READY);
        }
        h
    } else if let Some(sid) = &sid {
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
        let h = HttpSession::new(
            &app.server,
            Some(id.clone()),
            app.events.clone(),
            false,
            false,
        );
        app.sessions.insert(id, h.clone());
        new_session = true;
        h
    } else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            McpError::invalid_request("Mcp-Session-Id header is required"),
        );
    };
    http.touch();
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
    let request_ids: Vec<RequestId> = items
        .iter()
        .filter_map(|m| match m {
            Ok(Message::Request(r)) => Some(r.id.clone()),
            _ => None,
        })
        .collect();
    if request_ids.is_empty() {
        for m in items.into_iter().flatten() {
            let _ = http.session.handle_incoming(m);
        }
        if http.stateless {
            http.session.close();
        }
        return status_only(StatusCode::ACCEPTED);
    }
    let json_mode = app.options.json_response || new_session;
    let (tx, rx) = mpsc::unbounded_channel();
    let version = header_version
        .or_else(|| http.session.protocol_version())
        .unwrap_or(ProtocolVersion::V2025_03_26);
    {
        let mut r = http.routes.lock().unwrap();
        let slot = r.next_stream;
        r.next_stream += 1;
        let key = format!("{}{}", http.key, slot);
        if !json_mode && version >= ProtocolVersion::V2025_11_25 {
            let eid = http.events.append(&key, "");
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            let _ = tx.send(Frame::Sse(encode(Some(&eid), None, "", retry)));
        }
        for e in items.iter().filter_map(|m| m.as_ref().err()) {
            let m = Message::error(e.id.clone(), e.error.clone());
            let frame = if json_mode {
                Frame::Msg(m)
            } else {
                Frame::Sse(encode(
                    None,
                    None,
                    &serde_json::to_string(&m).expect("serializes"),
                    None,
                ))
            };
            let _ = tx.send(frame);
        }
        let mut pending = HashSet::new();
        for id in &request_ids {
            if pending.insert(id.clone()) {
                r.requests.insert(id.clone(), slot);
            }
        }
        r.streams.insert(
            slot,
            StreamRoute {
                key,
                tx: Some(tx),
                pending,
                json: json_mode,
            },
        );
    }
    for m in items.into_iter().flatten() {
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
            Incoming::Reply(reply) => {
                let h = http.clone();
                app.tasks.spawn(async move {
                    let _ = h.outbound.send(reply, rid).await;
                });
            }
            Incoming::Pending(fut) => {
                let h = http.clone();
                app.tasks.spawn(async move {
                    match fut.await {
                        Some(reply) => {
                            let _ = h.outbound.send(reply, rid).await;
                        }
                        None => {
                            if let Some(id) = rid {
                                h.finish_silently(&id);
                            }
                        }
                    }
                });
            }
        }
    }
    let sid_out = http.id.clone();
    if json_mode {
        let mut rx = rx;
        let mut out = Vec::new();
        while let Some(f) = rx.recv().await {
            if let Frame::Msg(m) = f {
                out.push(m);
            }
        }
        if new_session {
            let failed = out.is_empty() || matches!(out[0], Message::Error(_));
            if failed {
                if let Some(id) = &sid_out {
                    app.sessions.remove(id);
                }
                http.close();
                return json_response(StatusCode::OK, &out.first(), None);
            }
        }
        let sid = sid_out.as_deref();
        return match (batch, out.len()) {
            (_, 0) => status_only(StatusCode::ACCEPTED),
            (false, _) => json_response(StatusCode::OK, &out[0], sid),
            (true, _) => json_response(StatusCode::OK, &out, sid),
        };
    }
    // The body keeps the session alive until the stream ends (stateless sessions have no other owner).
    let keep: Box<dyn FnOnce() + Send> = Box::new(move || drop(http));
    sse_headers(sid_out.as_deref())
        .body(sse_body(rx, None, Some(keep)))
        .expect("valid response")
}

fn session_from_headers(app: &App, h: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
    let Some(sid) = header_str(h, SESSION_ID_HEADER) else {
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

fn handle_get(app: Arc<App>, req: Request) -> Response {
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
    let (tx, rx) = mpsc::unbounded_channel();
    let sid = http.id.clone();
    let get_key = http.get_key();
    if let Some(last) = header_str(h, LAST_EVENT_ID) {
        if let Some((key, events)) = app.events.replay_after(last) {
            if key.starts_with(&http.key) {
                let mut r = http.routes.lock().unwrap();
                for (eid, data) in &events {
                    if !data.is_empty() {
                        let _ = tx.send(Frame::Sse(encode(Some(eid), None, data, None)));
                    }
                }
                if key == get_key {
                    r.get = Some(tx);
                } else if let Some(route) = r.streams.values_mut().find(|s| s.key == key) {
                    route.tx = Some(tx);
                }
                drop(r);
                return sse_headers(sid.as_deref())
                    .body(sse_body(rx, Some(app.shutdown.clone()), None))
                    .expect("valid response");
            }
        }
    }
    {
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
        if version >= ProtocolVersion::V2025_11_25 {
            let eid = app.events.append(&get_key, "");
            let retry = app.options.retry_interval.map(|d| d.as_millis() as u64);
            let _ = tx.send(Frame::Sse(encode(Some(&eid), None, "", retry)));
        }
        while let Some(m) = r.backlog.pop_front() {
            let data = serde_json::to_string(&m).expect("serializes");
            let eid = app.events.append(&get_key, &data);
            let _ = tx.send(Frame::Sse(encode(Some(&eid), None, &data, None)));
        }
        r.get = Some(tx);
    }
    sse_headers(sid.as_deref())
        .body(sse_body(rx, Some(app.shutdown.clone()), None))
        .expect("valid response")
}

fn handle_delete(app: Arc<App>, req: Request) -> Response {
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

async fn legacy_sse(State(app): State<Arc<App>>, req: Request) -> Response {
    app.start_reaper();
    if let Err(r) = check_origin(&app.options, req.headers()) {
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
    let http = HttpSession::new(
        &app.server,
        Some(id.clone()),
        app.events.clone(),
        false,
        true,
    );
    app.sessions.insert(id.clone(), http.clone());
    let (tx, rx) = mpsc::unbounded_channel();
    let endpoint = format!("{}?sessionId={}", app.options.legacy_messages_path, id);
    let _ = tx.send(Frame::Sse(encode(None, Some("endpoint"), &endpoint, None)));
    http.routes.lock().unwrap().get = Some(tx);
    let weak_app = Arc::downgrade(&app);
    let on_drop: Box<dyn FnOnce() + Send> = Box::new(move || {
        if let Some(app) = weak_app.upgrade() {
            if let Some(s) = app.sessions.remove(&id) {
                s.close();
            }
        }
    });
    sse_headers(None)
        .body(sse_body(rx, Some(app.shutdown.clone()), Some(on_drop)))
        .expect("valid response")
}

async fn legacy_post(State(app): State<Arc<App>>, req: Request) -> Response {
    if let Err(r) = check_origin(&app.options, req.headers()) {
        return r;
    }
    let sid = req.uri().query().and_then(|q| {
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
    if let Err(r) = check_content_type(req.headers()) {
        return r;
    }
    let body = match read_body(&app, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
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
            Incoming::Reply(reply) => {
                let _ = http.outbound.send(reply, None).await;
            }
            Incoming::Pending(fut) => {
                let h = http.clone();
                app.tasks.spawn(async move {
                    if let Some(reply) = fut.await {
                        let _ = h.outbound.send(reply, None).await;
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

fn build(server: Server, options: HttpServerOptions) -> (Router, Arc<App>) {
    let app = App::new(server, options);
    let o = &app.options;
    let mut router = Router::new().route(&o.path, axum::routing::any(handle));
    if o.legacy_sse {
        router = router
            .route(&o.legacy_sse_path, axum::routing::get(legacy_sse))
            .route(&o.legacy_messages_path, axum::routing::post(legacy_post));
    }
    (router.with_state(app.clone()), app)
}

/// An axum [`Router`] serving `server` over Streamable HTTP at `options.path` (and, when
/// `options.legacy_sse` is set, the 2024-11-05 endpoints). Merge or nest it into your own app.
pub fn router(server: Server, options: HttpServerOptions) -> Router {
    build(server, options).0
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
pub async fn serve_http(
    server: Server,
    addr: impl tokio::net::ToSocketAddrs,
    options: HttpServerOptions,
) -> std::io::Result<HttpServerHandle> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let (router, app) = build(server, options);
    let shutdown = app.shutdown.clone();
    let token = shutdown.clone();
    let task = tokio::spawn(async move {
        let r = axum::serve(listener, router)
            .with_graceful_shutdown(token.cancelled_owned())
            .await;
        app.tasks.close();
        let _ = tokio::time::timeout(Duration::from_secs(30), app.tasks.wait()).await;
        app.close_all();
        r
    });
    Ok(HttpServerHandle {
        local_addr,
        shutdown,
        task,
    })
}
