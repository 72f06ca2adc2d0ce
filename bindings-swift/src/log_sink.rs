//! The engine's log events (`requestLog`, the detail `maskErrors` hid, the engine's warnings) for
//! Swift: the Swift side of `ferromcp_embed::log_forward`.
//!
//! From the engine's first use on (the runtime's start: [`ensure_default`]), the events at
//! `FERROMCP_LOG`'s level (`info` when unset) go to stderr as one line each, unless the facade
//! set a handler first; [`set_log_handler`] hands them to a Swift closure instead (called on
//! the engine's thread that emitted the event) and sets the level. Events below the level are
//! never formatted.

use crate::error::FfiError;
use ferromcp::McpError;
use ferromcp_embed::log_forward::{self, LogLevel, LogRecord, LogSink};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One engine log event, as the facade's `LogRecord` is made from it.
#[derive(Clone, Debug, uniffi::Record)]
pub struct NativeLogRecord {
    /// `trace`, `debug`, `info`, `warn` or `error`.
    pub level: String,
    /// The logger's name under `ferromcp` (`ferromcp.request`, `ferromcp.masked`).
    pub logger: String,
    /// The Rust `tracing` target (`ferromcp::request`).
    pub target: String,
    /// The event's message.
    pub message: String,
    /// The message followed by the fields as `name=value`.
    pub line: String,
    /// The fields as a JSON object text.
    pub fields: String,
}

/// Receives the engine's log events, on the engine's thread that emitted each: hand it on and
/// return.
#[uniffi::export(foreign)]
pub trait LogHandler: Send + Sync {
    /// One event at or above the level set.
    fn log(&self, record: NativeLogRecord);
}

struct SwiftLogSink(Arc<dyn LogHandler>);

impl LogSink for SwiftLogSink {
    fn log(&self, record: LogRecord) {
        self.0.log(NativeLogRecord {
            level: record.level.name().to_string(),
            line: record.line(),
            fields: record.fields_json(),
            logger: record.logger,
            target: record.target,
            message: record.message,
        });
    }
}

/// Whether a sink was installed (the default or the facade's).
static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// Installs the stderr default unless the facade set a handler already (called when the
/// engine's runtime starts).
pub fn ensure_default() {
    if !CONFIGURED.swap(true, Ordering::SeqCst) {
        log_forward::install_stderr_default();
    }
}

fn parse_level(level: &str) -> Result<Option<LogLevel>, FfiError> {
    if level == "off" {
        return Ok(None);
    }
    LogLevel::from_name(level).map(Some).ok_or_else(|| {
        FfiError::from(McpError::invalid_params(format!(
            "log level {level:?} is not one of trace, debug, info, warn, error, off"
        )))
    })
}

/// Sends the engine's log events at `level` and above (`trace` ... `error`, `off`) to
/// `handler`, or, without one, to stderr lines. Whether the engine's events are forwarded at
/// all (false when a `tracing` subscriber was set in this process before).
#[uniffi::export]
pub fn set_log_handler(
    handler: Option<Arc<dyn LogHandler>>,
    level: String,
) -> Result<bool, FfiError> {
    let level = parse_level(&level)?;
    CONFIGURED.store(true, Ordering::SeqCst);
    let sink: Arc<dyn LogSink> = match handler {
        Some(h) => Arc::new(SwiftLogSink(h)),
        None => Arc::new(log_forward::StderrSink),
    };
    Ok(log_forward::install_log_sink(sink, level))
}

/// Changes the least severe level forwarded (`trace` ... `error`, `off`).
#[uniffi::export]
pub fn set_log_level(level: String) -> Result<(), FfiError> {
    ensure_default();
    log_forward::set_log_level(parse_level(&level)?);
    Ok(())
}

/// The least severe level forwarded now (`off`: none).
#[uniffi::export]
pub fn log_level() -> String {
    ensure_default();
    log_forward::log_level()
        .map_or("off", LogLevel::name)
        .to_string()
}
