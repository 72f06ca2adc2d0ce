//! Round trips to Redis as metrics: `ferromcp.redis.round_trips` (a counter) and
//! `ferromcp.redis.round_trip.duration` (a histogram, seconds), by operation kind
//! (`ferromcp.redis.operation`: `session.get`, `event.append`, `bus.publish`, `bucket.take`, ...)
//! and outcome (`error.type`: absent on success, `timeout` or `redis` on failure).
//!
//! Why a process-wide hook: the Redis stores are made from URLs inside the engine (the HTTP
//! server's `redis_url`, a rate limit's `redis_url`), not by the user, so there is no store to
//! hand a [`super::Telemetry`] to. [`super::Telemetry::observe_redis`] installs its instruments
//! here; every round trip of every store in the process is then recorded on them. Without an
//! observer a round trip pays one relaxed atomic load (and nothing at all in a build without
//! the `otel` feature: the call sites are compiled out).

use opentelemetry::metrics::{Counter, Histogram};
use opentelemetry::KeyValue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

/// Counter: round trips to Redis (commands and pipelines sent), ferromcp's own name.
pub const FERROMCP_REDIS_ROUND_TRIPS: &str = "ferromcp.redis.round_trips";
/// Histogram, seconds: one round trip to Redis, from sending to the answer (or the timeout).
pub const FERROMCP_REDIS_ROUND_TRIP_DURATION: &str = "ferromcp.redis.round_trip.duration";
/// Attribute: what the round trip was for (`session.get`, `event.append`, `bucket.take`, ...).
pub const FERROMCP_REDIS_OPERATION: &str = "ferromcp.redis.operation";
/// The bucket boundaries of the round-trip histogram (seconds): those the database semantic
/// conventions give `db.client.operation.duration`.
pub const ROUND_TRIP_BUCKETS: [f64; 9] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0];

/// The instruments round trips are recorded on.
pub(super) struct RedisInstruments {
    pub round_trips: Counter<u64>,
    pub duration: Histogram<f64>,
}

/// Whether an observer is installed (read first, so that a round trip without one takes no
/// lock).
static ON: AtomicBool = AtomicBool::new(false);
static OBSERVER: RwLock<Option<Arc<RedisInstruments>>> = RwLock::new(None);

/// Installs `instruments` as the process's Redis observer (replacing any before it).
pub(super) fn install(instruments: Arc<RedisInstruments>) {
    *OBSERVER.write().unwrap_or_else(|e| e.into_inner()) = Some(instruments);
    ON.store(true, Ordering::Release);
}

/// Removes the observer if it is `instruments` (a telemetry shutting down).
pub(super) fn uninstall(instruments: &Arc<RedisInstruments>) {
    let mut slot = OBSERVER.write().unwrap_or_else(|e| e.into_inner());
    if slot.as_ref().is_some_and(|i| Arc::ptr_eq(i, instruments)) {
        *slot = None;
        ON.store(false, Ordering::Release);
    }
}

/// How a round trip ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Redis answered.
    Ok,
    /// No answer within the store's timeout.
    Timeout,
    /// Redis (or the connection to it) answered with an error.
    Error,
}

/// One round trip being timed: made by [`RoundTrip::start`] before it is sent, ended with its
/// outcome. `None` inside when no observer is installed (nothing is read from the clock).
pub struct RoundTrip(Option<(&'static str, Instant)>);

impl RoundTrip {
    /// A round trip for `operation` about to be sent.
    #[inline]
    pub fn start(operation: &'static str) -> RoundTrip {
        if !ON.load(Ordering::Relaxed) {
            return RoundTrip(None);
        }
        RoundTrip(Some((operation, Instant::now())))
    }

    /// Records the round trip as ended with `outcome`.
    #[inline]
    pub fn end(self, outcome: Outcome) {
        if let Some((operation, start)) = self.0 {
            record(operation, start, outcome);
        }
    }
}

#[cold]
fn record(operation: &'static str, start: Instant, outcome: Outcome) {
    let elapsed = start.elapsed().as_secs_f64();
    let Some(instruments) = OBSERVER.read().unwrap_or_else(|e| e.into_inner()).clone() else {
        return;
    };
    let mut attrs = Vec::with_capacity(2);
    attrs.push(KeyValue::new(FERROMCP_REDIS_OPERATION, operation));
    match outcome {
        Outcome::Ok => {}
        Outcome::Timeout => attrs.push(KeyValue::new(super::semconv::ERROR_TYPE, "timeout")),
        Outcome::Error => attrs.push(KeyValue::new(super::semconv::ERROR_TYPE, "redis")),
    }
    instruments.round_trips.add(1, &attrs);
    instruments.duration.record(elapsed, &attrs);
}
