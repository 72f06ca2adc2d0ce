//! The tokio runtime the engine runs on inside a Swift process.
//!
//! Swift polls the futures of exported `async` functions from its own executor threads, where
//! there is no tokio context. So every engine call that needs tokio (I/O, timers, spawned
//! tasks) runs as a task on this runtime, and Swift awaits its `JoinHandle`, which any executor
//! can poll. One worker thread by default: a Swift handler call already crosses threads twice,
//! and extra workers add cross-thread wake-ups that cost more than the engine's work per call.
//! `FERROMCP_SWIFT_WORKERS=N` picks another count.

use ferromcp::McpError;
use std::future::Future;
use std::sync::OnceLock;
use tokio::runtime::Runtime;

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let workers = std::env::var("FERROMCP_SWIFT_WORKERS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(1);
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("ferromcp-worker")
            .enable_all()
            .build()
            .expect("the tokio runtime starts")
    })
}

/// Runs `fut` on the engine's runtime and waits for it from any executor. A panic in the
/// engine becomes an internal error instead of unwinding into Swift.
pub async fn run<T, F>(fut: F) -> Result<T, McpError>
where
    T: Send + 'static,
    F: Future<Output = Result<T, McpError>> + Send + 'static,
{
    match runtime().spawn(fut).await {
        Ok(r) => r,
        Err(e) => Err(McpError::internal(format!("engine task failed: {e}"))),
    }
}

/// Runs `f` inside the runtime's context (for engine calls that spawn tasks synchronously).
pub fn enter<T>(f: impl FnOnce() -> T) -> T {
    let _guard = runtime().enter();
    f()
}
