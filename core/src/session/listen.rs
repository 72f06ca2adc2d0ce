//! `subscriptions/listen` (2026-07-28): a per-request-era session that stays open to carry the
//! change notifications its client opted in to, each tagged with the subscription's id.
//!
//! The server tells every live session about a change through [`Session::notify_change`]; a
//! handshake-era session gets the notification as it always did, a listening one only when its
//! filter asks for that kind, on the stream of its `subscriptions/listen` request. The tasks
//! extension's status notifications (`notifications/tasks`) go the same way, through
//! [`Session::notify_task`], to the subscriptions that named the task in `taskIds`.

use super::per_request::META_SUBSCRIPTION_ID;
use super::{Notifier, Session};
use crate::jsonrpc::RequestId;
use crate::McpError;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// What a `subscriptions/listen` request opted in to (the part the server honours).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListenFilter {
    /// `notifications/tools/list_changed`.
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs.
    pub resource_subscriptions: Vec<String>,
    /// `notifications/tasks` (the tasks extension `io.modelcontextprotocol/tasks`) for these
    /// task ids.
    pub task_ids: Vec<String>,
}

impl ListenFilter {
    /// The filter as the acknowledgement states it (`SubscriptionFilter`; types not honoured
    /// are left out).
    pub fn to_value(&self) -> Value {
        let mut m = serde_json::Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools_list_changed),
            ("promptsListChanged", self.prompts_list_changed),
            ("resourcesListChanged", self.resources_list_changed),
        ] {
            if on {
                m.insert(key.into(), json!(true));
            }
        }
        if !self.resource_subscriptions.is_empty() {
            m.insert(
                "resourceSubscriptions".into(),
                json!(self.resource_subscriptions),
            );
        }
        if !self.task_ids.is_empty() {
            m.insert("taskIds".into(), json!(self.task_ids));
        }
        Value::Object(m)
    }

    /// Sets `tools_list_changed`.
    pub fn with_tools_list_changed(mut self, tools_list_changed: bool) -> Self {
        self.tools_list_changed = tools_list_changed;
        self
    }

    /// Sets `prompts_list_changed`.
    pub fn with_prompts_list_changed(mut self, prompts_list_changed: bool) -> Self {
        self.prompts_list_changed = prompts_list_changed;
        self
    }

    /// Sets `resources_list_changed`.
    pub fn with_resources_list_changed(mut self, resources_list_changed: bool) -> Self {
        self.resources_list_changed = resources_list_changed;
        self
    }

    /// Sets `resource_subscriptions`.
    pub fn with_resource_subscriptions(mut self, resource_subscriptions: Vec<String>) -> Self {
        self.resource_subscriptions = resource_subscriptions;
        self
    }

    /// Sets `task_ids`.
    pub fn with_task_ids(mut self, task_ids: Vec<String>) -> Self {
        self.task_ids = task_ids;
        self
    }
}

/// A session's subscription: the listen request's id (the subscription id) and its filter.
#[derive(Debug)]
pub(crate) struct Listen {
    pub id: RequestId,
    pub filter: ListenFilter,
    /// What was sent of each of `filter.task_ids` (same order).
    tasks_sent: std::sync::Mutex<Vec<TaskSent>>,
}

/// The last state of a task a subscription sent.
#[derive(Debug, Default, Clone, Copy)]
struct TaskSent {
    /// Its revision (0: none yet; `u64::MAX`: the terminal state was sent).
    revision: u64,
    /// A hash of its text, so that a later revision saying the same is not sent again.
    content: u64,
}

impl Session {
    /// Makes this per-request session the subscription of its `subscriptions/listen` request
    /// `id`: from now on [`Self::notify_change`] delivers what `filter` asks for. A session
    /// listens once.
    pub(crate) fn start_listening(
        &self,
        id: RequestId,
        filter: ListenFilter,
    ) -> Result<(), McpError> {
        self.subscriptions
            .lock()
            .unwrap()
            .extend(filter.resource_subscriptions.iter().cloned());
        let tasks_sent = std::sync::Mutex::new(vec![TaskSent::default(); filter.task_ids.len()]);
        self.listen
            .set(Listen {
                id,
                filter,
                tasks_sent,
            })
            .map_err(|_| McpError::invalid_request("this request is already a subscription"))
    }

