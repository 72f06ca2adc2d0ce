//! [`HttpSession`]: one engine session served over HTTP, which routes its outbound messages to
//! the right SSE stream as they are sent (it is the session's outbound sink), and its
//! serializable state ([`SessionState`]) for the session store.

use super::super::gauges::LiveSession;
use super::super::sse::encode;
use super::super::store::{BusMessage, SessionState};
use super::frames::{offer, Frame, Out};
use super::replica::{event_id, parse_event_id, Effects, Replica};
use super::routes::{push_backlog, Routes};
use crate::jsonrpc::{Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::session::{
    Negotiated, Outbound, OutboundMessage, OutboundSink, Role, Session, STATE_INITIALIZING,
    STATE_READY,
};
use crate::McpError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// One HTTP-served session: the engine session plus the routing of its SSE streams.
///
/// The session's outbound messages are routed synchronously as they are sent (the session's
/// [`crate::session::Outbound`] is this value, held weakly), so an idle session owns no task
/// and no queue.
pub struct HttpSession {
    pub(super) id: Option<Arc<str>>,
    pub(super) session: Arc<Session>,
    pub(super) routes: Mutex<Routes>,
    /// The event store and bus; `None` in stateless mode: its streams cannot be resumed (GET
    /// answers 405), so their events are not kept.
    pub(super) replica: Option<Arc<Replica>>,
    /// The [`SessionState::revision`] this copy is at.
    pub(super) revision: AtomicU64,
    /// Milliseconds since `EPOCH` when a request last touched this session.
    pub(super) last_active: AtomicU64,
    /// Milliseconds since `EPOCH` when this copy last renewed the session's time to live in a
    /// shared session store (or made this copy, which wrote or read the store).
    renewed: AtomicU64,
    pub(super) legacy: bool,
    /// Counts this session among the live ones ([`crate::transport::http::HttpServerStats`]),
    /// and tells the server's session-end hook (if any) how long it lived.
    live: LiveSession,
    /// Bytes its streams hold waiting for their readers, together
    /// ([`crate::transport::http::HttpServerOptions::max_session_buffered_bytes`]).
    queued: Arc<std::sync::atomic::AtomicUsize>,
}

/// The reference point of [`HttpSession::last_active`].
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Milliseconds since `EPOCH`.
fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64
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

    fn takes_broadcasts(&self) -> bool {
        match &self.replica {
            Some(rep) if !self.legacy && rep.has_peers() => self.has_open_stream(),
            _ => true,
        }
    }

    fn close_request_stream(&self, id: &RequestId) -> bool {
        // Only a stream primed with an event id and `retry:` (decided once, when the POST
        // opened it) can be resumed; closing any other would lose the response.
        let mut r = self.routes.lock().unwrap();
        let Some(slot) = r.requests.get(id).copied() else {
            return false;
        };
        match r.stream(slot) {
            // Dropping the sender ends the SSE body; later events for this request are kept
            // in the event store and replayed when the client resumes with Last-Event-ID.
            Some(route) if route.primed && route.tx.is_some() => {
                route.tx = None;
                true
            }
            _ => false,
        }
    }
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        // A session with an id (not a stateless POST's) has ended on this server.
        if self.id.is_some() {
            self.live.ended(self.session.protocol_version());
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

    /// The byte budget its streams share: their total, and `max` (see [`super::frames::frame_queue`]).
    pub(super) fn stream_budget(
        &self,
        max: usize,
    ) -> Option<(Arc<std::sync::atomic::AtomicUsize>, usize)> {
        Some((self.queued.clone(), max))
    }

    /// When a request last touched this session.
    pub fn last_active(&self) -> Instant {
        epoch() + Duration::from_millis(self.last_active.load(Ordering::Relaxed))
    }

    /// [`Self::last_active`] as a number that only grows with activity (milliseconds), for
    /// comparing two moments of the same session ([`super::session_table`]).
    pub(super) fn activity_stamp(&self) -> u64 {
        self.last_active.load(Ordering::Relaxed)
    }

    /// The stamp [`Self::activity_stamp`] would read for a session touched now.
    pub(super) fn now_stamp() -> u64 {
        now_ms()
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

    /// Marks the session active now.
    pub(super) fn touch(&self) {
        self.last_active.store(now_ms(), Ordering::Relaxed);
    }

    /// Whether this request should renew the session's time to live in the shared session
    /// store: the last renewal by this copy is `every` old or older. The renewal is claimed
    /// (concurrent requests renew once); `Some(previous)` to give back with
    /// [`Self::renewal_failed`] when the store fails.
    pub(super) fn claim_renewal(&self, every: Duration) -> Option<u64> {
        let now = now_ms();
        let last = self.renewed.load(Ordering::Acquire);
        if now.saturating_sub(last) < every.as_millis() as u64 {
            return None;
        }
        self.renewed
            .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
            .ok()
    }

    /// The renewal claimed with [`Self::claim_renewal`] failed: the next request tries again.
    pub(super) fn renewal_failed(&self, previous: u64) {
        self.renewed.store(previous, Ordering::Release);
    }

    /// Prefix of every event-store key of this session.
    pub(super) fn key(&self) -> String {
        match &self.id {
            Some(id) => format!("{id}/"),
            None => format!("sl-{:p}/", self as *const Self),
        }
    }

    /// Event-store key of request stream `slot` (`{session}/{replica}-{slot}`: a stream is
    /// written only by the replica running its requests).
    pub(super) fn stream_key(&self, slot: u64) -> String {
        let rep = self.replica.as_ref().map_or("", |r| &r.name);
        let id = self.id.as_deref().unwrap_or("sl");
        let mut k = String::with_capacity(id.len() + rep.len() + 8);
        k.push_str(id);
        k.push('/');
        k.push_str(rep);
        k.push('-');
        super::super::sse::push_decimal(&mut k, slot);
        k
    }

    /// The request stream slot of this replica that `stream` names, if it is one.
    pub(super) fn own_slot(&self, stream: &str) -> Option<u64> {
        let rep = self.replica.as_ref()?;
        let rest = stream
            .strip_prefix(self.id.as_deref()?)?
            .strip_prefix('/')?;
        rest.strip_prefix(&*rep.name)?
            .strip_prefix('-')?
            .parse()
            .ok()
    }

    /// Whether `stream` is a GET stream of this session (written by any replica).
    pub(super) fn is_get_key(&self, stream: &str) -> bool {
        self.id
            .as_deref()
            .is_some_and(|id| stream.strip_prefix(id).is_some_and(|r| r.starts_with("/g")))
    }

    /// Whether `event_id` names the only event of a finished request stream of this session,
    /// which the event store was not asked to keep.
    pub(super) fn is_finished_only_event(&self, event_id: &str) -> bool {
        let Some((stream, 0)) = parse_event_id(event_id) else {
            return false;
        };
        if !stream.starts_with(self.key().as_str()) || self.is_get_key(stream) {
            return false;
        }
        match self.own_slot(stream) {
            Some(slot) => {
                let mut r = self.routes.lock().unwrap();
                slot < r.next_stream && r.stream(slot).is_none()
            }
            // Another replica's stream whose first event was never stored: it was the only one.
            None => true,
        }
    }

    /// Records event `seq` of stream `key` for resumption (after the lock is released); its id.
    pub(super) fn record(&self, fx: &mut Effects, key: String, seq: u64, data: &str) -> String {
        let eid = event_id(&key, seq);
        fx.writes.push((key, seq, data.to_string()));
        eid
    }

    /// A new session serving `service` with `config`; `replica` keeps its streams' events for
    /// resumption (`None`: stateless, not resumable); `legacy` for the 2024-11-05 transport.
    pub(super) fn new(
        config: Arc<crate::session::SessionConfig>,
        service: Arc<dyn crate::session::Service>,
        id: Option<Arc<str>>,
        replica: Option<Arc<Replica>>,
        legacy: bool,
        live: LiveSession,
    ) -> Arc<HttpSession> {
        let now = now_ms();
        Arc::new_cyclic(|weak: &Weak<HttpSession>| {
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
                replica,
                revision: AtomicU64::new(0),
                last_active: AtomicU64::new(now),
                renewed: AtomicU64::new(now),
                queued: Arc::default(),
                legacy,
                live,
            }
        })
    }

    /// The state to keep in the session store, as a new revision; `None` before `initialize`
    /// was answered.
    pub(super) fn state(&self) -> Option<SessionState> {
        let n = self.session.negotiated()?;
        let rank = self.session.log_level.load(Ordering::Acquire);
        let log_level = LEVELS
            .iter()
            .find(|l| crate::session::log_level_rank(l) == Some(rank))
            .map(|l| l.to_string());
        let mut subscriptions: Vec<String> = self
            .session
            .subscriptions
            .lock()
            .unwrap()
            .iter()
            .cloned()
            .collect();
        subscriptions.sort();
        Some(SessionState {
            protocol_version: n.version.as_str().to_string(),
            client_info: n.peer_info.clone(),
            client_capabilities: n.peer_capabilities.clone(),
            initialized: self.session.is_ready(),
            log_level,
            subscriptions,
            revision: self.revision.fetch_add(1, Ordering::AcqRel) + 1,
        })
    }

    /// Brings a session rebuilt from the store to `state` (`own` are the server's capabilities
    /// at that revision); false when the state names an unknown revision.
    pub(super) fn restore(
        &self,
        state: &SessionState,
        own: impl Fn(ProtocolVersion) -> Arc<serde_json::Value>,
    ) -> bool {
        let Some(version) = ProtocolVersion::parse(&state.protocol_version) else {
            return false;
        };
        self.session.set_negotiated(Negotiated {
            version,
            peer_info: state.client_info.clone(),
            peer_capabilities: state.client_capabilities.clone(),
            own_capabilities: own(version),
            instructions: None,
        });
        if let Some(rank) = state
            .log_level
            .as_deref()
            .and_then(crate::session::log_level_rank)
        {
            self.session.log_level.store(rank, Ordering::Release);
        }
        self.session
            .subscriptions
            .lock()
            .unwrap()
            .extend(state.subscriptions.iter().cloned());
        self.revision.store(state.revision, Ordering::Release);
        // Requests this copy sends must not reuse ids the copies on other replicas hand out.
        self.session
            .ids
            .start_at(rand::random::<u32>() as i64 * 1_000_000);
        if state.initialized {
            self.session.set_state(STATE_READY);
            self.session.service.on_initialized(&self.session.peer());
        } else {
            self.session.set_state(STATE_INITIALIZING);
        }
        true
    }

    /// Brings this copy up to date with `state`, as changed on another replica.
    pub(super) fn refresh(&self, state: &SessionState) {
        if self.revision.fetch_max(state.revision, Ordering::AcqRel) >= state.revision {
            return;
        }
        let rank = state
            .log_level
            .as_deref()
            .and_then(crate::session::log_level_rank)
            .unwrap_or(u8::MAX);
        self.session.log_level.store(rank, Ordering::Release);
        {
            let mut subs = self.session.subscriptions.lock().unwrap();
            subs.clear();
            subs.extend(state.subscriptions.iter().cloned());
        }
        if state.initialized && self.session.state() == STATE_INITIALIZING {
            self.session.set_state(STATE_READY);
            self.session.service.on_initialized(&self.session.peer());
        }
    }

    /// Routes one message to the stream it belongs to.
    pub(super) fn route(&self, msg: Message, related: Option<RequestId>) {
        self.route_out(Out::Msg(msg), related);
    }

    /// [`Self::route`] for a message or a written answer.
    pub(super) fn route_out(&self, msg: Out, related: Option<RequestId>) {
        let mut fx = Effects::default();
        let mut r = self.routes.lock().unwrap();
        self.route_locked(&mut r, &mut fx, msg, related);
        drop(r);
        self.apply(fx);
    }

    /// Sends a batch's answers on the legacy (HTTP+SSE) stream as one event holding one
    /// JSON array, as a message stream and the Streamable endpoint answer a batch. Nothing is
    /// sent when the batch had nothing to answer (only notifications and responses).
    pub(super) fn route_legacy_batch(&self, answers: Vec<Message>) {
        debug_assert!(
            self.legacy,
            "only the legacy stream carries batches this way"
        );
        if answers.is_empty() {
            return;
        }
        let mut r = self.routes.lock().unwrap();
        match &r.get {
            Some(tx) => {
                let data = serde_json::to_string(&answers).expect("messages serialize");
                if !offer(tx, Frame::Sse(encode(None, Some("message"), &data, None))) {
                    // The legacy stream is the connection: ending it ends the session.
                    r.get = None;
                }
            }
            // No stream any more (the session is ending): kept as the single answers are.
            None => {
                for m in answers {
                    push_backlog(&mut r.backlog, m);
                }
            }
        }
    }

    /// Runs what a routing step left to do, now that the routing lock is released.
    pub(super) fn apply(&self, mut fx: Effects) {
        let close = std::mem::take(&mut fx.close);
        fx.run(self.replica.as_deref());
        if close {
            // Closing calls back into this sink, which takes the routing lock again.
            self.session.close();
        }
    }

    /// [`Self::route`] under the routing lock; what is left to do goes to `fx`.
    fn route_locked(&self, r: &mut Routes, fx: &mut Effects, msg: Out, related: Option<RequestId>) {
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
            return;
        }
        let is_answer = msg.is_answer();
        if let Some(id) = related {
            if let Some(slot) = r.requests.get(&id).copied() {
                let answer_here = is_answer && msg.id() == Some(&id);
                let route = r.stream(slot).expect("request maps to a stream");
                let mut msg = Some(msg);
                let ends = answer_here && route.pending.is_only(&id);
                if !route.json {
                    let m = msg.take().expect("present");
                    let data = m.text();
                    let seq = route.next_seq;
                    route.next_seq += 1;
                    let eid = match &self.replica {
                        None => None,
                        Some(rep) => {
                            let key = self.stream_key(slot);
                            let eid = event_id(&key, seq);
                            // The stream's only event (its answer, nothing before it) can never
                            // be asked for again: it is not kept.
                            let only = ends && !route.recorded;
                            if !only {
                                route.recorded = true;
                                let detached = route.tx.is_none();
                                if (ends || detached) && rep.has_peers() {
                                    if detached {
                                        fx.publish.push(BusMessage::StreamEvent {
                                            stream: key.clone(),
                                            seq,
                                            data: data.to_string(),
                                            last: ends,
                                        });
                                    }
                                    if ends {
                                        // The end marker tells a replica resuming the stream
                                        // later that nothing follows.
                                        fx.writes.push((key.clone(), seq + 1, String::new()));
                                    }
                                }
                                fx.writes.push((key, seq, data.to_string()));
                            }
                            Some(eid)
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
                if answer_here {
                    route.pending.remove(&id);
                    let done = route.pending.is_empty();
                    r.requests.remove(&id);
                    if done {
                        r.remove_stream(slot);
                        fx.close = self.stream_done_closes(r);
                    }
                }
                if let Some(m) = msg {
                    if !answer_here {
                        self.to_get(r, fx, m.into_message(), true);
                    }
                }
                return;
            }
        }
        if is_answer {
            tracing::debug!("answer for a finished request stream dropped");
            return;
        }
        self.to_get(r, fx, msg.into_message(), true);
    }

    /// Sends `msg` on the GET stream; when it is not open here, to the replica holding it
    /// (`forward`, with other replicas) or into the backlog for the next GET stream.
    fn to_get(&self, r: &mut Routes, fx: &mut Effects, msg: Message, forward: bool) {
        let Some(rep) = &self.replica else {
            tracing::debug!("stateless mode: message unrelated to an open request dropped");
            return;
        };
        if r.get.as_ref().is_some_and(|t| !t.is_closed()) {
            let data = serde_json::to_string(&msg).expect("messages serialize");
            let seq = r.get_seq;
            r.get_seq += 1;
            let eid = self.record(fx, r.get_key.clone(), seq, &data);
            let tx = r.get.as_ref().expect("checked");
            if !offer(tx, Frame::Sse(encode(Some(&eid), None, &data, None))) {
                r.get = None;
            }
            return;
        }
        r.get = None;
        match (&self.id, forward && rep.has_peers()) {
            (Some(id), true) => fx.publish.push(BusMessage::ToGetStream {
                session: id.to_string(),
                message: serde_json::to_string(&msg).expect("messages serialize"),
            }),
            _ => push_backlog(&mut r.backlog, msg),
        }
    }

    /// A message another replica sent for this session's GET stream.
    pub(super) fn to_get_from_bus(&self, msg: Message) {
        let mut fx = Effects::default();
        let mut r = self.routes.lock().unwrap();
        if r.get.as_ref().is_some_and(|t| !t.is_closed()) {
            self.to_get(&mut r, &mut fx, msg, false);
        }
        drop(r);
        self.apply(fx);
    }

    /// An event of another replica's request stream, for a client that resumed it here.
    pub(super) fn remote_event(&self, stream: &str, seq: u64, data: String, last: bool) {
        let mut r = self.routes.lock().unwrap();
        let Some(i) = r.remote.iter().position(|s| s.key == stream) else {
            return;
        };
        let rs = &mut r.remote[i];
        if let Some(held) = &mut rs.held {
            held.push((seq, data, last));
            return;
        }
        if seq >= rs.next {
            rs.next = seq + 1;
            let eid = event_id(stream, seq);
            let ok =
                data.is_empty() || offer(&rs.tx, Frame::Sse(encode(Some(&eid), None, &data, None)));
            if !ok || last {
                r.remote.swap_remove(i);
            }
        }
    }

    /// Whether a stateless session, its last stream done, should now close.
    fn stream_done_closes(&self, r: &Routes) -> bool {
        self.replica.is_none() && r.streams.is_empty()
    }

    /// Polling mode ([`HttpServerOptions::close_streams_after`]): closes request stream `slot`
    /// after the configured time if it is still attached as `generation` and still waiting.
    pub(super) fn schedule_close(
        self: &Arc<Self>,
        after: Option<Duration>,
        slot: u64,
        generation: u64,
    ) {
        let Some(after) = after else {
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
    pub(super) fn finish_silently(&self, id: &RequestId) {
        let mut fx = Effects::default();
        let mut r = self.routes.lock().unwrap();
        if let Some(slot) = r.requests.remove(id) {
            if let Some(route) = r.stream(slot) {
                route.pending.remove(id);
                if route.pending.is_empty() {
                    if route.recorded && self.replica.as_ref().is_some_and(|r| r.has_peers()) {
                        // The end marker, for a replica resuming the stream later.
                        let (key, seq) = (self.stream_key(slot), route.next_seq);
                        fx.writes.push((key.clone(), seq, String::new()));
                        if route.tx.is_none() {
                            fx.publish.push(BusMessage::StreamEvent {
                                stream: key,
                                seq,
                                data: String::new(),
                                last: true,
                            });
                        }
                    }
                    r.remove_stream(slot);
                    fx.close = self.stream_done_closes(&r);
                }
            }
        }
        drop(r);
        self.apply(fx);
    }

    /// Hands a handler's outcome to the routing (the answer, or nothing when cancelled).
    pub(super) fn answered(&self, reply: Option<Out>, rid: Option<RequestId>) {
        match reply {
            Some(reply) => self.route_out(reply, rid),
            None => {
                if let Some(id) = rid {
                    self.finish_silently(&id);
                }
            }
        }
    }

    /// Ends this replica's copy of the session: closes it and ends its streams.
    pub(super) fn close_here(&self) {
        self.session.close();
        self.routes.lock().unwrap().clear();
    }

    /// Closes the session, ends its streams and forgets its stored events.
    pub(super) fn close(&self) {
        self.close_here();
        if let Some(rep) = &self.replica {
            super::super::store::run_detached(
                rep.events.remove_streams(self.key()),
                "forgetting a session's events",
            );
        }
    }
}

/// The log level names, by rank.
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];
