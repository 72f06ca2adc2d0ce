//! Tasks (2025-11-25): durable state machines that let a requester poll for, fetch and cancel
//! the result of a long-running request instead of waiting on the response.

use serde::{Deserialize, Serialize};

use super::meta::{Cursor, JsonObject, Meta};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The receiver needs input from the requester (e.g. an elicitation) to go on.
    InputRequired,
    /// Finished successfully; the result is available through `tasks/result`.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task can no longer change state (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// Data associated with a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task identifier.
    pub task_id: String,
    /// Current state.
    pub status: TaskStatus,
    /// Human-readable detail about the current state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Retention from creation in milliseconds; `None` (sent as `null`, which the schema
    /// requires to be present) means unlimited.
    #[serde(default)]
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Task {
    /// A task in the given state, created and last updated at `now` (ISO 8601), with unlimited
    /// retention.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::{Task, TaskStatus};
    ///
    /// let mut task = Task::new("t-1", TaskStatus::Working, "2025-11-25T10:00:00Z");
    /// assert!(!task.status.is_terminal());
    /// task.status = TaskStatus::Completed;
    /// assert!(task.status.is_terminal());
    /// assert_eq!(serde_json::to_value(&task).unwrap()["status"], "completed");
    /// ```
    pub fn new(task_id: impl Into<String>, status: TaskStatus, now: impl Into<String>) -> Self {
        let now = now.into();
        Task {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl: None,
            poll_interval: None,
            extra: JsonObject::new(),
        }
    }
}

/// Asks for task-augmented execution; sent as `params.task` of a request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskMetadata {
    /// Requested retention from creation in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The immediate answer to a task-augmented request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The task that was created.
    pub task: Task,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateTaskResult {
    /// The answer announcing `task`, without `_meta`.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::{CreateTaskResult, Task, TaskStatus};
    ///
    /// let created = CreateTaskResult::new(Task::new("t-1", TaskStatus::Working, "2025-11-25T10:00:00Z"));
    /// let wire = serde_json::to_value(&created).unwrap();
    /// assert_eq!(wire["task"]["taskId"], "t-1");
    /// assert_eq!(wire["task"]["status"], "working");
    /// assert!(wire["task"]["ttl"].is_null()); // unlimited retention is sent as `null`
    /// ```
    pub fn new(task: Task) -> Self {
        CreateTaskResult {
            task,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Parameters naming one task: the shape of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TaskIdParams {
    /// Parameters for the given task.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskIdParams {
            task_id: task_id.into(),
            ..Default::default()
        }
    }
}

/// Parameters of `tasks/get`.
pub type GetTaskRequestParams = TaskIdParams;
/// Parameters of `tasks/result`.
pub type GetTaskPayloadRequestParams = TaskIdParams;
/// Parameters of `tasks/cancel`.
pub type CancelTaskRequestParams = TaskIdParams;

/// A task plus `_meta`: the schema's `Result & Task` intersection, used by `tasks/get`,
/// `tasks/cancel` and `notifications/tasks/status`. The task's fields sit at the top level
/// on the wire; unknown fields land in `task.extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskWithMeta {
    /// The task's fields (flattened).
    #[serde(flatten)]
    pub task: Task,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskWithMeta {
    /// The task without `_meta`.
    pub fn new(task: Task) -> Self {
        TaskWithMeta { task, meta: None }
    }
}

impl From<Task> for TaskWithMeta {
    fn from(task: Task) -> Self {
        TaskWithMeta { task, meta: None }
    }
}

/// The answer to `tasks/get`: the task's current state.
pub type GetTaskResult = TaskWithMeta;
/// The answer to `tasks/cancel`: the task's state after cancellation.
pub type CancelTaskResult = TaskWithMeta;
/// Parameters of `notifications/tasks/status`: the task's new state.
pub type TaskStatusNotificationParams = TaskWithMeta;

/// The answer to `tasks/result`: whatever the original request would have returned (e.g. a
/// `CallToolResult`), kept as an open object. Use [`GetTaskPayloadResult::parse`] to read it
/// as the expected type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetTaskPayloadResult {
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The original result's fields.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetTaskPayloadResult {
    /// Wraps a result of the original request type.
    pub fn from_result<T: Serialize>(result: &T) -> serde_json::Result<Self> {
        serde_json::from_value(serde_json::to_value(result)?)
    }

    /// Reads the payload as the original request's result type.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_value(serde_json::to_value(self)?)
    }
}

/// The answer to `tasks/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksResult {
    /// This page of tasks.
    pub tasks: Vec<Task>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The extension's identifier (2026-07-28 tasks): the key under `capabilities.extensions` on
/// both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The current time as an RFC 3339 UTC timestamp with milliseconds: what a task's
/// `createdAt` and `lastUpdatedAt` carry (both roles stamp them).
#[doc(hidden)]
pub fn rfc3339_now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_rfc3339() {
        let t = super::rfc3339_now();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
        assert!(t.starts_with("20"), "{t}");
    }
}
