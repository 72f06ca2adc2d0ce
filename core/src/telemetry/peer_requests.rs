//! Requests sent to the peer, traced on both sides as the MCP semantic conventions say of a
//! request (for a server's `sampling/createMessage`, `elicitation/create`, `roots/list`: "reported
//! by the MCP server when the server initiates the operation"): the sender reports a `CLIENT`
//! span and the receiver a `SERVER` span, each named `{mcp.method.name}`.
//!
//! - **Sender** ([`Outbound`], a `session::TraceOutbound`): every request sent on a session
//!   whose side has telemetry (a server with the layer, [`Telemetry::peer_request_tracer`]; a
//!   client with `ClientOptions::telemetry`) goes through `Peer`'s one sending path, which
//!   starts here a `CLIENT` span with `mcp.method.name`, `jsonrpc.request.id`, `mcp.session.id`
//!   and `mcp.protocol.version`: a handler's request through `RequestContext::request` (the
//!   typed sampling, elicitation and roots helpers of the bindings), or through the session's
//!   peer, a server's push to a session outside any handler, a client's handshake. Its parent is
//!   the `traceparent` the sender put in `params._meta` (a handler in another language names its
//!   own span so), else the current OpenTelemetry context (a Rust handler's own span, or the
//!   request's, current in its future), else, for a handler's request while serving a request
//!   the layer traces, that request's `SERVER` span ([`Telemetry::outbound`]); without any, a
//!   trace of its own, sampled as a root. Its context (with `tracestate` and `baggage`) is
//!   written into that `params._meta`; its duration is `mcp.client.operation.duration` of the
//!   sender's telemetry, sampled or not. The engine client's own calls (`Client::request`) have
//!   a span around all the requests one call sends; it names the first one's id.
//! - **Receiver** ([`Telemetry::answering`]): the engine's client with `ClientOptions::telemetry`
//!   answers each server request under a `SERVER` span whose parent is the context in the
//!   request's `_meta`; the handler runs with it current, and `_meta` (params and the handler's
//!   context) names it for a handler in another language. Its duration is
//!   `mcp.server.operation.duration` of the client's telemetry. A request without a parent that
//!   the client's sampler drops gets no span, only its duration (as on a server, `quiet.rs`).

use super::quiet::Decision;
use super::semconv::{self, Ending, Operation};
use super::server_layer::{request_id_text, Serving, Traced};
use super::{propagation, ClientCall, Telemetry};
use crate::jsonrpc::{Notification, Request, RequestId};
use crate::protocol::ProtocolVersion;
use crate::session::{
    NotificationSpan, OutboundCall, Peer, PeerRequestTracer, RequestContext, Service, Session,
    TraceOutbound,
};
use crate::McpError;
use futures_util::future::BoxFuture;
use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::TraceContextExt;
use opentelemetry::{Context, KeyValue};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// The tracer of the requests sent to the peer: its telemetry and, for those a traced
/// request's handler sends, the request's `SERVER` span.
struct Outbound {
    telemetry: Telemetry,
    serving: Option<Context>,
}

impl Telemetry {
    /// Traces the requests sent to the peer by the handler of the request whose `SERVER` span
    /// is current in `serving`.
    pub(super) fn outbound(&self, serving: &Context) -> Arc<dyn TraceOutbound> {
        Arc::new(Outbound {
            telemetry: self.clone(),
            serving: Some(serving.clone()),
        })
    }

    /// Traces every request sent on a session of this side (the server layer's and a client's
    /// `Service::peer_request_tracer`); `None` when disabled.
    pub(crate) fn peer_request_tracer(&self) -> Option<PeerRequestTracer> {
        (!self.inner.disabled).then(|| {
            PeerRequestTracer(Arc::new(Outbound {
                telemetry: self.clone(),
                serving: None,
            }))
        })
    }

    /// `handlers` (a client's answers to its server's requests) with a `SERVER` span around
    /// each request the server sends, and its requests to the server traced.
    pub(crate) fn answering(&self, handlers: Arc<dyn Service>) -> Arc<dyn Service> {
        Arc::new(Answering {
            telemetry: self.clone(),
            tracer: self.peer_request_tracer(),
            handlers,
        })
    }
}

