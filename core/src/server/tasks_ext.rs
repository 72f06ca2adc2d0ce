//! The tasks extension `io.modelcontextprotocol/tasks` (SEP-2663), served to per-request-era
//! (2026-07-28) requests when the server declares it ([`ServerOptions::tasks_extension`]).
//!
//! It lives beside the 2025-11-25 tasks of [`super::tasks`], which it leaves as they are. Here
//! the server, not the client, decides to answer a `tools/call` with a task handle
//! (`resultType: "task"`, the task's fields at the top level); the client polls `tasks/get`,
//! which inlines the result or the JSON-RPC error once the task has ended and the outstanding
//! `inputRequests` while it waits for input; `tasks/update` answers those; `tasks/cancel` asks
//! it to stop. There is no `tasks/result` and no `tasks/list` (the session answers both
//! "method not found" in this era).
//!
//! Which calls become tasks: calls of a tool whose `execution.taskSupport` is `optional` or
//! `required`, in a request whose client capabilities declare the extension. Without it an
//! `optional` tool runs as a plain call and a `required` one is refused with `-32021`. The
//! handler is polled once before the task exists (or, with
//! [`TaskOptions::first_answer_wait`](super::TaskOptions::first_answer_wait), given that long to
//! answer, for handlers running on other threads): when it answers `input_required` by then,
//! the call is an ordinary multi round-trip round and no task is made (input gathered before the
//! task, as the extension advises); otherwise the task is made and stored before the handle is
//! answered (a `tasks/get` right after it finds the task), and the handler runs on in the
//! background. Input it asks for while it runs (`ctx.request`, `ctx.input`) parks the task in
//! `input_required` ([`crate::session::TaskInputs`]).
//!
//! Tool errors (`isError`) end a task `completed`; only a JSON-RPC error ends it `failed`.
//! Status notifications: a `subscriptions/listen` of a declaring client naming `taskIds` is
//! agreed to for the tasks the requester may see that this replica runs or the shared
//! [`TaskStore`] holds (run by another replica), not expired; the acknowledgement lists those
//! (an id no replica knows is left out, as the filter types a server does not honour are). The
//! subscription gets each one's state as stored at once (so that a change made before it
//! listened is not missed), then `notifications/tasks` with the task's `DetailedTask` (what
//! `tasks/get` answers then) at every change, the last one its terminal state. Every state
//! written to the store carries the store's revision; the replica that wrote it sends it to its
//! own subscriptions and the other replicas get it over the HTTP endpoint's event bus
//! ([`TaskSignal::Changed`]); a subscription sends only revisions above the last it sent (and
//! not a state saying the same as the last one), so the states come in order and once. A
//! state the store fails to take is not sent. A replica that dies mid-task writes nothing
//! more: its task stays in its last stored state (and its subscriptions get nothing more)
//! until it expires. A listen naming `taskIds` without the extension is `-32021`, as the extension
//! requires; naming more than [`MAX_LISTEN_TASK_IDS`] is `-32602`.
//! The era has no sessions, so tasks are bound to no session: the 128-bit random id is the
//! handle, and a task made under a verified bearer token answers only requests bearing the same
//! identity (anyone else is told the task does not exist). Every task has a TTL (the options'
//! default, capped by their maximum): past it the task is dropped and its handler stopped, and
//! the store holds at most `max_tasks` tasks.
//!
//! Replicas: the live task (its handler, its parked input requests) stays on the replica that
//! made it, which writes the task's state to the server's [`TaskStore`] at every change (one
//! writer per task, so the last write is the latest state). A replica asked about a task it
//! does not run answers `tasks/get` from that store, and passes `tasks/update` and
//! `tasks/cancel` on to the running replica over the HTTP endpoint's event bus
//! ([`TaskSignal`]), after writing to the store what the client will see next. The default
//! store is in memory; an HTTP endpoint's `task_store` (or `redis_url`) replaces it.
//!
//! [`ServerOptions::tasks_extension`]: super::ServerOptions::tasks_extension

