//! Task-augmented requests (2025-11-25): a side as a task receiver. The server receives
//! task-augmented `tools/call`; the client, when it declares
//! `tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create`
//! ([`crate::client::ClientOptions::tasks`]), task-augmented `sampling/createMessage` and
//! `elicitation/create`. One store serves both roles.
//!
//! A request carrying `params.task` returns a `CreateTaskResult` at once while its handler runs
//! in the background; the requestor polls `tasks/get`, blocks on `tasks/result`, lists with
//! `tasks/list` and stops with `tasks/cancel` ([`TaskStore::answer`] reads those requests).
//! Tasks are bound to the session that created them (no other session can see or touch them),
//! ids are 128-bit random, every task has a TTL (capped), and the store is bounded: a hostile
//! requestor costs a bounded amount of memory.
//!
//! Replicas (the server's HTTP deployments): a task's handler runs on the replica that made it,
//! which writes the task to the shared [`super::task_store::TaskStore`] when it is made and when
//! it ends, bound to the session's `Mcp-Session-Id`. Another replica serving the session answers
//! `tasks/get` and `tasks/list` from that store, waits on it for `tasks/result`, and records a
//! `tasks/cancel` there before telling the running replica over the event bus. A client keeps
//! its tasks in an in-memory store of its own.

use super::pagination::paginate;
use super::task_store::{now_ms, StoredTask, TaskStore as SharedTasks};
use super::RequestContext;
use crate::protocol::{rfc3339_now, Task, TaskStatus};
use crate::McpError;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a cancelled task's handler may keep running to observe its cancellation token.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// Limits of the tasks a side receives: a server's ([`crate::server::ServerOptions::tasks`]) or
/// a client's ([`crate::client::ClientOptions::tasks`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TaskOptions {
    /// TTL when the requestor gives none.
    pub default_ttl: Duration,
    /// The longest TTL granted; larger requests are capped.
    pub max_ttl: Duration,
    /// Most tasks held at once (all sessions); creation beyond it fails with -32603.
    pub max_tasks: usize,
    /// `pollInterval` suggested to requestors.
    pub poll_interval: Duration,
    /// Server only, tasks extension (2026-07-28): how long a call of a task-supporting tool
    /// waits for its handler's first answer before the call becomes a task. Zero (the
    /// default): the handler is polled once, which is exact for a Rust handler (one that
    /// answers `input_required` at once keeps its multi round-trip round). A handler that runs
    /// on another thread (a binding's) has not answered by then however quickly it answers, so
    /// the embedding layer sets a short wait: the call becomes a task when the wait ends, or as
    /// soon as the handler parks an input request or calls [`RequestContext::start_task`],
    /// whichever comes first.
    ///
    /// [`RequestContext::start_task`]: crate::session::RequestContext::start_task
    pub first_answer_wait: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            default_ttl: Duration::from_secs(300),
            max_ttl: Duration::from_secs(3600),
            max_tasks: 1000,
            poll_interval: Duration::from_millis(500),
            first_answer_wait: Duration::ZERO,
        }
    }
}

struct TaskRecord {
    owner: String,
    expires: Instant,
    /// `expires` as milliseconds since the Unix epoch (what the shared store keeps).
    expires_at_ms: u64,
    cancel: CancellationToken,
    state: Mutex<(Task, Option<Result<Value, McpError>>)>,
    done: watch::Sender<bool>,
    /// How its handler said the task is to end ([`RequestContext::report_task_status`] with a
    /// terminal status): the status and message, applied when the handler returns.
    noted_end: Mutex<Option<(TaskStatus, Option<String>)>>,
}

impl TaskRecord {
    /// The task as the replicas share it.
    fn stored(&self) -> StoredTask {
        let st = self.state.lock().unwrap();
        let (result, error) = match &st.1 {
            Some(Ok(v)) => (Some(v.clone()), None),
            Some(Err(e)) => (None, Some(e.clone())),
            None => (None, None),
        };
        StoredTask {
            task: serde_json::to_value(&st.0).expect("tasks serialize"),
            owner: None,
            expires_at_ms: self.expires_at_ms,
            session: Some(self.owner.clone()),
            result,
            error,
            revision: 0,
        }
    }

    /// Takes the terminal state another replica stored (it cancelled the task while this
    /// replica ended it).
    fn adopt(&self, stored: &StoredTask) {
        let Ok(task) = serde_json::from_value::<Task>(stored.task.clone()) else {
            return;
        };
        {
            let mut st = self.state.lock().unwrap();
            st.1 = match (&stored.result, &stored.error) {
                (Some(v), _) => Some(Ok(v.clone())),
                (None, Some(e)) => Some(Err(e.clone())),
                (None, None) => None,
            };
            st.0 = task;
        }
        self.cancel.cancel();
        let _ = self.done.send(true);
    }
}

