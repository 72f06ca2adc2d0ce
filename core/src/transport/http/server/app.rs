//! The shared state of one mounted HTTP endpoint: the server, its options, this replica's table
//! of live sessions (with the idle-session reaper) and the session store behind it, the event
//! store and bus, the Host/Origin guard and shutdown.

use super::super::gauges::Gauges;
use super::super::request::HttpRequest;
use super::super::store::{
    run_detached, BusMessage, BusReceiver, InMemoryEventBus, InMemoryEventStore,
    InMemorySessionStore, SessionStore, LIVENESS_RENEW, LIVENESS_TTL,
};
use super::super::HttpServerOptions;
use super::host_guard::{resolve_host_guard, HostGuard};
use super::replica::Replica;
use super::session::HttpSession;
use super::session_table::{Admission, SessionTable};
use crate::jsonrpc::{self, Message};
use crate::protocol::ProtocolVersion;
use crate::server::{Server, TaskSignal};
use crate::session::{Negotiated, STATE_READY};
use crate::McpError;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Shared state of one mounted HTTP endpoint.
pub(super) struct App {
    pub(super) server: Server,
    /// `server` as every session's service: one allocation shared by all of them.
    service: Arc<dyn crate::session::Service>,
    /// Every session's configuration: the server's, with the key ring recording opened
    /// `requestState` tokens in the shared replay store when the options name one.
    session_config: Arc<crate::session::SessionConfig>,
    pub(super) options: HttpServerOptions,
    /// The state of every session, shared with the other replicas.
    store: Arc<dyn SessionStore>,
    /// The sessions live on this replica (private to it).
    live: SessionTable,
    pub(super) replica: Arc<Replica>,
    /// What the other replicas publish, until the bus task takes it.
    bus_rx: Mutex<Option<BusReceiver>>,
    pub(super) shutdown: CancellationToken,
    pub(super) tasks: TaskTracker,
    reaper_started: AtomicBool,
    guard: Option<HostGuard>,
    /// The counters [`super::HttpServerHandle::stats`] reports (the connection layer's and the
    /// live HTTP sessions).
    pub(super) gauges: Arc<Gauges>,
}

