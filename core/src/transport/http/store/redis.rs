//! [`RedisStore`]: the session store, event store and event bus on Redis or Valkey, so that
//! replicas in different processes or machines serve each other's sessions.
//!
//! Layout (every key under a prefix, `ferromcp:` by default):
//! - `{prefix}s:{session}`: the session's [`SessionState`] as JSON, expiring after the idle
//!   timeout (renewed by every request: [`SessionStore::touch`]);
//! - `{prefix}e:{stream}`: a Redis stream per SSE stream, one entry per event (`seq`, `data`),
//!   capped with `MAXLEN ~` and expiring after the event TTL;
//! - `{prefix}k:{session}`: the set of a session's stream keys, so they can be removed at once;
//! - `{prefix}bus`: the pub/sub channel of the [`EventBus`];
//! - `{prefix}r:{replica}`: present while replica `replica` runs (renewed every second, gone
//!   [`super::LIVENESS_TTL`] after it stopped: [`EventBus::is_alive`]);
//! - `{prefix}u:{token}`: a 2026-07-28 `requestState` token opened by some replica
//!   ([`ReplayStore`]), set only if absent and expiring with the token;
//! - `{prefix}t:{task}`: a task of the tasks extension ([`TaskStore`]), a hash of its
//!   [`StoredTask`] as JSON (`json`), whether it ended (`terminal`) and its revision (`rev`),
//!   written by a script that leaves an ended task as it is, expiring [`EXPIRED_TASK_GRACE`]
//!   after the task. The same script publishes each later state of an extension task on the
//!   bus channel (`notifications/tasks` on every replica): one round trip per task change.
//!
//! Each operation is one round trip (several commands go in one pipeline); the store counts
//! them ([`RedisStore::round_trips`]) for the benchmark, and with the `otel` feature
//! `Telemetry::observe_redis` records each by what it was for and how it ended.
//!
//! Redis is a dependency that fails fast and loudly: every round trip gives up after
//! [`COMMAND_TIMEOUT`] (a stopped, frozen or unreachable Redis costs a request seconds, and the
//! HTTP layer answers it 503 with its id), the connection is re-made in the background, and
//! what the bus could not publish during an outage waits in a bounded backlog
//! ([`BUS_BACKLOG`] messages; what overflows is dropped and counted) that is published, in
//! order, once Redis answers again.

use super::{
    BusMessage, BusReceiver, EventBus, EventStore, SessionState, SessionStore, StoreError,
    StoreFuture,
};
use crate::server::{StoredTask, TaskStore, EXPIRED_TASK_GRACE};
use crate::session::ReplayStore;
use crate::McpError;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long one round trip to Redis may take, connecting included.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);
/// Most bus messages kept while Redis cannot take them.
pub const BUS_BACKLOG: usize = 10_000;
/// After Redis answers again, how long the backlog waits before it is published: the other
/// replicas' subscriptions, re-made every 500 ms while Redis is away, must be back first
/// (a pub/sub message reaches only those subscribed when it is published).
const BACKLOG_SETTLE: Duration = Duration::from_millis(1500);
use tokio::sync::{mpsc, OnceCell};

/// The session store, event store and event bus of replicas sharing one Redis (or Valkey).
/// Cheap to clone; connects on first use (or with [`RedisStore::connect`]).
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    prefix: String,
    per_stream: usize,
    event_ttl: Duration,
    session_ttl: Duration,
    round_trips: AtomicU64,
    /// Bus messages (as published JSON) waiting for Redis to answer again.
    backlog: Mutex<Backlog>,
}

/// The bus messages an outage held back.
#[derive(Default)]
struct Backlog {
    queue: VecDeque<String>,
    /// Messages dropped because the backlog was full, since the store was opened.
    dropped: u64,
    /// Whether a task is publishing the backlog (waiting for Redis).
    flushing: bool,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.inner.prefix)
            .finish_non_exhaustive()
    }
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("redis: {e}"))
}

