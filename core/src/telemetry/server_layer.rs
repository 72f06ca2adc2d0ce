//! The server side: a middleware layer that opens a `SERVER` span per request (its parent the
//! context in `params._meta`, else in the HTTP request's header fields, else none), runs the
//! rest of the chain and the handler with that span current, and records
//! `mcp.server.operation.duration`. A `tools/call` on the session's typed lane gets the same
//! around the lane's own call ([`ToolLaneObserver`]): the layer does not make the call's params
//! and result JSON.
//!
//! The handler sees its span two ways: as the current OpenTelemetry context of its future (Rust
//! handlers: `opentelemetry::Context::current()`), and as `traceparent`/`tracestate` in the
//! request's `_meta` (params and context), rewritten to name the server span when it is sampled, so a
//! handler in another language (Python, Node, Swift) extracts its parent from `_meta` with its
//! own OpenTelemetry SDK and its spans join the same trace.
//!
//! A request without a parent that the sampler drops gets no span at all (`quiet.rs`): its
//! handler runs in the context it was called in, and only its duration is recorded.

use super::quiet::Decision;
use super::semconv::{self, Ending, Operation};
use super::{propagation, Telemetry};
use crate::jsonrpc::RequestId;
use crate::server::middleware::{
    LaneResult, LaneWatch, Middleware, MiddlewareRequest, MiddlewareResponse, Next,
    ObserveToolCall, SessionEndObserver, ToolLaneObserver, WatchToolCall,
};
use crate::session::{PeerRequestTracer, RequestContext};
use crate::McpError;
use futures_util::future::BoxFuture;
use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{Link, SpanKind, SpanRef, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

/// The OpenTelemetry middleware layer ([`Telemetry::server_layer`]).
#[derive(Clone)]
pub struct TelemetryLayer {
    telemetry: Telemetry,
    /// The same work around a `tools/call` on the typed lane ([`ToolLane`]).
    lane: ToolLaneObserver,
    /// `mcp.server.session.duration` of the sessions served over a message transport (stdio,
    /// WebSocket, in memory); `None` when the telemetry is disabled.
    sessions: Option<SessionEndObserver>,
    /// The requests sent on the server's sessions (`peer_requests.rs`); `None` when the
    /// telemetry is disabled.
    peer_requests: Option<PeerRequestTracer>,
}

impl std::fmt::Debug for TelemetryLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TelemetryLayer")
            .field("telemetry", &self.telemetry)
            .finish_non_exhaustive()
    }
}

impl TelemetryLayer {
    pub(super) fn new(telemetry: Telemetry) -> Self {
        let lane = ToolLaneObserver(Arc::new(ToolLane(telemetry.clone())));
        let histogram = telemetry.inner.server_session_duration.clone();
        let sessions = (!telemetry.inner.disabled).then(|| {
            SessionEndObserver(Arc::new(move |lived, version, kind| {
                super::record_server_session(&histogram, lived, version, kind)
            }))
        });
        Self {
            peer_requests: telemetry.peer_request_tracer(),
            telemetry,
            lane,
            sessions,
        }
    }
}

/// The layer's observer of the typed `tools/call` lane.
struct ToolLane(Telemetry);

/// A request being served: ends its span and records its duration once answered, or as
/// cancelled when its future is dropped first. What only a recording span needs (the session,
/// the resource, the request id) was set on it when it started.
pub(super) struct Serving {
    pub telemetry: Telemetry,
    pub cx: Context,
    pub op: Operation,
    pub start: Instant,
    pub done: bool,
}

impl Serving {
    pub fn end(&mut self, ending: Ending<'_>) {
        self.done = true;
        let mut attrs = Vec::with_capacity(8);
        self.op.common_attributes(&mut attrs);
        let span = self.cx.span();
        let recording = span.is_recording();
        if recording {
            span.set_attributes(attrs.iter().cloned());
        }
        semconv::record_ending(&span, &ending, &mut attrs);
        if recording {
            span.end();
        }
        self.telemetry
            .inner
            .server_duration
            .histogram()
            .record(self.start.elapsed().as_secs_f64(), &attrs);
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if !self.done {
            self.end(Ending::Cancelled);
        }
    }
}

/// The request's parent context and the HTTP-level context to link, if any: `_meta` first,
/// then the HTTP header fields (the conventions: the MCP context is the parent, the
/// transport's a link). Malformed values are ignored.
fn remote_parent(
    meta: Option<&Map<String, Value>>,
    ctx: &RequestContext,
    over_http: bool,
) -> (Context, Option<Context>) {
    let from_meta = meta.and_then(propagation::extract_from_meta);
    // Over HTTP: the trace-context fields looked up one by one (none built without a
    // `traceparent`).
    let from_http = if over_http {
        propagation::extract_from_header_lookup(|name| ctx.http_header(name))
    } else {
        None
    };
    match (from_meta, from_http) {
        (Some(meta), Some(http)) => {
            let same = meta.span().span_context().span_id() == http.span().span_context().span_id();
            (meta, (!same).then_some(http))
        }
        (Some(meta), None) => (meta, None),
        (None, Some(http)) => (http, None),
        (None, None) => (Context::current(), None),
    }
}

