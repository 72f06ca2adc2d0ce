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
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
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

async fn every_request_of_a_session_goes_to_another_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let r = Replicas::start(3, &backend).await;
        let p = proxy(r.addrs.clone()).await;
        let client = connect(
            &format!("{}/mcp", p.base),
            ClientOptions::new("c", "1"),
            client_handlers(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        for _ in 0..3 {
            let tools = client.list_all_tools().await.unwrap();
            assert!(tools.iter().any(|t| t.name == "ask"));
            let seen = Arc::new(std::sync::Mutex::new(0));
            let s2 = seen.clone();
            let opts = RequestOptions::default()
                .with_on_progress(Some(Arc::new(move |_| *s2.lock().unwrap() += 1)));
            let c = client
                .call_tool_with("count", json!({"steps": 3}), opts)
                .await
                .unwrap();
            assert_eq!(c.content[0].as_text(), Some("counted to 3"));
            assert_eq!(*seen.lock().unwrap(), 3);
            // The tool's request goes out on one replica; the client's answer comes in on
            // another, over the bus.
            let e = client
                .call_tool(
                    "ask",
                    json!({"method": "elicitation/create", "params": {
                        "message": "name?",
                        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
                    }}),
                )
                .await
                .unwrap();
            assert!(!e.is_error(), "{e:?}");
            assert!(e.content[0].as_text().unwrap().contains("Ada"));
            let s = client
                .call_tool(
                    "ask",
                    json!({"method": "sampling/createMessage", "params": {
                        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                        "maxTokens": 5
                    }}),
                )
                .await
                .unwrap();
            assert!(s.content[0].as_text().unwrap().contains("sampled"), "{s:?}");
            let res = client.read_resource("mem://greeting").await.unwrap();
            assert_eq!(
                serde_json::to_value(&res).unwrap()["contents"][0]["text"],
                "hello"
            );
        }
        for (i, h) in p.hits.iter().enumerate() {
            assert!(h.load(Ordering::Relaxed) >= 3, "replica {i} served too little");
        }
        // Each replica rebuilt the session from the store.
        let ids = r.store.ids().await.unwrap();
        assert_eq!(ids.len(), 1);
        for s in &r.servers {
            assert!(s
                .live_sessions()
                .iter()
                .any(|l| l.session_id() == Some(ids[0].as_str())));
        }
        client.close().await;
        r.shutdown().await;
    })
    .await
    .unwrap();
}

async fn cancellation_crosses_replicas(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start(2, &backend).await;
        let p = proxy(r.addrs.clone()).await;
        let client = connect(
            &format!("{}/mcp", p.base),
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        for _ in 0..2 {
            let token = CancellationToken::new();
            let call = client.call_tool_with(
                "slow",
                json!({}),
                RequestOptions::default().with_cancel(Some(token.clone())),
            );
            let (res, ()) = tokio::join!(call, async {
                assert_eq!(r.next_event().await, "started");
                token.cancel();
            });
            assert!(res.is_err());
            assert_eq!(r.next_event().await, "cancelled");
        }
        client.close().await;
        r.shutdown().await;
    })
    .await
    .unwrap();
}

/// The event ids of a notification stream: (id, i).
async fn next_note(s: &mut SseReader) -> (String, u64) {
    let e = s.next().await.expect("an event");
    let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
    (e.id.unwrap(), v["params"]["i"].as_u64().unwrap())
}

async fn notify(server: &Server, sid: &str, i: u64) {
    let s = server
        .live_sessions()
        .into_iter()
        .find(|s| s.session_id() == Some(sid))
        .expect("session live on this replica");
    s.peer()
        .notify("notifications/n", Some(json!({"i": i})))
        .await
        .unwrap();
}

async fn a_get_stream_resumes_on_another_replica_after_its_replica_is_killed(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start(2, &backend).await;
        let sid = init_session(&r.url(0)).await;
        let (status, mut get) = SseReader::get(&r.url(0), &sid, None).await;
        assert_eq!(status, 200);
        for i in 1..=4 {
            notify(&r.servers[0], &sid, i).await;
        }
        let (_, first) = next_note(&mut get).await;
        assert_eq!(first, 1);
        let (id2, second) = next_note(&mut get).await;
        assert_eq!(second, 2);
        // Replica 0 dies with events 3 and 4 sent but not read.
        r.handles[0].take().unwrap().shutdown().await.unwrap();
        drop(get);
        let (status, mut resumed) = SseReader::get(&r.url(1), &sid, Some(&id2)).await;
        assert_eq!(status, 200);
        assert_eq!(next_note(&mut resumed).await.1, 3);
        assert_eq!(next_note(&mut resumed).await.1, 4);
        // The stream goes on from the replica now holding it.
        notify(&r.servers[1], &sid, 5).await;
        let (id5, five) = next_note(&mut resumed).await;
        assert_eq!(five, 5);
        // And its ids stay resumable.
        drop(resumed);
        notify(&r.servers[1], &sid, 6).await;
        let (_, mut again) = SseReader::get(&r.url(1), &sid, Some(&id5)).await;
        assert_eq!(next_note(&mut again).await.1, 6);
        r.shutdown().await;
    })
    .await
    .unwrap();
}

