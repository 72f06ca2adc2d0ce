//! The server's cheap path for a request whose trace is not sampled, the common case (at 1 %
//! sampling, 99 requests in 100): no span, no attribute strings, no allocation beyond the
//! sampling decision; only its duration, recorded on a histogram bound once per operation.
//!
//! Why a path of its own: starting an unsampled span through the SDK still makes span and
//! context objects and attaches them to the handler's future, and recording the duration with
//! an attribute vector hashes that vector in the SDK on every request; together they cost more
//! than the 5 % of a call the issue allows (`bench/results/otel-overhead.md`). The sampling
//! decision is the SDK sampler's, made here on a trace id drawn here; a request it samples
//! starts its span with that same trace id ([`PresetIds`]), so the decision is made once.
//!
//! A request with a parent (a `traceparent` in `_meta` or in the HTTP header fields, or a
//! current span) never takes this path: its span follows its parent, as before.

use super::semconv::{self, Ending, Operation};
use super::Sampling;
use crate::server::middleware::{EndToolCall, LaneResult, LaneWatch, WatchToolCall};
use opentelemetry::metrics::{BoundHistogram, Histogram};
use opentelemetry::trace::{SpanId, TraceContextExt as _, TraceId};
use opentelemetry::{Context, KeyValue};
#[cfg(doc)]
use opentelemetry_sdk::trace::Sampler;
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator};
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::task::Poll;
use std::time::Instant;

thread_local! {
    /// The trace id a request's sampling was decided on, taken by the tracer's next root span
    /// on this thread ([`with_trace_id`]).
    static PRESET_TRACE_ID: Cell<Option<TraceId>> = const { Cell::new(None) };

    /// The operation this thread recorded last: the id of its [`BoundOps`] and its slot there.
    /// A request of the same operation (the common case: one tool called again and again)
    /// finds it here without hashing its names or taking the table's lock. Two plain numbers
    /// (no reference count, no destructor): reading it costs no atomic operation.
    static LAST_OP: Cell<(u64, usize)> = const { Cell::new((u64::MAX, 0)) };
}

/// The next [`BoundOps`] id (ids are never reused, so a thread's [`LAST_OP`] of a table that
/// is gone never matches another).
static NEXT_TABLE_ID: AtomicU64 = AtomicU64::new(0);

/// The tracer provider's id generator: random ids, except a root span started inside
/// [`with_trace_id`], which gets the trace id its sampling was decided on.
#[derive(Debug, Default)]
pub(super) struct PresetIds(RandomIdGenerator);

impl IdGenerator for PresetIds {
    fn new_trace_id(&self) -> TraceId {
        PRESET_TRACE_ID
            .with(Cell::take)
            .unwrap_or_else(|| self.0.new_trace_id())
    }

    fn new_span_id(&self) -> SpanId {
        self.0.new_span_id()
    }
}

/// Runs `start` (which starts a root span on this thread) with `trace_id` as the id the
/// tracer gives that span; nothing is left behind for a later span.
pub(super) fn with_trace_id<R>(trace_id: Option<TraceId>, start: impl FnOnce() -> R) -> R {
    if trace_id.is_some() {
        PRESET_TRACE_ID.with(|c| c.set(trace_id));
    }
    let started = start();
    PRESET_TRACE_ID.with(|c| c.set(None));
    started
}

/// Whether a server request is traced, decided before any span exists.
pub(super) enum Decision {
    /// No parent, and the sampler drops a new trace: only the duration is recorded.
    Quiet,
    /// A span starts: under its parent (`None`), or as a root with this trace id (sampled).
    Traced(Option<TraceId>),
}

/// The tracer provider's root sampler as a rule on the trace id, to decide a root span's fate
/// before starting it. The same rule as the SDK's ([`Sampler::TraceIdRatioBased`],
/// `AlwaysOn`, `AlwaysOff`; the tests check it against the SDK's own decision), applied here
/// without the SDK's sampling result (its attribute vector and trace state) on every request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RootSampler {
    AlwaysOn,
    AlwaysOff,
    /// Sampled when the low 64 bits of the trace id, shifted right by one, are below this
    /// bound (the SDK's `ratio * 2^63`).
    Below(u64),
}

