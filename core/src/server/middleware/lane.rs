//! A layer that can also watch the typed `tools/call` lane, so that installing it does not make
//! every call's params and result JSON.
//!
//! Why: a chain of layers runs a lane `tools/call` through each layer's boxed future, and
//! makes its params and result JSON trees when a layer reads or changes them
//! (`Server::call_tool_with_middleware`). A layer
//! that needs only the tool's name, the request's context and the outcome (the OpenTelemetry
//! layer: span, trace context in `_meta`, duration) can do its work around the lane's own call
//! instead, which costs a small fraction of that (`bench/results/otel-overhead.md`). Such a
//! layer returns a [`ToolLaneObserver`] from
//! [`Middleware::tool_lane_observer`](super::Middleware::tool_lane_observer); when every
//! installed layer does, each layer's observer watches the lane's typed call, and every other
//! request still runs the chain. One path per request either way: the server decides once per
//! call (`Server::call_tool_with_middleware`), and each way applies the layer once.
//!
//! Only the engine's own layers make observers (the type has no public constructor): what an
//! observer sees is the lane's typed output, not the JSON a layer's contract promises.
use crate::session::{RequestContext, ToolOutput};
use crate::McpError;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

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
    /// A call of tool `name` with context `ctx` starts (its future is not made yet): returns
    /// the context the handler is to get (the observer may give it another `_meta`) and what
    /// watches the call until it ends (it may borrow from the observer, which the server keeps
    /// for as long as the call runs).
    fn start(&self, name: &str, ctx: RequestContext) -> (RequestContext, LaneWatch<'_>);
}

/// What watches one call on the lane, from its start to its end, borrowing from its observer
/// (`'a`). Neither variant wraps the call's future in a box of its own: the call runs in place
/// beside them (`Server::call_tool_with_middleware`).
// Made only by the engine's one observer, the OpenTelemetry layer (feature `otel`).
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) enum LaneWatch<'a> {
    /// Only told how the call ended, by a shared recorder the observer owns: nothing
    /// allocated and no reference counted per call (a count shared by every worker would be
    /// written from each CPU on every call).
    Ended {
        ender: &'a dyn EndToolCall,
        start: Instant,
    },
    /// Also runs each poll of the call in its own scope (e.g. a current tracing context).
    Scoped(Box<dyn WatchToolCall + 'a>),
}

/// The recorder of a [`LaneWatch::Ended`].
pub(crate) trait EndToolCall: Send + Sync {
    /// The call that started at `start` ended with `result`, or was dropped unanswered (`None`).
    fn ended(&self, start: Instant, result: Option<&LaneResult>);
}

/// The watcher of a [`LaneWatch::Scoped`].
pub(crate) trait WatchToolCall: Send {
    /// Runs `poll` (one poll of the call) in the watcher's scope.
    fn poll_in_scope(&mut self, poll: &mut dyn FnMut() -> Poll<LaneResult>) -> Poll<LaneResult>;

    /// The call ended with `result`, or was dropped unanswered (`None`).
    fn ended(self: Box<Self>, result: Option<&LaneResult>);
}

impl LaneWatch<'_> {
    fn end(self, result: Option<&LaneResult>) {
        match self {
            LaneWatch::Ended { ender, start } => ender.ended(start, result),
            LaneWatch::Scoped(watch) => watch.ended(result),
        }
    }
}

/// The watches of one call, in the chain's order (the first one outermost).
pub(crate) struct LaneWatches<'a> {
    first: Option<LaneWatch<'a>>,
    /// A second observer and beyond (rare: no allocation for one).
    more: Vec<LaneWatch<'a>>,
}

impl<'a> LaneWatches<'a> {
    fn push(&mut self, watch: LaneWatch<'a>) {
        if self.first.is_none() {
            self.first = Some(watch);
        } else {
            self.more.push(watch);
        }
    }

    /// Whether no watch runs the call's polls in a scope of its own: the call then runs in
    /// place beside the watches, which are told its outcome by [`Self::answered`]; otherwise
    /// it runs inside [`scoped`].
    pub(crate) fn unscoped(&self) -> bool {
        let ended = |w: &LaneWatch| matches!(w, LaneWatch::Ended { .. });
        self.first.as_ref().is_none_or(ended) && self.more.iter().all(ended)
    }

    /// The call answered `result`: ends every watch (a drop after this finds none left).
    pub(crate) fn answered(&mut self, result: &LaneResult) {
        self.end(Some(result));
    }

    /// Ends every watch, the innermost first (as nested calls end).
    fn end(&mut self, result: Option<&LaneResult>) {
        while let Some(watch) = self.more.pop() {
            watch.end(result);
        }
        if let Some(watch) = self.first.take() {
            watch.end(result);
        }
    }

    /// One poll of the call, inside every scoped watch (the first outermost).
    fn poll(&mut self, poll: &mut dyn FnMut() -> Poll<LaneResult>) -> Poll<LaneResult> {
        let more = &mut self.more[..];
        match &mut self.first {
            Some(LaneWatch::Scoped(watch)) => {
                watch.poll_in_scope(&mut || poll_scoped(&mut *more, &mut *poll))
            }
            _ => poll_scoped(more, poll),
        }
    }
}

/// Watches dropped before they were told an answer (the call's future dropped unanswered) end
/// as such.
impl Drop for LaneWatches<'_> {
    fn drop(&mut self) {
        self.end(None);
    }
}