async fn a_request_stream_resumes_on_another_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let r = Replicas::start(2, &backend).await;
        let sid = init_session(&r.url(0)).await;
        // `poll` closes its SSE stream at once and answers 300 ms later, on replica 0.
        let resp = post(&r.url(0), Some(&sid), call(7, "poll", json!({"ms": 300}))).await;
        assert_eq!(resp.status, 200);
        let priming = resp
            .body
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .expect("a priming event id")
            .to_string();
        assert!(resp.sse_messages().is_empty(), "{}", resp.body);
        // The client comes back on replica 1, before and after the answer exists.
        let (status, mut s) = SseReader::get(&r.url(1), &sid, Some(&priming)).await;
        assert_eq!(status, 200);
        let e = s.next().await.expect("the answer");
        let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["result"]["content"][0]["text"], "polled closed=true");
        assert!(s.next().await.is_none(), "the stream ends after the answer");
        let (_, mut late) = SseReader::get(&r.url(1), &sid, Some(&priming)).await;
        let e = late.next().await.expect("the answer, replayed");
        assert!(e.data.contains("polled closed=true"));
        assert!(late.next().await.is_none());
        r.shutdown().await;
    })
    .await
    .unwrap();
}

async fn server_wide_notifications_reach_sessions_held_by_other_replicas_once(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let r = Replicas::start(2, &backend).await;
        let sid = init_session(&r.url(0)).await;
        let sub = post(
            &r.url(1),
            Some(&sid),
            json!({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"mem://greeting"}}),
        )
        .await;
        assert_eq!(sub.status, 200, "{}", sub.body);
        let (status, mut get) = SseReader::get(&r.url(1), &sid, None).await;
        assert_eq!(status, 200);
        // Replica 0 learns of the change; the session's stream is on replica 1.
        tokio::time::sleep(Duration::from_millis(50)).await;
        r.servers[0].notify_resource_updated("mem://greeting");
        r.servers[0].notify_resource_updated("mem://other");
        r.servers[0]
            .add_tool(Tool::new("extra"), tool_fn(|_a, _c| async { Ok(CallToolResult::text("x")) }))
            .unwrap();
        let e = get.next().await.unwrap();
        assert!(e.data.contains("notifications/resources/updated"), "{}", e.data);
        assert!(e.data.contains("mem://greeting"));
        let e = get.next().await.unwrap();
        assert!(e.data.contains("notifications/tools/list_changed"), "{}", e.data);
        // Nothing else (no second copy of either).
        r.servers[1].notify_resource_updated("mem://greeting");
        let e = get.next().await.unwrap();
        assert!(e.data.contains("notifications/resources/updated"), "{}", e.data);
        let more = tokio::time::timeout(Duration::from_millis(300), get.next()).await;
        assert!(more.is_err(), "no duplicate: {more:?}");
        r.shutdown().await;
    })
    .await
    .unwrap();
}

/// Opens a per-request-era `subscriptions/listen` stream (subscription `id`) on `url` for
/// the tools list and resource `uri`; returns it once acknowledged.
async fn listen(url: &str, id: u64, uri: &str) -> SseReader {
    let body = request(
        id,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true, "resourceSubscriptions": [uri] } }),
    );
    let (status, mut s) = SseReader::post(url, &headers_for(&body), &body.to_string()).await;
    assert_eq!(status, 200);
    let ack = s.next().await.expect("an acknowledgement");
    let v: Value = serde_json::from_str(&ack.data).unwrap();
    assert_eq!(
        v["method"], "notifications/subscriptions/acknowledged",
        "{v}"
    );
    s
}

/// The next `n` notifications of listen stream `s` as (method, uri), sorted (they may come in
/// either order); each must carry subscription id `id`.
async fn changes(s: &mut SseReader, n: usize, id: u64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for _ in 0..n {
        let e = s.next().await.expect("a change notification");
        let v: Value = serde_json::from_str(&e.data).unwrap();
        assert_eq!(
            v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
            "{v}"
        );
        let uri = v["params"]["uri"].as_str().unwrap_or_default().to_string();
        out.push((v["method"].as_str().unwrap_or_default().to_string(), uri));
    }
    out.sort();
    out
}

async fn listen_streams_get_changes_raised_on_any_replica_once(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        for stateless in [false, true] {
            let r = Replicas::start_with(2, &backend, stateless, |_, tx| replica_server(tx)).await;
            let mut s = listen(&r.url(0), 7, "mem://greeting").await;
            let expected = vec![
                (
                    "notifications/resources/updated".to_string(),
                    "mem://greeting".to_string(),
                ),
                (
                    "notifications/tools/list_changed".to_string(),
                    String::new(),
                ),
            ];
            // Raised by a handler on replica 1 (the stream is on replica 0), then on replica 0.
            for (i, at) in [1, 0].into_iter().enumerate() {
                let body = request(
                    20 + i as u64,
                    "tools/call",
                    json!({ "name": "change",
                            "arguments": { "uris": ["mem://greeting", "mem://other"] } }),
                );
                let resp = post_modern(&r.url(at), &body).await;
                assert_eq!(
                    answer(&resp)["result"]["content"][0]["text"],
                    "changed",
                    "{}",
                    resp.body
                );
                assert_eq!(
                    changes(&mut s, 2, 7).await,
                    expected,
                    "stateless={stateless}, raised on replica {at}"
                );
                // No second copy, and nothing the subscription did not ask for (mem://other).
                let more = tokio::time::timeout(Duration::from_millis(300), s.next()).await;
                assert!(
                    more.is_err(),
                    "stateless={stateless}, raised on replica {at}: {more:?}"
                );
            }
            drop(s);
            r.shutdown().await;
        }
    })
    .await
    .unwrap();
}

