//! The tokio runtime the engine runs on inside a Swift process.
//!
//! Swift polls the futures of exported `async` functions from its own executor threads, where
//! there is no tokio context. So every engine call that needs tokio (I/O, timers, spawned
//! tasks) runs as a task on this runtime, and Swift awaits its `JoinHandle`, which any executor
//! can poll. It is the engine's runtime for Swift (`ferromcp_embed::runtime`, the builder every
//! binding uses): one thread by default, a current-thread runtime driven by a thread of its own
//! ("ferromcp-worker"), which has no cross-worker wake-ups (the choice and A/B figures of
//! bench/servers' Rust echo server, whose HTTP runs the same way); `FERROMCP_WORKERS=N` (old
//! name `FERROMCP_SWIFT_WORKERS`), N > 1, makes a multi-thread runtime with N workers instead.
//! Its threads wait by the engine's policy (`FERROMCP_WAIT_POLICY`, spinning 60 µs by
//! default): a Swift handler's answer coming back from Swift's executor is then taken by the
//! engine thread still awake (`ferromcp::wait::handover`), and a sequential HTTP client's next
//! request read before it sleeps. A handler may also run inline on that thread until it first
//! suspends ([`start_inline`]; the facade's task executor, or its opt-in private runtime hooks).

use ferromcp::McpError;
use ferromcp_embed::runtime::{Binding, RuntimeSettings};
use std::cell::Cell;
use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::runtime::Runtime;

thread_local! {
    /// Swift handler calls this engine thread started since it last went idle (parked).
    static STARTED_SINCE_IDLE: Cell<u32> = const { Cell::new(0) };
    /// Whether the last handler call this engine thread ran inline answered before its `start`
    /// returned, within [`quick_limit`]: then the next calls run inline too, backlog or not.
    static LAST_INLINE_QUICK: Cell<bool> = const { Cell::new(false) };
}

/// How long an inline call may take and still count as quick: `FERROMCP_SWIFT_INLINE_QUICK_US`,
/// default 0, which turns the rule off (only the burst after an idle moment runs inline).
/// Off by default: with it on (e.g. 50), calls under a backlog keep running on the engine's
/// thread, which served stdio pipelined 17 % faster but halved the HTTP rate at 32 clients
/// (p99 15 ms against 1.8 ms) on the quiet machine, in both the native facade and the official
/// form (bench/results/swift-sdk-form-handler.md, 2026-11-30 23:15-23:25).
fn quick_limit() -> Option<Duration> {
    static LIMIT: OnceLock<u64> = OnceLock::new();
    let us = *LIMIT.get_or_init(|| {
        std::env::var("FERROMCP_SWIFT_INLINE_QUICK_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    });
    (us > 0).then(|| Duration::from_micros(us))
}

/// How many handler calls an engine thread runs inline (on itself) between two idle moments:
/// `FERROMCP_SWIFT_INLINE=N`, default 2. 0: never (every call starts on Swift's executor).
fn inline_burst() -> u32 {
    static N: OnceLock<u32> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("FERROMCP_SWIFT_INLINE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2)
    })
}

/// Whether the Swift handler call about to start should run inline, on this engine thread,
/// until it first suspends. Yes for the first calls after the thread was idle: a lone call
/// then costs no thread hop. Calls beyond that burst arrive while the engine has a backlog
/// (pipelined requests, many clients): they start on Swift's global executor and run beside
/// the engine on another core, unless `FERROMCP_SWIFT_INLINE_QUICK_US` is set and the last
/// inline call answered without suspending within it (then they run inline too: a handler such
/// as an echo costs less than the hand-over, but the engine's thread then also queues the other
/// connections' requests behind it).
pub(crate) fn start_inline() -> bool {
    let burst = inline_burst();
    if burst == 0 {
        return false;
    }
    let started = STARTED_SINCE_IDLE.with(|n| {
        let started = n.get();
        n.set(started.saturating_add(1));
        started
    });
    started < burst || LAST_INLINE_QUICK.with(Cell::get)
}

/// Records how a call started inline went: whether it had answered when `start` returned, and
/// how long `start` took.
pub(crate) fn ran_inline(answered: bool, took: Duration) {
    let quick = answered && quick_limit().is_some_and(|limit| took <= limit);
    LAST_INLINE_QUICK.with(|q| q.set(quick));
}

fn went_idle() {
    STARTED_SINCE_IDLE.with(|n| n.set(0));
}

fn runtime() -> &'static Runtime {
    static RT: OnceLock<std::sync::Arc<Runtime>> = OnceLock::new();
    RT.get_or_init(|| {
        // The engine's log events to stderr from now on, unless the facade chose a handler.
        crate::log_sink::ensure_default();
        // A variable the engine cannot use stops the process with its message (the variable,
        // the value and what it accepts) instead of running on a guess.
        let settings = RuntimeSettings::from_env(Binding::Swift)
            .unwrap_or_else(|e| panic!("ferromcp cannot start: {e}"));
        settings
            .build_with_park_hook(Binding::Swift, Some(went_idle))
            .unwrap_or_else(|e| panic!("ferromcp cannot start its tokio runtime: {e}"))
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
