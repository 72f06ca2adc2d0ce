//! The tokio runtime the engine runs on: the one napi-rs drives every `async fn` exported to
//! JavaScript and every [`napi::Env::spawn_future`] with, installed here when the addon loads.
//!
//! It is the engine's runtime for Node (`ferromcp_embed::runtime`, the builder every binding
//! uses): one worker thread by default (`FERROMCP_WORKERS=N`, old name `FERROMCP_NODE_WORKERS`),
//! whose threads wait by the engine's policy (`FERROMCP_WAIT_POLICY`, spinning 60 µs by
//! default): a JavaScript handler's answer coming back from the event loop is then taken by the
//! worker still awake (`ferromcp::wait::handover`), and a sequential HTTP client's next request
//! read before the worker sleeps. One worker: a JavaScript handler call already crosses threads
//! twice (to the event loop and back); with more workers, the task that reads a request, the
//! one that waits for the handler and the one that writes the answer wake each other across
//! workers as well, and on a VM each wake-up costs tens of microseconds of CPU (measured: 240 µs
//! of CPU per sequential stdio call with napi's default runtime; see bindings-node/README.md).

use ferromcp_embed::runtime::{Binding, RuntimeSettings};
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

/// Installs the engine's runtime when the addon is loaded (before any napi `async fn` runs). A
/// variable the engine cannot use stops the load with its message (the variable, the value and
/// what it accepts) instead of running on a guess.
#[napi_derive::module_init]
fn init() {
    let settings = match RuntimeSettings::from_env(Binding::Node) {
        Ok(s) => s,
        Err(e) => panic!("ferromcp cannot start: {e}"),
    };
    let rt = settings
        .build(Binding::Node)
        .unwrap_or_else(|e| panic!("ferromcp cannot start its tokio runtime: {e}"));
    let rt = std::sync::Arc::try_unwrap(rt)
        .unwrap_or_else(|_| unreachable!("a new multi-threaded runtime has one owner"));
    napi::bindgen_prelude::create_custom_tokio_runtime(rt);
}
