//! Notifications traced on both sides as the MCP semantic conventions say ("reported by the
//! MCP client when it initiates the request or notification", "the processing of the MCP
//! request or notification initiated by the peer"): the sender reports a `CLIENT` span, the
//! receiver a `SERVER` span, each named `{mcp.method.name}` with `mcp.method.name`,
//! `mcp.session.id`, `mcp.protocol.version`, the network attributes over HTTP and, for
//! `notifications/resources/updated`, `mcp.resource.uri`; no `jsonrpc.request.id` (a
//! notification has none). And `ping`, which the session answers itself: a `SERVER` span and
//! its duration, as the side's other requests get.
//!
//! Both notification ends are reached through the session's one path (`session/notify.rs`):
//!
//! - **Sent** ([`Telemetry::sent_notification`]): for a request being served, only when the
//!   layer traces that request and its span is sampled (its tracer carries that span, the
//!   parent when no other span is current); for the session outside any request, under the
//!   current span, else as a root the sampler keeps. Its context (`traceparent`, `tracestate`,
//!   `baggage`) is written into the notification's `params._meta`. An unsampled request's
//!   notifications never get here: no span, no allocation, no duration.
//! - **Received** ([`Telemetry::received_notification`]): only a notification whose `_meta`
//!   holds a valid `traceparent`, under that parent, and current while the session routes it.
//!   One without starts no trace: the receiver cannot tell whether its sender's work was
//!   sampled, and a trace of one span per progress message says nothing.
//!
//! No duration is recorded for a notification (sent or received): there is no answer to wait
//! for, so the operation-duration histograms would time a queue push; spans only.

use super::quiet::{Decision, QuietCall};
use super::semconv::{self, Ending, Operation};
use super::server_layer::{Serving, Traced};
use super::{propagation, Telemetry};
use crate::jsonrpc::Request;
use crate::session::{NotificationSpan, OutboundCall, RequestContext, Session};
use crate::McpError;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, ContextGuard, KeyValue};
use serde_json::Value;
use std::borrow::Cow;
use std::time::Instant;

impl Telemetry {
    /// The `CLIENT` span of a notification about to be sent on `session` with `params`, its
    /// context written into `params._meta`; `serving` is the span of the request it is sent
    /// for (sampled), `None` for one the session sends outside any request. `None` when not
    /// sampled.
    pub(super) fn sent_notification(
        &self,
        serving: Option<&Context>,
        session: &Session,
        method: &str,
        params: &mut Option<Value>,
    ) -> Option<Box<dyn NotificationSpan + Send>> {
        let tracer = self
            .inner
            .tracer
            .as_ref()
            .filter(|_| !self.inner.disabled)?;
        let current = Context::current();
        let (parent, trace_id) = if current.span().span_context().is_valid() {
            (current, None)
        } else if let Some(serving) = serving {
            (serving.clone(), None)
        } else {
            // Outside any trace: one of its own, when the root sampler keeps it.
            match self.inner.sampler?.decide(false) {
                Decision::Quiet => return None,
                Decision::Traced(trace_id) => (current, trace_id),
            }
        };
        let builder = tracer
            .span_builder(span_name(method))
            .with_kind(SpanKind::Client);
        let span =
            super::quiet::with_trace_id(trace_id, || builder.start_with_context(tracer, &parent));
        let cx = parent.with_span(span);
        if !cx.span().is_recording() {
            return None;
        }
        describe(&cx, session, method, params.as_ref());
        propagation::inject_into_params(&cx, params);
        Some(Box::new(SentSpan(cx)))
    }

