//! What a backend sends to the proxy as its client, passed on to the proxy's real clients:
//! the requests (`sampling/createMessage`, `elicitation/create`, `roots/list`) and the
//! notifications (logs, list changes, resource updates).
//!
//! A backend's request goes to the client whose call is in flight on that backend (the newest
//! one when several are), related to that call so that it travels on the call's stream; with no
//! call in flight, to a connected client that declared the capability. On a per-client
//! connection ([`super::per_client`]) it goes to that connection's client session only. Logs during a call go
//! to that call's client; other logs, list changes and updates go through the backend's
//! supervisor (see [`crate::supervisor`]), which owns the proxy's server.

mod client_tasks;

use super::{Backend, Forward};
use client_tasks::Asker;
use ferromcp::client::ClientHandlers;
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::Root;
use ferromcp::session::{RequestContext, RequestOptions, Session};
use ferromcp::McpError;
use serde_json::Value;
use std::sync::{Arc, Weak};
use tokio::sync::{mpsc, oneshot};

/// Which list a backend said changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    Tools,
    Resources,
    Prompts,
}

/// What a backend's connection hands its supervisor.
pub(crate) enum Event {
    /// `notifications/*/list_changed`.
    Changed(Listing),
    /// `notifications/resources/updated` (the backend's own URI).
    Updated(String),
    /// `notifications/message` while no call was in flight.
    Log(Value),
    /// A request for a client while no call was in flight on the backend.
    Ask {
        method: &'static str,
        /// The client capability it needs (`sampling`, `elicitation`, `roots`).
        capability: &'static str,
        params: Option<Value>,
        reply: oneshot::Sender<Result<Value, McpError>>,
    },
}

/// Where a backend connection's requests and logs for a client go.
#[derive(Clone)]
struct Target {
    backend: Weak<Backend>,
    events: mpsc::UnboundedSender<Event>,
    /// The client session of a per-client connection.
    bound: Option<Weak<Session>>,
}

/// The handlers of a backend's client: everything the backend may ask is declared, and
/// forwarded (a real client without the capability answers with an error). `bound`: the client
/// session of a per-client connection.
pub(crate) fn handlers(
    backend: Weak<Backend>,
    events: mpsc::UnboundedSender<Event>,
    bound: Option<Weak<Session>>,
) -> ClientHandlers {
    let target = Arc::new(Target {
        backend,
        events,
        bound,
    });
    let (t1, t2, t3, t4) = (
        target.clone(),
        target.clone(),
        target.clone(),
        target.clone(),
    );
    ClientHandlers::default()
        .with_roots(Some(Arc::new(move |ctx| {
            let t = t1.clone();
            Box::pin(async move {
                let v = ask(&t, &ctx, "roots/list", "roots", None).await?;
                let roots = v.get("roots").cloned().unwrap_or(Value::Array(Vec::new()));
                serde_json::from_value::<Vec<Root>>(roots).map_err(|err| {
                    McpError::internal(format!(
                        "the client's roots/list answer is malformed: {err}"
                    ))
                })
            })
        })))
        .with_sampling(Some(Arc::new(move |params, ctx| {
            let t = t2.clone();
            Box::pin(async move {
                let params = serde_json::to_value(params)
                    .map_err(|err| McpError::internal(err.to_string()))?;
                let v = ask(&t, &ctx, "sampling/createMessage", "sampling", Some(params)).await?;
                serde_json::from_value(v).map_err(|err| {
                    McpError::internal(format!("the client's sampling answer is malformed: {err}"))
                })
            })
        })))
        .with_sampling_tools(true)
        .with_elicitation(Some(Arc::new(move |params, ctx| {
            let t = t3.clone();
            Box::pin(async move {
                let params = serde_json::to_value(params)
                    .map_err(|err| McpError::internal(err.to_string()))?;
                let v = ask(&t, &ctx, "elicitation/create", "elicitation", Some(params)).await?;
                serde_json::from_value(v).map_err(|err| {
                    McpError::internal(format!(
                        "the client's elicitation answer is malformed: {err}"
                    ))
                })
            })
        })))
        .with_elicitation_url(true)
        .with_on_notification(Some(Arc::new(move |n: Notification| route(&t4, n))))
        .with_extra_capabilities(None)
}

