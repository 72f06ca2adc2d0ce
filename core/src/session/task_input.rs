//! Input a task asks for while it runs (the tasks extension `io.modelcontextprotocol/tasks`,
//! 2026-07-28).
//!
//! A task's handler calls `ctx.request(..)` or `ctx.input(..)` as it would while serving a
//! request, but no client waits on a stream for a task: the requests are parked here under
//! keys unique over the task's life, `tasks/get` shows the outstanding ones as the task's
//! `inputRequests`, `tasks/update` answers them (a subset at a time if the client likes; keys
//! that are not outstanding are ignored), and the handler's call returns the answers.

use super::mrtr::check_capability;
use crate::McpError;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use tokio::sync::{oneshot, watch, Notify};

/// Prefix of the keys of requests parked by `ctx.request` (no key of the handler's own).
const AUTO_KEY: &str = "ferromcp.request";

/// The parked input requests of one task.
pub(crate) struct TaskInputs {
    state: Mutex<Parked>,
    /// Marked whenever the outstanding requests change or the task ends, for whoever keeps a
    /// copy of the task's state (the task store shared by the replicas).
    changed: watch::Sender<()>,
    /// Signalled each time requests are parked (see [`TaskInputs::parked`]).
    parked: Notify,
    /// The call became a task (see [`TaskInputs::made`]).
    made: std::sync::atomic::AtomicBool,
}

