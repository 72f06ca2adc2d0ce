//! The shared state of one mounted HTTP endpoint: the server, its options, the session table
//! (with the idle-session reaper), the event store, the Host/Origin guard and shutdown.

use super::super::request::HttpRequest;
use super::super::store::{EventStore, InMemoryEventStore, InMemorySessionStore, SessionStore};
use super::super::HttpServerOptions;
use super::host_guard::{resolve_host_guard, HostGuard};
use super::session::HttpSession;
use crate::server::Server;
use axum::response::Response;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Shared state of one mounted HTTP endpoint.
pub(super) struct App {
    pub(super) server: Server,
    /// `server` as every session's service: one allocation shared by all of them.
    service: Arc<dyn crate::session::Service>,
    pub(super) options: HttpServerOptions,
    pub(super) sessions: Arc<dyn SessionStore>,
    pub(super) events: Arc<dyn EventStore>,
    pub(super) shutdown: CancellationToken,
    pub(super) tasks: TaskTracker,
    reaper_started: AtomicBool,
    guard: Option<HostGuard>,
}

impl App {
    /// An endpoint serving `server`, bound to `bound` (`None`: mounted with [`super::router`]).
    pub(super) fn new(
        server: Server,
        options: HttpServerOptions,
        bound: Option<SocketAddr>,
    ) -> Arc<App> {
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

    /// Starts the idle-session reaper once (not in stateless mode); it stops on shutdown.
    pub(super) fn start_reaper(self: &Arc<Self>) {
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
    pub(super) fn reap(&self) {
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

    /// Makes room in a full session table for a new session; false when every session is busy.
    ///
    /// The policy, so that an initialize flood cannot lock clients out until sessions expire:
    /// first the closed and expired sessions go (as the reaper would remove them); if the
    /// table is still full, the least recently active idle session (no open stream, nothing
    /// in flight) is closed to make room. Its client's next request gets 404 and, as the
    /// transport says, it initializes again (ferromcp's client does so by itself). Only
    /// when every session is busy does initialize answer 503.
    pub(super) fn make_room(&self) -> bool {
        let max = self.options.max_sessions;
        if self.sessions.len() < max {
            return true;
        }
        self.reap();
        if self.sessions.len() < max {
            return true;
        }
        let mut oldest: Option<(Instant, Arc<str>)> = None;
        for id in self.sessions.ids() {
            let Some(s) = self.sessions.get(&id) else {
                continue;
            };
            if s.has_open_stream() || s.session().in_flight_count() > 0 {
                continue;
            }
            let at = s.last_active();
            if oldest.as_ref().is_none_or(|(t, _)| at < *t) {
                oldest = Some((at, id));
            }
        }
        match oldest.and_then(|(_, id)| self.sessions.remove(&id)) {
            Some(s) => {
                tracing::info!(
                    session = s.id().unwrap_or_default(),
                    "session table full: closing the least recently active idle session"
                );
                s.close();
                true
            }
            None => false,
        }
    }

    /// Removes and closes every session (at the end of shutdown).
    pub(super) fn close_all(&self) {
        for id in self.sessions.ids() {
            if let Some(s) = self.sessions.remove(&id) {
                s.close();
            }
        }
    }
}

impl App {
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

    /// A new session of this endpoint (not yet in the session table).
    pub(super) fn new_session(
        &self,
        id: Option<Arc<str>>,
        events: Option<Arc<dyn EventStore>>,
        legacy: bool,
    ) -> Arc<HttpSession> {
        HttpSession::new(
            self.server.session_config(),
            self.service.clone(),
            id,
            events,
            legacy,
        )
    }
}

/// A fresh random session id (128 bits, hex).
pub(super) fn new_session_id() -> Arc<str> {
    Arc::from(format!("{:032x}", rand::random::<u128>()))
}
