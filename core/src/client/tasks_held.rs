//! What the client keeps and reads of the tasks extension (io.modelcontextprotocol/tasks) below
//! its calls: whether a result is a task handle, the capability that declares the extension, and
//! the results a server answered at once, held as completed tasks of the client's own. Both the
//! client's request path ([`super::api`]) and its task calls ([`super::tasks_ext`]) use it, so
//! neither has to reach into the other.

use crate::protocol::{Task, TaskStatus, TASKS_EXTENSION};
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Prefix of the ids of tasks the client holds itself (results a server answered at once).
const LOCAL_PREFIX: &str = "ferromcp-local-";
/// How many such results the client holds (the oldest go first).
const MAX_HELD: usize = 256;
/// Whether `result` is the extension's task handle (`resultType: "task"`).
pub(crate) fn is_task_handle(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("task")
}

/// `capabilities` with the extension declared under `extensions`.
pub(crate) fn declare(mut capabilities: Value) -> Value {
    if let Value::Object(caps) = &mut capabilities {
        let ext = caps
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(ext) = ext {
            ext.entry(TASKS_EXTENSION)
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    capabilities
}

/// Results a server answered at once to `Client::call_tool_as_task`, held as completed
/// tasks of the client's own.
#[derive(Default)]
pub(crate) struct HeldResults {
    inner: Mutex<Held>,
}

/// The held results (oldest first in `order`) and, by task id, each one's task and result.
#[derive(Default)]
struct Held {
    order: VecDeque<String>,
    by_id: HashMap<String, (Task, Value)>,
}

impl HeldResults {
    pub(super) fn hold(&self, result: Value) -> Task {
        let bytes: [u8; 16] = rand::random();
        let id = format!(
            "{LOCAL_PREFIX}{}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        );
        let mut task = Task::new(
            id.clone(),
            TaskStatus::Completed,
            crate::protocol::rfc3339_now(),
        );
        task.status_message = Some("the server answered at once, without a task".into());
        let mut g = self.inner.lock().unwrap();
        if g.order.len() >= MAX_HELD {
            if let Some(old) = g.order.pop_front() {
                g.by_id.remove(&old);
            }
        }
        g.order.push_back(id.clone());
        g.by_id.insert(id, (task.clone(), result));
        task
    }

    pub(super) fn get(&self, id: &str) -> Option<(Task, Value)> {
        self.inner.lock().unwrap().by_id.get(id).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn declaring_keeps_other_extensions() {
        let caps = declare(json!({ "extensions": { "x/y": { "a": 1 } }, "roots": {} }));
        assert_eq!(caps["extensions"]["x/y"]["a"], 1);
        assert!(caps["extensions"][TASKS_EXTENSION].is_object());
        assert!(caps["roots"].is_object());
    }
}
