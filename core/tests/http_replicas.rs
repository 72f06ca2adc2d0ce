//! Several replicas of one server sharing a session store, an event store and an event bus (the
//! in-memory defaults, shared in one process), behind a round-robin proxy: any replica serves
//! any request of any session. Server-to-client requests, cancellations, resumed streams and
//! server-wide notifications cross replicas. With the `redis` feature each scenario runs again
//! with every replica on its own connections to a real `redis-server` started by the test
//! (`tests/run-redis.sh` runs the everything-server's processes and the conformance suite).
//! Per-request-era (2026-07-28) clients too: a `subscriptions/listen` stream gets the changes
//! raised on any replica, and a `requestState` is good for one use across the replicas; a task
//! of the tasks extension made on one replica is read, updated and cancelled on another, and so
//! is a 2025-11-25 task of a handshake session (read, waited for, listed, cancelled); a
//! listener on any replica gets `notifications/tasks` for a task another replica runs, in
//! order and once.

mod common_http;
mod common_modern;
mod common_replicas;
use common_http::*;
use common_modern::{answer, headers_for, meta, post_modern, request};
use common_replicas::*;

// The scenarios, one module a subject; each runs once a backend (the `scenarios!` below).
#[path = "http_replicas/listen_and_state.rs"]
mod listen_and_state;
#[path = "http_replicas/sessions.rs"]
mod sessions;
#[path = "http_replicas/store_behaviour.rs"]
mod store_behaviour;
#[path = "http_replicas/tasks.rs"]
mod tasks;
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::protocol::{
    CallToolResult, CreateMessageResult, ElicitAction, ElicitResult, Role, SamplingContent,
    TaskSupport, Tool,
};
use ferromcp::server::{tool_fn, InMemoryTaskStore, Server, MAX_LISTEN_TASK_IDS, TASKS_EXTENSION};
use ferromcp::session::{input_required, KeyRing, RequestOptions};
use ferromcp::transport::http::{
    serve_http, EventBus, EventStore, HttpClientOptions, HttpServerHandle, HttpServerOptions,
    InMemoryEventBus, InMemoryEventStore, InMemorySessionStore, SessionState, SessionStore,
    StoreFuture,
};
use listen_and_state::*;
use serde_json::{json, Map, Value};
use sessions::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tasks::*;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One replica: the demo server plus `ask` (forwards a request to the client), `slow`
/// (waits for its cancellation, reporting on `tx`) and `change` (raises a tools list change and
/// the resource updates of `uris` on its own replica).
fn replica_server(tx: mpsc::UnboundedSender<String>) -> Server {
    let s = demo_server();
    let me = s.clone();
    s.add_tool(
        Tool::new("change"),
        tool_fn(move |args, _ctx| {
            let me = me.clone();
            async move {
                me.add_tool(
                    Tool::new("extra"),
                    tool_fn(|_a, _c| async { Ok(CallToolResult::text("x")) }),
                )?;
                for uri in args["uris"].as_array().into_iter().flatten() {
                    me.notify_resource_updated(uri.as_str().unwrap_or_default());
                }
                Ok(CallToolResult::text("changed"))
            }
        }),
    )
    .unwrap();
    s.add_tool(
        Tool::new("ask"),
        tool_fn(|args, ctx| async move {
            let method = args["method"].as_str().unwrap_or_default().to_string();
            let v = ctx.request(&method, args.get("params").cloned()).await?;
            Ok(CallToolResult::text(v.to_string()))
        }),
    )
    .unwrap();
    s.add_tool(
        Tool::new("slow"),
        tool_fn(move |_args, ctx| {
            let tx = tx.clone();
            async move {
                let _ = tx.send("started".into());
                tokio::select! {
                    _ = ctx.cancellation().cancelled() => {
                        let _ = tx.send("cancelled".into());
                    }
                    _ = tokio::time::sleep(Duration::from_secs(20)) => {}
                }
                Ok(CallToolResult::text("slow done"))
            }
        }),
    )
    .unwrap();
    s
}

struct Replicas {
    servers: Vec<Server>,
    handles: Vec<Option<HttpServerHandle>>,
    addrs: Vec<String>,
    events: mpsc::UnboundedReceiver<String>,
    store: Arc<dyn SessionStore>,
}

/// Where the replicas keep what they share.
#[derive(Clone)]
enum Backend {
    Memory,
    #[cfg(feature = "redis")]
    Redis(String),
}