impl RootSampler {
    /// The rule of the SDK's root sampler for `sampling`.
    pub fn of(sampling: &Sampling) -> Self {
        match *sampling {
            Sampling::AlwaysOn => Self::AlwaysOn,
            Sampling::AlwaysOff => Self::AlwaysOff,
            // `Ratio` (and any sampling `ferromcp_otel_export` adds: each is a ratio of new
            // traces, `Sampling::ratio`).
            _ => match sampling.ratio() {
                r if r >= 1.0 => Self::AlwaysOn,
                // As the SDK computes it (`sample_based_on_probability`); a NaN ratio gives 0.
                r => Self::Below((r.max(0.0) * (1u64 << 63) as f64) as u64),
            },
        }
    }

    /// Whether a root span with `trace_id` is sampled.
    fn samples(self, trace_id: TraceId) -> bool {
        match self {
            Self::AlwaysOn => true,
            Self::AlwaysOff => false,
            Self::Below(bound) => {
                let low = (u128::from_be_bytes(trace_id.to_bytes()) & u128::from(u64::MAX)) as u64;
                (low >> 1) < bound
            }
        }
    }

    /// Whether a request is traced: `has_remote_parent` when its `_meta` or HTTP header fields
    /// hold a `traceparent` (its span then follows that parent, as the SDK decides).
    pub fn decide(self, has_remote_parent: bool) -> Decision {
        if has_remote_parent || Context::map_current(|cx| cx.span().span_context().is_valid()) {
            return Decision::Traced(None);
        }
        let trace_id = RandomIdGenerator::default().new_trace_id();
        if self.samples(trace_id) {
            Decision::Traced(Some(trace_id))
        } else {
            Decision::Quiet
        }
    }
}

/// The server's duration histogram with one bound instrument per operation (method, target,
/// protocol version, transport) met so far, up to [`MAX_BOUND`]; beyond that, operations are
/// recorded with their attributes as before (the SDK then folds them into its overflow set).
///
/// An operation lives in a slot that is filled once and never emptied while the table lives,
/// so a call on the typed lane borrows it ([`Self::watch_lane`]) instead of counting a
/// reference: a shared count would be written by every worker on every call (the same cache
/// line from each CPU).
pub(super) struct BoundOps {
    id: u64,
    histogram: Histogram<f64>,
    /// Each operation's key ([`key_of`]) to its slot in `slots`.
    index: RwLock<HashMap<u64, usize, BuildHasherDefault<KeyHash>>>,
    /// [`MAX_BOUND`] slots, filled in turn (under `index`'s write lock).
    slots: Box<[OnceLock<Arc<BoundOp>>]>,
}

/// How many operations get a bound instrument (tool names come from the client: the table
/// must not grow with what a peer sends).
const MAX_BOUND: usize = 256;

/// One operation's attributes and its bound instrument for answers without an error.
pub(super) struct BoundOp {
    method: Box<str>,
    target: Option<Box<str>>,
    version: Option<&'static str>,
    over_http: bool,
    attrs: Vec<KeyValue>,
    answered: BoundHistogram<f64>,
    histogram: Histogram<f64>,
}

