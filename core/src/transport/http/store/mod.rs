//! Storage seams of the HTTP server, which let several replicas serve the same sessions:
//! - [`EventStore`]: the events sent on SSE streams, so a client can resume with `Last-Event-ID`
//!   on any replica;
//! - [`SessionStore`]: each session's serializable state ([`SessionState`]), so a replica that
//!   never saw a session can rebuild it (the live session objects stay private to a replica);
//! - [`EventBus`]: what one replica must tell the others ([`BusMessage`]).
//!
//! Each has an in-memory default, which serves one process. The traits are asynchronous and
//! fallible so that a networked store (Redis, behind the `redis` feature) can back them; the
//! server never calls them while a routing lock is held.

mod bus;
mod events;
#[cfg(feature = "redis")]
mod redis;
mod sessions;

pub use bus::{BusMessage, BusReceiver, EventBus, InMemoryEventBus};
pub use events::{EventStore, InMemoryEventStore};
#[cfg(feature = "redis")]
pub use redis::RedisStore;
pub use sessions::{InMemorySessionStore, SessionState, SessionStore};

use futures_util::future::BoxFuture;

/// How long a replica's announcement that it runs holds ([`EventBus::announce_alive`]); it is
/// renewed every [`LIVENESS_RENEW`], so a killed replica is known to be gone within this long.
pub const LIVENESS_TTL: std::time::Duration = std::time::Duration::from_secs(3);
/// How often a replica renews its announcement.
pub const LIVENESS_RENEW: std::time::Duration = std::time::Duration::from_secs(1);

/// Why a store or bus operation failed (a network or server error of a remote store).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StoreError(pub String);

impl StoreError {
    /// A store error saying `message` (a store of your own fails with it).
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "session store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for crate::McpError {
    fn from(e: StoreError) -> Self {
        crate::McpError::internal(e.to_string())
    }
}

/// The future a store operation returns. It owns what it needs (`'static`), so the server can
/// start it, poll it once and hand it to a task only when it is not done at once.
pub type StoreFuture<T> = BoxFuture<'static, Result<T, StoreError>>;

/// A future already complete with `value` (what the in-memory stores return).
pub(crate) fn ready<T: Send + 'static>(value: T) -> StoreFuture<T> {
    Box::pin(std::future::ready(Ok(value)))
}

/// Runs `fut` to completion: here when it completes on its first poll (the in-memory stores
/// always do), else on a task of its own. A failure is logged: the caller has moved on.
pub(crate) fn run_detached(mut fut: StoreFuture<()>, what: &'static str) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Ok(())) => {}
        std::task::Poll::Ready(Err(e)) => tracing::warn!(error = %e, "{what} failed"),
        std::task::Poll::Pending => {
            tokio::spawn(async move {
                if let Err(e) = fut.await {
                    tracing::warn!(error = %e, "{what} failed");
                }
            });
        }
    }
}

/// Checks the form of a Redis URL without connecting: an error when it is not one, or when
/// this build has no `redis` feature.
pub fn check_redis_url(url: &str) -> Result<(), StoreError> {
    #[cfg(feature = "redis")]
    {
        ::redis::Client::open(url)
            .map(|_| ())
            .map_err(|e| StoreError(format!("not a Redis URL ({e})")))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = url;
        Err(StoreError(
            "this build of ferromcp has no `redis` feature".into(),
        ))
    }
}

/// Sets the stores that `options.redis_url` names (those not set already) and returns the
/// connection check to run before serving; an error when the URL is bad or this build has no
/// `redis` feature.
pub(crate) fn apply_redis_url(
    options: &mut super::HttpServerOptions,
) -> Result<Option<StoreFuture<()>>, StoreError> {
    let Some(url) = options.redis_url.clone() else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    {
        let store = std::sync::Arc::new(RedisStore::open(
            &url,
            options.session_idle_timeout,
            256,
            std::time::Duration::from_secs(3600),
        )?);
        options.session_store.get_or_insert_with(|| store.clone());
        options.event_store.get_or_insert_with(|| store.clone());
        options.event_bus.get_or_insert_with(|| store.clone());
        options.replay_store.get_or_insert_with(|| store.clone());
        options.task_store.get_or_insert_with(|| store.clone());
        Ok(Some(Box::pin(async move { store.connect().await })))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = url;
        Err(StoreError(
            "redis_url is set but this build of ferromcp has no `redis` feature".into(),
        ))
    }
}