impl RedisStore {
    /// A store on the Redis at `url` (`redis://[user:password@]host:port[/db]`, or `rediss://`
    /// for TLS where the build supports it): sessions expire after `session_ttl` without use,
    /// each SSE stream keeps its last `per_stream` events for `event_ttl`.
    pub fn open(
        url: &str,
        session_ttl: Duration,
        per_stream: usize,
        event_ttl: Duration,
    ) -> Result<RedisStore, StoreError> {
        let client = redis::Client::open(url).map_err(err)?;
        Ok(RedisStore {
            inner: Arc::new(Inner {
                client,
                conn: OnceCell::new(),
                prefix: "ferromcp:".into(),
                per_stream: per_stream.max(1),
                event_ttl,
                session_ttl,
                round_trips: AtomicU64::new(0),
                backlog: Mutex::default(),
            }),
        })
    }

    /// Connects now (a server checks its Redis when it starts).
    pub async fn connect(&self) -> Result<(), StoreError> {
        self.inner.conn().await.map(|_| ())
    }

    /// Round trips to Redis so far (commands and pipelines sent).
    pub fn round_trips(&self) -> u64 {
        self.inner.round_trips.load(Ordering::Relaxed)
    }

    /// Bus messages waiting for Redis to answer again (published once it does).
    pub fn bus_backlog(&self) -> usize {
        self.inner.backlog().queue.len()
    }

    /// Bus messages dropped because an outage outlasted the backlog (10 000 messages).
    pub fn bus_dropped(&self) -> u64 {
        self.inner.backlog().dropped
    }

    /// Whether Redis answers a `PING` now (within 2 seconds, the timeout of every command).
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut p = redis::pipe();
        p.cmd("PING").ignore();
        self.inner.query::<()>("ping", &p).await
    }
}

impl Inner {
    async fn conn(&self) -> Result<ConnectionManager, StoreError> {
        self.conn
            .get_or_try_init(|| async {
                // Reconnection happens in the background; a command meanwhile fails at once or
                // at the command timeout, never after a long series of retries.
                let config = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(COMMAND_TIMEOUT))
                    .set_response_timeout(Some(COMMAND_TIMEOUT))
                    .set_number_of_retries(2)
                    .set_max_delay(Duration::from_millis(500));
                ConnectionManager::new_with_config(self.client.clone(), config)
                    .await
                    .map_err(err)
            })
            .await
            .cloned()
    }

    /// One round trip for `op` (what it is for, as the telemetry names it: `session.get`,
    /// `event.append`, ...), given up after [`COMMAND_TIMEOUT`] (connecting included).
    async fn query<T: redis::FromRedisValue>(
        &self,
        op: &'static str,
        p: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        #[cfg(feature = "otel")]
        let timed = crate::telemetry::redis_trips::RoundTrip::start(op);
        #[cfg(not(feature = "otel"))]
        let _ = op;
        // A failed round trip says whether it was the connection's own response timeout.
        let round_trip = async {
            let mut c = self.conn().await.map_err(|e| (e, false))?;
            self.round_trips.fetch_add(1, Ordering::Relaxed);
            p.query_async(&mut c).await.map_err(|e| {
                let timed_out = e.is_timeout();
                (err(e), timed_out)
            })
        };
        let answer = tokio::time::timeout(COMMAND_TIMEOUT, round_trip).await;
        #[cfg(feature = "otel")]
        timed.end(match &answer {
            Ok(Ok(_)) => crate::telemetry::redis_trips::Outcome::Ok,
            Ok(Err((_, false))) => crate::telemetry::redis_trips::Outcome::Error,
            Ok(Err((_, true))) | Err(_) => crate::telemetry::redis_trips::Outcome::Timeout,
        });
        match answer {
            Ok(answer) => answer.map_err(|(e, _)| e),
            Err(_) => Err(StoreError(format!(
                "redis: no answer within {} ms (is Redis up?)",
                COMMAND_TIMEOUT.as_millis()
            ))),
        }
    }

    /// Every event kept of `stream`, as `(seq, data)` in the order the entries were added.
    async fn read_events(&self, stream: &str) -> Result<Vec<(u64, String)>, StoreError> {
        let mut p = redis::pipe();
        p.cmd("XRANGE")
            .arg(self.stream_key(stream))
            .arg("-")
            .arg("+");
        let (entries,): (Vec<(String, Vec<String>)>,) = self.query("event.read", &p).await?;
        Ok(entries
            .into_iter()
            .filter_map(|(_, fields)| {
                let mut s = None;
                let mut d = None;
                for kv in fields.chunks(2) {
                    match (kv[0].as_str(), kv.get(1)) {
                        ("seq", Some(v)) => s = v.parse::<u64>().ok(),
                        ("data", Some(v)) => d = Some(v.clone()),
                        _ => {}
                    }
                }
                Some((s?, d?))
            })
            .collect())
    }

    fn backlog(&self) -> std::sync::MutexGuard<'_, Backlog> {
        self.backlog.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn session_key(&self, id: &str) -> String {
        format!("{}s:{id}", self.prefix)
    }

    fn stream_key(&self, stream: &str) -> String {
        format!("{}e:{stream}", self.prefix)
    }

    /// The set of the stream keys of the session `stream` belongs to.
    fn streams_set(&self, stream: &str) -> String {
        let session = stream.split('/').next().unwrap_or(stream);
        format!("{}k:{session}", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}bus", self.prefix)
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().clamp(1, u64::MAX as u128) as u64
}

