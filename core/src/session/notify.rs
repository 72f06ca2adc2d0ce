//! The one path every notification a session sends takes, and where every notification it
//! receives is traced (feature `otel`; without it, sending is the outbound queue's alone and
//! receiving routes the notification as before).
//!
//! Sending: [`Session::send_notification`] and [`Session::try_send_notification`] carry every
//! notification the engine sends: progress, logging messages, `list_changed`,
//! `resources/updated`, `cancelled`, the tasks' status, a client's `initialized` and
//! `roots/list_changed`, [`Peer::notify`](super::Peer::notify) and
//! [`RequestContext::notify`]. Who sends it ([`Notifier`]) decides its trace: one sent for a
//! request being served is traced only when the OpenTelemetry layer traces that request and
//! its span is sampled (else nothing is looked up: one branch); one the session sends outside
//! any request asks the session's tracer ([`Service::peer_request_tracer`](super::Service)),
//! which puts it under the current span or starts a trace the sampler keeps. A traced
//! notification is a `CLIENT` span named `{mcp.method.name}` whose context is written into its
//! `params._meta` (`telemetry/notifications.rs`).
//!
//! Receiving: a notification whose `params._meta` holds a `traceparent` is handled under a
//! `SERVER` span, the child of that context, when the session's side has telemetry; without a
//! `traceparent` nothing is traced (a notification has no answer to time, and one whose sender
//! did not trace it must not start a trace of its own). The span is current while the session
//! routes the notification (to a pending request's progress callback, a cancellation, the
//! service's handler).

use super::{RequestContext, Session};
use crate::jsonrpc::{Message, Notification, RequestId};
use crate::McpError;
use serde_json::Value;
use std::sync::Arc;

/// What traces the notifications sent for a request being served: the OpenTelemetry layer's
/// tracer of that request, set only when its span is sampled.
#[cfg(feature = "otel")]
pub(crate) type RequestTracer = Arc<dyn super::TraceOutbound>;
/// Without the feature nothing traces (never made).
#[cfg(not(feature = "otel"))]
pub(crate) type RequestTracer = std::convert::Infallible;

/// Who sends a notification, which decides its trace.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) enum Notifier<'a> {
    /// The session, serving no request (a server's `list_changed` or `resources/updated`, a
    /// client's `initialized`, a cancellation, [`Peer::notify`](super::Peer::notify)).
    Session,
    /// A request being served (its progress, log messages, [`RequestContext::notify`]), with
    /// its tracer when the OpenTelemetry layer traces it and its span is sampled.
    Request(Option<&'a RequestTracer>),
}

impl RequestContext {
    /// The sender of the notifications sent for this request.
    pub(crate) fn notifier(&self) -> Notifier<'_> {
        #[cfg(feature = "otel")]
        {
            Notifier::Request(self.outbound_tracer())
        }
        #[cfg(not(feature = "otel"))]
        {
            Notifier::Request(None)
        }
    }
}

/// A notification being traced: told how its sending went (sent) or that it was handled
/// (received), which ends its span.
#[cfg(feature = "otel")]
pub(crate) trait NotificationSpan {
    /// Ends the span; `error` when the notification could not be sent.
    fn finish(self: Box<Self>, error: Option<&McpError>);
}

/// The span of a notification being sent (feature `otel`; none when it is not traced), ended
/// by [`SentSpan::end`] with how the sending went.
#[cfg(feature = "otel")]
struct SentSpan(Option<Box<dyn NotificationSpan + Send>>);
/// Without the feature nothing is traced.
#[cfg(not(feature = "otel"))]
struct SentSpan;

impl SentSpan {
    /// Ends the span, with the error when the notification could not be sent.
    fn end(self, result: &Result<(), McpError>) {
        #[cfg(feature = "otel")]
        if let Some(span) = self.0 {
            span.finish(result.as_ref().err());
        }
        #[cfg(not(feature = "otel"))]
        let _ = result;
    }
}

impl Session {
    /// Sends notification `method` with `params`, for the request `related` when given (routed
    /// onto its stream over HTTP), waiting for room in the outbound queue. Traced as `by`
    /// says (see [`Notifier`]).
    pub(crate) async fn send_notification(
        &self,
        by: Notifier<'_>,
        method: &str,
        params: Option<Value>,
        related: Option<RequestId>,
    ) -> Result<(), McpError> {
        let (message, span) = self.notification_to_send(by, method, params);
        let result = self.outbound.send(message, related).await;
        span.end(&result);
        result
    }

    /// [`Self::send_notification`] of the session itself, returning once the transport has
    /// written the notification ([`Outbound::send_written`](super::Outbound::send_written)):
    /// a client's `initialized`, so that the server has listed the session when the handshake
    /// returns (Streamable HTTP answers the POST after handling it).
    pub(crate) async fn send_notification_written(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), McpError> {
        let (message, span) = self.notification_to_send(Notifier::Session, method, params);
        let result = self.outbound.send_written(message).await;
        span.end(&result);
        result
    }

    /// [`Self::send_notification`] without waiting: fails when the outbound queue is full or
    /// closed.
    pub(crate) fn try_send_notification(
        &self,
        by: Notifier<'_>,
        method: &str,
        params: Option<Value>,
        related: Option<RequestId>,
    ) -> Result<(), McpError> {
        let (message, span) = self.notification_to_send(by, method, params);
        let result = self.outbound.try_send(message, related);
        span.end(&result);
        result
    }

    /// The message of notification `method`, with its trace context in `params._meta` and its
    /// span started when `by` traces it.
    fn notification_to_send(
        &self,
        by: Notifier<'_>,
        method: &str,
        params: Option<Value>,
    ) -> (Message, SentSpan) {
        #[cfg(feature = "otel")]
        {
            let mut params = params;
            let span = self.trace_sent(by, method, &mut params);
            (Message::notification(method, params), SentSpan(span))
        }
        #[cfg(not(feature = "otel"))]
        {
            let _ = by;
            (Message::notification(method, params), SentSpan)
        }
    }

    /// Starts the span of a notification about to be sent, writing its context into `params`.
    #[cfg(feature = "otel")]
    fn trace_sent(
        &self,
        by: Notifier<'_>,
        method: &str,
        params: &mut Option<Value>,
    ) -> Option<Box<dyn NotificationSpan + Send>> {
        match by {
            Notifier::Request(None) => None,
            Notifier::Request(Some(tracer)) => tracer.notification(self, method, params),
            Notifier::Session => self
                .service
                .peer_request_tracer()
                .and_then(|t| t.0.notification(self, method, params)),
        }
    }

    /// Routes one incoming notification, under a `SERVER` span of it when it carries a
    /// `traceparent` in `params._meta` and this side has telemetry.
    pub(crate) fn handle_notification(self: &Arc<Self>, n: Notification) {
        #[cfg(feature = "otel")]
        let span = self.trace_received(&n);
        self.route_notification(n);
        #[cfg(feature = "otel")]
        if let Some(span) = span {
            span.finish(None);
        }
    }

    /// The span of a notification received with a trace context in `params._meta`.
    #[cfg(feature = "otel")]
    fn trace_received(&self, n: &Notification) -> Option<Box<dyn NotificationSpan>> {
        let meta = n.params.as_ref()?.get("_meta")?.as_object()?;
        if !meta.contains_key("traceparent") {
            return None;
        }
        self.service
            .peer_request_tracer()?
            .0
            .received(self, &n.method, n.params.as_ref())
    }
}
