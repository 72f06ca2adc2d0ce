//! The engine's log events (`requestLog`, the detail `maskErrors` hid, the engine's warnings) for
//! Node: the Node side of `ferromcp_embed::log_forward`.
//!
//! When the addon is loaded, the events at `FERROMCP_LOG`'s level (`info` when unset) go to
//! stderr as one line each (`ferromcp INFO ferromcp.request: request method=tools/call ...`),
//! written by the engine without touching the event loop. [`set_log_handler`] sends them to a
//! JavaScript function instead (queued to the event loop; it does not keep the process alive)
//! and sets the level; events below the level are never formatted.

use ferromcp_embed::log_forward::{self, LogLevel, LogRecord, LogSink};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use serde_json::{json, Value};
use std::sync::Arc;

#[napi_derive::module_init]
fn install_default() {
    log_forward::install_stderr_default();
}

fn parse_level(level: &str) -> napi::Result<Option<LogLevel>> {
    if level == "off" {
        return Ok(None);
    }
    LogLevel::from_name(level).map(Some).ok_or_else(|| {
        napi::Error::from_reason(format!(
            "log level {level:?} is not one of 'trace', 'debug', 'info', 'warn', 'error', 'off'"
        ))
    })
}

type JsSink = ThreadsafeFunction<Value, (), FnArgs<(Value,)>, Status, false, true>;

struct JsLogSink(JsSink);

impl LogSink for JsLogSink {
    fn log(&self, record: LogRecord) {
        let value = json!({
            "level": record.level.name(),
            "logger": record.logger,
            "target": record.target,
            "message": record.message,
            "line": record.line(),
            "fields": record.fields_map(),
        });
        self.0.call(value, ThreadsafeFunctionCallMode::NonBlocking);
    }
}

/// Sends the engine's log events at `level` and above (`'trace'` ... `'error'`, `'off'`) to
/// `handler(record)` (`{level, logger, target, message, line, fields}`), or, without a
/// handler, back to stderr lines. Whether the engine's events are forwarded at all (false
/// when a `tracing` subscriber was set in this addon before).
#[napi(ts_args_type = "handler: ((record: any) => void) | undefined | null, level: string")]
pub fn set_log_handler(
    handler: Option<Function<'_, FnArgs<(Value,)>, ()>>,
    level: String,
) -> napi::Result<bool> {
    let level = parse_level(&level)?;
    let sink: Arc<dyn LogSink> = match handler {
        None => Arc::new(log_forward::StderrSink),
        Some(f) => {
            let tsfn = f
                .build_threadsafe_function::<Value>()
                .weak::<true>()
                .callee_handled::<false>()
                .build_callback(|cx| Ok(FnArgs::from((cx.value,))))?;
            Arc::new(JsLogSink(tsfn))
        }
    };
    Ok(log_forward::install_log_sink(sink, level))
}

/// Changes the least severe level forwarded (`'trace'` ... `'error'`, `'off'`).
#[napi]
pub fn set_log_level(level: String) -> napi::Result<()> {
    log_forward::set_log_level(parse_level(&level)?);
    Ok(())
}

/// The least severe level forwarded now (`'off'`: none).
#[napi]
pub fn log_level() -> &'static str {
    log_forward::log_level().map_or("off", LogLevel::name)
}
