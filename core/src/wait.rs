//! The engine's one wait policy: whether a thread may spin a little for an event that is
//! about to arrive instead of parking at once, and the one gate that decides it.
//!
//! On a VM whose idle vCPUs halt at once (`guest_halt_poll_ns=0`), waking a parked thread costs
//! tens of µs, most of a sequential call's latency. Where the next event usually comes within a
//! few tens of µs (a sequential HTTP client's next request, a foreign handler's answer coming
//! back from another thread), a thread that tries again for a bounded time, yielding the CPU
//! between tries, keeps its vCPU awake and picks the event up without a wake-up. That costs
//! CPU, and it holds a runtime worker that another task could have used, so it is a decision
//! of whoever owns the thread:
//!
//! - **The engine's own threads** (the runtime a binding builds with
//!   `ferromcp_embed::runtime`, and the binding's hand-over threads) spin by default
//!   ([`WaitPolicy::Spin`] with [`WaitPolicy::DEFAULT_SPIN`]); `FERROMCP_WAIT_POLICY=park`
//!   turns it off (see `ferromcp_embed::runtime` for the environment).
//! - **Any other thread** (a user's own `#[tokio::main]`) parks ([`WaitPolicy::Park`]) unless
//!   its owner opts in with [`WaitPolicy::set_for_this_thread`], typically in the runtime's
//!   `on_thread_start` hook:
//!
//! ```
//! use ferromcp::wait::WaitPolicy;
//! let rt = tokio::runtime::Builder::new_multi_thread()
//!     .enable_all()
//!     .on_thread_start(|| WaitPolicy::spin().set_for_this_thread())
//!     .build()
//!     .unwrap();
//! // A task runs on one of the runtime's workers; this thread is not one of them.
//! let on_worker = rt.block_on(async { tokio::spawn(async { WaitPolicy::here() }).await.unwrap() });
//! assert_eq!(on_worker, WaitPolicy::spin());
//! assert_eq!(WaitPolicy::here(), WaitPolicy::Park);
//! ```
//!
//! Even where the policy spins, the [`Traffic`] gate opens only while events come one at a
//! time ([`Traffic::gate`]): with concurrent clients the next event comes without waiting, and a
//! spinning thread would only take a CPU from the threads that have work. The HTTP server's
//! connections ask it before waiting for a sequential client's next request
//! (`transport/http/h1/wait.rs`); every foreign handler call of every binding goes through
//! [`handover`] (in the crate `ferromcp-embed`), which waits for the answer in its first poll; the Python
//! binding's own hand-over threads ask [`Traffic::gate`] of [`CALLS`] as well.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// What a thread does while it waits for an event that is about to arrive: park at once, or
/// try again (yielding the CPU) for at most `budget` first. Which policy applies where is set
/// by the thread's owner (see the [module documentation](self)).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WaitPolicy {
    /// Park at once (a user's own threads, unless they opt in).
    #[default]
    Park,
    /// Try again for at most `budget` before parking, while events come one at a time.
    Spin {
        /// The longest a thread spins before it parks.
        budget: Duration,
    },
}

impl WaitPolicy {
    /// The engine's default spin: longer than a sequential client's turn-around or a short
    /// handler's round trip through a binding (5-40 µs seen on the 2-core VM), short enough
    /// that an idle server spends little CPU.
    pub const DEFAULT_SPIN: Duration = Duration::from_micros(60);

    /// The longest spin [`WaitPolicy::from_str`] accepts: past a millisecond a parked thread's
    /// wake-up is cheap next to the CPU spent spinning.
    pub const MAX_SPIN: Duration = Duration::from_millis(1);

    /// [`WaitPolicy::Spin`] with [`WaitPolicy::DEFAULT_SPIN`].
    pub const fn spin() -> Self {
        WaitPolicy::Spin {
            budget: Self::DEFAULT_SPIN,
        }
    }

    /// [`WaitPolicy::Spin`] with `budget` (at most [`WaitPolicy::MAX_SPIN`]; zero parks).
    pub fn spin_for(budget: Duration) -> Self {
        if budget.is_zero() {
            WaitPolicy::Park
        } else {
            WaitPolicy::Spin {
                budget: budget.min(Self::MAX_SPIN),
            }
        }
    }