impl EventStore for RedisStore {
    fn append(&self, stream: String, seq: u64, data: String) -> StoreFuture<()> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let key = inner.stream_key(&stream);
            let set = inner.streams_set(&stream);
            let ttl = millis(inner.event_ttl);
            let mut p = redis::pipe();
            p.cmd("XADD")
                .arg(&key)
                .arg("MAXLEN")
                .arg("~")
                .arg(inner.per_stream)
                .arg("*")
                .arg("seq")
                .arg(seq)
                .arg("data")
                .arg(data)
                .ignore();
            p.cmd("PEXPIRE").arg(&key).arg(ttl).ignore();
            p.cmd("SADD").arg(&set).arg(&key).ignore();
            p.cmd("PEXPIRE").arg(&set).arg(ttl).ignore();
            inner.query::<()>("event.append", &p).await
        })
    }

    fn first_event(&self, stream: String) -> StoreFuture<Option<(u64, String)>> {
        let inner = self.inner.clone();
        // The lowest number kept, not the first entry: writes may land out of order.
        Box::pin(async move {
            let events = inner.read_events(&stream).await?;
            Ok(events.into_iter().min_by_key(|e| e.0))
        })
    }

    fn replay_after(&self, stream: String, seq: u64) -> StoreFuture<Option<Vec<(u64, String)>>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let entries = inner.read_events(&stream).await?;
            if entries.is_empty() {
                return Ok(None);
            }
            let mut events: Vec<(u64, String)> =
                entries.into_iter().filter(|(s, _)| *s > seq).collect();
            // Writes may land out of order; events go out by number.
            events.sort_by_key(|e| e.0);
            events.dedup_by_key(|e| e.0);
            Ok(Some(events))
        })
    }

    fn remove_streams(&self, prefix: String) -> StoreFuture<()> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let set = inner.streams_set(&prefix);
            let mut p = redis::pipe();
            p.cmd("SMEMBERS").arg(&set);
            let (keys,): (Vec<String>,) = inner.query("event.list", &p).await?;
            let own = inner.stream_key(&prefix);
            let keys: Vec<String> = keys.into_iter().filter(|k| k.starts_with(&own)).collect();
            let mut p = redis::pipe();
            if !keys.is_empty() {
                p.cmd("DEL").arg(&keys).ignore();
            }
            p.cmd("SREM").arg(&set).arg(&keys).ignore();
            if keys.is_empty() {
                return Ok(());
            }
            inner.query::<()>("event.remove", &p).await
        })
    }
}

impl SessionStore for RedisStore {
    fn check(&self) -> StoreFuture<()> {
        let this = self.clone();
        Box::pin(async move { this.ping().await })
    }

