//! [`TaskStore`]: where the tasks of the tasks extension (`io.modelcontextprotocol/tasks`,
//! 2026-07-28) are kept for every replica of a deployment, and its in-memory default.
//!
//! A task's handler runs on the replica that made the task; that replica keeps the live task
//! (its handler, its parked input requests) and writes the task's state here whenever it
//! changes: at creation, when input is asked for or answered, and when the task ends. Any other
//! replica answers `tasks/get` from this store, and passes `tasks/update` and `tasks/cancel` on
//! to the running replica over the deployment's event bus ([`TaskSignal`]), writing what the
//! client will see next here first (the answered input requests gone, or `cancelled`), so a
//! `tasks/get` on any replica right after sees it.
//!
//! The 2025-11-25 tasks of handshake sessions are kept the same way, bound to their session
//! (`Mcp-Session-Id`, which every replica serving the session knows): `tasks/get` and
//! `tasks/list` answer from the store, `tasks/result` waits on it, and `tasks/cancel` reaches the
//! running replica over the bus.
//!
//! A terminal state is final: a store never replaces the state of a task that ended, so a
//! cancellation and the handler's own end racing on two replicas leave one outcome.
//!
//! Every state written gets the next revision of its task (1, 2, ...), given by the store: the
//! order of the states whatever replica wrote them. A subscription to a task's status
//! (`notifications/tasks`) sends a state only when its revision is above the last one it sent,
//! so a state arriving twice (read at subscription time and announced over the bus) or late is
//! not sent again.

use crate::protocol::TaskStatus;
use crate::McpError;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a store keeps a task past its expiry, so a late `tasks/get` is told the task
/// expired rather than that it never existed.
pub const EXPIRED_TASK_GRACE: Duration = Duration::from_secs(60);

/// One task as the replicas share it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StoredTask {
    /// The task as `tasks/get` answers it (the extension's `DetailedTask`: `taskId`, `status`,
    /// timestamps, `ttlMs`, `pollIntervalMs`, and `inputRequests`, `result` or `error` as its
    /// status has them).
    pub task: Value,
    /// The identity of the bearer token of the request that made it (`None`: no token); only
    /// requests bearing the same identity see the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// When the task expires, in milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
    /// The session a 2025-11-25 task is bound to (only requests of that session see it);
    /// `None` for a task of the tasks extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// A 2025-11-25 task's result, once it completed (or failed with a tool error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// A 2025-11-25 task's JSON-RPC error, once it failed with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<McpError>,
    /// The revision the store gave this state when it was written (see the module's
    /// documentation); 0 in a state not yet written. [`TaskStore::put`] ignores it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revision: u64,
}

