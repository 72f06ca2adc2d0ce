//! The tokio runtime the engine runs on: napi-rs's own (feature `tokio_rt`), which every
//! `async fn` exported to JavaScript and every [`napi::Env::spawn_future`] uses. The binding
//! starts no runtime of its own; [`spawn`] runs engine tasks on napi's.

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
