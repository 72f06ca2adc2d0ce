//! The bounded single-producer queue behind each HTTP response stream.
//!
//! Cheaper than a tokio mpsc channel for this use (one small allocation, no slot blocks): every
//! POST creates one, and most are filled and closed before the response is even built, in which
//! case [`StreamRx::take_finished`] hands the whole content over at once so the response leaves
//! in a single write. Dropping the [`StreamTx`] ends the stream.
//!
//! A queue is bounded in items and, when made by [`stream_queue_bytes`], in bytes (each item
//! weighed by a function given at creation), so that a slow reader pins a known amount of
//! memory whatever the size of each item.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

struct State<T> {
    items: VecDeque<T>,
    cap: usize,
    /// The weight of the queued items, and the most it may reach (an empty queue takes one
    /// item whatever its weight).
    bytes: usize,
    max_bytes: usize,
    weigh: fn(&T) -> usize,
    /// A budget this queue shares with others (a session's streams): their total weight, and
    /// the most it may reach.
    shared: Option<(Arc<AtomicUsize>, usize)>,
    sender_gone: bool,
    receiver_gone: bool,
    waker: Option<Waker>,
}

type Shared<T> = Arc<Mutex<State<T>>>;

impl<T> State<T> {
    fn add(&mut self, w: usize) {
        self.bytes += w;
        if let Some((total, _)) = &self.shared {
            total.fetch_add(w, Ordering::Relaxed);
        }
    }

    fn sub(&mut self, w: usize) {
        self.bytes -= w;
        if let Some((total, _)) = &self.shared {
            total.fetch_sub(w, Ordering::Relaxed);
        }
    }

    fn clear_bytes(&mut self) {
        let w = self.bytes;
        self.sub(w);
    }
}

/// The sending end (exactly one per queue).
pub(crate) struct StreamTx<T>(Shared<T>);

/// The receiving end.
pub(crate) struct StreamRx<T>(Shared<T>);

/// A queue holding at most `cap` items waiting for the receiver.
#[cfg(test)]
pub(crate) fn stream_queue<T>(cap: usize) -> (StreamTx<T>, StreamRx<T>) {
    stream_queue_bytes(cap, usize::MAX, |_| 0, None)
}

/// A queue holding at most `cap` items, and items weighing at most `max_bytes` together by
/// `weigh`, waiting for the receiver; with `shared`, also within a budget shared with other
/// queues (the total they hold, and its limit).
pub(crate) fn stream_queue_bytes<T>(
    cap: usize,
    max_bytes: usize,
    weigh: fn(&T) -> usize,
    shared: Option<(Arc<AtomicUsize>, usize)>,
) -> (StreamTx<T>, StreamRx<T>) {
    let shared = Arc::new(Mutex::new(State {
        items: VecDeque::new(),
        cap: cap.max(1),
        bytes: 0,
        max_bytes,
        weigh,
        shared,
        sender_gone: false,
        receiver_gone: false,
        waker: None,
    }));
    (StreamTx(shared.clone()), StreamRx(shared))
}

/// Why an item was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The receiver has fallen `cap` items, or `max_bytes`, behind.
    Full,
    /// The receiver is gone.
    Closed,
}

impl<T> StreamTx<T> {
    /// Queues `item` without waiting.
    pub(crate) fn try_send(&self, item: T) -> Result<(), Refused> {
        let mut s = self.0.lock().unwrap();
        if s.receiver_gone {
            return Err(Refused::Closed);
        }
        if s.items.len() >= s.cap {
            return Err(Refused::Full);
        }
        let w = (s.weigh)(&item);
        if !s.items.is_empty() {
            if s.bytes.saturating_add(w) > s.max_bytes {
                return Err(Refused::Full);
            }
            if let Some((total, max)) = &s.shared {
                if total.load(Ordering::Relaxed).saturating_add(w) > *max {
                    return Err(Refused::Full);
                }
            }
        }
        s.add(w);
        s.items.push_back(item);
        let waker = s.waker.take();
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    /// Whether the receiver is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.0.lock().unwrap().receiver_gone
    }
}