    /// How long a thread under this policy spins; `None`: it parks at once.
    pub fn budget(self) -> Option<Duration> {
        match self {
            WaitPolicy::Park => None,
            WaitPolicy::Spin { budget } => Some(budget),
        }
    }

    /// Makes this the policy of the current thread (read by [`WaitPolicy::here`]). Call it in a
    /// runtime's `on_thread_start` to opt that runtime's workers in.
    pub fn set_for_this_thread(self) {
        THREAD_POLICY.with(|p| p.set(self));
    }

    /// The policy of the current thread: what [`WaitPolicy::set_for_this_thread`] set on it,
    /// else [`WaitPolicy::Park`].
    pub fn here() -> WaitPolicy {
        THREAD_POLICY.with(|p| p.get())
    }
}

thread_local! {
    static THREAD_POLICY: std::cell::Cell<WaitPolicy> =
        const { std::cell::Cell::new(WaitPolicy::Park) };
}

/// A value that does not name a [`WaitPolicy`], and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitPolicyError {
    value: String,
    reason: String,
}

impl fmt::Display for WaitPolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a wait policy ({}); expected `park`, `spin` or `spin:<microseconds>` (1 to {})",
            self.value,
            self.reason,
            WaitPolicy::MAX_SPIN.as_micros()
        )
    }
}

impl std::error::Error for WaitPolicyError {}

impl FromStr for WaitPolicy {
    type Err = WaitPolicyError;

    /// `park`, `spin` (the default budget) or `spin:N` / `spin:Nus` (N µs, 1 to 1000); case and
    /// surrounding spaces do not matter.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| WaitPolicyError {
            value: text.to_owned(),
            reason: reason.to_owned(),
        };
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "park" => return Ok(WaitPolicy::Park),
            "spin" => return Ok(WaitPolicy::spin()),
            _ => {}
        }
        let Some(n) = t.strip_prefix("spin:") else {
            return Err(err("unknown word"));
        };
        let n = n.trim();
        let n = n.strip_suffix("us").unwrap_or(n).trim();
        let us: u64 = n
            .parse()
            .map_err(|_| err("the budget is not a whole number of microseconds"))?;
        let max = WaitPolicy::MAX_SPIN.as_micros() as u64;
        if !(1..=max).contains(&us) {
            return Err(err("the budget is out of range"));
        }
        Ok(WaitPolicy::Spin {
            budget: Duration::from_micros(us),
        })
    }
}

impl fmt::Display for WaitPolicy {
    /// The form [`WaitPolicy::from_str`] reads: `park` or `spin:<µs>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitPolicy::Park => f.write_str("park"),
            WaitPolicy::Spin { budget } => write!(f, "spin:{}", budget.as_micros()),
        }
    }
}

/// How many events in a row must have come one at a time (none begun while another was
/// outstanding) before the gate opens again: with concurrent clients an event now and then
/// still finds no other outstanding, and a thread spinning then only takes a CPU from the
/// threads that have work (on 2 vCPUs the Python binding's 32-client `async def` rate fell from
/// 71k to 62k calls/s with a gate that opened on every lone call,
/// `bench/results/python-rows-quiet-machine.md`).
pub const QUIET_EVENTS: usize = 64;

/// The events of one kind in the process (requests, foreign handler calls): how many are
/// outstanding and whether they come one at a time. The gate ([`Traffic::gate`]) is the one
/// rule every spinning site applies.
#[derive(Debug, Default)]
pub struct Traffic {
    outstanding: AtomicUsize,
    begun: AtomicUsize,
    /// The number (in `begun`) of the last event begun while another was outstanding; 0: none.
    last_overlap: AtomicUsize,
}

/// Foreign handler calls of every binding (counted by [`handover`]).
pub static CALLS: Traffic = Traffic::new();

impl Traffic {
    /// No events yet.
    pub const fn new() -> Self {
        Traffic {
            outstanding: AtomicUsize::new(0),
            begun: AtomicUsize::new(0),
            last_overlap: AtomicUsize::new(0),
        }
    }

