//! The server side: a middleware layer that opens a `SERVER` span per request (its parent the
//! context in `params._meta`, else in the HTTP request's header fields, else none), runs the
//! rest of the chain and the handler with that span current, and records
//! `mcp.server.operation.duration`.
//!
//! The handler sees its span two ways: as the current OpenTelemetry context of its future (Rust
//! handlers: `opentelemetry::Context::current()`), and as `traceparent`/`tracestate` in the
//! request's `_meta` (params and context), rewritten to name the server span when it is sampled, so a
//! handler in another language (Python, Node, Swift) extracts its parent from `_meta` with its
//! own OpenTelemetry SDK and its spans join the same trace.

use super::semconv::{self, Ending, Operation};
use super::{propagation, Telemetry};
use crate::server::middleware::{Middleware, MiddlewareRequest, Next};
use crate::McpError;
use futures_util::future::BoxFuture;
use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{Link, SpanKind, SpanRef, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;
use std::time::Instant;

/// The OpenTelemetry middleware layer ([`Telemetry::server_layer`]).
#[derive(Clone, Debug)]
pub struct TelemetryLayer {
    telemetry: Telemetry,
}

impl TelemetryLayer {
    pub(super) fn new(telemetry: Telemetry) -> Self {
        Self { telemetry }
    }
}

/// A request being served: ends its span and records its duration once answered, or as
/// cancelled when its future is dropped first. What only a recording span needs (the session,
/// the resource, the request id) was set on it when it started.
struct Serving<'a> {
    telemetry: &'a Telemetry,
    cx: Context,
    op: Operation,
    start: Instant,
    done: bool,
}

impl Serving<'_> {
    fn end(&mut self, ending: Ending<'_>) {
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
            .record(self.start.elapsed().as_secs_f64(), &attrs);
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.end(Ending::Cancelled);
        }
    }
}

/// The request's parent context and the HTTP-level context to link, if any: `_meta` first,
/// then the HTTP header fields (the conventions: the MCP context is the parent, the
/// transport's a link). Malformed values are ignored.
fn remote_parent(request: &MiddlewareRequest, over_http: bool) -> (Context, Option<Context>) {
    let from_meta = request
        .params()
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .and_then(propagation::extract_from_meta);
    // Over HTTP: the trace-context fields looked up one by one (none built without a
    // `traceparent`).
    let from_http = if over_http {
        let ctx = request.context();
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

impl Middleware for TelemetryLayer {
    fn handle<'a>(
        &'a self,
        mut request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<Value, McpError>> {
        let inner = &self.telemetry.inner;
        if inner.disabled {
            return next.run(request);
        }
        let start = Instant::now();
        let mut op = Operation::of(request.method(), request.params());
        op.protocol_version = request.context().protocol_version().map(|v| v.as_str());
        op.over_http = request.context().has_http_headers();
        let cx = match &inner.tracer {
            Some(tracer) => {
                let (parent, link) = remote_parent(&request, op.over_http);
                // Started under the method's name (no allocation): the sampler decides first,
                // and only a span that records gets its full name and attributes.
                let mut builder = tracer
                    .span_builder(op.start_name())
                    .with_kind(SpanKind::Server);
                if let Some(link) = link {
                    builder = builder
                        .with_links(vec![Link::with_context(link.span().span_context().clone())]);
                }
                let span = builder.start_with_context(tracer, &parent);
                let cx = parent.with_span(span);
                let span = cx.span();
                if span.is_recording() {
                    describe(&span, &op, &request);
                }
                if span.span_context().is_sampled() {
                    request = name_span_in_meta(request, &cx);
                }
                cx
            }
            None => Context::current(),
        };
        let mut serving = Serving {
            telemetry: &self.telemetry,
            cx: cx.clone(),
            op,
            start,
            done: false,
        };
        Box::pin(async move {
            let result = next.run(request).with_context(cx).await;
            serving.end(Ending::Answered(&result));
            result
        })
    }
}

/// `request` with its `_meta` naming the server span in `cx` (`traceparent`, `tracestate`),
/// in the params and in the context handlers read `_meta` from, so that a handler in another
/// language (Python, Node, Swift) extracts the server span as its parent with its own
/// OpenTelemetry SDK. Done for sampled spans only: an unsampled request keeps the client's
/// context, whose flags tell the handler's SDK not to sample either.
fn name_span_in_meta(mut request: MiddlewareRequest, cx: &Context) -> MiddlewareRequest {
    propagation::inject_into_params(cx, request.params_mut());
    let (req, ctx) = request.into_parts();
    let mut meta = ctx.meta().cloned().unwrap_or_default();
    propagation::inject_into_meta(cx, &mut meta);
    let ctx = ctx.with_meta_object(meta);
    MiddlewareRequest::new(req, ctx)
}

/// What a recording span gets at its start beside its kind: its full name, and the request's
/// id, session and resource.
fn describe(span: &SpanRef<'_>, op: &Operation, request: &MiddlewareRequest) {
    if op.renamed() {
        span.update_name(op.span_name());
    }
    span.set_attribute(KeyValue::new(
        semconv::JSONRPC_REQUEST_ID,
        request_id_text(request),
    ));
    if let Some(id) = request.session_id() {
        span.set_attribute(KeyValue::new(semconv::MCP_SESSION_ID, id.to_string()));
    }
    if let Some(uri) = semconv::resource_uri(request.method(), request.params()) {
        span.set_attribute(KeyValue::new(semconv::MCP_RESOURCE_URI, uri.to_string()));
    }
}

/// A request id as the `jsonrpc.request.id` attribute writes it (a string id unquoted).
fn request_id_text(request: &MiddlewareRequest) -> String {
    match request.id() {
        crate::jsonrpc::RequestId::Number(n) => n.to_string(),
        crate::jsonrpc::RequestId::String(s) => s.to_string(),
    }
}