/// The bounded, session-bound task store of one server.
#[derive(Default)]
pub(crate) struct TaskStore {
    tasks: Mutex<HashMap<String, Arc<TaskRecord>>>,
}

fn not_found(id: &str) -> McpError {
    McpError::invalid_params(format!(
        "Failed to retrieve task: no task {id:?} (unknown, expired or not yours)"
    ))
    .with_data(json!({ "taskId": id }))
}

/// What a task is bound to: its session's `Mcp-Session-Id`, which every replica serving the
/// session knows, or (a session without one, stdio) the session's serial in this process.
fn owner_of(session: &crate::session::Session) -> String {
    match session.session_id() {
        Some(id) => format!("session\u{0}{id}"),
        None => format!("process\u{0}{}", session.serial()),
    }
}

/// Writes `record`'s state to `shared` (in the background); when the store refuses it because
/// another replica ended the task first, takes that replica's outcome.
fn share(record: Arc<TaskRecord>, shared: Arc<dyn SharedTasks>) {
    let put = shared.put(record.stored());
    tokio::spawn(async move {
        match put.await {
            Ok(Some(_)) => {}
            Ok(None) => {
                let id = record.state.lock().unwrap().0.task_id.clone();
                if let Ok(Some(stored)) = shared.get(id).await {
                    if stored.is_terminal() {
                        record.adopt(&stored);
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "writing a task's state failed"),
        }
    });
}

/// The `tasks/result` answer for a task that ended with `outcome` (`None`: cancelled).
fn final_answer(id: &str, outcome: Option<Result<Value, McpError>>) -> Result<Value, McpError> {
    let related = json!({ "io.modelcontextprotocol/related-task": { "taskId": id } });
    match outcome {
        Some(Ok(mut v)) => {
            if let Value::Object(m) = &mut v {
                let meta = m.entry("_meta").or_insert_with(|| json!({}));
                if let (Value::Object(meta), Value::Object(rel)) = (meta, related) {
                    meta.extend(rel);
                }
            }
            Ok(v)
        }
        Some(Err(e)) => Err(e),
        None => Err(
            McpError::invalid_params(format!("task {id:?} was cancelled"))
                .with_data(json!({ "taskId": id })),
        ),
    }
}

/// `-32602` for cancelling a task that already ended with `status`.
fn already_ended(id: &str, status: TaskStatus) -> McpError {
    let status = serde_json::to_value(status).unwrap_or(Value::Null);
    McpError::invalid_params(format!(
        "Cannot cancel task: already in terminal status {}",
        status.as_str().unwrap_or("?")
    ))
    .with_data(json!({ "taskId": id, "status": status }))
}

impl TaskStore {
    fn purge_expired(map: &mut HashMap<String, Arc<TaskRecord>>) {
        let now = Instant::now();
        map.retain(|_, t| {
            let keep = t.expires > now;
            if !keep {
                t.cancel.cancel();
            }
            keep
        });
    }

    /// The task `id` of `owner` if this replica runs it.
    fn local(&self, owner: &str, id: &str) -> Option<Arc<TaskRecord>> {
        let mut map = self.tasks.lock().unwrap();
        Self::purge_expired(&mut map);
        map.get(id).filter(|t| t.owner == owner).cloned()
    }

    /// The task `id` of `owner` as the shared store has it (one another replica runs).
    async fn remote(
        shared: &dyn SharedTasks,
        owner: &str,
        id: &str,
    ) -> Result<StoredTask, McpError> {
        match shared.get(id.to_string()).await? {
            Some(t) if t.session.as_deref() == Some(owner) && !t.is_expired() => Ok(t),
            _ => Err(not_found(id)),
        }
    }

    /// Starts `job` as a task owned by the context's session and returns the `CreateTaskResult`
    /// once the task is in `shared` (a `tasks/get` on any replica finds it).
    pub async fn start<F>(
        &self,
        opts: &TaskOptions,
        requested_ttl: Option<u64>,
        ctx: &RequestContext,
        shared: Arc<dyn SharedTasks>,
        job: F,
    ) -> Result<Value, McpError>
    where
        F: FnOnce(
                RequestContext,
            ) -> futures_util::future::BoxFuture<'static, Result<Value, McpError>>
            + Send
            + 'static,
    {
        let ttl = requested_ttl
            .map(Duration::from_millis)
            .unwrap_or(opts.default_ttl)
            .min(opts.max_ttl);
        let id = random_id();
        let now = rfc3339_now();
        let mut task = Task::new(id.clone(), TaskStatus::Working, now);
        task.ttl = Some(ttl.as_millis() as u64);
        task.poll_interval = Some(opts.poll_interval.as_millis() as u64);
        let session = ctx.session().clone();
        let cancel = session.closed.child_token();
        let (done, _) = watch::channel(false);
        let record = Arc::new(TaskRecord {
            owner: owner_of(&session),
            expires: Instant::now() + ttl,
            expires_at_ms: now_ms().saturating_add(ttl.as_millis() as u64),
            cancel: cancel.clone(),
            state: Mutex::new((task.clone(), None)),
            done,
            noted_end: Mutex::new(None),
        });
        {
            let mut map = self.tasks.lock().unwrap();
            if map.len() >= opts.max_tasks {
                Self::purge_expired(&mut map);
            }
            if map.len() >= opts.max_tasks {
                return Err(McpError::internal(format!(
                    "task limit reached ({} tasks); try again later",
                    opts.max_tasks
                )));
            }
            map.insert(id.clone(), record.clone());
        }
        if let Err(e) = shared.put(record.stored()).await {
            self.tasks.lock().unwrap().remove(&id);
            cancel.cancel();
            return Err(e);
        }
        let task_ctx = ctx.detached(
            cancel.clone(),
            Some(status_sink(&record, &session, shared.clone())),
        );
        let fut = job(task_ctx.clone());
        tokio::spawn(async move {
            let mut fut = std::pin::pin!(futures_util::FutureExt::catch_unwind(
                std::panic::AssertUnwindSafe(fut)
            ));
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                r = &mut fut => Some(match r {
                    Ok(r) => r,
                    Err(_) => Err(McpError::internal("task handler panicked")),
                }),
            };
            let Some(outcome) = outcome else {
                // tasks/cancel records its own status; expiry and the session closing do not,
                // so record them here, waking any tasks/result waiter.
                let snapshot = {
                    let mut st = record.state.lock().unwrap();
                    (!st.0.status.is_terminal()).then(|| {
                        st.0.status = TaskStatus::Cancelled;
                        st.0.status_message = Some("the task expired or its session closed".into());
                        st.0.last_updated_at = rfc3339_now();
                        st.0.clone()
                    })
                };
                if let Some(snapshot) = snapshot {
                    let _ = record.done.send(true);
                    share(record.clone(), shared);
                    notify_status(&session, &snapshot);
                }
                // Let the handler see its token fire and wind down before it is dropped.
                let _ = tokio::time::timeout(CANCEL_GRACE, fut).await;
                task_ctx.finish();
                return;
            };
            task_ctx.finish();
            let snapshot = {
                let mut st = record.state.lock().unwrap();
                if st.0.status.is_terminal() {
                    return;
                }
                let (status, message) = match &outcome {
                    Ok(v) if v.get("isError") == Some(&Value::Bool(true)) => (
                        TaskStatus::Failed,
                        Some("the tool reported an error".to_string()),
                    ),
                    Ok(_) => (TaskStatus::Completed, None),
                    Err(e) => (TaskStatus::Failed, Some(e.message.clone())),
                };
                // The end the handler reported: `cancelled` whatever it returned; the message
                // of the status its outcome gives.
                let (status, message, outcome) = match record.noted_end.lock().unwrap().take() {
                    Some((TaskStatus::Cancelled, noted)) => (
                        TaskStatus::Cancelled,
                        Some(noted.unwrap_or_else(|| "the task was cancelled".into())),
                        None,
                    ),
                    Some((noted, Some(m))) if noted == status => (status, Some(m), Some(outcome)),
                    _ => (status, message, Some(outcome)),
                };
                st.0.status = status;
                st.0.status_message = message;
                st.0.last_updated_at = rfc3339_now();
                st.1 = outcome;
                st.0.clone()
            };
            let _ = record.done.send(true);
            share(record.clone(), shared);
            notify_status(&session, &snapshot);
        });
        Ok(json!({ "task": task }))
    }

    /// `tasks/get`.
    async fn get_task(
        &self,
        shared: &dyn SharedTasks,
        ctx: &RequestContext,
        id: &str,
    ) -> Result<Value, McpError> {
        let owner = owner_of(ctx.session());
        if let Some(t) = self.local(&owner, id) {
            let task = t.state.lock().unwrap().0.clone();
            return Ok(serde_json::to_value(task).expect("tasks serialize"));
        }
        Ok(Self::remote(shared, &owner, id).await?.task)
    }

    /// `tasks/result`: waits for a terminal status, then returns the stored result or error.
    /// A task another replica runs is waited for in the shared store (polled at its
    /// `pollInterval`, at most every 250 ms).
    async fn result(
        &self,
        shared: &dyn SharedTasks,
        id: &str,
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        let owner = owner_of(ctx.session());
        let Some(t) = self.local(&owner, id) else {
            loop {
                let stored = Self::remote(shared, &owner, id).await?;
                if stored.is_terminal() {
                    let outcome = match (stored.result, stored.error) {
                        (Some(v), _) => Some(Ok(v)),
                        (None, Some(e)) => Some(Err(e)),
                        (None, None) => None,
                    };
                    return final_answer(id, outcome);
                }
                let every = stored.task["pollInterval"]
                    .as_u64()
                    .map_or(Duration::from_millis(250), Duration::from_millis)
                    .clamp(Duration::from_millis(10), Duration::from_millis(250));
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = ctx.cancellation().cancelled() => return Err(McpError::cancelled(None)),
                }
            }
        };
        let mut rx = t.done.subscribe();
        loop {
            {
                let st = t.state.lock().unwrap();
                if st.0.status.is_terminal() {
                    return final_answer(id, st.1.clone());
                }
            }
            tokio::select! {
                r = rx.changed() => if r.is_err() { return Err(McpError::internal("task store dropped the task")); },
                _ = ctx.cancellation().cancelled() => return Err(McpError::cancelled(None)),
            }
        }
    }

    /// `tasks/list`: this session's tasks (those this replica runs as they are now, the others
    /// as the shared store has them), paginated.
    async fn list(
        &self,
        shared: &dyn SharedTasks,
        ctx: &RequestContext,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<Value, McpError> {
        let owner = owner_of(ctx.session());
        let mut mine: HashMap<String, Task> = HashMap::new();
        for stored in shared.session_tasks(owner.clone()).await? {
            if stored.is_expired() {
                continue;
            }
            if let Ok(task) = serde_json::from_value::<Task>(stored.task) {
                mine.insert(task.task_id.clone(), task);
            }
        }
        {
            let mut map = self.tasks.lock().unwrap();
            Self::purge_expired(&mut map);
            for t in map.values().filter(|t| t.owner == owner) {
                let task = t.state.lock().unwrap().0.clone();
                mine.insert(task.task_id.clone(), task);
            }
        }
        let mut mine: Vec<(String, Value)> = mine
            .into_values()
            .map(|task| {
                (
                    task.created_at.clone() + &task.task_id,
                    serde_json::to_value(task).expect("tasks serialize"),
                )
            })
            .collect();
        mine.sort_by(|a, b| a.0.cmp(&b.0));
        let items: Vec<Value> = mine.into_iter().map(|(_, v)| v).collect();
        let (page, next) = paginate(&items, cursor, page_size)?;
        let mut r = json!({ "tasks": page });
        if let Some(n) = next {
            r["nextCursor"] = json!(n);
        }
        Ok(r)
    }

    /// `tasks/cancel`: the task's new state, and whether another replica runs it (and must be
    /// told to stop it).
    async fn cancel(
        &self,
        shared: &Arc<dyn SharedTasks>,
        id: &str,
        ctx: &RequestContext,
    ) -> Result<(Value, bool), McpError> {
        let owner = owner_of(ctx.session());
        let (snapshot, elsewhere) = match self.local(&owner, id) {
            Some(t) => {
                let snapshot = {
                    let mut st = t.state.lock().unwrap();
                    if st.0.status.is_terminal() {
                        return Err(already_ended(id, st.0.status));
                    }
                    st.0.status = TaskStatus::Cancelled;
                    st.0.status_message = Some("cancelled by the requestor".into());
                    st.0.last_updated_at = rfc3339_now();
                    st.0.clone()
                };
                t.cancel.cancel();
                let _ = t.done.send(true);
                share(t, shared.clone());
                (snapshot, false)
            }
            None => {
                let mut stored = Self::remote(&**shared, &owner, id).await?;
                let mut task: Task = serde_json::from_value(stored.task.clone())
                    .map_err(|e| McpError::internal(format!("a stored task is unreadable: {e}")))?;
                if task.status.is_terminal() {
                    return Err(already_ended(id, task.status));
                }
                task.status = TaskStatus::Cancelled;
                task.status_message = Some("cancelled by the requestor".into());
                task.last_updated_at = rfc3339_now();
                stored.task = serde_json::to_value(&task).expect("tasks serialize");
                if shared.put(stored).await?.is_none() {
                    // It ended on its replica meanwhile.
                    let ended = Self::remote(&**shared, &owner, id).await?;
                    return Err(already_ended(
                        id,
                        ended.status().unwrap_or(TaskStatus::Completed),
                    ));
                }
                (task, true)
            }
        };
        notify_status(ctx.session(), &snapshot);
        Ok((
            serde_json::to_value(snapshot).expect("tasks serialize"),
            elsewhere,
        ))
    }

    /// A `tasks/cancel` served by another replica (which recorded and announced it): stops the
    /// task if this replica runs it.
    pub fn cancel_here(&self, id: &str) {
        let Some(t) = self.tasks.lock().unwrap().get(id).cloned() else {
            return;
        };
        {
            let mut st = t.state.lock().unwrap();
            if st.0.status.is_terminal() {
                return;
            }
            st.0.status = TaskStatus::Cancelled;
            st.0.status_message = Some("cancelled by the requestor".into());
            st.0.last_updated_at = rfc3339_now();
        }
        t.cancel.cancel();
        let _ = t.done.send(true);
    }
}

/// `params.taskId` of a `tasks/get`, `tasks/result` or `tasks/cancel` request.
fn task_id(params: &Map<String, Value>, method: &str) -> Result<String, McpError> {
    match params.get("taskId") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(McpError::invalid_params(format!(
            "{method}: params.taskId must be a string"
        ))),
        None => Err(McpError::invalid_params(format!(
            "{method}: params.taskId is required"
        ))),
    }
}