    /// Counts an event beginning; it is outstanding until the returned guard is dropped.
    pub fn begin(&self) -> Outstanding<'_> {
        let before = self.outstanding.fetch_add(1, Ordering::SeqCst);
        let n = self.begun.fetch_add(1, Ordering::SeqCst).wrapping_add(1);
        if before > 0 {
            self.last_overlap.store(n.max(1), Ordering::Relaxed);
        }
        Outstanding(self)
    }

    /// Events outstanding now.
    pub fn outstanding(&self) -> usize {
        self.outstanding.load(Ordering::SeqCst)
    }

    /// Events begun so far (a change means another event began).
    pub fn begun(&self) -> usize {
        self.begun.load(Ordering::SeqCst)
    }

    /// Whether the last [`QUIET_EVENTS`] events came one at a time.
    pub fn one_at_a_time(&self) -> bool {
        let last = self.last_overlap.load(Ordering::Relaxed);
        last == 0 || self.begun().wrapping_sub(last) >= QUIET_EVENTS
    }

    /// The gate: how long a thread under `policy` may spin for the next event of this kind;
    /// `None` (park at once) when the policy parks or events do not come one at a time.
    pub fn gate(&self, policy: WaitPolicy) -> Option<Duration> {
        policy.budget().filter(|_| self.one_at_a_time())
    }
}

/// One outstanding event of a [`Traffic`]; dropping it ends the event.
#[derive(Debug)]
pub struct Outstanding<'a>(&'a Traffic);

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        self.0.outstanding.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Tries `attempt` until it gives a value or `budget` has passed, yielding the CPU between
/// tries; `attempt` returning `Err(())` stops at once (the wait is no longer wanted).
pub fn spin<T>(budget: Duration, mut attempt: impl FnMut() -> Result<Option<T>, ()>) -> Option<T> {
    let start = Instant::now();
    loop {
        match attempt() {
            Ok(Some(v)) => return Some(v),
            Err(()) => return None,
            Ok(None) => {}
        }
        if start.elapsed() >= budget {
            return None;
        }
        std::thread::yield_now();
    }
}

/// Wraps a foreign handler call's future (see [`handover`]).
#[derive(Debug)]
pub struct Handover<F> {
    fut: F,
    call: Option<Outstanding<'static>>,
    /// While the call waits awake: when that began and for how long it may.
    awake: Option<(Instant, Duration)>,
}

/// Counts `fut` as a foreign handler call of [`CALLS`] while it runs and, when it is the only
/// call outstanding and the gate of the current thread's policy is open, keeps its thread
/// awake for the answer instead of letting it park: after each pending poll the task yields to
/// the runtime (`tokio::task::yield_now`, which wakes it again once the runtime has polled its
/// I/O without sleeping), so the worker runs every other ready task and reads new input
/// between two polls, but does not park. The answer coming back from the binding's thread is
/// then taken by a thread that is still awake, without a wake-up of a parked one. The call is
/// polled with a waker that wakes nobody meanwhile (the yield brings it back), and with its
/// task's own waker again once the budget is spent or another call began (with calls
/// overlapping, the next one comes without waiting).
pub fn handover<F: Future + Unpin>(fut: F) -> Handover<F> {
    Handover {
        fut,
        call: None,
        awake: None,
    }
}

impl<F: Future + Unpin> Handover<F> {
    fn done(&mut self, out: Poll<F::Output>) -> Poll<F::Output> {
        if out.is_ready() {
            self.call = None;
            self.awake = None;
        }
        out
    }
}

/// Yields the current task to the runtime: it is polled again after the runtime has polled its
/// I/O driver without sleeping (or at once outside a tokio runtime).
fn yield_to_runtime(cx: &mut Context<'_>) {
    let mut y = std::pin::pin!(tokio::task::yield_now());
    let _ = y.as_mut().poll(cx);
}

