//! The client side of `subscriptions/listen` (2026-07-28): [`Client::listen`] opens a
//! subscription, waits for the server's acknowledgement and hands the change notifications
//! tagged with the subscription's id to a [`Subscription`], which ends the subscription when
//! dropped (the request is cancelled: `notifications/cancelled` on stdio, the SSE stream closed
//! over Streamable HTTP).

use super::Client;
use crate::jsonrpc::Notification;
use crate::session::{ListenFilter, RequestOptions};
use crate::McpError;
use futures_util::Stream;
use serde_json::{json, Value};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The acknowledgement the server sends first on a subscription.
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// What the listen task hands to its [`Subscription`].
enum Event {
    /// A notification tagged with the subscription's id (the acknowledgement first).
    Note(Notification),
    /// The server answered the `subscriptions/listen` request: the subscription is over.
    End(Result<Value, McpError>),
}

/// An open `subscriptions/listen` subscription (2026-07-28), made by [`Client::listen`].
///
/// Yields the notifications the server sends on it (`notifications/tools/list_changed`,
/// `notifications/prompts/list_changed`, `notifications/resources/list_changed`,
/// `notifications/resources/updated`), each with the subscription id in
/// `params._meta["io.modelcontextprotocol/subscriptionId"]`, through [`Self::next`] or as a
/// [`Stream`]. They go here only, not to
/// [`ClientHandlers::on_notification`](super::ClientHandlers::on_notification). The stream ends
/// (`None`) when the server ends the subscription ([`Self::end`] then says how) or the
/// connection closes. Dropping it ends the subscription on the server.
pub struct Subscription {
    id: Value,
    acknowledged: ListenFilter,
    rx: mpsc::UnboundedReceiver<Event>,
    end: Option<Result<Value, McpError>>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// The subscription id: the JSON-RPC id of the `subscriptions/listen` request.
    pub fn id(&self) -> &Value {
        &self.id
    }

    /// What the server agreed to send (the acknowledgement's filter: the kinds it does not
    /// support are left out).
    pub fn acknowledged(&self) -> &ListenFilter {
        &self.acknowledged
    }

    /// The next notification, or `None` once the subscription is over.
    pub async fn next(&mut self) -> Option<Notification> {
        std::future::poll_fn(|cx| self.poll_event(cx)).await
    }

    /// How the subscription ended, once [`Self::next`] returned `None`: the server's final
    /// `subscriptions/listen` result (a graceful end), or the error (e.g. the connection
    /// closed).
    pub fn end(&self) -> Option<&Result<Value, McpError>> {
        self.end.as_ref()
    }

    /// Ends the subscription like dropping it does, from anywhere (for
    /// `ferromcp_embed::EmbeddedSubscription::close`, which may not own it at that moment;
    /// reached through [`crate::binding_seam`]).
    pub(crate) fn abort_handle(&self) -> tokio::task::AbortHandle {
        self.task.abort_handle()
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        if self.end.is_some() {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(Event::Note(n))) => Poll::Ready(Some(n)),
            Poll::Ready(Some(Event::End(r))) => {
                self.end = Some(r);
                Poll::Ready(None)
            }
            Poll::Ready(None) => {
                self.end = Some(Err(McpError::connection_closed(
                    "the subscription's request ended without an answer",
                )));
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Stream for Subscription {
    type Item = Notification;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        self.get_mut().poll_event(cx)
    }
}

impl Drop for Subscription {
    /// Cancels the `subscriptions/listen` request, which ends the subscription on the server.
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `filter` as the request's `notifications` object (every field the caller set).
fn filter_value(filter: &ListenFilter) -> Value {
    filter.to_value()
}

/// The acknowledged filter in an acknowledgement's params.
fn acknowledged_filter(params: Option<&Value>) -> ListenFilter {
    let n = params.and_then(|p| p.get("notifications"));
    let on = |k: &str| n.and_then(|n| n.get(k)).and_then(Value::as_bool) == Some(true);
    let strings = |k: &str| -> Vec<String> {
        n.and_then(|n| n.get(k))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    ListenFilter {
        tools_list_changed: on("toolsListChanged"),
        prompts_list_changed: on("promptsListChanged"),
        resources_list_changed: on("resourcesListChanged"),
        resource_subscriptions: strings("resourceSubscriptions"),
        task_ids: strings("taskIds"),
    }
}

/// The subscription id a notification carries.
fn subscription_id(n: &Notification) -> Option<&Value> {
    n.params
        .as_ref()?
        .get("_meta")?
        .get(crate::session::per_request::META_SUBSCRIPTION_ID)
}

impl Client {
    /// Opens a `subscriptions/listen` subscription (2026-07-28) for what `filter` asks for
    /// (list changes of tools, prompts and resources; updates of the resources it names),
    /// waits for the server's acknowledgement and returns the [`Subscription`] that yields the
    /// notifications. The wait for the acknowledgement is bounded by the session's request
    /// timeout; the subscription itself has no deadline. Dropping the subscription cancels the
    /// request, which ends it on the server.
    ///
    /// Handshake era (2025-11-25 and older): that era has no `subscriptions/listen`, and this
    /// method fails with `-32600` (invalid request) without sending anything. There, use
    /// [`Client::subscribe`] for resource updates and receive them, and the list changes, with
    /// [`ClientHandlers::on_notification`](super::ClientHandlers::on_notification).
    pub async fn listen(&self, filter: ListenFilter) -> Result<Subscription, McpError> {
        let Some(meta) = &self.per_request else {
            return Err(McpError::new(
                crate::codes::INVALID_REQUEST,
                "subscriptions/listen needs the 2026-07-28 per-request era, and this session \
                 negotiated the initialize handshake: use subscribe() and the client's \
                 on_notification handler instead",
            ));
        };
        let params = meta.stamp(Some(json!({ "notifications": filter_value(&filter) })));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let note_tx = tx.clone();
        let sink: crate::session::TaggedSink = std::sync::Arc::new(move |n| {
            let _ = note_tx.send(Event::Note(n));
        });
        let peer = self.peer();
        let task = tokio::spawn(async move {
            let r = peer
                .request_listening(
                    "subscriptions/listen",
                    Some(params),
                    RequestOptions::default(),
                    sink,
                )
                .await;
            let _ = tx.send(Event::End(r));
        });
        let ack_wait = self.session.config.request_timeout;
        let first = async { rx.recv().await };
        let first = match ack_wait {
            Some(t) => match tokio::time::timeout(t, first).await {
                Ok(f) => f,
                Err(_) => {
                    task.abort();
                    return Err(McpError::timeout(format!(
                        "subscriptions/listen: no acknowledgement within {} ms",
                        t.as_millis()
                    )));
                }
            },
            None => first.await,
        };
        match first {
            Some(Event::Note(n)) if n.method == ACKNOWLEDGED => {
                let id = subscription_id(&n).cloned().unwrap_or(Value::Null);
                Ok(Subscription {
                    id,
                    acknowledged: acknowledged_filter(n.params.as_ref()),
                    rx,
                    end: None,
                    task,
                })
            }
            Some(Event::Note(n)) => {
                task.abort();
                Err(McpError::internal(format!(
                    "subscriptions/listen: the server sent {} before its acknowledgement",
                    n.method
                )))
            }
            Some(Event::End(Err(e))) => Err(e),
            Some(Event::End(Ok(_))) => Err(McpError::internal(
                "subscriptions/listen: the server ended the subscription without acknowledging it",
            )),
            None => Err(McpError::connection_closed(
                "subscriptions/listen: the request ended without an answer",
            )),
        }
    }
}