impl<T> Drop for StreamTx<T> {
    fn drop(&mut self) {
        let mut s = self.0.lock().unwrap();
        s.sender_gone = true;
        let waker = s.waker.take();
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl<T> StreamRx<T> {
    /// Every queued item, oldest first, if the sender is already gone (nothing more will come).
    pub(crate) fn take_finished(&self) -> Option<VecDeque<T>> {
        let mut s = self.0.lock().unwrap();
        if !s.sender_gone {
            return None;
        }
        s.clear_bytes();
        Some(std::mem::take(&mut s.items))
    }

    /// Moves every queued item into `out`; `Ready(false)` once the stream has ended and nothing
    /// was moved, `Ready(true)` when something was, `Pending` (waker registered) otherwise.
    pub(crate) fn poll_drain(&self, cx: &mut Context<'_>, out: &mut Vec<T>) -> Poll<bool> {
        let mut s = self.0.lock().unwrap();
        if !s.items.is_empty() {
            s.clear_bytes();
            out.extend(s.items.drain(..));
            return Poll::Ready(true);
        }
        if s.sender_gone {
            return Poll::Ready(false);
        }
        match &s.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => s.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// How many items are queued.
    pub(crate) fn len(&self) -> usize {
        self.0.lock().unwrap().items.len()
    }

    /// Waits until more than `queued` items are queued or the sender is gone, taking nothing.
    pub(crate) async fn grown_past(&self, queued: usize) {
        std::future::poll_fn(|cx| {
            let mut s = self.0.lock().unwrap();
            if s.items.len() > queued || s.sender_gone {
                return Poll::Ready(());
            }
            s.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    /// Waits for the next item; `None` once the stream has ended.
    pub(crate) async fn recv(&self) -> Option<T> {
        std::future::poll_fn(|cx| {
            let mut s = self.0.lock().unwrap();
            if let Some(item) = s.items.pop_front() {
                let w = (s.weigh)(&item);
                s.sub(w);
                return Poll::Ready(Some(item));
            }
            if s.sender_gone {
                return Poll::Ready(None);
            }
            s.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}

impl<T> Drop for StreamRx<T> {
    fn drop(&mut self) {
        let mut s = self.0.lock().unwrap();
        s.receiver_gone = true;
        s.clear_bytes();
        s.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ends_when_the_sender_drops_and_refuses_past_capacity() {
        let (tx, rx) = stream_queue::<u32>(2);
        assert!(rx.take_finished().is_none());
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        assert_eq!(tx.try_send(3), Err(Refused::Full));
        assert_eq!(rx.recv().await, Some(1));
        drop(tx);
        assert_eq!(rx.take_finished().unwrap(), [2]);
        assert_eq!(rx.recv().await, None);
        let (tx, rx) = stream_queue::<u32>(2);
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!(tx.try_send(1), Err(Refused::Closed));
    }

    #[tokio::test]
    async fn a_byte_bound_refuses_past_it_but_an_empty_queue_takes_one_item() {
        let (tx, rx) = stream_queue_bytes::<Vec<u8>>(100, 10, Vec::len, None);
        tx.try_send(vec![0; 25]).unwrap();
        assert_eq!(tx.try_send(vec![0; 1]), Err(Refused::Full));
        assert_eq!(rx.recv().await.unwrap().len(), 25);
        tx.try_send(vec![0; 6]).unwrap();
        tx.try_send(vec![0; 4]).unwrap();
        assert_eq!(tx.try_send(vec![0; 1]), Err(Refused::Full));
        assert_eq!(rx.recv().await.unwrap().len(), 6);
        tx.try_send(vec![0; 6]).unwrap();
        let mut out = Vec::new();
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert_eq!(rx.poll_drain(&mut cx, &mut out), Poll::Ready(true));
        tx.try_send(vec![0; 10]).unwrap();
    }

    #[tokio::test]
    async fn queues_sharing_a_budget_refuse_past_it_together() {
        let total = Arc::new(AtomicUsize::new(0));
        let shared = || Some((total.clone(), 10));
        let (a, ra) = stream_queue_bytes::<Vec<u8>>(100, 100, Vec::len, shared());
        let (b, rb) = stream_queue_bytes::<Vec<u8>>(100, 100, Vec::len, shared());
        a.try_send(vec![0; 4]).unwrap();
        a.try_send(vec![0; 4]).unwrap();
        b.try_send(vec![0; 4]).unwrap();
        // b's second item would take the two past 10 together.
        assert_eq!(b.try_send(vec![0; 1]), Err(Refused::Full));
        assert_eq!(total.load(Ordering::Relaxed), 12);
        assert_eq!(ra.recv().await.unwrap().len(), 4);
        b.try_send(vec![0; 2]).unwrap();
        drop(ra);
        assert_eq!(total.load(Ordering::Relaxed), 6);
        drop(rb);
        assert_eq!(total.load(Ordering::Relaxed), 0);
    }
}