impl TaskStore {
    /// Answers the requestor's `tasks/get`, `tasks/result`, `tasks/list` or `tasks/cancel`
    /// (`method`, with `params`) for the session of `ctx`, every bad input a `-32602`: params
    /// that are not an object, a missing or non-string `taskId`, a task that is unknown,
    /// expired or another session's, a cursor this store did not issue, cancelling a task that
    /// ended. Also returns, for a `tasks/cancel` of a task another replica runs, its id (that
    /// replica is to be told to stop it).
    pub async fn answer(
        &self,
        method: &str,
        params: Option<Value>,
        ctx: &RequestContext,
        shared: &Arc<dyn SharedTasks>,
        page_size: usize,
    ) -> Result<(Value, Option<String>), McpError> {
        let p = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(McpError::invalid_params("params must be an object")),
        };
        if method == "tasks/list" {
            let cursor = match p.get("cursor") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.as_str()),
                Some(_) => return Err(McpError::invalid_params("params.cursor must be a string")),
            };
            let page = self.list(&**shared, ctx, cursor, page_size).await?;
            return Ok((page, None));
        }
        let id = task_id(&p, method)?;
        match method {
            "tasks/get" => Ok((self.get_task(&**shared, ctx, &id).await?, None)),
            "tasks/result" => Ok((self.result(&**shared, &id, ctx).await?, None)),
            "tasks/cancel" => {
                let (task, elsewhere) = self.cancel(shared, &id, ctx).await?;
                Ok((task, elsewhere.then_some(id)))
            }
            m => Err(McpError::method_not_found(m)),
        }
    }
}