impl TraceOutbound for Outbound {
    fn start(
        &self,
        session: &Session,
        serving: Option<&RequestContext>,
        method: &str,
        id: &RequestId,
        params: &mut Option<Value>,
    ) -> Box<dyn OutboundCall> {
        let mut op = Operation::of(method, params.as_ref());
        let version = serving.and_then(RequestContext::protocol_version);
        op.protocol_version = version
            .or_else(|| session.protocol_version())
            .map(|v| v.as_str());
        // A server's session with an id is a Streamable HTTP (or HTTP+SSE) one.
        op.over_http = match serving {
            Some(ctx) => ctx.has_http_headers(),
            None => session.session_id().is_some(),
        };
        // The current context when it has a span (a Rust handler's own, or the request's,
        // current in its future); a binding's handler runs its request outside it.
        let otherwise = || {
            let current = Context::current();
            match &self.serving {
                Some(serving) if !current.span().span_context().is_valid() => serving.clone(),
                _ => current,
            }
        };
        let describe = |span: &opentelemetry::trace::SpanRef<'_>| {
            span.set_attribute(KeyValue::new(
                semconv::JSONRPC_REQUEST_ID,
                request_id_text(id),
            ));
            if let Some(session) = session.session_id() {
                span.set_attribute(KeyValue::new(semconv::MCP_SESSION_ID, session.to_string()));
            }
        };
        Box::new(
            self.telemetry
                .start_client_call(op, method, params, otherwise, describe),
        )
    }

    fn notification(
        &self,
        session: &Session,
        method: &str,
        params: &mut Option<Value>,
    ) -> Option<Box<dyn NotificationSpan + Send>> {
        self.telemetry
            .sent_notification(self.serving.as_ref(), session, method, params)
    }

    fn received(
        &self,
        session: &Session,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Box<dyn NotificationSpan>> {
        self.telemetry
            .received_notification(session, method, params)
    }

    fn answered_by_session(
        &self,
        request: &Request,
        ctx: &RequestContext,
    ) -> Box<dyn OutboundCall> {
        self.telemetry.answered_by_session(request, ctx)
    }
}

impl OutboundCall for ClientCall {
    fn finish(self: Box<Self>, result: &Result<Value, McpError>) {
        ClientCall::finish(*self, result);
    }
}

/// A client's handlers answering its server's requests, each under a `SERVER` span
/// ([`Telemetry::answering`]).
struct Answering {
    telemetry: Telemetry,
    /// The requests sent on the client's session ([`Telemetry::peer_request_tracer`]).
    tracer: Option<PeerRequestTracer>,
    handlers: Arc<dyn Service>,
}

impl Service for Answering {
    fn handle_request(
        &self,
        mut request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let telemetry = &self.telemetry;
        if telemetry.inner.disabled {
            return self.handlers.handle_request(request, ctx);
        }
        let start = Instant::now();
        let version = ctx.protocol_version().map(|v| v.as_str());
        let meta = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object);
        let trace_id = match telemetry.decide(meta, &ctx, false) {
            Decision::Traced(trace_id) => trace_id,
            Decision::Quiet => {
                let mut quiet = telemetry.inner.server_duration.start(
                    start,
                    &request.method,
                    None,
                    version,
                    false,
                );
                let answer = self.handlers.handle_request(request, ctx);
                return Box::pin(async move {
                    let result = answer.await;
                    quiet.end(Ending::Answered(&result));
                    result
                });
            }
        };
        let mut op = Operation::of(&request.method, request.params.as_ref());
        op.protocol_version = version;
        let (cx, op) = telemetry.start_server_span(Traced {
            op,
            meta,
            ctx: &ctx,
            request_id: &request.id,
            resource_uri: None,
            trace_id,
        });
        let ctx = if cx.span().span_context().is_sampled() {
            // As the server layer does: a handler in another language reads its parent here.
            propagation::inject_into_params(&cx, &mut request.params);
            let mut meta = ctx.meta().cloned().unwrap_or_default();
            propagation::inject_into_meta(&cx, &mut meta);
            // What its handler sends the server goes under this span.
            ctx.with_meta_object(meta, Some(telemetry.outbound(&cx)))
        } else {
            ctx
        };
        let mut serving = Serving {
            telemetry: telemetry.clone(),
            cx: cx.clone(),
            op,
            start,
            done: false,
        };
        let answer = self.handlers.handle_request(request, ctx);
        Box::pin(async move {
            let result = answer.with_context(cx).await;
            serving.end(Ending::Answered(&result));
            result
        })
    }

    fn capabilities(&self, version: ProtocolVersion) -> Option<Arc<Value>> {
        self.handlers.capabilities(version)
    }

    fn handle_notification(&self, notification: Notification, peer: &Peer) {
        self.handlers.handle_notification(notification, peer)
    }

    fn on_initialized(&self, peer: &Peer) {
        self.handlers.on_initialized(peer)
    }

    fn on_closed(&self, peer: &Peer) {
        self.handlers.on_closed(peer)
    }

    fn peer_request_tracer(&self) -> Option<PeerRequestTracer> {
        self.tracer.clone()
    }
}