impl Replicas {
    async fn start(n: usize, backend: &Backend) -> Replicas {
        Self::start_with(n, backend, false, |_, tx| replica_server(tx)).await
    }

    /// `n` replicas of `make(i, tx)` (`tx` gets the tools' reports), stateless or not.
    async fn start_with(
        n: usize,
        backend: &Backend,
        stateless: bool,
        make: impl Fn(usize, mpsc::UnboundedSender<String>) -> Server,
    ) -> Replicas {
        let store = Arc::new(InMemorySessionStore::default());
        let events: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
        let bus: Arc<dyn EventBus> = Arc::new(InMemoryEventBus::default());
        let tasks = Arc::new(InMemoryTaskStore::default());
        let (tx, rx) = mpsc::unbounded_channel();
        let mut r = Replicas {
            servers: Vec::new(),
            handles: Vec::new(),
            addrs: Vec::new(),
            events: rx,
            store: match backend {
                Backend::Memory => store.clone(),
                #[cfg(feature = "redis")]
                Backend::Redis(url) => Arc::new(
                    ferromcp::transport::http::RedisStore::open(
                        url,
                        Duration::from_secs(60),
                        256,
                        Duration::from_secs(60),
                    )
                    .unwrap(),
                ),
            },
        };
        for i in 0..n {
            let server = make(i, tx.clone());
            let opts = match backend {
                Backend::Memory => HttpServerOptions::default()
                    .with_session_store(Some(store.clone()))
                    .with_event_store(Some(events.clone()))
                    .with_event_bus(Some(bus.clone()))
                    .with_task_store(Some(tasks.clone()))
                    .with_stateless(stateless),
                #[cfg(feature = "redis")]
                Backend::Redis(url) => HttpServerOptions::default()
                    .with_redis_url(Some(url.clone()))
                    .with_stateless(stateless),
            };
            let h = serve_http(server.clone(), "127.0.0.1:0", opts)
                .await
                .unwrap();
            r.addrs.push(h.local_addr().to_string());
            r.servers.push(server);
            r.handles.push(Some(h));
        }
        r
    }

    fn url(&self, i: usize) -> String {
        format!("http://{}/mcp", self.addrs[i])
    }

    async fn next_event(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(10), self.events.recv())
            .await
            .expect("a tool event within 10 s")
            .unwrap()
    }

    async fn shutdown(mut self) {
        for h in self.handles.iter_mut().filter_map(Option::take) {
            h.shutdown().await.unwrap();
        }
    }
}

fn client_handlers() -> ClientHandlers {
    ClientHandlers::default()
        .with_elicitation(Some(Arc::new(|_p, _ctx| {
            Box::pin(async {
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = Some(serde_json::from_value(json!({"name": "Ada"})).unwrap());
                Ok(r)
            })
        })))
        .with_sampling(Some(Arc::new(|_p, _ctx| {
            Box::pin(async {
                Ok({
                    let mut lit = CreateMessageResult::new(SamplingContent::text("sampled"), "m");
                    lit.role = Role::Assistant;
                    lit.stop_reason = Some("endTurn".into());
                    lit.meta = None;
                    lit.extra = Default::default();
                    lit
                })
            })
        })))
}

/// One test per scenario and backend.
macro_rules! scenarios {
    ($($name:ident),*) => {
        mod in_memory {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::Backend::Memory).await
            })*
        }
        #[cfg(feature = "redis")]
        mod on_redis {
            $(#[tokio::test]
            async fn $name() {
                let Some(redis) = super::common_replicas::redis_server().await else {
                    return;
                };
                super::$name(super::Backend::Redis(redis.url.clone())).await
            })*
        }
    };
}

scenarios!(
    every_request_of_a_session_goes_to_another_replica,
    cancellation_crosses_replicas,
    a_get_stream_resumes_on_another_replica_after_its_replica_is_killed,
    a_request_stream_resumes_on_another_replica,
    server_wide_notifications_reach_sessions_held_by_other_replicas_once,
    listen_streams_get_changes_raised_on_any_replica_once,
    request_state_is_single_use_across_replicas,
    extension_tasks_are_served_on_any_replica,
    handshake_tasks_are_served_on_any_replica,
    an_extension_task_expires_once_for_every_replica,
    task_status_reaches_a_listener_on_any_replica
);
