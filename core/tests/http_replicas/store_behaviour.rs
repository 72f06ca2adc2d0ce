//! The stores behind replicas, one test each: a Redis URL this build cannot use, a replica
//! dropping its idle copy of a session, session renewal, expiry on Redis, a task change in one
//! Redis round trip.

use super::*;

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
pub(super) struct CountingStore {
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