    fn put(&self, id: String, state: SessionState) -> StoreFuture<()> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let json = serde_json::to_string(&state).map_err(err)?;
            let mut p = redis::pipe();
            p.cmd("SET")
                .arg(inner.session_key(&id))
                .arg(json)
                .arg("PX")
                .arg(millis(inner.session_ttl))
                .ignore();
            inner.query::<()>("session.put", &p).await
        })
    }

    fn get(&self, id: String) -> StoreFuture<Option<SessionState>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("GETEX")
                .arg(inner.session_key(&id))
                .arg("PX")
                .arg(millis(inner.session_ttl));
            let (v,): (Option<String>,) = inner.query("session.get", &p).await?;
            match v {
                None => Ok(None),
                Some(s) => serde_json::from_str(&s).map(Some).map_err(err),
            }
        })
    }

    fn touch(&self, id: String) -> StoreFuture<bool> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("PEXPIRE")
                .arg(inner.session_key(&id))
                .arg(millis(inner.session_ttl));
            let (n,): (u64,) = inner.query("session.touch", &p).await?;
            Ok(n > 0)
        })
    }

    fn remove(&self, id: String) -> StoreFuture<bool> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("DEL").arg(inner.session_key(&id));
            let (n,): (u64,) = inner.query("session.remove", &p).await?;
            Ok(n > 0)
        })
    }

    fn ids(&self) -> StoreFuture<Vec<String>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut c = inner.conn().await?;
            let prefix = inner.session_key("");
            let mut cursor: u64 = 0;
            let mut out = Vec::new();
            loop {
                inner.round_trips.fetch_add(1, Ordering::Relaxed);
                #[cfg(feature = "otel")]
                let timed = crate::telemetry::redis_trips::RoundTrip::start("session.ids");
                let answer = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(format!("{prefix}*"))
                    .arg("COUNT")
                    .arg(1000)
                    .query_async(&mut c)
                    .await;
                #[cfg(feature = "otel")]
                timed.end(match &answer {
                    Ok(_) => crate::telemetry::redis_trips::Outcome::Ok,
                    Err(e) if e.is_timeout() => crate::telemetry::redis_trips::Outcome::Timeout,
                    Err(_) => crate::telemetry::redis_trips::Outcome::Error,
                });
                let (next, keys): (u64, Vec<String>) = answer.map_err(err)?;
                out.extend(
                    keys.iter()
                        .filter_map(|k| k.strip_prefix(&prefix))
                        .map(String::from),
                );
                if next == 0 {
                    return Ok(out);
                }
                cursor = next;
            }
        })
    }
}

impl ReplayStore for RedisStore {
    fn first_use(&self, id: String, ttl: Duration) -> BoxFuture<'static, Result<bool, McpError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("SET")
                .arg(format!("{}u:{id}", inner.prefix))
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(millis(ttl));
            // `OK` when set, nil when the key was there.
            let (set,): (Option<String>,) = inner.query("request_state.first_use", &p).await?;
            Ok(set.is_some())
        })
    }
}

/// Writes a task unless the stored one ended: KEYS[1] the task's key, KEYS[2] the set of its
/// session's tasks (2025-11-25 tasks; else unused); ARGV the new JSON, whether it ended
/// (`1`/`0`), its time to live in milliseconds, its id when it has a session (else empty), and
/// the bus channel (empty: announce nothing). Returns the state's revision (the hash's `rev`,
/// counted up), 0 when refused. A state of an extension task after its first is announced on
/// the channel in the same call, as the [`Envelope`] of a [`BusMessage::TaskState`] from no
/// replica (so the writer's own listener gets it too, and drops it by its revision).
const PUT_TASK: &str = r#"
if redis.call('HGET', KEYS[1], 'terminal') == '1' then return 0 end
local rev = redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'terminal', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[4])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
  end
elseif ARGV[5] ~= '' and rev > 1 then
  redis.call('PUBLISH', ARGV[5], cjson.encode({ from = '',
    msg = { kind = 'taskState', revision = rev, task = ARGV[1] } }))
end
return rev
"#;

/// A task as stored: its JSON and revision (`HMGET json rev`).
fn stored_task(
    (json, rev): (Option<String>, Option<u64>),
) -> Result<Option<StoredTask>, StoreError> {
    let Some(json) = json else {
        return Ok(None);
    };
    let mut task: StoredTask = serde_json::from_str(&json).map_err(err)?;
    task.revision = rev.unwrap_or(0);
    Ok(Some(task))
}