use super::registry::ToolEntry;
use super::task_store::{now_ms, StoredTask, TaskSignal, TaskStore};
use super::Server;
use crate::error::codes;
use crate::protocol::{rfc3339_now, TASKS_EXTENSION};
use crate::protocol::{CallToolResult, ProtocolVersion, TaskStatus, TaskSupport};
use crate::session::per_request::{missing_capability, shape_error};
use crate::session::{tool_result_value, ToolOutput};
use crate::session::{RequestContext, TaskInputs, TaskStatusSink, INPUT_REQUIRED};
use crate::McpError;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a cancelled or expired task's handler may run on to see its cancellation.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// The most task ids one `subscriptions/listen` may name in `taskIds` (more is `-32602`): each
/// is looked up in the task store when the subscription opens, and the subscription keeps the
/// last revision it sent of each.
pub const MAX_LISTEN_TASK_IDS: usize = 256;

/// One task of the extension.
struct ExtTask {
    id: String,
    /// The identity of the bearer token of the request that made it, if any.
    owner: Option<String>,
    expires: Instant,
    /// `expires` as milliseconds since the Unix epoch (what the shared store keeps).
    expires_at_ms: u64,
    cancel: CancellationToken,
    inputs: Arc<TaskInputs>,
    state: Mutex<TaskState>,
    /// What its handler reported ([`RequestContext::report_task_status`]).
    reported: Arc<Mutex<Reported>>,
}

/// What a task's handler reported of it ([`RequestContext::report_task_status`]).
#[derive(Default)]
struct Reported {
    /// The `statusMessage` while the task runs, and when it was reported (RFC 3339).
    message: Option<String>,
    at: Option<String>,
    /// How the task is to end: a terminal status and its message.
    end: Option<(TaskStatus, Option<String>)>,
}

/// Where a task's handler reports to: a message is the running task's `statusMessage` from
/// now on (written to the store and announced as any change of the task), a terminal status
/// is noted for the handler's end (the status itself is not taken while it runs: a task is
/// `input_required` exactly while it has parked input requests).
fn status_sink(reported: Arc<Mutex<Reported>>, inputs: Arc<TaskInputs>) -> TaskStatusSink {
    Arc::new(move |status: TaskStatus, message: Option<String>| {
        {
            let mut r = reported.lock().unwrap();
            if status.is_terminal() {
                r.end = Some((status, message));
                return;
            }
            if r.message == message {
                return;
            }
            r.message = message;
            r.at = Some(rfc3339_now());
        }
        inputs.mark_changed();
    })
}

/// What a task reports besides its outstanding input requests.
struct TaskState {
    /// `working` or a terminal status (`input_required` is derived from the parked requests).
    status: TaskStatus,
    message: Option<String>,
    created_at: String,
    updated_at: String,
    ttl_ms: u64,
    poll_ms: u64,
    /// The result (`completed`) or the JSON-RPC error (`failed`).
    outcome: Option<Result<Value, McpError>>,
}

/// What a replica holds of a task.
enum Local {
    /// It runs the task.
    Here(Arc<ExtTask>),
    /// It does not run the task (or no longer: it expired).
    Absent,
}

/// The extension's tasks of one server.
#[derive(Default)]
pub(crate) struct ExtTaskStore {
    tasks: Mutex<HashMap<String, Arc<ExtTask>>>,
}