/// A replica with `explicit` (answers `input_required` with the state `{"n": 42}`, then, given
/// the answer and the state, "{name} {n}"), sealing its `requestState` with `ring`.
fn state_server(ring: KeyRing) -> Server {
    Server::builder("replica-state", "1.0")
        .options(move |o| o.session.request_state_keys = ring)
        .tool_raw(
            Tool::new("explicit"),
            tool_fn(|_, ctx| async move {
                match (ctx.input_response("who"), ctx.request_state()) {
                    (Some(r), Some(s)) => Ok(CallToolResult::text(format!(
                        "{} {}",
                        r["content"]["name"].as_str().unwrap_or("?"),
                        s["n"]
                    ))),
                    _ => {
                        let mut ask = Map::new();
                        ask.insert(
                            "who".into(),
                            json!({ "method": "elicitation/create", "params": {
                                "message": "name?", "requestedSchema": { "type": "object" } } }),
                        );
                        Err(input_required(ask, Some(json!({ "n": 42 }))))
                    }
                }
            }),
        )
        .build()
        .unwrap()
}

async fn request_state_is_single_use_across_replicas(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let keys = vec![("k1".to_string(), vec![9u8; 32])];
        let one_process = matches!(backend, Backend::Memory);
        let shared = KeyRing::new(keys.clone()).unwrap();
        // In one process (the in-memory stores) the replicas share one ring and its memory of
        // the tokens opened; in separate processes (Redis) each has its own ring (same keys).
        let r = Replicas::start_with(2, &backend, false, |_, _| {
            state_server(match one_process {
                true => shared.clone(),
                false => KeyRing::new(keys.clone()).unwrap(),
            })
        })
        .await;
        let call = |id: u64, retry: Option<&str>| {
            let mut params = json!({ "name": "explicit", "arguments": {},
                                     "_meta": meta(json!({ "elicitation": {} })) });
            if let Some(state) = retry {
                params["inputResponses"] =
                    json!({ "who": { "action": "accept", "content": { "name": "Ada" } } });
                params["requestState"] = json!(state);
            }
            request(id, "tools/call", params)
        };
        // (made on, answered on): the state is valid on any replica that has the keys.
        for (made, answered) in [(0, 0), (1, 0), (0, 1)] {
            let first = post_modern(&r.url(made), &call(1, None)).await;
            let state = answer(&first)["result"]["requestState"]
                .as_str()
                .unwrap_or_else(|| panic!("a requestState: {}", first.body))
                .to_string();
            let ok = post_modern(&r.url(answered), &call(2, Some(&state))).await;
            assert_eq!(
                answer(&ok)["result"]["content"][0]["text"],
                "Ada 42",
                "{}",
                ok.body
            );
            // Replayed on the other replica, then on the one that answered: the same refusal.
            let mut refusals = Vec::new();
            for at in [1 - answered, answered] {
                let again = post_modern(&r.url(at), &call(3, Some(&state))).await;
                let e = answer(&again)["error"].clone();
                assert_eq!(e["code"], -32602, "replica {at}: {}", again.body);
                assert_eq!(
                    e["data"]["reason"], "replayed",
                    "replica {at}: {}",
                    again.body
                );
                refusals.push((again.status, e));
            }
            assert_eq!(refusals[0], refusals[1]);
        }
        r.shutdown().await;
    })
    .await
    .unwrap();
}

/// A replica declaring the tasks extension, with `two` (asks for inputs `a` and `b` inside its
/// task, answers "{a} and {b}"), `later` (answers "later" after 200 ms) and `slow` (reports
/// "started" on `tx`, then "cancelled" when it sees its cancellation).
fn task_server(tx: mpsc::UnboundedSender<String>) -> Server {
    task_server_with(tx, Duration::from_secs(300))
}