impl TaskStore for RedisStore {
    fn put(&self, mut task: StoredTask) -> BoxFuture<'static, Result<Option<u64>, McpError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            if task.is_expired() {
                return Ok(None);
            }
            // The revision lives in its own field, counted by the script.
            task.revision = 0;
            let json = serde_json::to_string(&task).map_err(err)?;
            let ttl = task
                .expires_at_ms
                .saturating_sub(crate::server::task_store_now_ms())
                .saturating_add(millis(EXPIRED_TASK_GRACE));
            let mut p = redis::pipe();
            p.cmd("EVAL")
                .arg(PUT_TASK)
                .arg(2)
                .arg(format!("{}t:{}", inner.prefix, task.id()))
                .arg(format!(
                    "{}ts:{}",
                    inner.prefix,
                    task.session.as_deref().unwrap_or("")
                ))
                .arg(json)
                .arg(if task.is_terminal() { "1" } else { "0" })
                .arg(ttl.max(1))
                .arg(if task.session.is_some() {
                    task.id()
                } else {
                    ""
                })
                .arg(inner.channel());
            let (revision,): (u64,) = inner.query("task.put", &p).await?;
            Ok((revision > 0).then_some(revision))
        })
    }

    fn get(&self, id: String) -> BoxFuture<'static, Result<Option<StoredTask>, McpError>> {
        let fut = self.get_many(vec![id]);
        Box::pin(async move { Ok(fut.await?.pop().flatten()) })
    }

    fn get_many(
        &self,
        ids: Vec<String>,
    ) -> BoxFuture<'static, Result<Vec<Option<StoredTask>>, McpError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut p = redis::pipe();
            for id in &ids {
                p.cmd("HMGET")
                    .arg(format!("{}t:{id}", inner.prefix))
                    .arg("json")
                    .arg("rev");
            }
            let found: Vec<(Option<String>, Option<u64>)> = inner.query("task.get", &p).await?;
            Ok(found
                .into_iter()
                .map(stored_task)
                .collect::<Result<_, _>>()?)
        })
    }

    fn announces_writes(&self) -> bool {
        true
    }

    fn remove(&self, id: String) -> BoxFuture<'static, Result<bool, McpError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("DEL").arg(format!("{}t:{id}", inner.prefix));
            let (n,): (u64,) = inner.query("task.remove", &p).await?;
            Ok(n > 0)
        })
    }

    fn session_tasks(
        &self,
        session: String,
    ) -> BoxFuture<'static, Result<Vec<StoredTask>, McpError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("SMEMBERS")
                .arg(format!("{}ts:{session}", inner.prefix));
            let (ids,): (Vec<String>,) = inner.query("task.list", &p).await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut p = redis::pipe();
            for id in &ids {
                p.cmd("HGET")
                    .arg(format!("{}t:{id}", inner.prefix))
                    .arg("json");
            }
            let found: Vec<Option<String>> = inner.query("task.get", &p).await?;
            // Tasks that expired are gone from the store but may still be named in the set.
            Ok(found
                .into_iter()
                .flatten()
                .filter_map(|s| serde_json::from_str::<StoredTask>(&s).ok())
                .filter(|t| t.session.as_deref() == Some(session.as_str()))
                .collect())
        })
    }
}

/// What goes on the channel: the sender and the message.
#[derive(Serialize, Deserialize)]
struct Envelope {
    from: String,
    msg: BusMessage,
}

