//! Tasks (2025-11-25): durable state machines that let a requester poll for, fetch and cancel
//! the result of a long-running request instead of waiting on the response.

use serde::{Deserialize, Serialize};

use super::meta::{Cursor, JsonObject, Meta};

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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

/// Parameters naming one task: the shape of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
pub struct TaskWithMeta {
    /// The task's fields (flattened).
    #[serde(flatten)]
    pub task: Task,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
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