ferromcp_protocol::with_setters!(StoredTask {
    task: Value => with_task,
    owner: Option<String> => with_owner,
    expires_at_ms: u64 => with_expires_at_ms,
    session: Option<String> => with_session,
    result: Option<Value> => with_result,
    error: Option<McpError> => with_error,
    revision: u64 => with_revision,
});

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl StoredTask {
    /// A stored task: its `Task` JSON and when it expires (ms since the Unix epoch); no owner,
    /// session, result or error, revision 0 (set them with the `with_*` methods).
    pub fn new(task: Value, expires_at_ms: u64) -> Self {
        Self {
            task,
            owner: None,
            expires_at_ms,
            session: None,
            result: None,
            error: None,
            revision: 0,
        }
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        self.task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The task's status (`None` when the stored value has none it knows).
    pub fn status(&self) -> Option<TaskStatus> {
        self.task
            .get("status")
            .and_then(|s| serde_json::from_value(s.clone()).ok())
    }

    /// Whether the task ended (completed, failed or cancelled).
    pub fn is_terminal(&self) -> bool {
        self.status().is_some_and(TaskStatus::is_terminal)
    }

    /// Whether the task is past its expiry.
    pub fn is_expired(&self) -> bool {
        self.expires_at_ms <= now_ms()
    }

    /// This state with the input requests under `answered` taken out (a `tasks/update` served
    /// by a replica that does not run the task): `working` once none is left.
    pub(crate) fn without_inputs(mut self, answered: &Map<String, Value>, now: String) -> Self {
        let Some(Value::Object(pending)) = self.task.get_mut("inputRequests") else {
            return self;
        };
        let before = pending.len();
        pending.retain(|k, _| !answered.contains_key(k));
        if pending.len() == before {
            return self;
        }
        if pending.is_empty() {
            if let Value::Object(m) = &mut self.task {
                m.remove("inputRequests");
            }
            self.task["status"] = serde_json::json!(TaskStatus::Working);
        }
        self.task["lastUpdatedAt"] = Value::String(now);
        self
    }

    /// This state ended as cancelled with `message` (a `tasks/cancel` served by a replica that
    /// does not run the task).
    pub(crate) fn cancelled(mut self, message: &str, now: String) -> Self {
        if let Value::Object(m) = &mut self.task {
            m.remove("inputRequests");
            m.remove("result");
            m.remove("error");
        }
        self.task["status"] = serde_json::json!(TaskStatus::Cancelled);
        self.task["statusMessage"] = Value::String(message.into());
        self.task["lastUpdatedAt"] = Value::String(now);
        self
    }
}

/// Keeps the tasks of the tasks extension for every replica of a deployment (the HTTP server's
/// Redis store is one; [`InMemoryTaskStore`] serves replicas in one process). Asynchronous and
/// fallible, as a networked store is.
pub trait TaskStore: Send + Sync + 'static {
    /// Records `task` under its id as the task's next revision (one more than the last one
    /// written under that id, 1 for the first), unless the task stored under that id already
    /// ended (a terminal state is final) or `task` is past its expiry: `Ok(Some(revision))`
    /// when written, `Ok(None)` when refused. The record lasts until [`EXPIRED_TASK_GRACE`]
    /// after the task's expiry.
    fn put(&self, task: StoredTask) -> BoxFuture<'static, Result<Option<u64>, McpError>>;
    /// The task stored under `id`, with its [`revision`](StoredTask::revision); `None` when
    /// there is none (never made, removed, or expired longer than [`EXPIRED_TASK_GRACE`] ago).
    fn get(&self, id: String) -> BoxFuture<'static, Result<Option<StoredTask>, McpError>>;
    /// The tasks stored under `ids`, in that order (`None` where [`get`](Self::get) has none).
    /// A networked store reads them in one round trip; the default asks one by one.
    fn get_many(
        &self,
        ids: Vec<String>,
    ) -> BoxFuture<'static, Result<Vec<Option<StoredTask>>, McpError>> {
        let reads: Vec<_> = ids.into_iter().map(|id| self.get(id)).collect();
        Box::pin(async move {
            let mut out = Vec::with_capacity(reads.len());
            for r in reads {
                out.push(r.await?);
            }
            Ok(out)
        })
    }
    /// Whether [`put`](Self::put) itself tells the other replicas about every state of an
    /// extension task it writes after the first, on the event bus of this same store and in the
    /// same round trip (the HTTP server's `RedisStore` does). When false (the default), the
    /// HTTP endpoint publishes each such state on its event bus.
    fn announces_writes(&self) -> bool {
        false
    }
    /// Removes task `id` (a replica told a client it expired); whether it was there.
    fn remove(&self, id: String) -> BoxFuture<'static, Result<bool, McpError>>;
    /// The 2025-11-25 tasks bound to `session` (any order).
    fn session_tasks(
        &self,
        session: String,
    ) -> BoxFuture<'static, Result<Vec<StoredTask>, McpError>>;
}

/// What a replica that does not run a task asks the one that does, or tells every other
/// replica (over the event bus).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TaskSignal {
    /// `tasks/update`: deliver these `inputResponses` to the task's parked input requests.
    Update {
        /// The task's id.
        task_id: String,
        /// The responses by input request key.
        responses: Map<String, Value>,
    },
    /// `tasks/cancel`: stop the task's handler.
    Cancel {
        /// The task's id.
        task_id: String,
    },
    /// A state of an extension task was written to the store (by any replica), with the
    /// [`revision`](StoredTask::revision) the store gave it: for the subscriptions
    /// (`notifications/tasks`) every replica holds.
    Changed(StoredTask),
}

/// The default [`TaskStore`]: a map behind a mutex, completing every call at once. One value
/// shared by several servers in one process lets them serve each other's tasks.
#[derive(Default, Clone)]
pub struct InMemoryTaskStore {
    map: Arc<Mutex<HashMap<String, StoredTask>>>,
}

impl std::fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTaskStore")
            .field("len", &self.map.lock().unwrap().len())
            .finish()
    }
}