impl App {
    /// An endpoint serving `server`, bound to `bound` (`None`: mounted with [`super::router`]).
    pub(super) fn new(
        server: Server,
        options: HttpServerOptions,
        bound: Option<SocketAddr>,
    ) -> Arc<App> {
        let guard = resolve_host_guard(&options, bound);
        let store = options
            .session_store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemorySessionStore::default()));
        let events = options
            .event_store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemoryEventStore::default()));
        let bus = options
            .event_bus
            .clone()
            .unwrap_or_else(|| Arc::new(InMemoryEventBus::default()));
        let name: Arc<str> = Arc::from(format!("{:08x}", rand::random::<u32>()));
        let bus_rx = bus.subscribe(&name);
        let service: Arc<dyn crate::session::Service> = Arc::new(server.clone());
        let session_config = match &options.replay_store {
            None => server.session_config(),
            Some(store) => {
                let mut config = (*server.session_config()).clone();
                config.request_state_keys =
                    config.request_state_keys.with_replay_store(store.clone());
                Arc::new(config)
            }
        };
        let options_budget = options.max_buffered_bytes;
        let app = Arc::new(App {
            server,
            service,
            session_config,
            options,
            store,
            live: SessionTable::default(),
            replica: Arc::new(Replica { events, bus, name }),
            bus_rx: Mutex::new(Some(bus_rx)),
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            reaper_started: AtomicBool::new(false),
            guard,
            gauges: Arc::new(Gauges::new(options_budget)),
        });
        {
            // Server-wide notifications reach the sessions held by the other replicas too:
            // handshake-era sessions, and (stateless mode as well) `subscriptions/listen`
            // streams.
            let weak = Arc::downgrade(&app);
            app.server.add_fanout(Arc::new(move |method, params| {
                let Some(app) = weak.upgrade().filter(|a| !a.shutdown.is_cancelled()) else {
                    return false;
                };
                if !method.is_empty() && app.replica.has_peers() {
                    app.replica.publish(BusMessage::Notify {
                        method: method.to_string(),
                        params: params.map(|p| p.to_string()),
                    });
                }
                true
            }));
        }
        {
            // Explicit response-cache invalidations reach the other replicas' caches
            // (`server/middleware/cache.rs`, "Across replicas"). The caches in the chain now
            // learn their server here, so an invalidation made before any request is relayed
            // too. A binding may invalidate from a thread of its own, outside the runtime: the
            // publication runs on this endpoint's runtime.
            for cache in app.server.response_caches() {
                cache.watch(&app.server);
            }
            let weak = Arc::downgrade(&app);
            let rt = tokio::runtime::Handle::try_current().ok();
            app.server.add_cache_relay(Arc::new(move |invalidation| {
                let app = weak.upgrade().filter(|a| !a.shutdown.is_cancelled())?;
                if !app.replica.has_peers() {
                    return Some(false);
                }
                let sent = app.replica.bus.publish(
                    &app.replica.name,
                    BusMessage::CacheInvalidate {
                        invalidation: invalidation.clone(),
                    },
                );
                let sent = async move {
                    if let Err(e) = sent.await {
                        tracing::warn!(error = %e, "publishing a cache invalidation failed");
                    }
                };
                match &rt {
                    Some(rt) => drop(rt.spawn(sent)),
                    None => drop(tokio::spawn(sent)),
                }
                Some(true)
            }));
        }
        if let Some(store) = &app.options.task_store {
            app.server.set_task_store(store.clone());
        }
        {
            // `tasks/update` and `tasks/cancel` of the tasks extension reach the replica
            // running the task; the states written reach every replica's subscriptions,
            // unless the task store, being this endpoint's bus too, announces them itself.
            let store_announces = app.options.task_store.as_ref().is_some_and(|t| {
                t.announces_writes()
                    && std::ptr::addr_eq(Arc::as_ptr(t), Arc::as_ptr(&app.replica.bus))
            });
            let weak = Arc::downgrade(&app);
            app.server.add_task_relay(Arc::new(move |signal| {
                let app = weak.upgrade().filter(|a| !a.shutdown.is_cancelled())?;
                let msg = match signal {
                    TaskSignal::Changed(_) if store_announces => return Some(Box::pin(async {})),
                    TaskSignal::Changed(t) => BusMessage::TaskState {
                        revision: t.revision,
                        task: serde_json::to_string(t).expect("stored tasks serialize"),
                    },
                    TaskSignal::Update { task_id, responses } => BusMessage::TaskUpdate {
                        task: task_id.clone(),
                        responses: Value::Object(responses.clone()).to_string(),
                    },
                    TaskSignal::Cancel { task_id } if !task_id.is_empty() => {
                        BusMessage::TaskCancel {
                            task: task_id.clone(),
                        }
                    }
                    TaskSignal::Cancel { .. } => return Some(Box::pin(async {})),
                };
                if !app.replica.has_peers() {
                    return Some(Box::pin(async {}));
                }
                let sent = app.replica.bus.publish(&app.replica.name, msg);
                Some(Box::pin(async move {
                    if let Err(e) = sent.await {
                        tracing::warn!(error = %e, "publishing a task signal failed");
                    }
                }))
            }));
        }
        app
    }

    /// Starts the bus listener and (not in stateless mode, which keeps no sessions) the
    /// idle-session reaper, once; they stop on shutdown.
    pub(super) fn start_reaper(self: &Arc<Self>) {
        if self.reaper_started.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(rx) = self.bus_rx.lock().unwrap().take() {
            // Stateless mode too: its `subscriptions/listen` streams get the changes raised
            // on other replicas.
            self.start_bus_listener(rx);
        }
        if self.options.stateless {
            return;
        }
        if self.replica.has_peers() {
            self.start_liveness();
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

    /// Says on the bus that this replica runs, every [`LIVENESS_RENEW`] until shutdown, so a
    /// replica following one of its streams learns when it is gone (`streamable::watch_owner`).
    ///
    /// A replica shutting down goes on announcing itself while its handlers finish: it is gone
    /// for the others only once nothing of it runs.
    fn start_liveness(self: &Arc<Self>) {
        let (bus, name) = (self.replica.bus.clone(), self.replica.name.clone());
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                match weak.upgrade() {
                    Some(app) if !(app.shutdown.is_cancelled() && app.tasks.is_empty()) => {}
                    _ => break,
                }
                if let Err(e) = bus.announce_alive(&name, LIVENESS_TTL).await {
                    tracing::debug!(error = %e, "announcing this replica on the bus failed");
                }
                tokio::time::sleep(LIVENESS_RENEW).await;
            }
        });
    }

    /// Handles what the other replicas publish, until shutdown.
    fn start_bus_listener(self: &Arc<Self>, mut rx: BusReceiver) {
        let weak = Arc::downgrade(self);
        let shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            loop {
                let msg = tokio::select! {
                    m = rx.recv() => m,
                    _ = shutdown.cancelled() => None,
                };
                let (Some(msg), Some(app)) = (msg, weak.upgrade()) else {
                    break;
                };
                app.on_bus(msg);
            }
        });
    }

    /// One message from another replica.
    fn on_bus(&self, msg: BusMessage) {
        fn parse(text: &str) -> Option<Message> {
            match jsonrpc::parse(text.as_bytes()) {
                Ok(jsonrpc::Incoming::Single(m)) => Some(m),
                _ => None,
            }
        }
        match msg {
            BusMessage::FromClient { session, message } => {
                let (Some(h), Some(m)) = (self.live_get(&session), parse(&message)) else {
                    return;
                };
                if consumes(&h, &m) {
                    let _ = h.session.handle_incoming(m);
                }
            }
            BusMessage::ToGetStream { session, message } => {
                if let (Some(h), Some(m)) = (self.live_get(&session), parse(&message)) {
                    h.to_get_from_bus(m);
                }
            }
            BusMessage::StreamEvent {
                stream,
                seq,
                data,
                last,
            } => {
                let sid = stream.split('/').next().unwrap_or_default();
                if let Some(h) = self.live_get(sid) {
                    h.remote_event(&stream, seq, data, last);
                }
            }
            BusMessage::SessionState { session, state } => {
                if let Some(h) = self.live_get(&session) {
                    h.refresh(&state);
                }
            }
            BusMessage::SessionClosed { session } => {
                if let Some(h) = self.live.remove(session.as_str()) {
                    h.close_here();
                }
            }
            BusMessage::Notify { method, params } => {
                let params: Option<Value> = params.and_then(|p| serde_json::from_str(&p).ok());
                self.server
                    .caches_see_notification(&method, params.as_ref());
                self.server.notify_here(&method, params);
            }
            BusMessage::CacheInvalidate { invalidation } => {
                self.server.invalidate_caches_here(&invalidation);
            }
            BusMessage::TaskUpdate { task, responses } => {
                if let Ok(responses) = serde_json::from_str(&responses) {
                    self.server.task_signal_here(TaskSignal::Update {
                        task_id: task,
                        responses,
                    });
                }
            }
            BusMessage::TaskCancel { task } => {
                self.server
                    .task_signal_here(TaskSignal::Cancel { task_id: task });
            }
            BusMessage::TaskState { revision, task } => {
                if let Ok(mut task) = serde_json::from_str::<crate::server::StoredTask>(&task) {
                    task.revision = revision;
                    self.server.task_signal_here(TaskSignal::Changed(task));
                }
            }
        }
    }

    /// The session `sid` if it is live on this replica.
    pub(super) fn live_get(&self, sid: &str) -> Option<Arc<HttpSession>> {
        self.live.get(sid)
    }

    /// Adds a new session to this replica's live table, closing the least recently active
    /// idle session when the table is full ([`super::session_table`]); the session already
    /// live under that id when another request rebuilt it meanwhile. `Err` is the 503 to
    /// answer (for request `id`, when known) when every session is busy.
    ///
    /// The policy, so that an initialize flood cannot lock clients out until sessions expire:
    /// the closed sessions go first, then the least recently active idle one (no open stream,
    /// nothing in flight). Its client's next request gets 404 and, as the transport says, it
    /// initializes again (ferromcp's client does so by itself). Only when every session is
    /// busy is the new one refused.
    pub(super) fn admit(
        &self,
        sid: Arc<str>,
        h: Arc<HttpSession>,
        id: Option<jsonrpc::RequestId>,
    ) -> Result<Arc<HttpSession>, Response> {
        match self.live.admit(sid, h, self.options.max_sessions) {
            Admission::Admitted { session, evicted } => {
                for s in evicted {
                    tracing::info!(
                        session = s.id().unwrap_or_default(),
                        "session table full: closing the least recently active idle session"
                    );
                    self.end(&s);
                }
                Ok(session)
            }
            Admission::Full => {
                tracing::warn!(
                    limit = self.options.max_sessions,
                    "session table full and every session busy: refusing a new session"
                );
                Err(super::responses::unavailable(
                    id,
                    McpError::internal(format!(
                        "too many busy sessions (limit {}); try again later",
                        self.options.max_sessions
                    )),
                ))
            }
        }
    }

    /// Session `sid`: live here, or rebuilt from the session store (`Ok(None)`: no such
    /// session). `Err` is the answer to give (to request `id`, when known) when the store fails.
    pub(super) async fn session(
        &self,
        sid: &str,
        id: Option<&jsonrpc::RequestId>,
    ) -> Result<Option<Arc<HttpSession>>, Response> {
        if let Some(h) = self.live_get(sid) {
            let renew = match !h.legacy && self.replica.has_peers() {
                true => h.claim_renewal(self.renew_every()),
                false => None,
            };
            if let Some(previous) = renew {
                // Renews the session's time to live; expired (or deleted and the bus message
                // lost) on another replica: gone here too.
                match self.store.touch(sid.to_string()).await {
                    Ok(true) => {}
                    Ok(false) => {
                        self.live.remove(sid);
                        h.close_here();
                        return Ok(None);
                    }
                    Err(e) => {
                        h.renewal_failed(previous);
                        return Err(store_failed(e, id));
                    }
                }
            }
            if !h.legacy && !h.session.is_ready() && !h.session.is_closed() {
                // Its `notifications/initialized` may have reached another replica.
                if let Ok(Some(state)) = self.store.get(sid.to_string()).await {
                    h.refresh(&state);
                }
            }
            return Ok(Some(h));
        }
        let state = match self.store.get(sid.to_string()).await {
            Ok(Some(s)) => s,
            Ok(None) => return Ok(None),
            Err(e) => return Err(store_failed(e, id)),
        };
        let sid_arc: Arc<str> = Arc::from(sid);
        let h = self.new_session(Some(sid_arc.clone()), true, false);
        if !h.restore(&state, |v| self.server.capabilities_shared(v)) {
            return Ok(None);
        }
        // Another request may have rebuilt it meanwhile: theirs stays.
        self.admit(sid_arc, h, id.cloned()).map(Some)
    }

    /// How often a copy of a session shared with other replicas renews the session's time to
    /// live in the store (at most): a tenth of the idle timeout. Between renewals a request
    /// costs the store nothing; a session deleted on another replica is dropped here by the
    /// bus's `SessionClosed`, and an idle one expires in the store 90-100 % of the idle timeout
    /// after its last request.
    fn renew_every(&self) -> Duration {
        self.options.session_idle_timeout / 10
    }

    /// Writes `h`'s state to the session store (when it has one yet). `Err` is the answer to
    /// give (to request `id`, when known) when the store fails.
    pub(super) async fn save(
        &self,
        h: &HttpSession,
        request: Option<&jsonrpc::RequestId>,
    ) -> Result<(), Response> {
        let (Some(id), Some(state)) = (h.id(), h.state()) else {
            return Ok(());
        };
        self.store
            .put(id.to_string(), state.clone())
            .await
            .map_err(|e| store_failed(e, request))?;
        if self.replica.has_peers() {
            self.replica.publish(BusMessage::SessionState {
                session: id.to_string(),
                state,
            });
        }
        Ok(())
    }

    /// Removes session `id` here and from the store, and tells the other replicas (before the
    /// caller answers: their copies serve requests without asking the store between renewals).
    pub(super) async fn remove_session(&self, id: &str) {
        self.live.remove(id);
        if let Err(e) = self.store.remove(id.to_string()).await {
            tracing::warn!(error = %e, "removing a session from the store failed");
        }
        if self.replica.has_peers() {
            let closed = BusMessage::SessionClosed {
                session: id.to_string(),
            };
            if let Err(e) = self.replica.bus.publish(&self.replica.name, closed).await {
                tracing::warn!(error = %e, "publishing a session's deletion failed");
            }
        }
    }

    /// Removes a session whose initialize failed or could not be saved: no other replica
    /// knows it, so the answer does not wait for the store (which may be what failed).
    pub(super) fn discard_new_session(&self, id: &str) {
        self.live.remove(id);
        let store = self.store.clone();
        let id = id.to_string();
        run_detached(
            Box::pin(async move { store.remove(id).await.map(|_| ()) }),
            "removing a failed new session from the store",
        );
    }

    /// Removes session `id` from this replica's table and ends it. A session shared with
    /// other replicas stays theirs: only this copy goes (the store's time to live, renewed by
    /// every request on any replica, decides when the session itself expires). Otherwise it
    /// is removed from the store too, with its events (a legacy session lives on its
    /// connection's replica only, and is in no store).
    fn forget(&self, id: &str) -> Option<Arc<HttpSession>> {
        let h = self.live.remove(id);
        if let Some(h) = &h {
            self.end(h);
        }
        h
    }

    /// Ends session `h`, just removed from this replica's table (see [`Self::forget`]).
    fn end(&self, h: &HttpSession) {
        if !h.legacy && self.replica.has_peers() {
            h.close_here();
            return;
        }
        h.close();
        if let (false, Some(id)) = (h.legacy, h.id()) {
            let store = self.store.clone();
            let id = id.to_string();
            run_detached(
                Box::pin(async move { store.remove(id).await.map(|_| ()) }),
                "removing a session from the store",
            );
        }
    }

    /// Removes a legacy session (its stream ended).
    pub(super) fn remove_legacy(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.forget(id)
    }

    /// Removes sessions idle longer than the timeout (with no open stream and nothing in flight).
    pub(super) fn reap(&self) {
        let now = Instant::now();
        for (id, s) in self.live.snapshot() {
            let idle = now.duration_since(s.last_active()) > self.options.session_idle_timeout;
            let busy = s.has_open_stream() || s.session.in_flight_count() > 0;
            if s.session.is_closed() || (idle && !busy) {
                self.forget(&id);
            }
        }
    }

    /// Ends every session live here (at the end of shutdown). Their state and events stay in
    /// the stores, for the other replicas.
    pub(super) fn close_all(&self) {
        for s in self.live.drain() {
            s.close_here();
        }
    }
}