impl EventBus for RedisStore {
    fn subscribe(&self, replica: &str) -> BusReceiver {
        let (tx, rx) = mpsc::unbounded_channel();
        let inner = self.inner.clone();
        let me = replica.to_string();
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            tracing::error!("redis event bus: no tokio runtime to listen on");
            return rx;
        };
        rt.spawn(async move {
            // Reconnects while this replica listens (its receiver is open).
            while !tx.is_closed() {
                match listen(&inner, &me, &tx).await {
                    Ok(()) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "redis event bus: reconnecting");
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
            }
        });
        rx
    }

    fn publish(&self, replica: &str, msg: BusMessage) -> StoreFuture<()> {
        let inner = self.inner.clone();
        let env = Envelope {
            from: replica.to_string(),
            msg,
        };
        Box::pin(async move {
            let json = serde_json::to_string(&env).map_err(err)?;
            // Behind a backlog, a message waits its turn (the bus keeps the order).
            if !inner.backlog().queue.is_empty() {
                hold_back(&inner, json);
                return Ok(());
            }
            let mut p = redis::pipe();
            p.cmd("PUBLISH").arg(inner.channel()).arg(&json).ignore();
            if let Err(e) = inner.query::<()>("bus.publish", &p).await {
                tracing::warn!(error = %e, "redis event bus: publishing failed; holding messages back until Redis answers");
                hold_back(&inner, json);
            }
            Ok(())
        })
    }

    fn has_peers(&self, _replica: &str) -> bool {
        true
    }

    fn announce_alive(&self, replica: &str, ttl: Duration) -> StoreFuture<()> {
        let inner = self.inner.clone();
        let key = format!("{}r:{replica}", inner.prefix);
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("PX")
                .arg(millis(ttl))
                .ignore();
            inner.query::<()>("bus.announce_alive", &p).await
        })
    }

    fn is_alive(&self, replica: &str) -> StoreFuture<Option<bool>> {
        let inner = self.inner.clone();
        let key = format!("{}r:{replica}", inner.prefix);
        Box::pin(async move {
            let mut p = redis::pipe();
            p.cmd("EXISTS").arg(&key);
            let (n,): (u64,) = inner.query("bus.is_alive", &p).await?;
            Ok(Some(n > 0))
        })
    }
}

/// Adds `json` to the bus backlog (dropping the oldest message when it is full) and makes
/// sure a task publishes the backlog once Redis answers again.
fn hold_back(inner: &Arc<Inner>, json: String) {
    let mut b = inner.backlog();
    if b.queue.len() >= BUS_BACKLOG {
        b.queue.pop_front();
        b.dropped += 1;
        if b.dropped.is_power_of_two() {
            tracing::error!(
                dropped = b.dropped,
                "redis event bus: backlog full during an outage; messages dropped"
            );
        }
    }
    b.queue.push_back(json);
    if b.flushing {
        return;
    }
    let Ok(rt) = tokio::runtime::Handle::try_current() else {
        return;
    };
    b.flushing = true;
    drop(b);
    rt.spawn(flush_backlog(inner.clone()));
}

/// Waits until Redis answers, then publishes the backlog in order; ends when it is empty.
async fn flush_backlog(inner: Arc<Inner>) {
    let mut sent = 0usize;
    loop {
        let mut ping = redis::pipe();
        ping.cmd("PING").ignore();
        if inner.query::<()>("ping", &ping).await.is_err() {
            tokio::time::sleep(Duration::from_millis(250)).await;
            continue;
        }
        tokio::time::sleep(BACKLOG_SETTLE).await;
        loop {
            let Some(json) = inner.backlog().queue.front().cloned() else {
                break;
            };
            let mut p = redis::pipe();
            p.cmd("PUBLISH").arg(inner.channel()).arg(&json).ignore();
            if inner.query::<()>("bus.publish", &p).await.is_err() {
                break;
            }
            sent += 1;
            let mut b = inner.backlog();
            // Sent: it is still the front (only this task takes from the front).
            b.queue.pop_front();
            if b.queue.is_empty() {
                b.flushing = false;
                let dropped = b.dropped;
                drop(b);
                tracing::info!(
                    sent,
                    dropped,
                    "redis event bus: Redis answers again; held-back messages published"
                );
                return;
            }
        }
    }
}

/// Forwards the channel's messages from other replicas to `tx` until it closes (`Ok`) or the
/// connection fails (`Err`).
async fn listen(
    inner: &Inner,
    me: &str,
    tx: &mpsc::UnboundedSender<BusMessage>,
) -> Result<(), StoreError> {
    let mut ps = inner.client.get_async_pubsub().await.map_err(err)?;
    ps.subscribe(inner.channel()).await.map_err(err)?;
    let mut messages = ps.on_message();
    loop {
        let m = tokio::select! {
            m = messages.next() => m,
            _ = tx.closed() => return Ok(()),
        };
        let Some(m) = m else {
            return Err(StoreError("redis: subscription ended".into()));
        };
        let Ok(text) = m.get_payload::<String>() else {
            continue;
        };
        match serde_json::from_str::<Envelope>(&text) {
            Ok(env) if env.from != me => {
                if tx.send(env.msg).is_err() {
                    return Ok(());
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "redis event bus: unreadable message"),
        }
    }
}