/// Sends a backend's request on to a real client and returns its answer. A backend's
/// task-augmented request (`params.task`) is a task of the proxy's whose job this is
/// (`backend_ctx` in a task): it goes on as a task to a client that runs such tasks, plainly
/// to any other ([`client_tasks`]).
async fn ask(
    target: &Target,
    backend_ctx: &RequestContext,
    method: &'static str,
    capability: &'static str,
    mut params: Option<Value>,
) -> Result<Value, McpError> {
    let task = match params.as_mut() {
        Some(Value::Object(p)) => p.remove("task"),
        _ => None,
    }
    .filter(|_| backend_ctx.in_task());
    // Cancelled when the backend cancels its request.
    let opts = RequestOptions::default().with_cancel(Some(backend_ctx.cancellation().clone()));
    let bound = match &target.bound {
        Some(weak) => Some(weak.upgrade().ok_or_else(|| {
            McpError::internal("the client session of this backend connection has closed")
        })?),
        None => None,
    };
    let call = target
        .backend
        .upgrade()
        .and_then(|b| b.current_call_of(bound.as_ref()));
    if let Some((ctx, _)) = call {
        if let Some(task) = task.filter(|_| client_tasks::takes_as_task(ctx.session(), method)) {
            let params = params.unwrap_or(Value::Null);
            return client_tasks::at_client(Asker::Call(&ctx), method, params, task, backend_ctx)
                .await;
        }
        return ctx.request_with(method, params, opts).await;
    }
    if let Some(session) = bound {
        if let Some(task) = task.filter(|_| client_tasks::takes_as_task(&session, method)) {
            let params = params.unwrap_or(Value::Null);
            let to = Asker::Session(&session);
            return client_tasks::at_client(to, method, params, task, backend_ctx).await;
        }
        return session.peer().request(method, params, opts).await;
    }
    let (reply, answer) = oneshot::channel();
    target
        .events
        .send(Event::Ask {
            method,
            capability,
            params,
            reply,
        })
        .map_err(|_| McpError::internal("the proxy is shutting down"))?;
    tokio::select! {
        a = answer => a.unwrap_or_else(|_| Err(McpError::internal("the proxy is shutting down"))),
        _ = backend_ctx.cancellation().cancelled() => Err(McpError::cancelled(None)),
    }
}

/// Routes one notification from a backend.
fn route(target: &Target, n: Notification) {
    let bound = target.bound.as_ref().and_then(Weak::upgrade);
    let event = match n.method.as_str() {
        "notifications/message" => {
            let params = n.params.unwrap_or(Value::Null);
            let call = target
                .backend
                .upgrade()
                .and_then(|b| b.current_call_of(bound.as_ref()));
            if let Some((_, forward)) = call {
                let _ = forward.send(Forward::Log(params));
                return;
            }
            if let Some(session) = bound {
                // A per-client connection's log outside calls: to its client only.
                let (level, logger, data) = super::log_parts(&params);
                tokio::spawn(async move {
                    let _ = session.peer().log(&level, logger.as_deref(), data).await;
                });
                return;
            }
            Event::Log(params)
        }
        // Progress under a token of the proxy's own (a backend task's, after its handle):
        // the engine routes the rest to its request.
        "notifications/progress" => {
            if let (Some(backend), Some(params)) = (target.backend.upgrade(), n.params) {
                backend.route_progress(params);
            }
            return;
        }
        // A per-client connection's lists are the shared connection's: that one reports them.
        _ if target.bound.is_some() => return,
        "notifications/tools/list_changed" => Event::Changed(Listing::Tools),
        "notifications/resources/list_changed" => Event::Changed(Listing::Resources),
        "notifications/prompts/list_changed" => Event::Changed(Listing::Prompts),
        "notifications/resources/updated" => {
            match n
                .params
                .as_ref()
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
            {
                Some(uri) => Event::Updated(uri.to_string()),
                None => return,
            }
        }
        // The rest has no client to go to.
        _ => return,
    };
    let _ = target.events.send(event);
}