/// [`task_server`] whose tasks live `ttl`.
fn task_server_with(tx: mpsc::UnboundedSender<String>, ttl: Duration) -> Server {
    let task_tool = |name: &str| Tool::new(name).with_task_support(TaskSupport::Optional);
    let elicit = |message: &str| {
        json!({ "method": "elicitation/create", "params": { "message": message,
            "requestedSchema": { "type": "object" } } })
    };
    Server::builder("replica-tasks", "1.0")
        .options(move |o| {
            o.tasks_extension = true;
            o.tasks.default_ttl = ttl;
            o.tasks.poll_interval = Duration::from_millis(20);
        })
        .tool_raw(
            task_tool("two"),
            tool_fn(move |_, ctx| async move {
                let mut asked = Map::new();
                asked.insert("a".into(), elicit("A?"));
                asked.insert("b".into(), elicit("B?"));
                let got = ctx.input(asked).await?;
                let name = |k: &str| {
                    got[k]["content"]["name"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string()
                };
                Ok(CallToolResult::text(format!(
                    "{} and {}",
                    name("a"),
                    name("b")
                )))
            }),
        )
        .tool_raw(
            task_tool("later"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(CallToolResult::text("later"))
            }),
        )
        .tool_raw(
            task_tool("slow"),
            tool_fn(move |_, ctx| {
                let tx = tx.clone();
                async move {
                    let _ = tx.send("started".into());
                    tokio::select! {
                        _ = ctx.cancellation().cancelled() => {
                            let _ = tx.send("cancelled".into());
                            Err(ferromcp::McpError::cancelled(None))
                        }
                        _ = tokio::time::sleep(Duration::from_secs(20)) => {
                            Ok(CallToolResult::text("slow done"))
                        }
                    }
                }
            }),
        )
        .build()
        .unwrap()
}

/// `method` with `params` from a client declaring the tasks extension, on `url`: the answer.
async fn task_rpc(url: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } }));
    let r = post_modern(url, &request(1, method, params)).await;
    let a = answer(&r);
    assert!(a.is_object(), "{method} on {url}: {} {}", r.status, r.body);
    a
}

/// `tasks/get` of `id` on `url`: the task.
async fn task_get(url: &str, id: &str) -> Value {
    let a = task_rpc(url, "tasks/get", json!({ "taskId": id })).await;
    assert!(a["result"].is_object(), "tasks/get on {url}: {a}");
    a["result"].clone()
}

/// Polls `tasks/get` on `url` until `done(task)` (5 s at most).
async fn task_until(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..250 {
        let t = task_get(url, id).await;
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} on {url}: {}", task_get(url, id).await);
}

fn outstanding(task: &Value) -> Vec<String> {
    task["inputRequests"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

async fn extension_tasks_are_served_on_any_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        for stateless in [false, true] {
            let mut r = Replicas::start_with(2, &backend, stateless, |_, tx| task_server(tx)).await;
            let (a, b) = (r.url(0), r.url(1));
            let made = task_rpc(&a, "tools/call", json!({ "name": "two", "arguments": {} })).await;
            assert_eq!(made["result"]["resultType"], "task", "{made}");
            let id = made["result"]["taskId"].as_str().unwrap().to_string();

            // Read on B: the inputs A's handler waits for.
            let waiting = task_until(&b, &id, |t| t["status"] == "input_required").await;
            assert_eq!(outstanding(&waiting), ["a", "b"], "{waiting}");
            assert_eq!(
                waiting["inputRequests"]["a"]["method"],
                "elicitation/create"
            );

            // Updated on B, one input at a time: the answered one is gone on both replicas at
            // once on B, as soon as A has it on A.
            let update = |key: &str, name: &str| {
                json!({ "taskId": id, "inputResponses":
                        { key: { "action": "accept", "content": { "name": name } } } })
            };
            let ack = task_rpc(&b, "tasks/update", update("a", "one")).await;
            assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
            let on_b = task_get(&b, &id).await;
            assert_eq!(on_b["status"], "input_required", "{on_b}");
            assert_eq!(outstanding(&on_b), ["b"], "{on_b}");
            let on_a = task_until(&a, &id, |t| outstanding(t) == ["b"]).await;
            assert_eq!(on_a["status"], "input_required", "{on_a}");
            task_rpc(&b, "tasks/update", update("b", "two")).await;
            for url in [&b, &a] {
                let done = task_until(url, &id, |t| t["status"] == "completed").await;
                assert_eq!(
                    done["result"]["content"][0]["text"], "one and two",
                    "{done}"
                );
                assert!(done.get("inputRequests").is_none(), "{done}");
            }

            // Made on B, cancelled on A: B's handler stops, and both replicas say cancelled.
            let made = task_rpc(&b, "tools/call", json!({ "name": "slow", "arguments": {} })).await;
            let id = made["result"]["taskId"].as_str().unwrap().to_string();
            assert_eq!(r.next_event().await, "started");
            assert_eq!(task_get(&a, &id).await["status"], "working");
            let ack = task_rpc(&a, "tasks/cancel", json!({ "taskId": id })).await;
            assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
            assert_eq!(task_get(&a, &id).await["status"], "cancelled");
            assert_eq!(r.next_event().await, "cancelled");
            for url in [&a, &b] {
                let t = task_get(url, &id).await;
                assert_eq!(t["status"], "cancelled", "{t}");
                assert!(t.get("result").is_none() && t.get("error").is_none(), "{t}");
            }
            // Cancelling again, on either replica, is acknowledged and changes nothing.
            for url in [&b, &a] {
                let again = task_rpc(url, "tasks/cancel", json!({ "taskId": id })).await;
                assert_eq!(again["result"]["resultType"], "complete", "{again}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            assert_eq!(task_get(&b, &id).await["status"], "cancelled");

            // A task no replica made is unknown on both.
            for url in [&a, &b] {
                let e = task_rpc(url, "tasks/get", json!({ "taskId": "no-such-task" })).await;
                assert_eq!(e["error"]["code"], -32602, "{e}");
            }
            r.shutdown().await;
        }
    })
    .await
    .unwrap();
}

async fn an_extension_task_expires_once_for_every_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start_with(2, &backend, false, |_, tx| {
            task_server_with(tx, Duration::from_millis(400))
        })
        .await;
        let (a, b) = (r.url(0), r.url(1));
        // Made on A, seen on B; once past its time to live, A stops its handler and the first
        // replica asked (B) says it expired; then it is unknown on both.
        let made = task_rpc(&a, "tools/call", json!({ "name": "slow", "arguments": {} })).await;
        let id = made["result"]["taskId"].as_str().unwrap().to_string();
        assert_eq!(r.next_event().await, "started");
        assert_eq!(task_get(&b, &id).await["status"], "working");
        assert_eq!(r.next_event().await, "cancelled");
        let gone = |url: String, why: &'static str| {
            let id = id.clone();
            async move {
                let e = task_rpc(&url, "tasks/get", json!({ "taskId": id })).await;
                assert_eq!(e["error"]["code"], -32602, "{e}");
                assert_eq!(
                    e["error"]["message"],
                    format!("Failed to retrieve task: {why}"),
                    "{e}"
                );
            }
        };
        gone(b.clone(), "Task has expired").await;
        gone(a.clone(), "Task not found").await;
        gone(b.clone(), "Task not found").await;
        r.shutdown().await;
    })
    .await
    .unwrap();
}

