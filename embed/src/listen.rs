//! [`EmbeddedSubscription`]: `subscriptions/listen` (2026-07-28) for the bindings.
//!
//! [`Client::listen`](ferromcp::client::Client::listen) gives a [`Subscription`] that one owner
//! polls and drops. Foreign runtimes need something shareable instead: one task awaits the next
//! notification while another (or a finaliser) closes the subscription. This wraps the engine's
//! subscription behind `&self` methods: [`EmbeddedSubscription::next`] yields notifications,
//! [`EmbeddedSubscription::close`] ends the subscription on the server from any thread (also while
//! a `next` is waiting, which then returns `None`), and [`EmbeddedSubscription::end`] says how it
//! ended. The filter goes in and comes back as the wire's `SubscriptionFilter` JSON, so every
//! binding builds and reads the same shape.

use super::EmbeddedClient;
use ferromcp::client::Subscription;
use ferromcp::jsonrpc::Notification;
use ferromcp::session::ListenFilter;
use ferromcp::McpError;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// The wire's `SubscriptionFilter`, strictly (an unknown key is a caller's typo).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FilterJson {
    #[serde(default)]
    tools_list_changed: bool,
    #[serde(default)]
    prompts_list_changed: bool,
    #[serde(default)]
    resources_list_changed: bool,
    #[serde(default)]
    resource_subscriptions: Vec<String>,
    #[serde(default)]
    task_ids: Vec<String>,
}

/// Reads what a binding asks to listen for: `{"toolsListChanged"?, "promptsListChanged"?,
/// "resourcesListChanged"?, "resourceSubscriptions"?: [uri], "taskIds"?: [taskId]}` (`null`
/// asks for nothing; `taskIds`: the tasks extension's `notifications/tasks`).
/// Unknown keys and wrong types are invalid params (-32602).
pub fn listen_filter_from_json(v: Value) -> Result<ListenFilter, McpError> {
    let f: FilterJson = if v.is_null() {
        FilterJson::default()
    } else {
        super::decode("listen filter", v)?
    };
    Ok(ListenFilter::default()
        .with_tools_list_changed(f.tools_list_changed)
        .with_prompts_list_changed(f.prompts_list_changed)
        .with_resources_list_changed(f.resources_list_changed)
        .with_resource_subscriptions(f.resource_subscriptions)
        .with_task_ids(f.task_ids))
}

/// An open `subscriptions/listen` subscription of an [`EmbeddedClient`], usable through `&self`
/// from several tasks. Dropping it (or [`Self::close`]) ends the subscription on the server.
pub struct EmbeddedSubscription {
    id: Value,
    acknowledged: Value,
    sub: tokio::sync::Mutex<Option<Subscription>>,
    /// Cancels the subscription's request whoever holds `sub` (a `next` whose future was
    /// dropped mid-wait, e.g. by a foreign timeout, must not keep it alive).
    abort: tokio::task::AbortHandle,
    closed: CancellationToken,
    end: Mutex<Option<Result<Value, McpError>>>,
}

impl std::fmt::Debug for EmbeddedSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedSubscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl EmbeddedSubscription {
    /// The subscription id (the JSON-RPC id of the `subscriptions/listen` request; every
    /// notification carries it in `_meta["io.modelcontextprotocol/subscriptionId"]`).
    pub fn id(&self) -> Value {
        self.id.clone()
    }

    /// What the server agreed to send, as `SubscriptionFilter` JSON (the kinds it does not
    /// support are left out; keys that are off are absent).
    pub fn acknowledged(&self) -> Value {
        self.acknowledged.clone()
    }

    /// The next notification, or `None` once the subscription is over (the server ended it,
    /// the connection closed, or [`Self::close`] was called). Calls are served one at a time.
    pub async fn next(&self) -> Option<Notification> {
        if self.closed.is_cancelled() {
            return None;
        }
        let mut slot = self.sub.lock().await;
        let sub = slot.as_mut()?;
        let got = tokio::select! {
            biased;
            _ = self.closed.cancelled() => None,
            n = sub.next() => n,
        };
        if got.is_none() {
            let end = match sub.end() {
                Some(e) if !self.closed.is_cancelled() => e.clone(),
                _ => Err(closed_by_client()),
            };
            self.end.lock().unwrap().get_or_insert(end);
            // Dropping the engine subscription cancels its request (a no-op once answered).
            *slot = None;
        }
        got
    }

    /// How the subscription ended, once it did: `Ok` with the server's final
    /// `subscriptions/listen` result (the server ended it gracefully), or the error (e.g.
    /// -32000 connection closed; -32800 when this side closed it). `None` while it is open.
    pub fn end(&self) -> Option<Result<Value, McpError>> {
        self.end.lock().unwrap().clone()
    }

    /// Ends the subscription: the request is cancelled (`notifications/cancelled` on stdio, the
    /// stream closed over HTTP) and the server lets it go. A waiting [`Self::next`] returns
    /// `None`. Idempotent; does not block (any thread).
    pub fn close(&self) {
        self.closed.cancel();
        self.end
            .lock()
            .unwrap()
            .get_or_insert(Err(closed_by_client()));
        self.abort.abort();
        if let Ok(mut slot) = self.sub.try_lock() {
            *slot = None;
        }
        // Otherwise a `next` holds it; the request is cancelled already.
    }
}

fn closed_by_client() -> McpError {
    McpError::cancelled(Some("the client closed the subscription"))
}

impl EmbeddedClient {
    /// Opens a `subscriptions/listen` subscription (2026-07-28) for `filter`
    /// (`SubscriptionFilter` JSON, see [`listen_filter_from_json`]) and waits for the server's
    /// acknowledgement, as [`Client::listen`](ferromcp::client::Client::listen) does. A
    /// handshake-era session fails with -32600 pointing to `resources/subscribe`.
    pub async fn listen(&self, filter: Value) -> Result<EmbeddedSubscription, McpError> {
        let filter = listen_filter_from_json(filter)?;
        let sub = self.client().listen(filter).await?;
        Ok(EmbeddedSubscription {
            id: sub.id().clone(),
            acknowledged: sub.acknowledged().to_value(),
            abort: ferromcp::binding_seam::subscription_abort_handle(&sub),
            sub: tokio::sync::Mutex::new(Some(sub)),
            closed: CancellationToken::new(),
            end: Mutex::new(None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filter_json_is_strict() {
        let f = listen_filter_from_json(json!({
            "toolsListChanged": true,
            "resourceSubscriptions": ["mem://a"]
        }))
        .unwrap();
        assert!(f.tools_list_changed && !f.prompts_list_changed);
        assert_eq!(f.resource_subscriptions, vec!["mem://a".to_string()]);
        let f = listen_filter_from_json(json!({ "taskIds": ["t1"] })).unwrap();
        assert_eq!(f.task_ids, vec!["t1".to_string()]);
        assert_eq!(
            listen_filter_from_json(Value::Null).unwrap(),
            ListenFilter::default()
        );
        let e = listen_filter_from_json(json!({ "toolListChanged": true })).unwrap_err();
        assert_eq!(e.code, -32602, "{e}");
        let e = listen_filter_from_json(json!({ "resourceSubscriptions": "mem://a" })).unwrap_err();
        assert_eq!(e.code, -32602, "{e}");
    }
}
