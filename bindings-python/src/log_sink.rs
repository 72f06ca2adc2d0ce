//! The engine's log events (`requestLog`, the detail `maskErrors` hid, the engine's warnings) to
//! Python's `logging`, under the `ferromcp` logger: the Python side of
//! `ferromcp_embed::log_forward`.
//!
//! The module's import installs the forwarding subscriber with a sink that queues each record
//! to the binding's Python thread (`gil_threads::post`; tokio workers never take the GIL),
//! where `ferromcp._logbridge.deliver` makes the `logging.LogRecord`. Which levels are
//! forwarded is a number set from Python ([`set_log_threshold`]): the least severe level the
//! `ferromcp` loggers would handle, recomputed by `_logbridge` when a logger's level changes,
//! so an event Python would drop is never formatted and never takes the GIL.

use crate::gil_threads;
use ferromcp_embed::log_forward::{self, LogLevel, LogRecord, LogSink};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Records queued for the Python thread and not yet delivered; beyond [`MAX_PENDING`] new
/// records are dropped (counted in [`DROPPED`]) rather than queued without bound when Python's
/// handlers cannot keep up.
static PENDING: AtomicUsize = AtomicUsize::new(0);
const MAX_PENDING: usize = 10_000;
/// Records dropped since the last delivery; reported by one warning with the next record.
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// `ferromcp._logbridge.deliver`.
static DELIVER: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

/// Python's number for a level: `logging.DEBUG` (10) and up; trace is 5.
fn python_level(level: LogLevel) -> i32 {
    match level {
        LogLevel::Trace => 5,
        LogLevel::Debug => 10,
        LogLevel::Info => 20,
        LogLevel::Warn => 30,
        LogLevel::Error => 40,
    }
}

/// The least severe engine level whose Python number is at least `threshold` (`None`: above
/// `logging.ERROR`, nothing is forwarded).
fn level_for(threshold: i32) -> Option<LogLevel> {
    [
        LogLevel::Trace,
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warn,
        LogLevel::Error,
    ]
    .into_iter()
    .find(|l| python_level(*l) >= threshold)
}

struct PythonSink;

impl LogSink for PythonSink {
    fn log(&self, record: LogRecord) {
        if PENDING.fetch_add(1, Ordering::Relaxed) >= MAX_PENDING {
            PENDING.fetch_sub(1, Ordering::Relaxed);
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        }
        gil_threads::post(move |py| {
            PENDING.fetch_sub(1, Ordering::Relaxed);
            let deliver = DELIVER
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map(|d| d.clone_ref(py));
            let Some(deliver) = deliver else { return };
            let dropped = DROPPED.swap(0, Ordering::Relaxed);
            if dropped > 0 {
                let line =
                    format!("{dropped} engine log records dropped: Python's logging fell behind");
                let _ = deliver.call1(py, (30, "ferromcp", line, "ferromcp", "{}"));
            }
            // `deliver` catches what a handler raises; anything else is not worth a crash of
            // the binding's thread.
            let _ = deliver.call1(
                py,
                (
                    python_level(record.level),
                    record.logger.as_str(),
                    record.line(),
                    record.target.as_str(),
                    record.fields_json(),
                ),
            );
        });
    }
}

/// Installs the forwarding (once, at the module's import): `deliver(levelno, logger_name,
/// message, target, fields_json)` gets each record at or above `threshold` on the binding's
/// Python thread. Whether the engine's events are forwarded (false when a `tracing` subscriber
/// was already set in this extension).
pub fn install(deliver: Py<PyAny>, threshold: i32) -> bool {
    *DELIVER.lock().unwrap_or_else(|e| e.into_inner()) = Some(deliver);
    log_forward::install_log_sink(Arc::new(PythonSink), level_for(threshold))
}

/// Forwards the engine's events whose Python level is at least `threshold` (`logging.DEBUG`,
/// ...; trace is 5; above 40 none). Called by `ferromcp._logbridge` when a `ferromcp` logger's
/// level changes.
#[pyfunction]
pub fn set_log_threshold(py: Python<'_>, threshold: i32) {
    py.allow_threads(|| log_forward::set_log_level(level_for(threshold)));
}

/// The Python level of the least severe engine events forwarded now (100: none).
#[pyfunction]
pub fn log_threshold() -> i32 {
    log_forward::log_level().map_or(100, python_level)
}
