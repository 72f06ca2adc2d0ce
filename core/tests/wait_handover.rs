//! `ferromcp::wait::handover` on a thread whose wait policy spins: the call is polled again and
//! again (the thread yielding to its runtime in between), so an answer that wakes nobody is
//! still taken. A binary of its own, not a module of `integration/`: the handover spins only
//! while it is the process's one outstanding call (the process-wide `wait::CALLS`), and other
//! tests' handler calls in the same process would close that gate at any moment.

use ferromcp::wait::{handover, WaitPolicy};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A future that is ready once its flag is set, and never wakes anyone itself (its answer comes
/// from another thread, whose wake-up the handover makes unnecessary).
struct Answer(Arc<AtomicBool>);

impl Future for Answer {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0.load(Ordering::SeqCst) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

#[test]
fn a_handover_on_a_spinning_thread_stays_awake_for_the_answer() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ready = Arc::new(AtomicBool::new(false));
    let set = ready.clone();
    let out = rt.block_on(async move {
        WaitPolicy::spin_for(WaitPolicy::MAX_SPIN).set_for_this_thread();
        let call = tokio::spawn(handover(Answer(ready)));
        // Another task on the same thread runs between the call's polls.
        tokio::spawn(async move { set.store(true, Ordering::SeqCst) })
            .await
            .unwrap();
        // On a parking thread this would hang: nothing wakes the call.
        tokio::time::timeout(Duration::from_secs(10), call).await
    });
    assert!(
        out.is_ok(),
        "the answer was not taken while the thread stayed awake"
    );
}
