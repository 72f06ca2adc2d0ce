//! A layer that can also watch the typed `tools/call` lane, so that installing it does not send
//! every call to the general path.
//!
//! Why: any layer makes a `tools/call` leave the session's typed lane for the general dispatch
//! (params and result as JSON trees, `Server::takes_general_path`), because a layer may read or
//! change them. A layer that needs only the tool's name, the request's context and the outcome
//! (the OpenTelemetry layer: span, trace context in `_meta`, duration) can do its work around
//! the lane's own call instead, which costs a small fraction of the detour
//! (`bench/results/otel-overhead.md`). Such a layer returns a [`ToolLaneObserver`] from
//! [`Middleware::tool_lane_observer`](super::Middleware::tool_lane_observer); when every
//! installed layer does, `tools/call` stays on the lane and each layer's observer wraps it
//! there, and every other request still runs the chain. One path per request either way: the
//! lane decides once (`session/core/tool_lane.rs`), and each path applies the layer once.
//!
//! Only the engine's own layers make observers (the type has no public constructor): what an
//! observer sees is the lane's typed output, not the JSON a layer's contract promises.

use crate::session::{RequestContext, ToolOutput};
use crate::McpError;
use futures_util::future::BoxFuture;
use std::sync::Arc;

/// The outcome of a call on the typed lane.
pub(crate) type LaneResult = Result<ToolOutput, McpError>;

/// How a layer watches a `tools/call` on the typed lane (see the module comment); made only
/// inside the engine.
#[doc(hidden)]
#[derive(Clone)]
pub struct ToolLaneObserver(pub(crate) Arc<dyn ObserveToolCall>);

impl std::fmt::Debug for ToolLaneObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolLaneObserver")
    }
}

/// What a [`ToolLaneObserver`] does.
pub(crate) trait ObserveToolCall: Send + Sync + 'static {
    /// Wraps the call of tool `name` with context `ctx`: `run` makes the call's future from the
    /// context the handler is to get (called once, before this returns; the observer may give
    /// it a context with another `_meta`). The returned future answers what the call answers.
    fn observe<'a>(
        &'a self,
        name: &str,
        ctx: RequestContext,
        run: &mut dyn FnMut(RequestContext) -> BoxFuture<'a, LaneResult>,
    ) -> BoxFuture<'a, LaneResult>;
}

/// Runs `run` inside every observer of `layers`, the first one outermost (as the chain's order).
pub(crate) fn observe_all<'a>(
    layers: &'a [Arc<dyn super::Middleware>],
    name: &str,
    ctx: RequestContext,
    run: &mut dyn FnMut(RequestContext) -> BoxFuture<'a, LaneResult>,
) -> BoxFuture<'a, LaneResult> {
    match layers.split_first() {
        None => run(ctx),
        Some((layer, rest)) => match layer.tool_lane_observer() {
            Some(observer) => observer.0.observe(name, ctx, &mut |ctx| {
                observe_all(rest, name, ctx, &mut *run)
            }),
            // Not reached: a chain with such a layer takes the general path.
            None => observe_all(rest, name, ctx, run),
        },
    }
}
