//! [`HttpSession`]: one engine session served over HTTP, which routes its outbound messages to
//! the right SSE stream as they are sent (it is the session's outbound sink).

use super::super::sse::encode;
use super::super::store::EventStore;
use super::frames::{offer, Frame, Out};
use super::routes::{push_backlog, Routes};
use crate::jsonrpc::{Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::session::{Outbound, OutboundMessage, OutboundSink, Role, Session};
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
    /// `None` in stateless mode: its streams cannot be resumed (GET answers 405), so their
    /// events are not kept.
    pub(super) events: Option<Arc<dyn EventStore>>,
    /// Milliseconds since `EPOCH` when a request last touched this session.
    pub(super) last_active: AtomicU64,
    pub(super) legacy: bool,
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

    /// Marks the session active now.
    pub(super) fn touch(&self) {
        let ms = epoch().elapsed().as_millis() as u64;
        self.last_active.store(ms, Ordering::Relaxed);
    }

    /// Prefix of every event-store key of this session.
    pub(super) fn key(&self) -> String {
        match &self.id {
            Some(id) => format!("{id}/"),
            None => format!("sl-{:p}/", self as *const Self),
        }
    }

    /// Event-store key of the GET stream.
    pub(super) fn get_key(&self) -> String {
        format!("{}get", self.key())
    }

    /// Event-store key of request stream `slot`.
    pub(super) fn stream_key(&self, slot: u64) -> String {
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
    pub(super) fn is_finished_only_event(&self, event_id: &str) -> bool {
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
    pub(super) fn record(&self, key: impl FnOnce() -> String, data: &str) -> Option<String> {
        self.events.as_ref().map(|e| e.append(&key(), data))
    }

    /// A new session serving `service` with `config`; `events` keeps its streams' events for
    /// resumption (`None`: stateless, not resumable); `legacy` for the 2024-11-05 transport.
    pub(super) fn new(
        config: Arc<crate::session::SessionConfig>,
        service: Arc<dyn crate::session::Service>,
        id: Option<Arc<str>>,
        events: Option<Arc<dyn EventStore>>,
        legacy: bool,
    ) -> Arc<HttpSession> {
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
    pub(super) fn route(&self, msg: Message, related: Option<RequestId>) {
        self.route_out(Out::Msg(msg), related);
    }

    /// [`Self::route`] for a message or a written answer.
    pub(super) fn route_out(&self, msg: Out, related: Option<RequestId>) {
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

    /// Closes the session, ends its streams and forgets its stored events.
    pub(super) fn close(&self) {
        self.session.close();
        self.routes.lock().unwrap().clear();
        if let Some(events) = &self.events {
            events.remove_streams(&self.key());
        }
    }
}