/// Whether a message from the client that this replica's copy of the session cannot consume
/// (an answer to a request another replica sent, a cancellation of a request running on
/// another replica) should go to the other replicas; true when `h` takes it here.
pub(super) fn consumes(h: &HttpSession, m: &Message) -> bool {
    match m {
        Message::Response(r) => h.session.is_waiting_for(&r.id),
        Message::Error(jsonrpc::ErrorResponse { id: Some(id), .. }) => h.session.is_waiting_for(id),
        Message::Notification(n) if n.method == "notifications/cancelled" => n
            .params
            .as_ref()
            .and_then(|p| p.get("requestId"))
            .and_then(jsonrpc::RequestId::from_value)
            .is_some_and(|id| h.session.is_in_flight(&id)),
        _ => true,
    }
}

/// The answer (to request `id`, when known) when the session store fails: 503, with a
/// JSON-RPC error saying what is unavailable, and a warning in the log.
fn store_failed(e: super::super::store::StoreError, id: Option<&jsonrpc::RequestId>) -> Response {
    tracing::warn!(error = %e, "session store unavailable: answering 503");
    super::responses::unavailable(
        id.cloned(),
        McpError::internal(format!(
            "the session store is unavailable ({e}); try again later"
        ))
        .with_data(serde_json::json!({ "unavailable": "session store" })),
    )
}

