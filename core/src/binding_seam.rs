//! The few engine internals that `ferromcp-embed` (the bindings' seam, a crate of its own above
//! this one) needs and that are not an API for anyone else.
//!
//! `ferromcp-embed` uses this crate's public API; the items here are what it needed from inside
//! the engine when it was the module `ferromcp::embed`, and that make no sense to promise to
//! Rust users: a task handle behind a subscription, a flag of the tasks extension's runner, a
//! task-local read by the HTTP session table. They are gathered here, `#[doc(hidden)]`, rather
//! than made `pub` where they live, so that the engine's public types keep their face and a
//! reader sees in one place everything the seam reaches. Not covered by semver: use the
//! documented API instead.

use crate::client::Subscription;
use crate::session::RequestContext;

/// A handle that ends `sub` as dropping it does, usable from anywhere: a binding's
/// `close()` may come while another task holds the subscription in `next()`.
pub fn subscription_abort_handle(sub: &Subscription) -> tokio::task::AbortHandle {
    sub.abort_handle()
}

/// Whether `ctx` runs a task of the tasks extension (2026-07-28): a foreign handler's error
/// then ends the task `failed` (an `McpError`) or `completed` with `isError` (anything else),
/// which the seam decides for every binding.
pub fn in_extension_task(ctx: &RequestContext) -> bool {
    ctx.in_extension_task()
}

/// Runs `serve` (one HTTP request given to the engine's router) so that a session it opens
/// gets the id `session_id`, chosen by the host (the TypeScript SDK's `sessionIdGenerator`, an
/// `SSEServerTransport` that knows its id before the stream opens) instead of a random one.
#[cfg(feature = "http")]
pub async fn with_chosen_session_id<F: std::future::Future>(
    session_id: std::sync::Arc<str>,
    serve: F,
) -> F::Output {
    crate::transport::http::CHOSEN_SESSION_ID
        .scope(session_id, serve)
        .await
}
