//! Timing hooks: a callback told each request's method, tool, duration and outcome, for
//! metrics (a histogram per method, an error counter).

use super::{Middleware, MiddlewareRequest, MiddlewareResponse, Next};
use crate::McpError;
use futures_util::future::BoxFuture;
use std::time::{Duration, Instant};

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Answered with a result.
    Ok,
    /// Answered with a JSON-RPC error of this code.
    Error(i32),
    /// Cancelled (by the client, or its connection closed) before it was answered.
    Cancelled,
}

impl Outcome {
    /// The outcome of `result`.
    pub fn of<T>(result: &Result<T, McpError>) -> Self {
        match result {
            Ok(_) => Outcome::Ok,
            Err(e) => Outcome::Error(e.code),
        }
    }

    /// `"ok"`, `"error"` or `"cancelled"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error(_) => "error",
            Outcome::Cancelled => "cancelled",
        }
    }
}

/// One timed request.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct TimingEvent<'a> {
    /// The method.
    pub method: &'a str,
    /// The tool, for `tools/call`.
    pub tool: Option<&'a str>,
    /// From the request entering this layer to its answer leaving it.
    pub duration: Duration,
    /// How it ended.
    pub outcome: Outcome,
}

/// Calls a hook with every request's [`TimingEvent`] (a cancelled request's too, when the
/// engine drops its handler).
pub struct Timing<F> {
    hook: F,
}

impl<F: Fn(&TimingEvent<'_>) + Send + Sync + 'static> Timing<F> {
    /// Timing with `hook` (called on the task that served the request: keep it short).
    ///
    /// ```
    /// use ferromcp::server::middleware::{Outcome, Timing};
    /// use ferromcp::server::Server;
    /// use serde_json::{json, Value};
    /// use std::sync::{Arc, Mutex};
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let record = seen.clone();
    /// let server = Server::builder("timed", "1.0")
    ///     .middleware(Timing::new(move |e| {
    ///         // A real hook feeds a histogram with `e.duration`.
    ///         record.lock().unwrap().push((e.method.to_string(), e.tool.map(str::to_string), e.outcome));
    ///     }))
    ///     .tool("add", "Adds", |_: Value, _ctx| async { "3" })
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// client.call_tool("add", json!({})).await?;
    /// let seen = seen.lock().unwrap();
    /// let call = seen.iter().find(|(m, _, _)| m == "tools/call").unwrap();
    /// assert_eq!((call.1.as_deref(), call.2), (Some("add"), Outcome::Ok));
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(hook: F) -> Self {
        Self { hook }
    }
}

/// Reports a request that never finished (its future dropped) as cancelled.
struct Pending<'a, F: Fn(&TimingEvent<'_>)> {
    hook: &'a F,
    method: String,
    tool: Option<String>,
    start: Instant,
    done: bool,
}

impl<F: Fn(&TimingEvent<'_>)> Pending<'_, F> {
    fn report(&mut self, outcome: Outcome) {
        self.done = true;
        (self.hook)(&TimingEvent {
            method: &self.method,
            tool: self.tool.as_deref(),
            duration: self.start.elapsed(),
            outcome,
        });
    }
}

impl<F: Fn(&TimingEvent<'_>)> Drop for Pending<'_, F> {
    fn drop(&mut self) {
        if !self.done {
            self.report(Outcome::Cancelled);
        }
    }
}

impl<F: Fn(&TimingEvent<'_>) + Send + Sync + 'static> Middleware for Timing<F> {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let mut pending = Pending {
                hook: &self.hook,
                method: request.method().to_string(),
                tool: request.tool_name().map(str::to_string),
                start: Instant::now(),
                done: false,
            };
            let result = next.run(request).await;
            pending.report(Outcome::of(&result));
            result
        })
    }
}
