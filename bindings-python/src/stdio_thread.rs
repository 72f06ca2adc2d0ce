//! Where a Python server's stdio session runs: on a thread of its own driving a current-thread
//! tokio runtime (the default) or, with `FERROMCP_STDIO_THREAD=0`, on the binding's shared
//! multi-threaded runtime.
//!
//! A stdio server has exactly one session, and its connection is one task (handlers run inside
//! it, see `ferromcp`'s `session::connection`). On the shared two-worker runtime, an answer
//! coming back from a Python thread (the asyncio loop or a sync-handler worker) is a remote
//! wake-up: tokio unparks an idle worker, which, having found work while searching, unparks the
//! other worker too, which finds nothing and parks again. On a current-thread runtime the
//! answer wakes the one thread that polls stdin and writes stdout, and that thread does not
//! even park while a Python call is outstanding (for up to the engine policy's budget, 60 µs
//! by default, see [`crate::answer_wait`]),
//! so the answer of a short handler is written without waking a halted vCPU. Alone (without
//! the wait) the own thread cut the sleeps per sequential call by a quarter but lowered the
//! pipelined `def` rate by a third (busy 2-core machine, `bench/results/python-stdio-thread.md`);
//! the same file has the A/B of this default. HTTP servers always use the shared runtime.
use std::future::Future;
use tokio::task::JoinHandle;

/// Whether stdio sessions get their own thread (unless `FERROMCP_STDIO_THREAD=0`).
fn own_thread() -> bool {
    static OWN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OWN.get_or_init(|| std::env::var("FERROMCP_STDIO_THREAD").as_deref() != Ok("0"))
}

/// Runs `session` (a stdio server's serving future) on a new thread driving a current-thread
/// runtime, or on the shared runtime when `FERROMCP_STDIO_THREAD=0`. The returned handle can
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
    // The engine's runtime settings (already read when the shared runtime was made).
    let settings = crate::runtime::settings();
    let rt = settings
        .build_current_thread(Some(crate::answer_wait::wait_for_answer))
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
            // Its park hook waits for Python's answers; the engine's hand-over wait
            // (`ferromcp::wait::handover`) stays off here.
            ferromcp::wait::WaitPolicy::Park.set_for_this_thread();
            rt.block_on(async move {
                let _ = ended.await;
            });
        })
        .expect("ferromcp stdio thread");
    task
}