    /// Fires when this subscription is to end gracefully (the server is winding its connection
    /// down): the listen handler then answers its request with the completion result.
    pub(crate) fn listen_ended(&self) -> CancellationToken {
        self.listen_end.get_or_init(CancellationToken::new).clone()
    }

    /// Ends this session's subscription gracefully, now or, if its `subscriptions/listen` is
    /// still on its way to [`Self::start_listening`], as soon as it gets there.
    pub(crate) fn end_listening(&self) {
        self.listen_end.get_or_init(CancellationToken::new).cancel();
    }

    /// Tells the peer about a change (`notifications/*/list_changed`, or
    /// `notifications/resources/updated` for a URI it subscribed to). A handshake-era session
    /// gets it on its unrelated stream; a per-request-era one only if it is listening and its
    /// filter asks for it, tagged with the subscription id and on the listen request's stream.
    pub(crate) fn notify_change(&self, method: &str, params: Option<Value>) {
        if !self.is_per_request() {
            let _ = self.try_send_notification(Notifier::Session, method, params, None);
            return;
        }
        let Some(listen) = self.listen.get() else {
            return;
        };
        let f = &listen.filter;
        let wanted = match method {
            "notifications/tools/list_changed" => f.tools_list_changed,
            "notifications/prompts/list_changed" => f.prompts_list_changed,
            "notifications/resources/list_changed" => f.resources_list_changed,
            "notifications/resources/updated" => true, // the caller checked the URI
            _ => false,
        };
        if !wanted {
            return;
        }
        let mut params = match params {
            Some(Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        params.insert(
            "_meta".into(),
            json!({ META_SUBSCRIPTION_ID: listen.id.to_value() }),
        );
        let _ = self.try_send_notification(
            Notifier::Session,
            method,
            Some(Value::Object(params)),
            Some(listen.id.clone()),
        );
    }

    /// The task ids this subscription gets `notifications/tasks` for.
    pub(crate) fn listen_task_ids(&self) -> Vec<String> {
        self.listen
            .get()
            .map(|l| l.filter.task_ids.clone())
            .unwrap_or_default()
    }

    /// Sends the tasks extension's `notifications/tasks` with `task` (a `DetailedTask`, as
    /// `tasks/get` answers it, stored with `revision`), tagged with the subscription id, if
    /// this session is a subscription that named the task in its `taskIds`, has sent neither
    /// this revision nor a later one nor the task's terminal state, and last sent something
    /// else (two replicas may write the same state).
    pub(crate) fn notify_task(&self, revision: u64, task: &Value) {
        let Some(listen) = self.listen.get() else {
            return;
        };
        let Some(id) = task.get("taskId").and_then(Value::as_str) else {
            return;
        };
        let Some(i) = listen.filter.task_ids.iter().position(|t| t == id) else {
            return;
        };
        let Value::Object(m) = task else {
            return;
        };
        // Held while sending: the states leave in the order of their revisions.
        let mut sent = listen.tasks_sent.lock().unwrap();
        if revision <= sent[i].revision {
            return;
        }
        let content = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            task.to_string().hash(&mut h);
            h.finish()
        };
        let terminal = matches!(
            m.get("status").and_then(Value::as_str),
            Some("completed" | "failed" | "cancelled")
        );
        let next = TaskSent {
            revision: if terminal { u64::MAX } else { revision },
            content,
        };
        if content == sent[i].content {
            sent[i] = next;
            return;
        }
        let mut params = m.clone();
        params.remove("resultType");
        params.insert(
            "_meta".into(),
            json!({ META_SUBSCRIPTION_ID: listen.id.to_value() }),
        );
        let queued = self.try_send_notification(
            Notifier::Session,
            "notifications/tasks",
            Some(Value::Object(params)),
            Some(listen.id.clone()),
        );
        if queued.is_ok() {
            sent[i] = next;
        }
    }
}
