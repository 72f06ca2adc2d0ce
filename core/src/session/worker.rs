//! Where a message transport's session runs: on the runtime's workers, not on the thread that
//! awaits it.
//!
//! `#[tokio::main]` runs `main`'s future with `block_on` on the process's main thread, which is
//! not one of the multi-threaded runtime's workers; the workers poll the I/O driver. A session
//! awaited from `main` would be woken by a worker for every message and then run on the main
//! thread: each message crosses threads twice more than it needs to, and on a VM whose idle
//! vCPUs halt (this project's benchmark machine) each crossing to another CPU costs tens of µs.
//! Spawned, the session is one task that the worker seeing its input runs itself. On a
//! current-thread runtime everything is one thread already, so nothing is spawned.

use crate::McpError;
use std::future::Future;
use tokio::runtime::{Handle, RuntimeFlavor};
use tracing::Instrument;

/// Aborts the spawned session when the future awaiting it is dropped, as dropping the session's
/// own future would stop it.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `session` (a connection's `run()`) to its end: as a task of its own on a multi-threaded
/// runtime, in place otherwise. The task runs inside the caller's current `tracing` span, a
/// panic in the session is resumed in the caller, and dropping the returned future stops the
/// session.
pub(crate) async fn serve_on_worker<F>(session: F) -> Result<(), McpError>
where
    F: Future<Output = Result<(), McpError>> + Send + 'static,
{
    let multi = Handle::try_current()
        .map(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread)
        .unwrap_or(false);
    if !multi {
        return session.await;
    }
    let task = tokio::spawn(session.instrument(tracing::Span::current()));
    let _stop = AbortOnDrop(task.abort_handle());
    match task.await {
        Ok(r) => r,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(McpError::internal(format!("session task stopped: {e}"))),
    }
}