impl TaskStore for InMemoryTaskStore {
    fn put(&self, mut task: StoredTask) -> BoxFuture<'static, Result<Option<u64>, McpError>> {
        if task.is_expired() {
            return Box::pin(std::future::ready(Ok(None)));
        }
        let mut map = self.map.lock().unwrap();
        // Records past their grace go when a new task arrives (each server bounds how many
        // tasks it makes; expiry bounds how long they stay).
        if !map.contains_key(task.id()) {
            let cutoff = now_ms().saturating_sub(millis(EXPIRED_TASK_GRACE));
            map.retain(|_, t| t.expires_at_ms > cutoff);
        }
        let written = match map.get(task.id()) {
            Some(old) if old.is_terminal() => None,
            old => {
                task.revision = old.map_or(0, |t| t.revision) + 1;
                let revision = task.revision;
                map.insert(task.id().to_string(), task);
                Some(revision)
            }
        };
        Box::pin(std::future::ready(Ok(written)))
    }

    fn get(&self, id: String) -> BoxFuture<'static, Result<Option<StoredTask>, McpError>> {
        let cutoff = now_ms().saturating_sub(millis(EXPIRED_TASK_GRACE));
        let found = self
            .map
            .lock()
            .unwrap()
            .get(&id)
            .filter(|t| t.expires_at_ms > cutoff)
            .cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn remove(&self, id: String) -> BoxFuture<'static, Result<bool, McpError>> {
        let removed = self.map.lock().unwrap().remove(&id).is_some();
        Box::pin(std::future::ready(Ok(removed)))
    }

    fn session_tasks(
        &self,
        session: String,
    ) -> BoxFuture<'static, Result<Vec<StoredTask>, McpError>> {
        let cutoff = now_ms().saturating_sub(millis(EXPIRED_TASK_GRACE));
        let found = self
            .map
            .lock()
            .unwrap()
            .values()
            .filter(|t| t.session.as_deref() == Some(session.as_str()))
            .filter(|t| t.expires_at_ms > cutoff)
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(found)))
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(millis)
        .unwrap_or(0)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;
    use serde_json::json;

    fn task(id: &str, status: &str) -> StoredTask {
        StoredTask {
            task: json!({ "taskId": id, "status": status,
                          "inputRequests": { "a": {}, "b": {} } }),
            owner: None,
            expires_at_ms: now_ms() + 60_000,
            session: None,
            result: None,
            error: None,
            revision: 0,
        }
    }

    #[test]
    fn a_terminal_state_is_final() {
        let s = InMemoryTaskStore::default();
        let put = |t| s.put(t).now_or_never().unwrap().unwrap();
        assert_eq!(put(task("t", "input_required")), Some(1));
        assert_eq!(put(task("t", "cancelled")), Some(2));
        assert_eq!(put(task("t", "completed")), None);
        let got = s.get("t".into()).now_or_never().unwrap().unwrap().unwrap();
        assert_eq!(got.status(), Some(TaskStatus::Cancelled));
        assert_eq!(got.revision, 2);
        let many = s.get_many(vec!["u".into(), "t".into()]);
        let many = many.now_or_never().unwrap().unwrap();
        assert!(many[0].is_none());
        assert_eq!(many[1].as_ref().map(|t| t.revision), Some(2));
        assert!(s.get("u".into()).now_or_never().unwrap().unwrap().is_none());
        // A task past its expiry is not written; a removed one is gone.
        let mut old = task("v", "working");
        old.expires_at_ms = now_ms() - 1;
        assert_eq!(put(old), None);
        assert!(s.get("v".into()).now_or_never().unwrap().unwrap().is_none());
        assert!(s.remove("t".into()).now_or_never().unwrap().unwrap());
        assert!(s.get("t".into()).now_or_never().unwrap().unwrap().is_none());
    }

    #[test]
    fn answered_inputs_leave_and_the_last_one_makes_it_working() {
        let mut answered = Map::new();
        answered.insert("a".into(), json!({}));
        answered.insert("zzz".into(), json!({}));
        let t = task("t", "input_required").without_inputs(&answered, "now".into());
        assert_eq!(t.task["inputRequests"], json!({ "b": {} }));
        assert_eq!(t.status(), Some(TaskStatus::InputRequired));
        answered.insert("b".into(), json!({}));
        let t = t.without_inputs(&answered, "later".into());
        assert_eq!(t.status(), Some(TaskStatus::Working));
        assert!(t.task.get("inputRequests").is_none());
        assert_eq!(t.task["lastUpdatedAt"], "later");
        let c = task("t", "working").cancelled("bye", "then".into());
        assert!(c.is_terminal() && c.task.get("inputRequests").is_none());
    }
}
