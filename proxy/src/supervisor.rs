//! The task that keeps one backend connected: it connects (a lazy backend once a client has
//! connected to the proxy), registers the backend's surface on the proxy's server, passes on
//! what the backend sends outside calls (logs, list changes, resource updates, requests for a
//! client), and when the connection closes or cannot be made, tries again after a backoff that
//! doubles up to a bound and starts over once a connection has lasted.

use crate::backend::forward::Event;
use crate::backend::{closed, log_parts, Backend, Link};
use crate::surface;
use ferromcp::client::Client;
use ferromcp::protocol::LoggingLevel;
use ferromcp::server::Server;
use ferromcp::session::RequestOptions;
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// Runs until aborted. `first` is told when the first attempt has ended (either way).
pub(crate) async fn supervise(
    backend: Arc<Backend>,
    server: Server,
    all: Arc<[Arc<Backend>]>,
    mut first: Option<oneshot::Sender<()>>,
) {
    if backend.spec.lazy {
        while server.live_sessions().is_empty() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut backoff = backend.options.initial_backoff;
    let mut connected_before = false;
    loop {
        let (tx, mut events) = mpsc::unbounded_channel();
        let up = match backend.connect(tx).await {
            Ok(client) => {
                let client = Arc::new(client);
                if connected_before {
                    backend.count_restart();
                }
                connected_before = true;
                let since = Instant::now();
                serve(&backend, &server, &all, client, &mut events, &mut first).await;
                Some(since)
            }
            Err(e) => {
                tracing::warn!(backend = backend.name(), error = %e, "backend could not be reached");
                backend.link.send_replace(Link::Down(format!(
                    "{} failed: {}",
                    backend.spec.describe(),
                    e.message
                )));
                None
            }
        };
        if let Some(tx) = first.take() {
            let _ = tx.send(());
        }
        if up.is_some_and(|since| since.elapsed() >= backend.options.stable_after) {
            backoff = backend.options.initial_backoff;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(backend.options.max_backoff);
    }
}

/// One live connection: registers, then passes events on until it closes.
async fn serve(
    backend: &Arc<Backend>,
    server: &Server,
    all: &Arc<[Arc<Backend>]>,
    client: Arc<Client>,
    events: &mut mpsc::UnboundedReceiver<Event>,
    first: &mut Option<oneshot::Sender<()>>,
) {
    // A per-request-era connection made beside the previous one is made again when needed.
    backend.reset_per_request().await;
    if surface::offers(&client, "logging") {
        // Every level: each client's own threshold is applied by the proxy's sessions.
        let _ = client.set_logging_level(LoggingLevel::Debug).await;
    }
    // Up before its features are registered: a call to the first one registered is served.
    backend.link.send_replace(Link::Up(client.clone()));
    if let Err(e) = surface::sync_all(server, backend, &client).await {
        tracing::warn!(backend = backend.name(), error = %e, "listing the backend failed");
    }
    if surface::offers(&client, "completions") || surface::offers(&client, "prompts") {
        server.set_completion_fallback(surface::completion_handler(all.clone()));
    }
    if let Some(tx) = first.take() {
        let _ = tx.send(());
    }
    let down = closed(&client);
    tokio::pin!(down);
    loop {
        tokio::select! {
            _ = &mut down => break,
            Some(event) = events.recv() => handle(backend, server, &client, event).await,
        }
    }
    tracing::warn!(
        backend = backend.name(),
        "backend connection closed; restarting"
    );
    backend.link.send_replace(Link::Down(format!(
        "{} exited or closed its connection",
        backend.spec.describe()
    )));
}

async fn handle(backend: &Arc<Backend>, server: &Server, client: &Client, event: Event) {
    match event {
        Event::Changed(listing) => {
            if let Err(e) = surface::sync(server, backend, client, listing).await {
                tracing::warn!(backend = backend.name(), ?listing, error = %e, "listing again failed");
            }
        }
        Event::Updated(uri) => server.notify_resource_updated(&backend.ns.uri(&uri)),
        Event::Log(params) => {
            let (level, logger, data) = log_parts(&params);
            for session in server.live_sessions() {
                let _ = session
                    .peer()
                    .log(&level, logger.as_deref(), data.clone())
                    .await;
            }
        }
        Event::Ask {
            method,
            capability,
            params,
            reply,
        } => {
            let target = server.live_sessions().into_iter().find(|s| {
                s.negotiated()
                    .is_some_and(|n| n.peer_capabilities.get(capability).is_some())
            });
            match target {
                Some(session) => {
                    tokio::spawn(async move {
                        let answer = session
                            .peer()
                            .request(method, params, RequestOptions::default())
                            .await;
                        let _ = reply.send(answer);
                    });
                }
                None if method == "roots/list" => {
                    let _ = reply.send(Ok(json!({ "roots": Value::Array(Vec::new()) })));
                }
                None => {
                    let _ = reply.send(Err(McpError::invalid_request(format!(
                        "{method}: no client connected to the proxy declared {capability:?}"
                    ))));
                }
            }
        }
    }
}
