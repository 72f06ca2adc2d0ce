//! Where a Python server's stdio session runs: on the binding's shared multi-threaded runtime
//! (the default) or, with `FERROMCP_STDIO_THREAD=1`, on a thread of its own driving a
//! current-thread tokio runtime.
//!
//! A stdio server has exactly one session, and its connection is one task (handlers run inside
//! it, see `ferromcp`'s `session::connection`). On the shared two-worker runtime, an answer
//! coming back from a Python thread (the asyncio loop or a sync-handler worker) is a remote
//! wake-up: tokio unparks an idle worker, which, having found work while searching, unparks the
//! other worker too, which finds nothing and parks again. On a current-thread runtime the
//! answer wakes the one thread that polls stdin and writes stdout. Measured on a busy 2-core
//! machine (`bench/results/issue19-python-async.md`): server thread sleeps per sequential call
//! -25 to -28 %, sequential rates up, but the pipelined `def` rate down by about a third (one
//! thread carries all the engine's work and is woken through its I/O driver for every answer),
//! so it is not the default. HTTP servers always use the shared runtime.
use std::future::Future;
use tokio::task::JoinHandle;

/// Whether stdio sessions get their own thread (`FERROMCP_STDIO_THREAD=1`).
fn own_thread() -> bool {
    static OWN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OWN.get_or_init(|| std::env::var("FERROMCP_STDIO_THREAD").as_deref() == Ok("1"))
}

/// Runs `session` (a stdio server's serving future) on the shared runtime, or on a new thread
/// driving a current-thread runtime when `FERROMCP_STDIO_THREAD=1`. The returned handle can
/// be awaited and aborted from any runtime; aborting it (or the session ending) ends the
/// thread, and the tasks the session spawned end with it.
pub fn spawn_stdio_session<F, T>(session: F) -> JoinHandle<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    if !own_thread() {
        return crate::runtime::runtime().spawn(session);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // The thread runs until `done` is dropped: when the session ends or is aborted.
    let (done, ended) = tokio::sync::oneshot::channel::<()>();
    let task = rt.spawn(async move {
        let out = session.await;
        drop(done);
        out
    });
    std::thread::Builder::new()
        .name("ferromcp-stdio".into())
        .spawn(move || {
            rt.block_on(async move {
                let _ = ended.await;
            });
        })
        .expect("ferromcp stdio thread");
    task
}