impl Default for TaskInputs {
    fn default() -> Self {
        Self {
            state: Mutex::default(),
            changed: watch::channel(()).0,
            parked: Notify::new(),
            made: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

#[derive(Default)]
struct Parked {
    /// Outstanding requests by key (`{ "method", "params" }`).
    pending: Map<String, Value>,
    /// Who waits for each outstanding key's answer.
    waiters: HashMap<String, oneshot::Sender<Value>>,
    /// Every key handed out so far: a key is never used twice in a task's life.
    used: HashSet<String>,
    /// When the set of outstanding requests last changed (RFC 3339).
    changed_at: Option<String>,
    /// The task ended: nothing more is parked or answered.
    closed: bool,
}

impl Parked {
    /// `key`, or `key#2`, `key#3`, ... when it was used before in this task.
    fn unique_key(&mut self, key: &str) -> String {
        let mut wire = key.to_string();
        let mut n = 1;
        while self.used.contains(&wire) {
            n += 1;
            wire = format!("{key}#{n}");
        }
        self.used.insert(wire.clone());
        wire
    }

    fn touch(&mut self) {
        self.changed_at = Some(crate::protocol::rfc3339_now());
    }
}

/// Removes the requests of an `ask` that stopped waiting (its future was dropped) from the
/// outstanding ones.
struct AskGuard<'a> {
    inputs: &'a TaskInputs,
    keys: Vec<String>,
}

impl Drop for AskGuard<'_> {
    fn drop(&mut self) {
        let mut p = self.inputs.state.lock().unwrap();
        let mut changed = false;
        for k in &self.keys {
            changed |= p.pending.remove(k).is_some();
            p.waiters.remove(k);
        }
        if changed {
            p.touch();
            self.inputs.changed.send_replace(());
        }
    }
}

impl TaskInputs {
    /// Parks `requests` (the handler's keys to `{ "method", "params" }`) and waits for every
    /// answer; returns them under the handler's keys. A request the client's capabilities do
    /// not allow fails at once (`-32021`), nothing parked.
    pub(crate) async fn ask(
        &self,
        peer_caps: &Value,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, McpError> {
        for request in requests.values() {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            check_capability(peer_caps, method)?;
        }
        let mut receivers = Vec::with_capacity(requests.len());
        let mut guard = AskGuard {
            inputs: self,
            keys: Vec::with_capacity(requests.len()),
        };
        {
            let mut p = self.state.lock().unwrap();
            if p.closed {
                return Err(ended());
            }
            for (key, request) in requests {
                let wire = p.unique_key(&key);
                let (tx, rx) = oneshot::channel();
                p.pending.insert(wire.clone(), request);
                p.waiters.insert(wire.clone(), tx);
                guard.keys.push(wire);
                receivers.push((key, rx));
            }
            p.touch();
        }
        self.changed.send_replace(());
        self.parked.notify_one();
        let mut answers = Map::new();
        for (key, rx) in receivers {
            answers.insert(key, rx.await.map_err(|_| ended())?);
        }
        Ok(answers)
    }

    /// `ctx.request(method, params)` in a task: one parked request under a generated key.
    pub(crate) async fn request(
        &self,
        peer_caps: &Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, McpError> {
        let mut request = Map::new();
        request.insert("method".into(), Value::String(method.into()));
        if let Some(p) = params {
            request.insert("params".into(), p);
        }
        let mut one = Map::new();
        one.insert(AUTO_KEY.into(), Value::Object(request));
        let mut answers = self.ask(peer_caps, one).await?;
        Ok(answers.remove(AUTO_KEY).unwrap_or(Value::Null))
    }

    /// Returns once the handler has parked requests (at once when it did so before the call and
    /// nobody waited for it since): a call waiting for its handler's first answer becomes a task
    /// then, since only a task can carry them.
    pub(crate) async fn parked(&self) {
        self.parked.notified().await
    }

    /// The handler will not answer before a while: a call waiting for its first answer
    /// becomes a task now, as when requests are parked (see [`TaskInputs::parked`]).
    pub(crate) fn start_now(&self) {
        self.parked.notify_one();
    }

    /// The call's task was made: its handler's answer is the task's outcome from now on.
    pub(crate) fn set_made(&self) {
        self.made.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether the call's task was made ([`TaskInputs::set_made`]).
    pub(crate) fn made(&self) -> bool {
        self.made.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The outstanding requests (`inputRequests`), and when they last changed.
    pub(crate) fn outstanding(&self) -> (Map<String, Value>, Option<String>) {
        let p = self.state.lock().unwrap();
        (p.pending.clone(), p.changed_at.clone())
    }

    /// Delivers `responses` (`tasks/update`'s `inputResponses`): each one whose key is
    /// outstanding goes to its waiter; the others are ignored. Returns how many were delivered.
    pub(crate) fn answer(&self, responses: Map<String, Value>) -> usize {
        let mut p = self.state.lock().unwrap();
        let mut delivered = 0;
        for (key, response) in responses {
            if let Some(tx) = p.waiters.remove(&key) {
                p.pending.remove(&key);
                // A waiter that went away already took its request out (AskGuard).
                let _ = tx.send(response);
                delivered += 1;
            }
        }
        if delivered > 0 {
            p.touch();
            self.changed.send_replace(());
        }
        delivered
    }

    /// The task ended (finished, cancelled or expired): outstanding requests are dropped, their
    /// waiters fail, and nothing more is parked.
    pub(crate) fn close(&self) {
        let mut p = self.state.lock().unwrap();
        p.closed = true;
        p.pending.clear();
        p.waiters.clear();
        drop(p);
        self.changed.send_replace(());
    }

    /// Marks the task changed for the receivers of [`TaskInputs::changes`] (something else of
    /// it changed: its status message).
    pub(crate) fn mark_changed(&self) {
        self.changed.send_replace(());
    }

    /// A receiver marked whenever the outstanding requests change or the task ends (from now
    /// on: what happened before is seen).
    pub(crate) fn changes(&self) -> watch::Receiver<()> {
        self.changed.subscribe()
    }
}

fn ended() -> McpError {
    McpError::cancelled(Some(
        "the task ended before the client answered its input request",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn elicit() -> Value {
        json!({ "method": "elicitation/create", "params": { "message": "?" } })
    }

    #[tokio::test]
    async fn parks_answers_and_keeps_keys_unique() {
        let inputs = Arc::new(TaskInputs::default());
        let caps = json!({ "elicitation": {} });
        let mut asked = Map::new();
        asked.insert("a".into(), elicit());
        asked.insert("b".into(), elicit());
        let i = inputs.clone();
        let c = caps.clone();
        let waiter = tokio::spawn(async move { i.ask(&c, asked).await });
        while inputs.outstanding().0.len() < 2 {
            tokio::task::yield_now().await;
        }
        // Unknown keys are ignored; a partial answer leaves the other key outstanding.
        let mut r = Map::new();
        r.insert("zzz".into(), json!({}));
        r.insert("a".into(), json!({ "action": "accept" }));
        assert_eq!(inputs.answer(r), 1);
        let (left, changed) = inputs.outstanding();
        assert_eq!(left.keys().collect::<Vec<_>>(), ["b"]);
        assert!(changed.is_some());
        let mut r = Map::new();
        r.insert("b".into(), json!({ "action": "decline" }));
        assert_eq!(inputs.answer(r), 1);
        let answers = waiter.await.unwrap().unwrap();
        assert_eq!(answers["a"]["action"], "accept");
        assert_eq!(answers["b"]["action"], "decline");
        // A key answered once is never handed out again in this task.
        let mut again = Map::new();
        again.insert("a".into(), elicit());
        let i = inputs.clone();
        let waiter = tokio::spawn(async move { i.ask(&caps, again).await });
        while inputs.outstanding().0.is_empty() {
            tokio::task::yield_now().await;
        }
        assert_eq!(inputs.outstanding().0.keys().collect::<Vec<_>>(), ["a#2"]);
        inputs.close();
        assert!(waiter.await.unwrap().is_err());
    }

    #[tokio::test]
    async fn refuses_what_the_client_cannot_answer() {
        let inputs = TaskInputs::default();
        let mut asked = Map::new();
        asked.insert("a".into(), elicit());
        let e = inputs.ask(&json!({}), asked).await.unwrap_err();
        assert_eq!(e.code, crate::error::codes::MISSING_CLIENT_CAPABILITY);
        assert!(inputs.outstanding().0.is_empty());
    }

    #[tokio::test]
    async fn a_dropped_ask_withdraws_its_requests() {
        let inputs = TaskInputs::default();
        let caps = json!({ "elicitation": {} });
        let mut asked = Map::new();
        asked.insert("a".into(), elicit());
        {
            let fut = inputs.ask(&caps, asked);
            tokio::pin!(fut);
            assert!(futures_util::poll!(fut.as_mut()).is_pending());
            assert_eq!(inputs.outstanding().0.len(), 1);
        }
        assert!(inputs.outstanding().0.is_empty());
    }
}