impl BoundOp {
    fn is(
        &self,
        method: &str,
        target: Option<&str>,
        version: Option<&str>,
        over_http: bool,
    ) -> bool {
        // The version's text is a `ProtocolVersion`'s static one: the same address when equal
        // (compared by address first, then by text).
        let same_version = match (self.version, version) {
            (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
            (a, b) => a.is_none() && b.is_none(),
        };
        self.over_http == over_http
            && same_version
            && self.target.as_deref() == target
            && &*self.method == method
    }

    /// Records a request of this operation that took `seconds` and ended as `ending`.
    fn record(&self, seconds: f64, ending: &Ending<'_>) {
        match ending.error() {
            None => self.answered.record(seconds),
            Some((error_type, code, _)) => {
                let mut attrs = self.attrs.clone();
                attrs.push(KeyValue::new(semconv::ERROR_TYPE, error_type));
                if let Some(code) = code {
                    attrs.push(KeyValue::new(
                        semconv::RPC_RESPONSE_STATUS_CODE,
                        code.to_string(),
                    ));
                }
                self.histogram.record(seconds, &attrs);
            }
        }
    }
}

impl BoundOps {
    pub fn new(histogram: Histogram<f64>) -> Self {
        Self {
            id: NEXT_TABLE_ID.fetch_add(1, Ordering::Relaxed),
            histogram,
            index: RwLock::new(HashMap::default()),
            slots: (0..MAX_BOUND).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The histogram itself (for the requests that are traced).
    pub fn histogram(&self) -> &Histogram<f64> {
        &self.histogram
    }

    /// The bound operation, made on its first request; `None` once the table is full.
    fn get(
        &self,
        method: &str,
        target: Option<&str>,
        version: Option<&'static str>,
        over_http: bool,
    ) -> Option<&Arc<BoundOp>> {
        let (table, slot) = LAST_OP.get();
        if table == self.id {
            if let Some(op) = self.slots[slot].get() {
                if op.is(method, target, version, over_http) {
                    return Some(op);
                }
            }
        }
        let slot = self.look_up(method, target, version, over_http)?;
        LAST_OP.set((self.id, slot));
        self.slots[slot].get()
    }

    /// [`Self::get`] in the table: the operation's slot.
    fn look_up(
        &self,
        method: &str,
        target: Option<&str>,
        version: Option<&'static str>,
        over_http: bool,
    ) -> Option<usize> {
        let key = key_of(method, target, version, over_http);
        // A different operation with the same key (never seen in practice) is unbound.
        let same = |slot: usize| {
            self.slots[slot]
                .get()
                .is_some_and(|op| op.is(method, target, version, over_http))
                .then_some(slot)
        };
        if let Some(&slot) = self
            .index
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return same(slot);
        }
        let mut index = self.index.write().unwrap_or_else(|e| e.into_inner());
        if let Some(&slot) = index.get(&key) {
            return same(slot);
        }
        let slot = index.len();
        if slot >= MAX_BOUND {
            return None;
        }
        let mut operation = Operation::named(method, target);
        operation.protocol_version = version;
        operation.over_http = over_http;
        let mut attrs = Vec::with_capacity(6);
        operation.common_attributes(&mut attrs);
        let op = Arc::new(BoundOp {
            method: method.into(),
            target: target.map(Into::into),
            version,
            over_http,
            answered: self.histogram.bind(&attrs),
            attrs,
            histogram: self.histogram.clone(),
        });
        // The slot is empty: slots are filled in turn under the write lock held here.
        let _ = self.slots[slot].set(op);
        index.insert(key, slot);
        Some(slot)
    }

    /// Starts watching a `tools/call` on the typed lane that is not traced: its bound
    /// operation, borrowed, records its end (nothing allocated, no reference counted), or past
    /// [`MAX_BOUND`] a [`QuietCall`].
    pub fn watch_lane(
        &self,
        start: Instant,
        method: &str,
        target: Option<&str>,
        version: Option<&'static str>,
        over_http: bool,
    ) -> LaneWatch<'_> {
        match self.get(method, target, version, over_http) {
            Some(op) => LaneWatch::Ended {
                ender: &**op,
                start,
            },
            None => LaneWatch::Scoped(Box::new(
                self.start(start, method, target, version, over_http),
            )),
        }
    }