impl<F: Future + Unpin> Future for Handover<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        if let Some((since, budget)) = this.awake {
            if CALLS.outstanding() == 1 && since.elapsed() < budget {
                let mut quiet = Context::from_waker(futures_util::task::noop_waker_ref());
                if let Poll::Ready(v) = Pin::new(&mut this.fut).poll(&mut quiet) {
                    return this.done(Poll::Ready(v));
                }
                yield_to_runtime(cx);
                return Poll::Pending;
            }
            // Spent, or calls overlap: wait as usual, on the task's own waker.
            this.awake = None;
            let out = Pin::new(&mut this.fut).poll(cx);
            return this.done(out);
        }
        if this.call.is_some() {
            let out = Pin::new(&mut this.fut).poll(cx);
            return this.done(out);
        }
        this.call = Some(CALLS.begin());
        let out = Pin::new(&mut this.fut).poll(cx);
        if out.is_ready() {
            return this.done(out);
        }
        if let Some(budget) = CALLS.gate(WaitPolicy::here()) {
            if CALLS.outstanding() == 1 {
                this.awake = Some((Instant::now(), budget));
                yield_to_runtime(cx);
            }
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_from_their_words() {
        assert_eq!("park".parse(), Ok(WaitPolicy::Park));
        assert_eq!(" Spin ".parse(), Ok(WaitPolicy::spin()));
        assert_eq!(
            "spin:80".parse(),
            Ok(WaitPolicy::Spin {
                budget: Duration::from_micros(80)
            })
        );
        assert_eq!(
            "spin:1000us".parse::<WaitPolicy>(),
            Ok(WaitPolicy::spin_for(WaitPolicy::MAX_SPIN))
        );
        assert_eq!(WaitPolicy::spin().to_string(), "spin:60");
        assert_eq!(
            WaitPolicy::spin().to_string().parse::<WaitPolicy>(),
            Ok(WaitPolicy::spin())
        );
    }

    #[test]
    fn bad_policies_are_refused_with_the_reason() {
        for (bad, reason) in [
            ("yes", "unknown word"),
            ("", "unknown word"),
            ("spin:", "not a whole number"),
            ("spin:fast", "not a whole number"),
            ("spin:0", "out of range"),
            ("spin:1001", "out of range"),
            ("spin:-5", "not a whole number"),
        ] {
            let e = bad.parse::<WaitPolicy>().unwrap_err().to_string();
            assert!(e.contains(reason), "{bad:?}: {e}");
            assert!(e.contains(&format!("{bad:?}")), "{bad:?}: {e}");
            assert!(e.contains("`park`, `spin`"), "{e}");
        }
    }

    #[test]
    fn an_unmarked_thread_parks_and_a_marked_one_spins() {
        std::thread::spawn(|| {
            assert_eq!(WaitPolicy::here(), WaitPolicy::Park);
            WaitPolicy::spin().set_for_this_thread();
            assert_eq!(WaitPolicy::here(), WaitPolicy::spin());
        })
        .join()
        .unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_users_own_runtime_parks() {
        let here = tokio::spawn(async { WaitPolicy::here() }).await.unwrap();
        assert_eq!(here, WaitPolicy::Park);
    }

    #[test]
    fn the_gate_closes_after_an_overlap_until_events_come_one_at_a_time_again() {
        let t = Traffic::new();
        assert_eq!(t.gate(WaitPolicy::spin()), Some(WaitPolicy::DEFAULT_SPIN));
        assert_eq!(t.gate(WaitPolicy::Park), None);
        {
            let _a = t.begin();
            let _b = t.begin();
            assert_eq!(t.outstanding(), 2);
        }
        assert_eq!(t.outstanding(), 0);
        assert_eq!(t.gate(WaitPolicy::spin()), None);
        for _ in 0..QUIET_EVENTS - 1 {
            drop(t.begin());
            assert_eq!(t.gate(WaitPolicy::spin()), None);
        }
        drop(t.begin());
        assert_eq!(t.gate(WaitPolicy::spin()), Some(WaitPolicy::DEFAULT_SPIN));
    }

    #[test]
    fn spin_stops_when_the_attempt_gives_up() {
        let mut tries = 0;
        let got: Option<()> = spin(Duration::from_secs(60), || {
            tries += 1;
            if tries == 3 {
                Err(())
            } else {
                Ok(None)
            }
        });
        assert_eq!(got, None);
        assert_eq!(tries, 3);
    }

    /// A future ready on its `n`th poll, waking its waker each time it is not.
    struct ReadyOn {
        polls: usize,
        n: usize,
    }

    impl Future for ReadyOn {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            self.polls += 1;
            if self.polls >= self.n {
                Poll::Ready(self.polls)
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    #[test]
    fn a_handover_on_a_parking_thread_polls_as_usual() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        // A user's runtime: the first poll is pending and the task is polled again on its wake.
        let polls = rt.block_on(handover(Box::pin(ReadyOn { polls: 0, n: 3 })));
        assert_eq!(polls, 3);
    }

    // The spinning handover's test is core/tests/wait_handover.rs, a binary of its own: the
    // handover reads the process-wide CALLS, which any other test making handler calls moves too.
}
