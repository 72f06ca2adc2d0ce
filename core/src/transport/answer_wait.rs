//! The one switch and time limit for "wait a little before sleeping", shared by the engine's
//! HTTP connections and the bindings.
//!
//! On a VM whose idle vCPUs halt (`guest_halt_poll_ns=0`), waking a sleeping thread costs tens
//! of µs, which on a sequential client is most of a call's latency. Where the next event
//! usually comes within a few tens of µs (a sequential client's next request, a handler's
//! answer from another thread), a thread that waits for it for a bounded time, yielding the
//! CPU, keeps its vCPU awake and picks the event up without a wake-up. The waiting is bounded
//! by [`SPIN`]: an idle process sleeps a few tens of µs after its last event.
//! `FERROMCP_ANSWER_WAIT=0` turns every such wait off (a process that would rather spend no CPU
//! on waiting).

use std::time::Duration;

/// How long a thread waits before it sleeps: longer than a sequential client's turn-around or a
/// short handler's round trip through a binding (5-40 µs seen), short enough that an idle
/// server spends little CPU.
pub const SPIN: Duration = Duration::from_micros(60);

/// Whether threads wait before sleeping: true unless the environment variable
/// `FERROMCP_ANSWER_WAIT` is `0` (read once per process).
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| enabled_by(std::env::var("FERROMCP_ANSWER_WAIT").ok().as_deref()))
}

/// What a value of `FERROMCP_ANSWER_WAIT` means: only `0` turns waiting off.
fn enabled_by(value: Option<&str>) -> bool {
    value.map(str::trim) != Some("0")
}

#[cfg(test)]
mod tests {
    use super::enabled_by;

    #[test]
    fn only_zero_turns_waiting_off() {
        assert!(enabled_by(None));
        assert!(enabled_by(Some("1")));
        assert!(enabled_by(Some("")));
        assert!(!enabled_by(Some("0")));
        assert!(!enabled_by(Some(" 0 ")));
    }
}