/// Opens `subscriptions/listen` (subscription `id`) on `url` for `task_ids`, declaring the
/// tasks extension; returns the stream and the task ids its acknowledgement agreed to.
async fn listen_tasks(url: &str, id: u64, task_ids: Value) -> (SseReader, Value) {
    let body = request(
        id,
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": task_ids },
                "_meta": meta(json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } })) }),
    );
    let (status, mut s) = SseReader::post(url, &headers_for(&body), &body.to_string()).await;
    assert_eq!(status, 200);
    let ack: Value =
        serde_json::from_str(&s.next().await.expect("an acknowledgement").data).unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
        "{ack}"
    );
    (s, ack["params"]["notifications"]["taskIds"].clone())
}

/// The next `notifications/tasks` of `s` (subscription `id`): the task as sent (without
/// `_meta`).
async fn task_note(s: &mut SseReader, id: u64) -> Value {
    let e = s.next().await.expect("a notifications/tasks");
    let mut v: Value = serde_json::from_str(&e.data).unwrap();
    assert_eq!(v["method"], "notifications/tasks", "{v}");
    assert_eq!(
        v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
        "{v}"
    );
    v["params"].as_object_mut().unwrap().remove("_meta");
    v["params"].take()
}

/// `t` as a `notifications/tasks` carries it (what `tasks/get` answered, without the result's
/// own fields).
fn as_noted(mut t: Value) -> Value {
    for k in ["resultType", "_meta"] {
        t.as_object_mut().unwrap().remove(k);
    }
    t
}

/// Asserts that `s` sends nothing more within 300 ms.
async fn nothing_more(s: &mut SseReader, what: &str) {
    let more = tokio::time::timeout(Duration::from_millis(300), s.next()).await;
    assert!(more.is_err(), "{what}: {more:?}");
}