impl ExtTask {
    /// The task's fields (`Task`) and, with `detailed`, what its status inlines
    /// (`DetailedTask`: `inputRequests`, `result` or `error`).
    fn view(&self, detailed: bool) -> Value {
        let st = self.state.lock().unwrap();
        let (outstanding, changed_at) = if st.status.is_terminal() {
            (Map::new(), None)
        } else {
            self.inputs.outstanding()
        };
        let status = if st.status.is_terminal() || outstanding.is_empty() {
            st.status
        } else {
            TaskStatus::InputRequired
        };
        let (message, reported_at) = if st.status.is_terminal() {
            (st.message.clone(), None)
        } else {
            let r = self.reported.lock().unwrap();
            (
                r.message.clone().or_else(|| st.message.clone()),
                r.at.clone(),
            )
        };
        let updated = [changed_at, reported_at]
            .into_iter()
            .flatten()
            .fold(st.updated_at.clone(), |a, b| if b > a { b } else { a });
        let mut v = json!({
            "taskId": self.id,
            "status": status,
            "createdAt": st.created_at,
            "lastUpdatedAt": updated,
            "ttlMs": st.ttl_ms,
            "pollIntervalMs": st.poll_ms,
        });
        if let Some(m) = message {
            v["statusMessage"] = json!(m);
        }
        if detailed {
            match (status, &st.outcome) {
                (TaskStatus::InputRequired, _) => v["inputRequests"] = Value::Object(outstanding),
                (TaskStatus::Completed, Some(Ok(result))) => v["result"] = result.clone(),
                (TaskStatus::Failed, Some(Err(e))) => {
                    v["error"] = serde_json::to_value(e).expect("errors serialize")
                }
                _ => {}
            }
        }
        v
    }

    /// Records how the handler ended, unless the task already ended (cancelled).
    fn settle(&self, outcome: Result<Value, McpError>) {
        {
            let mut st = self.state.lock().unwrap();
            if st.status.is_terminal() {
                return;
            }
            // The end the handler reported: `cancelled` whatever it returned; the message of
            // the status its outcome gives.
            let noted = self.reported.lock().unwrap().end.take();
            match (outcome, noted) {
                (_, Some((TaskStatus::Cancelled, message))) => {
                    st.status = TaskStatus::Cancelled;
                    st.message = Some(message.unwrap_or_else(|| "the task was cancelled".into()));
                    st.outcome = None;
                }
                (Ok(result), noted) => {
                    st.status = TaskStatus::Completed;
                    st.outcome = Some(Ok(result));
                    if let Some((TaskStatus::Completed, Some(m))) = noted {
                        st.message = Some(m);
                    }
                }
                (Err(e), noted) => {
                    let e = if e.code == INPUT_REQUIRED {
                        McpError::internal(
                            "the tool answered input_required after its task had started; \
                             inside a task, ask with ctx.input or ctx.request",
                        )
                    } else {
                        shape_error(e)
                    };
                    st.status = TaskStatus::Failed;
                    st.message = match noted {
                        Some((TaskStatus::Failed, Some(m))) => Some(m),
                        _ => Some(e.message.clone()),
                    };
                    st.outcome = Some(Err(e));
                }
            }
            st.updated_at = rfc3339_now();
        }
        self.inputs.close();
    }

    /// Ends the task as cancelled (unless it already ended) and stops its handler.
    fn stop(&self, message: &str) {
        {
            let mut st = self.state.lock().unwrap();
            if !st.status.is_terminal() {
                st.status = TaskStatus::Cancelled;
                st.message = Some(message.into());
                st.updated_at = rfc3339_now();
            }
        }
        self.cancel.cancel();
        self.inputs.close();
    }

    /// The task as the replicas share it.
    fn record(&self) -> StoredTask {
        StoredTask {
            task: self.view(true),
            owner: self.owner.clone(),
            expires_at_ms: self.expires_at_ms,
            session: None,
            result: None,
            error: None,
            revision: 0,
        }
    }

    /// Takes the cancellation another replica recorded (the shared store refused this
    /// replica's state because the task had ended there): the task ends cancelled here too,
    /// whatever its handler did meanwhile.
    fn adopt_cancelled(&self, message: &str) {
        {
            let mut st = self.state.lock().unwrap();
            if st.status != TaskStatus::Cancelled {
                st.status = TaskStatus::Cancelled;
                st.message = Some(message.into());
                st.outcome = None;
                st.updated_at = rfc3339_now();
            }
        }
        self.cancel.cancel();
        self.inputs.close();
    }
}

