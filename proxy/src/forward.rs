//! What a backend sends to the proxy as its client, passed on to the proxy's real clients:
//! the requests (`sampling/createMessage`, `elicitation/create`, `roots/list`) and the
//! notifications (logs, list changes, resource updates).
//!
//! A backend's request goes to the client whose call is in flight on that backend (the newest
//! one when several are), related to that call so that it travels on the call's stream; with no
//! call in flight, to a connected client that declared the capability. Logs during a call go
//! to that call's client; other logs, list changes and updates go through the backend's
//! supervisor (see [`crate::supervisor`]), which owns the proxy's server.

use crate::backend::{Backend, Forward};
use ferromcp::client::ClientHandlers;
use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::Root;
use ferromcp::session::{RequestContext, RequestOptions};
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

/// The handlers of a backend's client: everything the backend may ask is declared, and
/// forwarded (a real client without the capability answers with an error).
pub(crate) fn handlers(
    backend: Weak<Backend>,
    events: mpsc::UnboundedSender<Event>,
) -> ClientHandlers {
    let (b1, e1) = (backend.clone(), events.clone());
    let (b2, e2) = (backend.clone(), events.clone());
    let (b3, e3) = (backend.clone(), events.clone());
    ClientHandlers {
        roots: Some(Arc::new(move |ctx| {
            let (b, e) = (b1.clone(), e1.clone());
            Box::pin(async move {
                let v = ask(&b, &e, &ctx, "roots/list", "roots", None).await?;
                let roots = v.get("roots").cloned().unwrap_or(Value::Array(Vec::new()));
                serde_json::from_value::<Vec<Root>>(roots).map_err(|err| {
                    McpError::internal(format!(
                        "the client's roots/list answer is malformed: {err}"
                    ))
                })
            })
        })),
        sampling: Some(Arc::new(move |params, ctx| {
            let (b, e) = (b2.clone(), e2.clone());
            Box::pin(async move {
                let params = serde_json::to_value(params)
                    .map_err(|err| McpError::internal(err.to_string()))?;
                let v = ask(
                    &b,
                    &e,
                    &ctx,
                    "sampling/createMessage",
                    "sampling",
                    Some(params),
                )
                .await?;
                serde_json::from_value(v).map_err(|err| {
                    McpError::internal(format!("the client's sampling answer is malformed: {err}"))
                })
            })
        })),
        sampling_tools: true,
        elicitation: Some(Arc::new(move |params, ctx| {
            let (b, e) = (b3.clone(), e3.clone());
            Box::pin(async move {
                let params = serde_json::to_value(params)
                    .map_err(|err| McpError::internal(err.to_string()))?;
                let v = ask(
                    &b,
                    &e,
                    &ctx,
                    "elicitation/create",
                    "elicitation",
                    Some(params),
                )
                .await?;
                serde_json::from_value(v).map_err(|err| {
                    McpError::internal(format!(
                        "the client's elicitation answer is malformed: {err}"
                    ))
                })
            })
        })),
        elicitation_url: true,
        on_notification: Some(Arc::new(move |n: Notification| route(&backend, &events, n))),
        extra_capabilities: None,
    }
}

/// Sends a backend's request on to a real client and returns its answer.
async fn ask(
    backend: &Weak<Backend>,
    events: &mpsc::UnboundedSender<Event>,
    backend_ctx: &RequestContext,
    method: &'static str,
    capability: &'static str,
    params: Option<Value>,
) -> Result<Value, McpError> {
    let call = backend.upgrade().and_then(|b| b.current_call());
    if let Some((ctx, _)) = call {
        // Cancelled when the backend cancels its request.
        let opts = RequestOptions {
            cancel: Some(backend_ctx.cancellation().clone()),
            ..Default::default()
        };
        return ctx.request_with(method, params, opts).await;
    }
    let (reply, answer) = oneshot::channel();
    events
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
fn route(backend: &Weak<Backend>, events: &mpsc::UnboundedSender<Event>, n: Notification) {
    let event = match n.method.as_str() {
        "notifications/message" => {
            let params = n.params.unwrap_or(Value::Null);
            if let Some((_, forward)) = backend.upgrade().and_then(|b| b.current_call()) {
                let _ = forward.send(Forward::Log(params));
                return;
            }
            Event::Log(params)
        }
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
        // Progress is routed to its request by the engine; the rest has no client to go to.
        _ => return,
    };
    let _ = events.send(event);
}
