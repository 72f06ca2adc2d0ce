//! Middleware: an ordered chain of layers around every request a [`Server`] handles and every
//! notification it receives, for what cuts across handlers (rate limits, logging, error
//! masking, timing, authorization).
//!
//! A layer is a [`Middleware`]: it gets the request ([`MiddlewareRequest`]: method, params, id,
//! the request's context with its session, principal and HTTP headers) and the rest of the chain
//! ([`Next`]), and may answer itself, refuse with a JSON-RPC error, change the request before
//! `next.run(request).await` or the result ([`MiddlewareResponse`]) after it, or time it. The
//! first layer added is the outermost: it sees the request first and the result last.
//!
//! Where the chain runs: in the server's [`Service`](crate::session::Service) answer, around
//! its dispatch, so every request that reaches the server goes through it, whatever the
//! transport (stdio, HTTP, WebSocket, in memory) and era. Two things the session answers itself
//! never reach a server and so no middleware: `ping`, and the notifications the session
//! consumes (`notifications/initialized`, `notifications/cancelled`, `notifications/progress`).
//! A `tools/call` read on the session's typed lane stays on it (see
//! [`Session::start_tool_call`](crate::session::Session)): with a chain installed, the server
//! runs the chain there on the typed call. Its params become JSON only when a layer asks
//! ([`MiddlewareRequest::params`]; changing them makes the request JSON for good, and the
//! chain's end then is the dispatch), and the tool's result only when a layer asks
//! ([`MiddlewareResponse::result`]); a call no layer changed is called at the chain's end as
//! the lane calls it without middleware, and its typed result goes back through the lane. So a
//! layer that only hands the call on, times or logs it makes no JSON. When every layer can do
//! its work around the lane's own call (the engine's OpenTelemetry layer, see `lane.rs`), no
//! chain runs: the layers watch the typed call. Without middleware nothing changes: no
//! allocation, no dynamic call, one branch.
//!
//! [`Server`]: crate::server::Server

mod builtin_config;
mod cache;
mod chain;
mod lane;
mod logging;
mod masking;
mod rate_limit;
#[cfg(feature = "redis")]
mod redis_buckets;
mod request;
mod response;
mod timing;
mod trusted_proxies;

pub use builtin_config::MiddlewareConfig;
pub use cache::{
    CacheInvalidation, CacheScope, ResponseCache, ResponseCacheConfig, CACHED_METHODS,
};
#[doc(hidden)]
pub use chain::SessionEndObserver;
pub use chain::{Middleware, Next, NotificationNext};
/// The future a layer returns (re-exported so a layer needs no `futures` dependency).
pub use futures_util::future::BoxFuture;
#[doc(hidden)]
pub use lane::ToolLaneObserver;
pub use logging::{RequestLog, RequestLogConfig};
pub use masking::{MaskErrors, MaskErrorsConfig};
pub use rate_limit::{
    BucketStore, InMemoryBuckets, RateDecision, RateKey, RateLimit, RateLimitConfig, ToolLimit,
    RATE_LIMITED,
};
#[cfg(feature = "redis")]
pub use redis_buckets::{RedisBuckets, BUCKET_TIMEOUT};
pub use request::MiddlewareRequest;
pub(crate) use request::ToolCall;
pub use response::MiddlewareResponse;
pub use timing::{Outcome, Timing, TimingEvent};
pub use trusted_proxies::IpRange;

pub(crate) use cache::CacheRelay;
pub(crate) use chain::{notify_through, run_chain, run_tool_chain};
pub(crate) use lane::{scoped, watch_tool_call};
// Named by the OpenTelemetry layer (telemetry/server_layer.rs), the one observer of the lane.
#[cfg(feature = "otel")]
pub(crate) use lane::{EndToolCall, LaneResult, LaneWatch, ObserveToolCall, WatchToolCall};
pub(crate) use rate_limit::rate_limited;