/// Writes `task`'s state to `store` whenever it changes, until the task ends (its last state
/// written) or is dropped. One writer per task, each write taking the state as it is then: the
/// last write is the latest state. A write the store refuses (another replica ended the task)
/// makes this replica take the stored cancellation.
/// Each state written goes to the subscriptions that asked for the task
/// ([`Server::write_task_state`]).
async fn sync_to_store(
    server: Server,
    task: Arc<ExtTask>,
    store: Arc<dyn TaskStore>,
    mut changes: tokio::sync::watch::Receiver<()>,
) {
    loop {
        if changes.changed().await.is_err() {
            return;
        }
        let record = task.record();
        let ended = record.is_terminal();
        match server.write_task_state(&*store, record).await {
            Ok(Some(_)) => {}
            Ok(None) => {
                if let Ok(Some(stored)) = store.get(task.id.clone()).await {
                    if stored.status() == Some(TaskStatus::Cancelled) {
                        let message = stored.task["statusMessage"].as_str().unwrap_or("cancelled");
                        task.adopt_cancelled(message);
                        // The replica that wrote it announced it; sent here too, in case the
                        // bus lost it (a subscription sends a revision once).
                        server.notify_task_here(stored.revision, &stored.task);
                    }
                }
                return;
            }
            Err(e) => tracing::warn!(error = %e, task = %task.id, "writing a task's state failed"),
        }
        if ended {
            return;
        }
    }
}

/// Whether the request `ctx` serves declared the extension in its client capabilities.
fn client_declares(ctx: &RequestContext) -> bool {
    ctx.session()
        .negotiated()
        .is_some_and(|n| n.peer_has(&["extensions", TASKS_EXTENSION]))
}

/// `-32021` naming the extension in `data.requiredCapabilities`.
fn missing_extension() -> McpError {
    missing_capability(&["extensions", TASKS_EXTENSION])
}

/// The identity a task is bound to: the verified bearer token's subject and client.
fn owner_of(ctx: &RequestContext) -> Option<String> {
    ctx.auth().map(|a| {
        format!(
            "{}\u{0}{}",
            a.subject.as_deref().unwrap_or(""),
            a.client_id.as_deref().unwrap_or("")
        )
    })
}

fn not_found(id: &str, why: &str) -> McpError {
    McpError::invalid_params(format!("Failed to retrieve task: {why}"))
        .with_data(json!({ "taskId": id }))
}

fn random_id() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Polls `fut` once.
async fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *fut).poll(cx))).await
}

impl ExtTaskStore {
    /// The task `id` as this replica holds it; `-32602` when it is here but made under
    /// another identity. An expired task is dropped here and its handler stopped, and is then
    /// not here: the shared store says it expired, once, for every replica.
    fn find_local(&self, owner: Option<&str>, id: &str) -> Result<Local, McpError> {
        let mut map = self.tasks.lock().unwrap();
        let Some(t) = map.get(id).cloned() else {
            return Ok(Local::Absent);
        };
        if t.owner.as_deref() != owner {
            return Err(not_found(id, "Task not found"));
        }
        if t.expires <= Instant::now() {
            map.remove(id);
            drop(map);
            t.stop("the task expired");
            return Ok(Local::Absent);
        }
        Ok(Local::Here(t))
    }

    /// Forgets task `id` (its state could not be shared).
    fn remove(&self, id: &str) {
        self.tasks.lock().unwrap().remove(id);
    }

    /// The task `id` if this replica runs it (for a signal from another replica).
    fn local(&self, id: &str) -> Option<Arc<ExtTask>> {
        self.tasks.lock().unwrap().get(id).cloned()
    }

    /// Whether one more task fits (at most `max`), after dropping the expired ones when the
    /// store is full: `-32603` saying so when it does not.
    fn make_room(&self, max: usize) -> Result<(), McpError> {
        Self::room(&mut self.tasks.lock().unwrap(), max)
    }