/// Whether a request names a remote parent (a `traceparent` in `_meta` or, over HTTP, in the
/// header fields), valid or not: such a request's span is decided by the SDK under it.
fn names_parent(meta: Option<&Map<String, Value>>, ctx: &RequestContext, over_http: bool) -> bool {
    meta.is_some_and(|m| m.contains_key("traceparent")) || (over_http && ctx.has_http_traceparent())
}

/// What a request being traced starts with.
pub(super) struct Traced<'r> {
    pub op: Operation,
    pub meta: Option<&'r Map<String, Value>>,
    pub ctx: &'r RequestContext,
    pub request_id: &'r RequestId,
    pub resource_uri: Option<&'r str>,
    pub trace_id: Option<opentelemetry::trace::TraceId>,
}

impl Telemetry {
    /// Whether a server request is traced (`quiet.rs`).
    pub(super) fn decide(
        &self,
        meta: Option<&Map<String, Value>>,
        ctx: &RequestContext,
        over_http: bool,
    ) -> Decision {
        match &self.inner.sampler {
            Some(sampler) => sampler.decide(names_parent(meta, ctx, over_http)),
            None => Decision::Quiet,
        }
    }

    /// Starts the server span of a traced request: the context its handler runs in.
    pub(super) fn start_server_span(&self, t: Traced<'_>) -> (Context, Operation) {
        let Some(tracer) = &self.inner.tracer else {
            return (Context::current(), t.op);
        };
        let (parent, link) = remote_parent(t.meta, t.ctx, t.op.over_http);
        // Started under the method's name (no allocation): the sampler decides first,
        // and only a span that records gets its full name and attributes.
        let mut builder = tracer
            .span_builder(t.op.start_name())
            .with_kind(SpanKind::Server);
        if let Some(link) = link {
            builder =
                builder.with_links(vec![Link::with_context(link.span().span_context().clone())]);
        }
        let span =
            super::quiet::with_trace_id(t.trace_id, || builder.start_with_context(tracer, &parent));
        let cx = parent.with_span(span);
        let span = cx.span();
        if span.is_recording() {
            describe(&span, &t.op, t.request_id, t.ctx, t.resource_uri);
        }
        (cx, t.op)
    }
}

impl Middleware for TelemetryLayer {
    fn handle<'a>(
        &'a self,
        mut request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        let telemetry = &self.telemetry;
        if telemetry.inner.disabled {
            return next.run(request);
        }
        let start = Instant::now();
        let version = request.context().protocol_version().map(|v| v.as_str());
        let over_http = request.context().has_http_headers();
        let meta = request
            .params()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object);
        let decision = telemetry.decide(meta, request.context(), over_http);
        let trace_id = match decision {
            Decision::Traced(trace_id) => trace_id,
            Decision::Quiet => {
                let target = semconv::target_name(request.method(), request.params());
                let mut quiet = telemetry.inner.server_duration.start(
                    start,
                    request.method(),
                    target,
                    version,
                    over_http,
                );
                return Box::pin(async move {
                    let result = next.run(request).await;
                    quiet.end(Ending::Layered(&result));
                    result
                });
            }
        };
        let mut op = Operation::of(request.method(), request.params());
        op.protocol_version = version;
        op.over_http = over_http;
        let (cx, op) = telemetry.start_server_span(Traced {
            op,
            meta,
            ctx: request.context(),
            request_id: request.id(),
            resource_uri: semconv::resource_uri(request.method(), request.params()),
            trace_id,
        });
        if cx.span().span_context().is_sampled() {
            request = name_span_in_meta(request, &cx, telemetry);
        }
        let mut serving = Serving {
            telemetry: telemetry.clone(),
            cx: cx.clone(),
            op,
            start,
            done: false,
        };
        Box::pin(async move {
            let result = next.run(request).with_context(cx).await;
            serving.end(Ending::Layered(&result));
            result
        })
    }

    fn tool_lane_observer(&self) -> Option<&ToolLaneObserver> {
        Some(&self.lane)
    }

    fn session_end_observer(&self) -> Option<&SessionEndObserver> {
        self.sessions.as_ref()
    }

    fn peer_request_tracer(&self) -> Option<&PeerRequestTracer> {
        self.peer_requests.as_ref()
    }
}

