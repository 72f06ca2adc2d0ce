//! The tokio runtime the engine runs on: the one napi-rs drives every `async fn` exported to
//! JavaScript and every [`napi::Env::spawn_future`] with, configured here when the addon loads.
//!
//! One worker thread by default. A JavaScript handler call already crosses threads twice (to
//! the event loop and back); with more workers, the task that reads a request, the one that
//! waits for the handler and the one that writes the answer wake each other across workers as
//! well, and on a VM each wake-up costs tens of microseconds of CPU (measured: 240 µs of CPU per
//! sequential stdio call with napi's default runtime; see bindings-node/README.md). The engine
//! work per call is a few microseconds, so one worker is not the bottleneck; the JavaScript
//! thread is. `FERROMCP_NODE_WORKERS=N` picks another count.

use std::future::Future;

/// Spawns `fut` on napi's tokio runtime (usable from any thread).
pub fn spawn<F>(fut: F) -> tokio::task::JoinHandle<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    napi::bindgen_prelude::spawn(fut)
}

/// Runs `f` inside napi's runtime context (for engine calls that spawn tasks synchronously).
pub fn enter<T>(f: impl FnOnce() -> T) -> T {
    napi::bindgen_prelude::within_runtime_if_available(f)
}

/// Installs the engine's runtime when the addon is loaded (before any napi `async fn` runs).
#[napi_derive::module_init]
fn init() {
    let workers = std::env::var("FERROMCP_NODE_WORKERS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("ferromcp-worker")
        .enable_all()
        .build()
        .expect("the tokio runtime starts");
    napi::bindgen_prelude::create_custom_tokio_runtime(rt);
}