    fn room(map: &mut HashMap<String, Arc<ExtTask>>, max: usize) -> Result<(), McpError> {
        if map.len() >= max {
            let now = Instant::now();
            map.retain(|_, t| {
                let keep = t.expires > now;
                if !keep {
                    t.stop("the task expired");
                }
                keep
            });
        }
        if map.len() >= max {
            return Err(McpError::internal(format!(
                "task limit reached ({max} tasks); try again later"
            ))
            .with_data(json!({ "reason": "tooManyTasks", "limit": max })));
        }
        Ok(())
    }

    /// Stores `task` if it fits ([`Self::make_room`]).
    fn insert(&self, task: Arc<ExtTask>, max: usize) -> Result<(), McpError> {
        let mut map = self.tasks.lock().unwrap();
        Self::room(&mut map, max)?;
        map.insert(task.id.clone(), task);
        Ok(())
    }
}

impl Server {
    /// Whether requests of `version` are served the tasks extension.
    pub(super) fn tasks_ext_on(&self, version: ProtocolVersion) -> bool {
        self.inner.options.tasks_extension && version.is_per_request()
    }

    /// `tools/call` of a tool that supports tasks, when the extension is on: a task handle
    /// (`CreateTaskResult`) when the request declared the extension, see the module's
    /// documentation.
    pub(super) async fn call_tool_as_task(
        &self,
        entry: Arc<ToolEntry>,
        args: Map<String, Value>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<ToolOutput, McpError> {
        if !client_declares(&ctx) {
            if entry.tool.task_support() == TaskSupport::Required {
                return Err(missing_extension());
            }
            let result = self.finish_tool_call(&entry, args, ctx, version).await?;
            return Ok(ToolOutput::Result(result));
        }
        let opts = &self.inner.options.tasks;
        let store = &self.inner.ext_tasks;
        // Refused before the handler runs at all when the store is full.
        store.make_room(opts.max_tasks)?;
        let ttl = opts.default_ttl.min(opts.max_ttl);
        let cancel = CancellationToken::new();
        let inputs = Arc::new(TaskInputs::default());
        let reported = Arc::new(Mutex::new(Reported::default()));
        let task_ctx = ctx.for_task(
            cancel.clone(),
            inputs.clone(),
            status_sink(reported.clone(), inputs.clone()),
        );
        let parked = inputs.clone();
        let server = self.clone();
        let mut run: BoxFuture<'static, Result<CallToolResult, McpError>> = Box::pin(async move {
            let call = server.finish_tool_call(&entry, args, task_ctx, version);
            match std::panic::AssertUnwindSafe(call).catch_unwind().await {
                Ok(r) => r,
                Err(_) => Err(McpError::internal("the tool's handler panicked")),
            }
        });
        let first = match poll_once(&mut run).await {
            Poll::Ready(r) => Some(r),
            Poll::Pending if opts.first_answer_wait.is_zero() => None,
            // A handler on another thread: give it a moment to answer, unless it parks input
            // (only a task can carry that) or says no early answer is coming
            // (`ctx.start_task`), or the request is cancelled first.
            Poll::Pending => tokio::select! {
                biased;
                r = &mut run => Some(r),
                _ = parked.parked() => None,
                _ = ctx.cancellation().cancelled() => None,
                _ = tokio::time::sleep(opts.first_answer_wait) => None,
            },
        };
        let now_done = match first {
            // Input asked for before the task exists (a multi round-trip round), or a request
            // the client cannot serve at all: answered as the call's own outcome.
            Some(Err(e))
                if e.code == INPUT_REQUIRED || e.code == codes::MISSING_CLIENT_CAPABILITY =>
            {
                return Err(e)
            }
            Some(r) => Some(r.map(tool_result_value)),
            None => {
                // The handler (not polled again before `drive`) sees the task made.
                inputs.set_made();
                None
            }
        };
        let created = rfc3339_now();
        let task = Arc::new(ExtTask {
            id: random_id(),
            owner: owner_of(&ctx),
            expires: Instant::now() + ttl,
            expires_at_ms: now_ms()
                .saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)),
            cancel: cancel.clone(),
            inputs,
            state: Mutex::new(TaskState {
                status: TaskStatus::Working,
                message: None,
                created_at: created.clone(),
                updated_at: created,
                ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
                poll_ms: u64::try_from(opts.poll_interval.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
                outcome: None,
            }),
            reported,
        });
        let ran_out = now_done.is_some();
        if let Some(outcome) = now_done {
            task.settle(outcome);
        }
        if let Err(e) = store.insert(task.clone(), opts.max_tasks) {
            task.stop("the task store is full");
            return Err(e);
        }
        // Shared before the handle is answered: a `tasks/get` on any replica finds the task.
        // Changes from here on are written by the task's one writer.
        let shared = self.task_store();
        let changes = task.inputs.changes();
        let first = task.record();
        let ended = first.is_terminal();
        if let Err(e) = shared.put(first).await {
            store.remove(&task.id);
            task.stop("the task store failed");
            return Err(e);
        }
        if !ended {
            tokio::spawn(sync_to_store(self.clone(), task.clone(), shared, changes));
        }
        if !ran_out {
            tokio::spawn(drive(task.clone(), run));
        }
        let mut handle = task.view(false);
        handle["resultType"] = json!("task");
        Ok(ToolOutput::Json(handle))
    }

    /// `subscriptions/listen` asking for task status notifications (`notifications.taskIds`):
    /// the ids agreed to (see the module's documentation), in the order asked, each once; none
    /// when the extension is not served to the request. `-32021` from a client that did not
    /// declare the extension, as the extension requires; `-32602` when `taskIds` is not an
    /// array of strings or names more than [`MAX_LISTEN_TASK_IDS`].
    pub(super) async fn listen_task_ids(
        &self,
        asked: &Map<String, Value>,
        ctx: &RequestContext,
    ) -> Result<Vec<String>, McpError> {
        let Some(ids) = asked.get("taskIds").filter(|v| !v.is_null()) else {
            return Ok(Vec::new());
        };
        let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
        if !self.tasks_ext_on(version) {
            return Ok(Vec::new());
        }
        if !client_declares(ctx) {
            return Err(missing_extension());
        }
        let ids = ids
            .as_array()
            .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
            .ok_or_else(|| McpError::invalid_params("taskIds must be an array of task ids"))?;
        if ids.len() > MAX_LISTEN_TASK_IDS {
            return Err(McpError::invalid_params(format!(
                "taskIds names {} tasks; a subscription may name at most {MAX_LISTEN_TASK_IDS}",
                ids.len()
            ))
            .with_data(json!({ "reason": "tooManyTaskIds", "limit": MAX_LISTEN_TASK_IDS })));
        }
        let owner = owner_of(ctx);
        let mut asked: Vec<&str> = Vec::with_capacity(ids.len());
        for id in ids {
            if !asked.contains(&id) {
                asked.push(id);
            }
        }
        // Those this replica runs, then the others from the shared store (one read for all).
        let mut agreed = vec![false; asked.len()];
        let mut elsewhere: Vec<usize> = Vec::new();
        for (i, id) in asked.iter().enumerate() {
            match self.inner.ext_tasks.find_local(owner.as_deref(), id) {
                Ok(Local::Here(_)) => agreed[i] = true,
                Ok(Local::Absent) => elsewhere.push(i),
                Err(_) => {}
            }
        }
        if !elsewhere.is_empty() {
            let ids = elsewhere.iter().map(|&i| asked[i].to_string()).collect();
            let stored = self.task_store().get_many(ids).await?;
            for (&i, t) in elsewhere.iter().zip(stored) {
                agreed[i] =
                    t.is_some_and(|t| t.owner == owner && t.session.is_none() && !t.is_expired());
            }
        }
        let agreed = asked
            .into_iter()
            .zip(agreed)
            .filter(|(_, yes)| *yes)
            .map(|(id, _)| id.to_string())
            .collect();
        Ok(agreed)
    }

    /// Sends each task in `ids` as the shared store has it now to the subscription `session`
    /// (which has just started listening for them, so changes from here on reach it too; a
    /// subscription sends each revision once).
    pub(super) async fn send_task_snapshots(
        &self,
        session: &crate::session::Session,
        ids: Vec<String>,
    ) -> Result<(), McpError> {
        if ids.is_empty() {
            return Ok(());
        }
        for t in self.task_store().get_many(ids).await?.into_iter().flatten() {
            if !t.is_expired() {
                session.notify_task(t.revision, &t.task);
            }
        }
        Ok(())
    }

    /// Sends `task` (a `DetailedTask` as stored with `revision`) as `notifications/tasks` to
    /// the subscriptions of this process that asked for it.
    pub(crate) fn notify_task_here(&self, revision: u64, task: &Value) {
        for s in self.live_sessions() {
            s.notify_task(revision, task);
        }
    }

    /// Writes a state of an extension task to `store` and, when written, sends it to the
    /// subscriptions of this process that asked for it and hands it to the relays for the
    /// other replicas' (over the HTTP endpoint's bus, unless the store announces its writes
    /// itself): the store's answer ([`TaskStore::put`]).
    async fn write_task_state(
        &self,
        store: &dyn TaskStore,
        record: StoredTask,
    ) -> Result<Option<u64>, McpError> {
        let mut task = record.clone();
        let written = store.put(record).await?;
        if let Some(revision) = written {
            task.revision = revision;
            self.notify_task_here(revision, &task.task);
            self.relay_task_signal(TaskSignal::Changed(task)).await;
        }
        Ok(written)
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the extension (`method`, with `p`):
    /// served by the live task when this replica runs it, else from the shared task store
    /// (update and cancel then reach the running replica over the bus).
    pub(super) async fn tasks_ext_request(
        &self,
        method: &str,
        p: &Map<String, Value>,
        ctx: &RequestContext,
    ) -> Result<Value, McpError> {
        if !client_declares(ctx) {
            return Err(missing_extension());
        }
        let id = match p.get("taskId") {
            Some(Value::String(s)) => s.as_str(),
            Some(_) => {
                return Err(McpError::invalid_params(format!(
                    "{method}: params.taskId must be a string"
                )))
            }
            None => {
                return Err(McpError::invalid_params(format!(
                    "{method}: params.taskId is required"
                )))
            }
        };
        let responses = match (method, p.get("inputResponses")) {
            ("tasks/update", Some(Value::Object(m))) if m.values().all(Value::is_object) => {
                Some(m.clone())
            }
            ("tasks/update", _) => {
                return Err(McpError::invalid_params(
                    "tasks/update: params.inputResponses must be an object of result objects",
                ))
            }
            _ => None,
        };
        let owner = owner_of(ctx);
        let store = self.task_store();
        match self.inner.ext_tasks.find_local(owner.as_deref(), id)? {
            Local::Here(task) => {
                match (method, responses) {
                    ("tasks/get", _) => return Ok(task.view(true)),
                    (_, Some(responses)) => {
                        task.inputs.answer(responses);
                    }
                    _ => task.stop("cancelled by the client"),
                }
                return Ok(json!({}));
            }
            // A task another replica runs (or one this replica no longer holds).
            Local::Absent => {}
        }
        let stored = match store.get(id.to_string()).await? {
            Some(t) if t.owner == owner && t.session.is_none() => t,
            _ => return Err(not_found(id, "Task not found")),
        };
        if stored.is_expired() {
            return Err(expired(&*store, id).await);
        }
        if method == "tasks/get" {
            return Ok(stored.task);
        }
        if stored.is_terminal() {
            // As on the running replica: answers to an ended task are ignored, and cancelling
            // it again is acknowledged.
            return Ok(json!({}));
        }
        let signal = match responses {
            Some(responses) => {
                self.write_task_state(&*store, stored.without_inputs(&responses, rfc3339_now()))
                    .await?;
                TaskSignal::Update {
                    task_id: id.to_string(),
                    responses,
                }
            }
            None => {
                self.write_task_state(
                    &*store,
                    stored.cancelled("cancelled by the client", rfc3339_now()),
                )
                .await?;
                TaskSignal::Cancel {
                    task_id: id.to_string(),
                }
            }
        };
        self.relay_task_signal(signal).await;
        Ok(json!({}))
    }

    /// A [`TaskSignal`] from another replica: applied when this replica runs the task.
    pub(crate) fn task_signal_here(&self, signal: TaskSignal) {
        match signal {
            TaskSignal::Update { task_id, responses } => {
                if let Some(task) = self.inner.ext_tasks.local(&task_id) {
                    task.inputs.answer(responses);
                }
            }
            TaskSignal::Cancel { task_id } => {
                if let Some(task) = self.inner.ext_tasks.local(&task_id) {
                    task.stop("cancelled by the client");
                }
                self.inner.tasks.cancel_here(&task_id);
            }
            TaskSignal::Changed(t) => self.notify_task_here(t.revision, &t.task),
        }
    }

    /// The store the extension's tasks are shared in.
    pub(crate) fn task_store(&self) -> Arc<dyn TaskStore> {
        self.inner.task_store.read().unwrap().clone()
    }

    /// Shares this server's tasks in `store` from now on (an HTTP endpoint whose replicas share
    /// one: its `task_store` option, or its Redis store). Tasks made before stay in the store
    /// they were written to.
    pub(crate) fn set_task_store(&self, store: Arc<dyn TaskStore>) {
        *self.inner.task_store.write().unwrap() = store;
    }

    /// Adds a relay passing [`TaskSignal`]s on to other replicas (an HTTP endpoint's bus).
    pub(crate) fn add_task_relay(&self, relay: TaskRelay) {
        self.inner.task_relays.lock().unwrap().push(relay);
    }

    /// Hands `signal` to every relay and waits until each has sent it; relays whose endpoint
    /// is gone are dropped.
    pub(super) async fn relay_task_signal(&self, signal: TaskSignal) {
        let relays: Vec<TaskRelay> = self.inner.task_relays.lock().unwrap().clone();
        let mut gone = false;
        for relay in &relays {
            match relay(&signal) {
                Some(sent) => sent.await,
                None => gone = true,
            }
        }
        if gone {
            let probe = TaskSignal::Cancel {
                task_id: String::new(),
            };
            self.inner
                .task_relays
                .lock()
                .unwrap()
                .retain(|r| r(&probe).is_some());
        }
    }
}