    /// Starts watching a request that is not traced.
    pub fn start(
        &self,
        start: Instant,
        method: &str,
        target: Option<&str>,
        version: Option<&'static str>,
        over_http: bool,
    ) -> QuietCall {
        let metric = match self.get(method, target, version, over_http) {
            Some(op) => Metric::Bound(op.clone()),
            None => {
                let mut operation = Operation::named(method, target);
                operation.protocol_version = version;
                operation.over_http = over_http;
                Metric::Unbound(self.histogram.clone(), operation)
            }
        };
        QuietCall {
            metric,
            start,
            done: false,
        }
    }
}

/// A request not traced, being served: records its duration once answered, or as cancelled
/// when its future is dropped first.
pub(super) struct QuietCall {
    metric: Metric,
    start: Instant,
    done: bool,
}

enum Metric {
    Bound(Arc<BoundOp>),
    /// Past [`MAX_BOUND`]: the attributes are made at the end, as for a traced request.
    Unbound(Histogram<f64>, Operation),
}

impl QuietCall {
    /// Records how the request ended.
    pub fn end(&mut self, ending: Ending<'_>) {
        self.done = true;
        let seconds = self.start.elapsed().as_secs_f64();
        match &self.metric {
            Metric::Bound(op) => op.record(seconds, &ending),
            Metric::Unbound(histogram, operation) => {
                let mut attrs = Vec::with_capacity(8);
                operation.common_attributes(&mut attrs);
                if let Some((error_type, code, _)) = ending.error() {
                    attrs.push(KeyValue::new(semconv::ERROR_TYPE, error_type));
                    if let Some(code) = code {
                        attrs.push(KeyValue::new(
                            semconv::RPC_RESPONSE_STATUS_CODE,
                            code.to_string(),
                        ));
                    }
                }
                histogram.record(seconds, &attrs);
            }
        }
    }
}

impl EndToolCall for BoundOp {
    fn ended(&self, start: Instant, result: Option<&LaneResult>) {
        let seconds = start.elapsed().as_secs_f64();
        match result {
            Some(result) => self.record(seconds, &Ending::Tool(result)),
            None => self.record(seconds, &Ending::Cancelled),
        }
    }
}

impl WatchToolCall for QuietCall {
    fn poll_in_scope(&mut self, poll: &mut dyn FnMut() -> Poll<LaneResult>) -> Poll<LaneResult> {
        poll()
    }

    fn ended(mut self: Box<Self>, result: Option<&LaneResult>) {
        // Unanswered: the drop records it as cancelled.
        if let Some(result) = result {
            self.end(Ending::Tool(result));
        }
    }
}

impl Drop for QuietCall {
    fn drop(&mut self) {
        if !self.done {
            self.end(Ending::Cancelled);
        }
    }
}

/// FNV-1a over an operation's parts, the key of [`BoundOps`] (the table's hasher passes it on).
fn key_of(method: &str, target: Option<&str>, version: Option<&str>, over_http: bool) -> u64 {
    let mut h = KeyHash::default();
    h.write(method.as_bytes());
    h.write(&[0xff, u8::from(target.is_some())]);
    h.write(target.unwrap_or("").as_bytes());
    h.write(&[0xfe, u8::from(over_http)]);
    h.write(version.unwrap_or("").as_bytes());
    h.finish()
}

/// FNV-1a for [`key_of`]; a `u64` written to it (the table's key, already a hash) is its hash.
pub(super) struct KeyHash(u64);

impl Default for KeyHash {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::SpanKind;
    use opentelemetry_sdk::trace::{Sampler, SamplingDecision, ShouldSample};