async fn task_status_reaches_a_listener_on_any_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        for stateless in [false, true] {
            let mut r = Replicas::start_with(2, &backend, stateless, |_, tx| task_server(tx)).await;
            let (a, b) = (r.url(0), r.url(1));
            let made = task_rpc(&a, "tools/call", json!({ "name": "two", "arguments": {} })).await;
            let id = made["result"]["taskId"].as_str().unwrap().to_string();
            let waiting = task_until(&b, &id, |t| t["status"] == "input_required").await;

            // Run by A, listened to on B: acknowledged (an id no replica knows is left out),
            // its state at subscription time first.
            let (mut s, agreed) = listen_tasks(&b, 41, json!([id, "no-such-task", id])).await;
            assert_eq!(agreed, json!([id]), "stateless={stateless}");
            assert_eq!(task_note(&mut s, 41).await, as_noted(waiting));

            // Answered on A (the running replica), then on B: every change, in order, once, up
            // to the terminal state, each what tasks/get answered then.
            let update = |key: &str, name: &str| {
                json!({ "taskId": id, "inputResponses":
                        { key: { "action": "accept", "content": { "name": name } } } })
            };
            task_rpc(&a, "tasks/update", update("a", "one")).await;
            let n = task_note(&mut s, 41).await;
            assert_eq!(n["status"], "input_required", "{n}");
            assert_eq!(outstanding(&n), ["b"], "{n}");
            task_rpc(&b, "tasks/update", update("b", "two")).await;
            let mut seen = vec![n];
            while !["completed", "failed", "cancelled"]
                .contains(&seen.last().unwrap()["status"].as_str().unwrap())
            {
                seen.push(task_note(&mut s, 41).await);
            }
            let last = seen.last().unwrap();
            assert_eq!(last["status"], "completed", "{seen:?}");
            assert_eq!(
                last["result"]["content"][0]["text"], "one and two",
                "{last}"
            );
            assert_eq!(*last, as_noted(task_get(&a, &id).await));
            for w in seen.windows(2) {
                assert_ne!(w[0], w[1], "no state twice: {seen:?}");
                assert!(
                    w[0]["lastUpdatedAt"].as_str() <= w[1]["lastUpdatedAt"].as_str(),
                    "in order: {seen:?}"
                );
            }
            // At most: input_required [b], working (B's write), working or the result (A's).
            assert!(seen.len() <= 4, "{seen:?}");
            nothing_more(&mut s, "after the terminal state").await;
            drop(s);

            // Made on A, listened to on B, cancelled on B (which does not run it): the listener
            // gets working, then cancelled once; A's handler stops.
            let made = task_rpc(&a, "tools/call", json!({ "name": "slow", "arguments": {} })).await;
            let id = made["result"]["taskId"].as_str().unwrap().to_string();
            assert_eq!(r.next_event().await, "started");
            let (mut s, agreed) = listen_tasks(&b, 42, json!([id])).await;
            assert_eq!(agreed, json!([id]));
            assert_eq!(task_note(&mut s, 42).await["status"], "working");
            task_rpc(&b, "tasks/cancel", json!({ "taskId": id })).await;
            let n = task_note(&mut s, 42).await;
            assert_eq!(n["status"], "cancelled", "{n}");
            assert_eq!(r.next_event().await, "cancelled");
            nothing_more(&mut s, "after cancelled").await;
            drop(s);

            // A listener on A (the running replica) for a task that ended: its terminal state,
            // once.
            let (mut s, _) = listen_tasks(&a, 43, json!([id])).await;
            assert_eq!(task_note(&mut s, 43).await, n);
            nothing_more(&mut s, "an ended task").await;
            drop(s);

            // Thousands of ids: refused, saying the limit.
            let many: Vec<String> = (0..5000).map(|i| format!("t{i}")).collect();
            let e = task_rpc(
                &b,
                "subscriptions/listen",
                json!({ "notifications": { "taskIds": many } }),
            )
            .await;
            assert_eq!(e["error"]["code"], -32602, "{e}");
            assert_eq!(e["error"]["data"]["reason"], "tooManyTaskIds", "{e}");
            assert_eq!(e["error"]["data"]["limit"], MAX_LISTEN_TASK_IDS, "{e}");
            r.shutdown().await;
        }
    })
    .await
    .unwrap();
}

/// `method` with `params` in session `sid` on `url` (a 2025-11-25 handshake session): the answer.
async fn session_rpc(url: &str, sid: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    let r = post(url, Some(sid), body).await;
    let a = answer(&r);
    assert!(a.is_object(), "{method} on {url}: {} {}", r.status, r.body);
    a
}

async fn handshake_tasks_are_served_on_any_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start_with(2, &backend, false, |_, tx| task_server(tx)).await;
        let (a, b) = (r.url(0), r.url(1));
        let sid = init_session(&a).await;
        let task = json!({ "ttl": 60_000 });

        // Made on A; read, waited for and listed on B.
        let made = session_rpc(
            &a,
            &sid,
            "tools/call",
            json!({ "name": "later", "arguments": {}, "task": task }),
        )
        .await;
        let id = made["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{made}"))
            .to_string();
        let got = session_rpc(&b, &sid, "tasks/get", json!({ "taskId": id })).await;
        assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
        let result = session_rpc(&b, &sid, "tasks/result", json!({ "taskId": id })).await;
        assert_eq!(result["result"]["content"][0]["text"], "later", "{result}");
        assert_eq!(
            result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str(),
            "{result}"
        );
        let got = session_rpc(&b, &sid, "tasks/get", json!({ "taskId": id })).await;
        assert_eq!(got["result"]["status"], "completed", "{got}");
        let listed = session_rpc(&b, &sid, "tasks/list", json!({})).await;
        let tasks = listed["result"]["tasks"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"));
        assert_eq!(tasks.len(), 1, "{listed}");
        assert_eq!(tasks[0]["status"], "completed", "{listed}");

        // Made on B, cancelled on A: B's handler stops; both replicas say cancelled.
        let made = session_rpc(
            &b,
            &sid,
            "tools/call",
            json!({ "name": "slow", "arguments": {}, "task": task }),
        )
        .await;
        let id2 = made["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{made}"))
            .to_string();
        assert_eq!(r.next_event().await, "started");
        let cancelled = session_rpc(&a, &sid, "tasks/cancel", json!({ "taskId": id2 })).await;
        assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
        assert_eq!(r.next_event().await, "cancelled");
        for url in [&a, &b] {
            let got = session_rpc(url, &sid, "tasks/get", json!({ "taskId": id2 })).await;
            assert_eq!(got["result"]["status"], "cancelled", "{got}");
        }
        let again = session_rpc(&b, &sid, "tasks/cancel", json!({ "taskId": id2 })).await;
        assert_eq!(again["error"]["code"], -32602, "{again}");
        let listed = session_rpc(&a, &sid, "tasks/list", json!({})).await;
        assert_eq!(
            listed["result"]["tasks"].as_array().map(Vec::len),
            Some(2),
            "{listed}"
        );

        // Another session sees none of them, on either replica.
        let other = init_session(&b).await;
        for url in [&a, &b] {
            let got = session_rpc(url, &other, "tasks/get", json!({ "taskId": id })).await;
            assert_eq!(got["error"]["code"], -32602, "{got}");
            let listed = session_rpc(url, &other, "tasks/list", json!({})).await;
            assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
        }
        r.shutdown().await;
    })
    .await
    .unwrap();
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

