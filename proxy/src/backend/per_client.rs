//! Per-client-session backend connections (`"sessions": "per-client"`): a backend whose
//! requests to the client (roots, sampling, elicitation) or whose state must belong to one
//! client gets a connection of its own for each client session of the proxy, made at that
//! client's first request to it and closed when the client's session closes. The backend's
//! shared connection stays for its lists and notifications.
//!
//! Only handshake clients have sessions to key on: a 2026-07-28 client's requests each carry
//! their own capabilities, and the backend's questions come back to that request as
//! `input_required` rounds (see [`crate::era`]).

use super::Backend;
use ferromcp::client::{Client, ProtocolMode};
use ferromcp::session::Session;
use ferromcp::McpError;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Mutex;

/// The per-client connections of one backend, keyed by the client session's address (the
/// entry's watcher holds the session, so the address is not reused while the entry lives).
#[derive(Default)]
pub(crate) struct PerClient {
    conns: Mutex<HashMap<usize, Arc<Client>>>,
}

fn key(session: &Arc<Session>) -> usize {
    Arc::as_ptr(session) as usize
}

impl PerClient {
    /// How many client sessions have a connection of their own now.
    pub(crate) async fn len(&self) -> usize {
        self.conns.lock().await.len()
    }

    /// Closes every connection (the proxy shuts down).
    pub(crate) async fn close_all(&self) {
        let conns: Vec<Arc<Client>> = self.conns.lock().await.drain().map(|(_, c)| c).collect();
        for c in conns {
            c.close().await;
        }
    }
}

impl Backend {
    /// The backend connection of the client session `session`, made now if it has none (or
    /// its last one closed): a handshake connection whose requests to the client go to that
    /// session. A watcher closes it when the session closes, and forgets it when it closes.
    pub(crate) async fn session_client(
        self: &Arc<Self>,
        session: &Arc<Session>,
    ) -> Result<Arc<Client>, McpError> {
        let mut conns = self.per_client.conns.lock().await;
        if let Some(c) = conns.get(&key(session)) {
            if !c.session().is_closed() {
                return Ok(c.clone());
            }
        }
        // Its list changes are the shared connection's too: only its logs and requests matter.
        let (events, _) = tokio::sync::mpsc::unbounded_channel();
        let client = Arc::new(
            self.connect_bound(
                events,
                ProtocolMode::Handshake,
                Some(Arc::downgrade(session)),
            )
            .await?,
        );
        conns.insert(key(session), client.clone());
        let (backend, session, conn) = (self.clone(), session.clone(), client.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = session.closed() => {}
                _ = super::closed(&conn) => {}
            }
            let mut conns = backend.per_client.conns.lock().await;
            if conns
                .get(&key(&session))
                .is_some_and(|c| Arc::ptr_eq(c, &conn))
            {
                conns.remove(&key(&session));
            }
            drop(conns);
            conn.close().await;
        });
        Ok(client)
    }
}