    /// The `SERVER` span of a notification received on `session` with `params` whose `_meta`
    /// holds a `traceparent`, current until it is finished; `None` when that parent is
    /// malformed or the span is not sampled.
    pub(super) fn received_notification(
        &self,
        session: &Session,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Box<dyn NotificationSpan>> {
        let tracer = self
            .inner
            .tracer
            .as_ref()
            .filter(|_| !self.inner.disabled)?;
        let meta = params?.get("_meta")?.as_object()?;
        let parent = propagation::extract_from_meta(meta)?;
        let span = tracer
            .span_builder(span_name(method))
            .with_kind(SpanKind::Server)
            .start_with_context(tracer, &parent);
        let cx = parent.with_span(span);
        if !cx.span().is_recording() {
            return None;
        }
        describe(&cx, session, method, params);
        let attached = cx.clone().attach();
        Some(Box::new(ReceivedSpan {
            cx,
            _attached: attached,
        }))
    }

    /// A request the session answers itself (`ping`) with context `ctx`: a `SERVER` span and
    /// `mcp.server.operation.duration`, decided and recorded as the server layer does for the
    /// requests the middleware chain sees.
    pub(super) fn answered_by_session(
        &self,
        request: &Request,
        ctx: &RequestContext,
    ) -> Box<dyn OutboundCall> {
        let start = Instant::now();
        let version = ctx.protocol_version().map(|v| v.as_str());
        let over_http = ctx.has_http_headers();
        let meta = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object);
        match self.decide(meta, ctx, over_http) {
            Decision::Quiet => Box::new(self.inner.server_duration.start(
                start,
                &request.method,
                None,
                version,
                over_http,
            )),
            Decision::Traced(trace_id) => {
                let mut op = Operation::of(&request.method, request.params.as_ref());
                op.protocol_version = version;
                op.over_http = over_http;
                let (cx, op) = self.start_server_span(Traced {
                    op,
                    meta,
                    ctx,
                    request_id: &request.id,
                    resource_uri: None,
                    trace_id,
                });
                Box::new(Serving {
                    telemetry: self.clone(),
                    cx,
                    op,
                    start,
                    done: false,
                })
            }
        }
    }
}

impl OutboundCall for QuietCall {
    fn finish(mut self: Box<Self>, result: &Result<Value, McpError>) {
        self.end(Ending::Answered(result));
    }
}

impl OutboundCall for Serving {
    fn finish(mut self: Box<Self>, result: &Result<Value, McpError>) {
        self.end(Ending::Answered(result));
    }
}

/// The span's name: the method, without allocating for the notifications the conventions
/// name.
fn span_name(method: &str) -> Cow<'static, str> {
    const KNOWN: [&str; 11] = [
        "notifications/progress",
        "notifications/message",
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/roots/list_changed",
        "notifications/tasks/status",
        "notifications/tasks",
    ];
    match KNOWN.into_iter().find(|k| *k == method) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(method.to_string()),
    }
}

/// A recording notification span's attributes: the method, the session, its revision, the
/// network over HTTP (a session with an id) and the resource of `resources/updated`.
fn describe(cx: &Context, session: &Session, method: &str, params: Option<&Value>) {
    let span = cx.span();
    let mut op = Operation::named(method, None);
    op.protocol_version = session.protocol_version().map(|v| v.as_str());
    op.over_http = session.session_id().is_some();
    let mut attrs = Vec::with_capacity(6);
    op.common_attributes(&mut attrs);
    if let Some(id) = session.session_id() {
        attrs.push(KeyValue::new(semconv::MCP_SESSION_ID, id.to_string()));
    }
    if method == "notifications/resources/updated" {
        if let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) {
            attrs.push(KeyValue::new(semconv::MCP_RESOURCE_URI, uri.to_string()));
        }
    }
    span.set_attributes(attrs);
}

/// Ends a notification's span; one that could not be sent is an error (`error.type` its code).
fn end(cx: &Context, error: Option<&McpError>) {
    let span = cx.span();
    if let Some(e) = error {
        span.set_attribute(KeyValue::new(semconv::ERROR_TYPE, e.code.to_string()));
        span.set_status(Status::error(e.message.clone()));
    }
    span.end();
}

/// A notification being sent.
struct SentSpan(Context);

impl NotificationSpan for SentSpan {
    fn finish(self: Box<Self>, error: Option<&McpError>) {
        end(&self.0, error);
    }
}

/// A notification being routed, its span current.
struct ReceivedSpan {
    cx: Context,
    _attached: ContextGuard,
}

impl NotificationSpan for ReceivedSpan {
    fn finish(self: Box<Self>, error: Option<&McpError>) {
        end(&self.cx, error);
    }
}