#[tokio::test]
async fn a_redis_url_this_build_cannot_use_is_refused_at_start() {
    // Without the feature any URL is refused; with it, one that is not a Redis URL.
    let url = if cfg!(feature = "redis") {
        "http://not-redis"
    } else {
        "redis://127.0.0.1:6379"
    };
    let started = serve_http(
        demo_server(),
        "127.0.0.1:0",
        HttpServerOptions::default().with_redis_url(Some(url.into())),
    )
    .await;
    let Err(err) = started else {
        panic!("a server started with redis_url {url}");
    };
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
}

#[tokio::test]
async fn a_replica_dropping_its_idle_copy_leaves_the_session_to_the_others() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let store: Arc<dyn SessionStore> = Arc::new(InMemorySessionStore::default());
        let events: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
        let bus: Arc<dyn EventBus> = Arc::new(InMemoryEventBus::default());
        let mut handles = Vec::new();
        let mut urls = Vec::new();
        // Replica 0 drops copies idle for 150 ms; replica 1 keeps them.
        for idle in [Duration::from_millis(150), Duration::from_secs(600)] {
            let h = serve_http(
                demo_server(),
                "127.0.0.1:0",
                HttpServerOptions::default()
                    .with_session_store(Some(store.clone()))
                    .with_event_store(Some(events.clone()))
                    .with_event_bus(Some(bus.clone()))
                    .with_session_idle_timeout(idle),
            )
            .await
            .unwrap();
            urls.push(h.url("/mcp"));
            handles.push(h);
        }
        let sid = init_session(&urls[0]).await;
        for i in 0..8 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let r = post(
                &urls[1],
                Some(&sid),
                call(10 + i, "count", json!({"steps": 1})),
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.body);
        }
        // Replica 0's copy went idle long ago; the session is still there, on both.
        assert_eq!(store.ids().await.unwrap(), vec![sid.clone()]);
        let r = post(&urls[0], Some(&sid), call(30, "count", json!({"steps": 1}))).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.body.contains("counted to 1"));
        for h in handles {
            h.shutdown().await.unwrap();
        }
    })
    .await
    .unwrap();
}

/// The in-memory session store, counting the renewals (`touch`) the replicas ask of it.
#[derive(Default)]
struct CountingStore {
    inner: InMemorySessionStore,
    touches: AtomicUsize,
}

impl SessionStore for CountingStore {
    fn put(&self, id: String, state: SessionState) -> StoreFuture<()> {
        self.inner.put(id, state)
    }
    fn get(&self, id: String) -> StoreFuture<Option<SessionState>> {
        self.inner.get(id)
    }
    fn touch(&self, id: String) -> StoreFuture<bool> {
        self.touches.fetch_add(1, Ordering::SeqCst);
        self.inner.touch(id)
    }
    fn remove(&self, id: String) -> StoreFuture<bool> {
        self.inner.remove(id)
    }
    fn ids(&self) -> StoreFuture<Vec<String>> {
        self.inner.ids()
    }
}