impl ObserveToolCall for ToolLane {
    fn start(&self, name: &str, ctx: RequestContext) -> (RequestContext, LaneWatch<'_>) {
        let telemetry = &self.0;
        if telemetry.inner.disabled {
            return (ctx, LaneWatch::Scoped(Box::new(Untraced)));
        }
        let start = Instant::now();
        let version = ctx.protocol_version().map(|v| v.as_str());
        let over_http = ctx.has_http_headers();
        let decision = telemetry.decide(ctx.meta(), &ctx, over_http);
        let trace_id = match decision {
            Decision::Quiet => {
                let watch = telemetry.inner.server_duration.watch_lane(
                    start,
                    "tools/call",
                    Some(name),
                    version,
                    over_http,
                );
                return (ctx, watch);
            }
            Decision::Traced(trace_id) => trace_id,
        };
        let mut op = Operation::named("tools/call", Some(name));
        op.protocol_version = version;
        op.over_http = over_http;
        let (cx, op) = telemetry.start_server_span(Traced {
            op,
            meta: ctx.meta(),
            ctx: &ctx,
            request_id: ctx.request_id(),
            resource_uri: None,
            trace_id,
        });
        let ctx = if cx.span().span_context().is_sampled() {
            // As `name_span_in_meta`: the handler reads its parent from `_meta`, and its
            // requests to the client are traced under it.
            let mut meta = ctx.meta().cloned().unwrap_or_default();
            propagation::inject_into_meta(&cx, &mut meta);
            ctx.with_meta_object(meta, Some(telemetry.outbound(&cx)))
        } else {
            ctx
        };
        let serving = Serving {
            telemetry: telemetry.clone(),
            cx,
            op,
            start,
            done: false,
        };
        (ctx, LaneWatch::Scoped(Box::new(serving)))
    }
}

/// A lane call of a disabled telemetry: nothing to watch.
struct Untraced;

impl WatchToolCall for Untraced {
    fn poll_in_scope(&mut self, poll: &mut dyn FnMut() -> Poll<LaneResult>) -> Poll<LaneResult> {
        poll()
    }

    fn ended(self: Box<Self>, _: Option<&LaneResult>) {}
}

/// A traced lane call: each poll runs with its span's context current (as `with_context`).
impl WatchToolCall for Serving {
    fn poll_in_scope(&mut self, poll: &mut dyn FnMut() -> Poll<LaneResult>) -> Poll<LaneResult> {
        let _attached = self.cx.clone().attach();
        poll()
    }

    fn ended(mut self: Box<Self>, result: Option<&LaneResult>) {
        // Unanswered: the drop records it as cancelled.
        if let Some(result) = result {
            self.end(Ending::Tool(result));
        }
    }
}

/// `request` with its `_meta` naming the server span in `cx` (`traceparent`, `tracestate`),
/// in the params and in the context handlers read `_meta` from, so that a handler in another
/// language (Python, Node, Swift) extracts the server span as its parent with its own
/// OpenTelemetry SDK; the requests its handler sends to the client get `CLIENT` spans
/// ([`Telemetry::outbound`]). Done for sampled spans only: an unsampled request keeps the
/// client's context, whose flags tell the handler's SDK not to sample either.
fn name_span_in_meta(
    mut request: MiddlewareRequest,
    cx: &Context,
    telemetry: &Telemetry,
) -> MiddlewareRequest {
    propagation::inject_into_params(cx, request.params_mut());
    let (req, ctx) = request.into_parts();
    let mut meta = ctx.meta().cloned().unwrap_or_default();
    propagation::inject_into_meta(cx, &mut meta);
    let ctx = ctx.with_meta_object(meta, Some(telemetry.outbound(cx)));
    MiddlewareRequest::new(req, ctx)
}

/// What a recording span gets at its start beside its kind: its full name, and the request's
/// id, session and resource.
fn describe(
    span: &SpanRef<'_>,
    op: &Operation,
    id: &RequestId,
    ctx: &RequestContext,
    resource_uri: Option<&str>,
) {
    if op.renamed() {
        span.update_name(op.span_name());
    }
    span.set_attribute(KeyValue::new(
        semconv::JSONRPC_REQUEST_ID,
        request_id_text(id),
    ));
    if let Some(id) = ctx.session().session_id() {
        span.set_attribute(KeyValue::new(semconv::MCP_SESSION_ID, id.to_string()));
    }
    if let Some(uri) = resource_uri {
        span.set_attribute(KeyValue::new(semconv::MCP_RESOURCE_URI, uri.to_string()));
    }
}

/// A request id as the `jsonrpc.request.id` attribute writes it (a string id unquoted).
pub(super) fn request_id_text(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.to_string(),
    }
}