impl App {
    /// The readiness endpoint's answer: whether this replica takes requests and its session
    /// store answers (a store that does not is logged, and named in the body).
    pub(super) async fn health(&self) -> Response {
        let live = self.live.len();
        if self.shutdown.is_cancelled() {
            return super::responses::json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &serde_json::json!({ "status": "unavailable", "shuttingDown": true }),
                None,
            );
        }
        match self.store.check().await {
            Ok(()) => super::responses::json_response(
                StatusCode::OK,
                &serde_json::json!({ "status": "ok", "liveSessions": live }),
                None,
            ),
            Err(e) => {
                tracing::warn!(error = %e, "readiness check: the session store does not answer");
                super::responses::json_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &serde_json::json!({
                        "status": "unavailable",
                        "sessionStore": e.to_string(),
                        "liveSessions": live,
                    }),
                    None,
                )
            }
        }
    }

    /// Host/Origin validation against DNS rebinding. `Err` carries the rejection.
    pub(super) fn check_origin(&self, req: &HttpRequest) -> Result<(), Response> {
        match &self.guard {
            Some(g) => g.check(req.absolute_authority(), req.headers()),
            None => Ok(()),
        }
    }

    /// The protocol revisions the server supports.
    pub(super) fn supported_versions(&self) -> &[crate::protocol::ProtocolVersion] {
        &self.server.options().session.supported_versions
    }

    /// Whether the server speaks a handshake-era revision. Without one (2026-07-28 only) it has
    /// no sessions: GET and DELETE on the endpoint are 405, an `Mcp-Session-Id` header is
    /// ignored, and the 2024-11-05 HTTP+SSE endpoints are not served (2026-07-28, Streamable
    /// HTTP, "Backward Compatibility").
    pub(super) fn speaks_handshake(&self) -> bool {
        self.supported_versions()
            .iter()
            .any(|v| !v.is_per_request())
    }

    /// A new session of this endpoint (not yet in the session table); `resumable` keeps its
    /// streams' events (not in stateless mode).
    pub(super) fn new_session(
        &self,
        id: Option<Arc<str>>,
        resumable: bool,
        legacy: bool,
    ) -> Arc<HttpSession> {
        HttpSession::new(
            self.session_config.clone(),
            self.service.clone(),
            id,
            resumable.then(|| self.replica.clone()),
            legacy,
            self.gauges.session(),
        )
    }

    /// The engine session that serves one per-request-era request answered with one JSON body,
    /// whose headers and `_meta` were checked: no HTTP session around it (no routing table, no
    /// stream; its outbound messages dropped, the answer being its only message), serving that
    /// request alone ([`crate::session::Session::serve_alone`]: the request's cancellation is
    /// the session's own). It is closed when the guard is dropped with the POST, answered or
    /// dropped by a client that went away: closing cancels a handler still running.
    pub(super) fn per_request_session(
        &self,
        meta: crate::session::RequestMeta,
    ) -> PerRequestSession {
        let caps = self.server.capabilities_shared(meta.version);
        let session = crate::session::Session::with_shared_config(
            crate::session::Role::Server,
            self.service.clone(),
            self.session_config.clone(),
            crate::session::Outbound::discard(),
            None,
        );
        session.serve_alone();
        session.begin_per_request(meta, caps);
        PerRequestSession(session)
    }

    /// Makes `session` a stateless-mode session ready for requests under `version`: negotiated
    /// with no `initialize` (empty client info and capabilities, this server's capabilities for
    /// that revision).
    pub(super) fn begin_stateless(
        &self,
        session: &crate::session::Session,
        version: ProtocolVersion,
    ) {
        session.set_negotiated(Negotiated {
            version,
            peer_info: empty_object(),
            peer_capabilities: empty_object(),
            own_capabilities: self.server.capabilities_shared(version),
            instructions: None,
        });
        session.set_state(STATE_READY);
    }
}