/// Each replica's copy of a session renews it in the store at most once per tenth of the idle
/// timeout (not on every request); a DELETE on one replica reaches the other's copy by the bus.
#[tokio::test]
async fn a_session_is_renewed_at_most_once_per_interval_on_each_replica() {
    tokio::time::timeout(Duration::from_secs(30), async {
        let store = Arc::new(CountingStore::default());
        let events: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
        let bus: Arc<dyn EventBus> = Arc::new(InMemoryEventBus::default());
        let mut handles = Vec::new();
        let mut urls = Vec::new();
        for _ in 0..2 {
            let h = serve_http(
                demo_server(),
                "127.0.0.1:0",
                HttpServerOptions::default()
                    .with_session_store(Some(store.clone()))
                    .with_event_store(Some(events.clone()))
                    .with_event_bus(Some(bus.clone()))
                    .with_session_idle_timeout(Duration::from_secs(15)),
            )
            .await
            .unwrap();
            urls.push(h.url("/mcp"));
            handles.push(h);
        }
        let touches = || store.touches.load(Ordering::SeqCst);
        let sid = init_session(&urls[0]).await;
        let calls = |from: u64| {
            let (urls, sid) = (urls.clone(), sid.clone());
            async move {
                for (i, url) in urls.iter().enumerate() {
                    let r = post(
                        url,
                        Some(&sid),
                        call(from + i as u64, "count", json!({"steps": 1})),
                    )
                    .await;
                    assert_eq!(r.status, 200, "{}", r.body);
                }
            }
        };
        // Every replica's copy is new (made by initialize, or read from the store): no renewal.
        let started = std::time::Instant::now();
        for round in 0..10 {
            calls(10 + 2 * round).await;
        }
        if started.elapsed() < Duration::from_millis(1500) {
            assert_eq!(touches(), 0, "20 calls within the interval");
        }
        // Once the interval has passed, the next request on each replica renews, once.
        tokio::time::sleep(Duration::from_millis(1600)).await;
        let before = touches();
        let started = std::time::Instant::now();
        calls(40).await;
        calls(42).await;
        if started.elapsed() < Duration::from_millis(1500) {
            assert_eq!(touches() - before, 2, "one renewal per replica");
        }
        // Deleted on replica 0: replica 1 drops its copy when the bus says so (no renewal due).
        let d = send("DELETE", &urls[0], &[("mcp-session-id", &sid)], "").await;
        assert_eq!(d.status, 200, "{}", d.body);
        let mut gone = false;
        for _ in 0..50 {
            let r = post(&urls[1], Some(&sid), call(50, "count", json!({"steps": 1}))).await;
            if r.status == 404 {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(gone, "the session outlived its deletion on replica 1");
        for h in handles {
            h.shutdown().await.unwrap();
        }
    })
    .await
    .unwrap();
}

/// On Redis, a session used on both replicas stays (its time to live renewed, at most once per
/// interval) well past its idle timeout, and expires once left idle for the timeout.
#[cfg(feature = "redis")]
#[tokio::test]
async fn on_redis_a_used_session_stays_and_an_idle_one_expires() {
    let Some(redis) = common_replicas::redis_server().await else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(30), async {
        let mut handles = Vec::new();
        let mut urls = Vec::new();
        for _ in 0..2 {
            let h = serve_http(
                demo_server(),
                "127.0.0.1:0",
                HttpServerOptions::default()
                    .with_redis_url(Some(redis.url.clone()))
                    .with_session_idle_timeout(Duration::from_millis(1000)),
            )
            .await
            .unwrap();
            urls.push(h.url("/mcp"));
            handles.push(h);
        }
        let sid = init_session(&urls[0]).await;
        // 2.5 s of requests every 250 ms, alternating replicas: more than twice the timeout.
        for i in 0..10u64 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let url = &urls[i as usize % 2];
            let r = post(url, Some(&sid), call(10 + i, "count", json!({"steps": 1}))).await;
            assert_eq!(r.status, 200, "request {i}: {}", r.body);
        }
        // Left idle for longer than the timeout: gone on both replicas.
        tokio::time::sleep(Duration::from_millis(1300)).await;
        for (i, url) in urls.iter().enumerate() {
            let r = post(url, Some(&sid), call(30, "count", json!({"steps": 1}))).await;
            assert_eq!(r.status, 404, "replica {i}: {}", r.body);
        }
        for h in handles {
            h.shutdown().await.unwrap();
        }
    })
    .await
    .unwrap();
}

/// On Redis a task's change is one round trip: the script writing the state (with the next
/// revision) publishes it on the bus, from the second state on; an ended task is not written
/// again.
#[cfg(feature = "redis")]
#[tokio::test]
async fn on_redis_a_task_change_is_written_and_announced_in_one_round_trip() {
    use ferromcp::server::{StoredTask, TaskStore};
    use ferromcp::transport::http::{BusMessage, RedisStore};
    let Some(redis) = redis_server().await else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(30), async {
        let store = RedisStore::open(
            &redis.url,
            Duration::from_secs(60),
            256,
            Duration::from_secs(60),
        )
        .unwrap();
        store.connect().await.unwrap();
        let mut rx = EventBus::subscribe(&store, "watcher");
        // Listening once a message from another replica gets through.
        let probe = BusMessage::SessionClosed {
            session: "probe".into(),
        };
        loop {
            store.publish("other", probe.clone()).await.unwrap();
            let got = tokio::time::timeout(Duration::from_millis(100), rx.recv()).await;
            if let Ok(Some(m)) = got {
                assert_eq!(m, probe);
                break;
            }
        }
        while let Ok(Some(_)) = tokio::time::timeout(Duration::from_millis(50), rx.recv()).await {}
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let state = |status: &str| {
            StoredTask::new(json!({ "taskId": "t1", "status": status }), now + 60_000)
        };
        let before = store.round_trips();
        for (i, status) in ["working", "input_required", "completed"]
            .iter()
            .enumerate()
        {
            assert_eq!(
                TaskStore::put(&store, state(status)).await.unwrap(),
                Some(i as u64 + 1)
            );
        }
        assert_eq!(store.round_trips() - before, 3, "one round trip per state");
        for (revision, status) in [(2, "input_required"), (3, "completed")] {
            let m = tokio::time::timeout(Duration::from_secs(5), rx.recv())
                .await
                .unwrap()
                .unwrap();
            let BusMessage::TaskState { revision: r, task } = m else {
                panic!("{m:?}");
            };
            assert_eq!(r, revision);
            let t: StoredTask = serde_json::from_str(&task).unwrap();
            assert_eq!(t.task, state(status).task);
        }
        assert_eq!(
            TaskStore::put(&store, state("working")).await.unwrap(),
            None
        );
        let got = TaskStore::get(&store, "t1".into()).await.unwrap().unwrap();
        assert_eq!((got.revision, got.task), (3, state("completed").task));
        let more = tokio::time::timeout(Duration::from_millis(200), rx.recv()).await;
        assert!(
            more.is_err(),
            "the first state and a refused one are not announced: {more:?}"
        );
    })
    .await
    .unwrap();
}