/// `poll` inside the scope of each of `watches`, the first outermost.
fn poll_scoped(
    watches: &mut [LaneWatch<'_>],
    poll: &mut dyn FnMut() -> Poll<LaneResult>,
) -> Poll<LaneResult> {
    match watches.split_first_mut() {
        None => poll(),
        Some((LaneWatch::Scoped(watch), inner)) => {
            watch.poll_in_scope(&mut || poll_scoped(&mut *inner, &mut *poll))
        }
        Some((LaneWatch::Ended { .. }, inner)) => poll_scoped(inner, poll),
    }
}

/// Starts every observer of `layers` on a call of tool `name` (the first one outermost, as the
/// chain's order): the context the handler is to get, and the watches of the call made from
/// that context. The caller (`Server::call_tool_with_middleware`) makes the call's future itself:
/// when the watches are [`unscoped`](LaneWatches::unscoped) (an unsampled call) it awaits the
/// call in place and then tells them the answer ([`LaneWatches::answered`]), so the call's
/// large future is not moved into a wrapper; otherwise it runs the call in [`scoped`].
pub(crate) fn watch_tool_call<'a>(
    layers: &'a [Arc<dyn super::Middleware>],
    name: &str,
    mut ctx: RequestContext,
) -> (RequestContext, LaneWatches<'a>) {
    let mut watches = LaneWatches {
        first: None,
        more: Vec::new(),
    };
    for layer in layers {
        // A layer without an observer is not met here: a chain with one runs as a chain.
        if let Some(observer) = layer.tool_lane_observer() {
            let (next, watch) = observer.0.start(name, ctx);
            ctx = next;
            watches.push(watch);
        }
    }
    (ctx, watches)
}

/// The call `call` under `watches` (from [`watch_tool_call`], some of them scoped: a traced
/// call, boxed by the caller): answers what it answers, each poll in the watches' scopes, and
/// tells them how it ended (dropped unanswered, `watches` ends them as such).
pub(crate) async fn scoped<F>(call: F, mut watches: LaneWatches<'_>) -> LaneResult
where
    F: Future<Output = LaneResult>,
{
    let mut call = std::pin::pin!(call);
    let result = std::future::poll_fn(|cx| watches.poll(&mut || call.as_mut().poll(cx))).await;
    watches.answered(&result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records how each call ended: `Some(answered without an error)`, or `None` (dropped).
    #[derive(Default)]
    struct Ends(Mutex<Vec<Option<bool>>>);

    impl EndToolCall for Ends {
        fn ended(&self, _: Instant, result: Option<&LaneResult>) {
            self.0.lock().unwrap().push(result.map(Result::is_ok));
        }
    }

    /// Records its polls and how the call ended.
    struct Scope(Arc<Mutex<Vec<&'static str>>>);

    impl WatchToolCall for Scope {
        fn poll_in_scope(
            &mut self,
            poll: &mut dyn FnMut() -> Poll<LaneResult>,
        ) -> Poll<LaneResult> {
            self.0.lock().unwrap().push("poll");
            poll()
        }

        fn ended(self: Box<Self>, result: Option<&LaneResult>) {
            self.0.lock().unwrap().push(if result.is_some() {
                "answered"
            } else {
                "dropped"
            });
        }
    }

    fn ended_by(ends: &Ends) -> LaneWatch<'_> {
        LaneWatch::Ended {
            ender: ends,
            start: Instant::now(),
        }
    }

    /// What `Server::call_tool_with_middleware` does with a call and its watches.
    async fn watched(
        call: impl Future<Output = LaneResult>,
        mut watches: LaneWatches<'_>,
    ) -> LaneResult {
        if watches.unscoped() {
            let result = call.await;
            watches.answered(&result);
            return result;
        }
        Box::pin(scoped(call, watches)).await
    }

    fn of(watches: Vec<LaneWatch<'_>>) -> LaneWatches<'_> {
        let mut all = LaneWatches {
            first: None,
            more: Vec::new(),
        };
        watches.into_iter().for_each(|w| all.push(w));
        all
    }

    #[tokio::test]
    async fn each_watch_is_told_the_answer_once() {
        let ends = Arc::new(Ends::default());
        let failed: LaneResult = Err(McpError::method_not_found("x"));
        let result = watched(async { failed }, of(vec![ended_by(&ends), ended_by(&ends)])).await;
        assert!(result.is_err());
        assert_eq!(*ends.0.lock().unwrap(), vec![Some(false), Some(false)]);

        let seen = Arc::new(Mutex::new(Vec::new()));
        let watches = of(vec![
            ended_by(&ends),
            LaneWatch::Scoped(Box::new(Scope(seen.clone()))),
        ]);
        let failed: LaneResult = Err(McpError::method_not_found("x"));
        assert!(watched(async { failed }, watches).await.is_err());
        assert_eq!(*seen.lock().unwrap(), vec!["poll", "answered"]);
        assert_eq!(ends.0.lock().unwrap().len(), 3);
    }

    #[test]
    fn a_call_dropped_unanswered_ends_its_watches_as_such() {
        let ends = Arc::new(Ends::default());
        let call = watched(
            std::future::pending::<LaneResult>(),
            of(vec![ended_by(&ends)]),
        );
        drop(call);
        assert_eq!(*ends.0.lock().unwrap(), vec![None]);

        let seen = Arc::new(Mutex::new(Vec::new()));
        let watches = of(vec![
            LaneWatch::Scoped(Box::new(Scope(seen.clone()))),
            ended_by(&ends),
        ]);
        drop(watched(std::future::pending::<LaneResult>(), watches));
        assert_eq!(*seen.lock().unwrap(), vec!["dropped"]);
        assert_eq!(*ends.0.lock().unwrap(), vec![None, None]);
    }
}