/// A per-request-era request's engine session ([`App::per_request_session`]), closed when
/// dropped.
pub(super) struct PerRequestSession(Arc<crate::session::Session>);

impl std::ops::Deref for PerRequestSession {
    type Target = Arc<crate::session::Session>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Drop for PerRequestSession {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// `{}`, shared: what a stateless session knows of its client's info and capabilities.
fn empty_object() -> Arc<Value> {
    static EMPTY: std::sync::LazyLock<Arc<Value>> =
        std::sync::LazyLock::new(|| Arc::new(Value::Object(Default::default())));
    EMPTY.clone()
}

tokio::task_local! {
    /// The id a host chose for the session the request being served may open (the TypeScript
    /// SDK's `sessionIdGenerator`, or an `SSEServerTransport` that knows its id before the
    /// stream opens); set around one request by `ferromcp_embed::EmbeddedHttpHandler` (through
    /// [`crate::binding_seam::with_chosen_session_id`]).
    pub(crate) static CHOSEN_SESSION_ID: Arc<str>;
}

/// The session id for a session opened now: the one the host chose for this request
/// ([`CHOSEN_SESSION_ID`]), else a fresh random one (128 bits, hex).
pub(super) fn new_session_id() -> Arc<str> {
    CHOSEN_SESSION_ID
        .try_with(Arc::clone)
        .unwrap_or_else(|_| Arc::from(format!("{:032x}", rand::random::<u128>())))
}