/// A relay passing a [`TaskSignal`] on to the other replicas: the future sends it, `None` when
/// its endpoint is gone. A signal naming no task (an empty id) only asks whether it is there.
pub(crate) type TaskRelay =
    Arc<dyn Fn(&TaskSignal) -> Option<BoxFuture<'static, ()>> + Send + Sync>;

/// `-32602` saying task `id` expired, once: the task is removed from the shared store, so
/// afterwards every replica answers that there is no such task.
async fn expired(store: &dyn TaskStore, id: &str) -> McpError {
    if let Err(e) = store.remove(id.to_string()).await {
        tracing::warn!(error = %e, task = %id, "removing an expired task failed");
    }
    not_found(id, "Task has expired")
}

/// Runs a task's handler to its end, its cancellation or its expiry, and records the outcome.
async fn drive(task: Arc<ExtTask>, mut run: BoxFuture<'static, Result<CallToolResult, McpError>>) {
    let outcome = tokio::select! {
        biased;
        _ = task.cancel.cancelled() => None,
        _ = tokio::time::sleep_until(task.expires) => {
            task.stop("the task expired");
            None
        }
        r = &mut run => Some(r),
    };
    match outcome {
        Some(r) => task.settle(r.map(tool_result_value)),
        // Let the handler see its token fire and wind down before it is dropped.
        None => {
            let _ = tokio::time::timeout(CANCEL_GRACE, run).await;
        }
    }
}