    /// The root rule decides as the SDK's sampler does, trace id by trace id: the sampled
    /// request's span (started with the same trace id) is the one the SDK would keep.
    #[test]
    fn the_root_rule_decides_as_the_sdk_sampler() {
        let ids = RandomIdGenerator::default();
        let cases = [
            (Sampling::AlwaysOn, Sampler::AlwaysOn),
            (Sampling::AlwaysOff, Sampler::AlwaysOff),
            (Sampling::Ratio(0.01), Sampler::TraceIdRatioBased(0.01)),
            (Sampling::Ratio(0.5), Sampler::TraceIdRatioBased(0.5)),
            (Sampling::Ratio(0.999), Sampler::TraceIdRatioBased(0.999)),
            (Sampling::Ratio(0.0), Sampler::TraceIdRatioBased(0.0)),
            (Sampling::Ratio(1.0), Sampler::TraceIdRatioBased(1.0)),
            (Sampling::Ratio(2.0), Sampler::TraceIdRatioBased(2.0)),
            (Sampling::Ratio(-1.0), Sampler::TraceIdRatioBased(-1.0)),
            (
                Sampling::Ratio(f64::NAN),
                Sampler::TraceIdRatioBased(f64::NAN),
            ),
        ];
        for (sampling, sdk) in cases {
            let rule = RootSampler::of(&sampling);
            let sdk = Sampler::ParentBased(Box::new(sdk));
            let mut sampled = 0;
            let edges = [0u128, 1, 2, u128::from(u64::MAX), u128::MAX, 1 << 64];
            let drawn = (0..20_000).map(|_| ids.new_trace_id());
            for id in edges.into_iter().map(TraceId::from).chain(drawn) {
                let sdk_samples = sdk
                    .should_sample(None, id, "tools/call", &SpanKind::Server, &[], &[])
                    .decision
                    != SamplingDecision::Drop;
                assert_eq!(rule.samples(id), sdk_samples, "{sampling:?} on {id}");
                sampled += usize::from(sdk_samples);
            }
            if let Sampling::Ratio(r) = sampling {
                if (0.01..1.0).contains(&r) {
                    // Not a rule that never or always samples.
                    assert!(sampled > 0 && sampled < 20_006, "{sampling:?}: {sampled}");
                }
            }
        }
    }

    /// A thread's last operation is found again, and never another table's.
    #[test]
    fn the_last_operation_is_the_same_tables_and_names() {
        let meter = opentelemetry::global::meter("test");
        let a = BoundOps::new(meter.f64_histogram("a").build());
        let b = BoundOps::new(meter.f64_histogram("b").build());
        let echo = a
            .get("tools/call", Some("echo"), Some("2025-06-18"), true)
            .unwrap()
            .clone();
        let again = a
            .get("tools/call", Some("echo"), Some("2025-06-18"), true)
            .unwrap();
        assert!(Arc::ptr_eq(&echo, again));
        let other_table = b
            .get("tools/call", Some("echo"), Some("2025-06-18"), true)
            .unwrap();
        assert!(!Arc::ptr_eq(&echo, other_table));
        let other_tool = a
            .get("tools/call", Some("add"), Some("2025-06-18"), true)
            .unwrap();
        assert!(!Arc::ptr_eq(&echo, other_tool));
        let other_transport = a
            .get("tools/call", Some("echo"), Some("2025-06-18"), false)
            .unwrap();
        assert!(!Arc::ptr_eq(&echo, other_transport));
        let back = a
            .get("tools/call", Some("echo"), Some("2025-06-18"), true)
            .unwrap();
        assert!(Arc::ptr_eq(&echo, back));
    }

    /// Operations fill the table's slots in turn up to [`MAX_BOUND`]; each is found again in
    /// its own slot (through the table, not only as the thread's last one), and the next ones
    /// are unbound.
    #[test]
    fn operations_keep_their_slots_up_to_the_bound() {
        let meter = opentelemetry::global::meter("test");
        let table = BoundOps::new(meter.f64_histogram("c").build());
        let names: Vec<String> = (0..=MAX_BOUND).map(|i| format!("tool-{i}")).collect();
        let bound: Vec<Arc<BoundOp>> = names[..MAX_BOUND]
            .iter()
            .map(|n| {
                table
                    .get("tools/call", Some(n), None, false)
                    .unwrap()
                    .clone()
            })
            .collect();
        assert!(table
            .get("tools/call", Some(&names[MAX_BOUND]), None, false)
            .is_none());
        for (name, op) in names.iter().zip(&bound).rev() {
            let again = table.get("tools/call", Some(name), None, false).unwrap();
            assert!(Arc::ptr_eq(op, again), "{name}");
            assert_eq!(op.target.as_deref(), Some(name.as_str()));
        }
        // Unbound, past the bound: recorded with its attributes, not dropped.
        let quiet = table.start(
            Instant::now(),
            "tools/call",
            Some(&names[MAX_BOUND]),
            None,
            false,
        );
        assert!(matches!(quiet.metric, Metric::Unbound(..)));
    }
}