/// Where the handler of the task `record` (of `session`) reports its status
/// ([`RequestContext::report_task_status`]): `working` / `input_required` and a message change
/// the task now (shared with the replicas, announced with `notifications/tasks/status` when
/// they change it); a terminal status is noted for the handler's end.
fn status_sink(
    record: &Arc<TaskRecord>,
    session: &Arc<crate::session::Session>,
    shared: Arc<dyn SharedTasks>,
) -> crate::session::TaskStatusSink {
    let record = Arc::downgrade(record);
    let session = Arc::downgrade(session);
    Arc::new(move |status: TaskStatus, message: Option<String>| {
        let Some(record) = record.upgrade() else {
            return;
        };
        if status.is_terminal() {
            *record.noted_end.lock().unwrap() = Some((status, message));
            return;
        }
        let snapshot = {
            let mut st = record.state.lock().unwrap();
            if st.0.status.is_terminal()
                || (st.0.status == status && st.0.status_message == message)
            {
                return;
            }
            st.0.status = status;
            st.0.status_message = message;
            st.0.last_updated_at = rfc3339_now();
            st.0.clone()
        };
        share(record, shared.clone());
        if let Some(session) = session.upgrade() {
            notify_status(&session, &snapshot);
        }
    })
}

fn notify_status(session: &crate::session::Session, task: &Task) {
    let params = serde_json::to_value(task).expect("tasks serialize");
    let _ = session.try_send_notification(
        crate::session::Notifier::Session,
        "notifications/tasks/status",
        Some(params),
        None,
    );
}

fn random_id() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
