//! The engine's `tracing` events handed to the host language's logging: one small forwarding
//! [`tracing::Subscriber`] that turns each enabled event into a [`LogRecord`] (level, target,
//! message, fields as JSON) and gives it to the [`LogSink`] a binding registered.
//!
//! Why it exists: the engine logs through `tracing` (the `requestLog` layer's one event per
//! request, target `ferromcp::request`; the original error a `maskErrors` layer hid, target
//! `ferromcp::masked`; warnings of the HTTP server, the stores, OAuth), but a Python, Node or
//! Swift program has no `tracing` subscriber, so without this every such event went nowhere.
//! A Rust program that uses the engine directly never calls [`install_log_sink`] and keeps its
//! own subscriber.
//!
//! - Installed once per process, as the global default, only if nobody set one before
//!   ([`install_log_sink`] says whether it is in place); a later call replaces the sink and
//!   the level, never the subscriber.
//! - Cheap below the level: [`Subscriber::max_level_hint`] reports the sink's level, so the
//!   `tracing` macros skip a disabled event at the call site (one atomic load) and nothing is
//!   formatted; [`set_log_level`] rebuilds the call sites' interest when the level changes.
//!   Spans are not recorded (only events).
//! - The sink runs on the thread that emitted the event (often a runtime worker): it must not
//!   block on the host's interpreter lock; the bindings queue the record to a thread of theirs.

use serde_json::{Map, Value};
use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

/// An event's severity, the `tracing` levels in order (`Trace` the most verbose).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum LogLevel {
    /// Very verbose diagnostics.
    Trace = 1,
    /// Diagnostics.
    Debug = 2,
    /// What happened (the request log's default).
    Info = 3,
    /// Something went wrong but the engine went on (a request answered with an error).
    Warn = 4,
    /// Something failed (a masked error's original detail).
    Error = 5,
}

impl LogLevel {
    /// The level by its lower-case name (`"trace"`, `"debug"`, `"info"`, `"warn"`, `"error"`;
    /// `"warning"` is accepted for `warn`).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "trace" => Self::Trace,
            "debug" => Self::Debug,
            "info" => Self::Info,
            "warn" | "warning" => Self::Warn,
            "error" => Self::Error,
            _ => return None,
        })
    }

    /// The lower-case name (`"warn"` for [`LogLevel::Warn`]).
    pub fn name(self) -> &'static str {
        match self {
            Self::Trace => "trace",
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
        }
    }

    fn of(level: &tracing::Level) -> Self {
        match *level {
            tracing::Level::TRACE => Self::Trace,
            tracing::Level::DEBUG => Self::Debug,
            tracing::Level::INFO => Self::Info,
            tracing::Level::WARN => Self::Warn,
            _ => Self::Error,
        }
    }

    fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            1 => Self::Trace,
            2 => Self::Debug,
            3 => Self::Info,
            4 => Self::Warn,
            5 => Self::Error,
            _ => return None,
        })
    }
}

/// One engine event as the host's logging gets it.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    /// The event's level.
    pub level: LogLevel,
    /// The `tracing` target (`ferromcp::request`, `ferromcp::masked`, a module path).
    pub target: String,
    /// The host logger's name for the target, dot-separated under `ferromcp`
    /// (`ferromcp::request` -> `ferromcp.request`, `ferromcp_embed::authorization` ->
    /// `ferromcp.embed.authorization`, another crate's `h2::codec` -> `ferromcp.h2.codec`).
    pub logger: String,
    /// The event's message (`"request"`, `"error masked"`).
    pub message: String,
    /// The event's other fields in the order the event names them: numbers and booleans as
    /// such, everything else as the text `tracing` recorded. A field recorded without a value
    /// (`None`) is absent.
    pub fields: Vec<(String, Value)>,
}

impl LogRecord {
    /// The message followed by the fields as `name=value` (strings with spaces, quotes or `=`
    /// JSON-quoted): `request method=tools/call tool=echo duration_us=41 outcome=ok`.
    pub fn line(&self) -> String {
        let mut line = self.message.clone();
        for (name, value) in &self.fields {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(name);
            line.push('=');
            match value {
                Value::String(s)
                    if !s.is_empty()
                        && !s.contains(|c: char| c.is_whitespace() || c == '"' || c == '=') =>
                {
                    line.push_str(s)
                }
                other => {
                    let _ = write!(line, "{other}");
                }
            }
        }
        line
    }

    /// The fields as a JSON object.
    pub fn fields_map(&self) -> Map<String, Value> {
        self.fields.iter().cloned().collect()
    }

    /// The fields as a JSON object text.
    pub fn fields_json(&self) -> String {
        Value::Object(self.fields_map()).to_string()
    }
}

/// The host logger's name for a `tracing` target (see [`LogRecord::logger`]).
pub fn logger_name(target: &str) -> String {
    let dotted = target.replace("::", ".");
    let (head, rest) = dotted.split_once('.').unwrap_or((dotted.as_str(), ""));
    let head = if head == "ferromcp" {
        String::from("ferromcp")
    } else if let Some(short) = head.strip_prefix("ferromcp_") {
        format!("ferromcp.{short}")
    } else {
        format!("ferromcp.{head}")
    };
    if rest.is_empty() {
        head
    } else {
        format!("{head}.{rest}")
    }
}

/// Where the forwarded events go: implemented once per binding.
pub trait LogSink: Send + Sync + 'static {
    /// Takes one event at or above the level set with [`install_log_sink`] / [`set_log_level`].
    /// Called on the thread that emitted it; must not block for long nor take the host
    /// language's interpreter lock there.
    fn log(&self, record: LogRecord);
}

/// A sink that writes each record as one line on the process's stderr:
/// `ferromcp <LEVEL> <logger>: <line>` (the default of the Node and Swift bindings).
#[derive(Clone, Copy, Debug, Default)]
pub struct StderrSink;

impl LogSink for StderrSink {
    fn log(&self, record: LogRecord) {
        use std::io::Write as _;
        let text = format!(
            "ferromcp {} {}: {}\n",
            record.level.name().to_ascii_uppercase(),
            record.logger,
            record.line()
        );
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

/// The sink and its level, shared by the installed subscriber and the setters.
struct Shared {
    /// 0: off; else a [`LogLevel`] as `u8`, the least severe level forwarded.
    level: AtomicU8,
    sink: RwLock<Option<Arc<dyn LogSink>>>,
}

impl Shared {
    const fn new() -> Self {
        Self {
            level: AtomicU8::new(0),
            sink: RwLock::new(None),
        }
    }

    fn level(&self) -> Option<LogLevel> {
        LogLevel::from_u8(self.level.load(Ordering::Relaxed))
    }

    /// Stores the level; whether it changed.
    fn set_level(&self, level: Option<LogLevel>) -> bool {
        let v = level.map_or(0, |l| l as u8);
        self.level.swap(v, Ordering::Relaxed) != v
    }

    fn set_sink(&self, sink: Arc<dyn LogSink>) {
        *self.sink.write().unwrap_or_else(|e| e.into_inner()) = Some(sink);
    }
}

thread_local! {
    /// Set while this thread is inside a sink: an event the sink itself emits is dropped
    /// instead of recursing.
    static IN_SINK: Cell<bool> = const { Cell::new(false) };
}

/// The forwarding subscriber (events only).
struct Forwarder {
    shared: &'static Shared,
}

impl Subscriber for Forwarder {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if metadata.is_event() {
            // Asked again through `enabled` on each hit above the max level, so a level change
            // needs no rebuild of this answer.
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event()
            && self
                .shared
                .level()
                .is_some_and(|min| LogLevel::of(metadata.level()) >= min)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(match self.shared.level() {
            None => LevelFilter::OFF,
            Some(LogLevel::Trace) => LevelFilter::TRACE,
            Some(LogLevel::Debug) => LevelFilter::DEBUG,
            Some(LogLevel::Info) => LevelFilter::INFO,
            Some(LogLevel::Warn) => LevelFilter::WARN,
            Some(LogLevel::Error) => LevelFilter::ERROR,
        })
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        // Never called for a span (they are disabled above); an id is still required.
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        if IN_SINK.with(Cell::get) {
            return;
        }
        let sink = self
            .shared
            .sink
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let Some(sink) = sink else { return };
        let metadata = event.metadata();
        let mut fields = Fields::default();
        event.record(&mut fields);
        let record = LogRecord {
            level: LogLevel::of(metadata.level()),
            target: metadata.target().to_string(),
            logger: logger_name(metadata.target()),
            message: fields.message.unwrap_or_default(),
            fields: fields.values,
        };
        IN_SINK.with(|f| f.set(true));
        sink.log(record);
        IN_SINK.with(|f| f.set(false));
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// Collects an event's fields.
#[derive(Default)]
struct Fields {
    message: Option<String>,
    values: Vec<(String, Value)>,
}

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        if field.name() == "message" {
            self.message = Some(match value {
                Value::String(s) => s,
                other => other.to_string(),
            });
        } else {
            self.values.push((field.name().to_string(), value));
        }
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.put(field, Value::String(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, Value::String(value.to_string()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, Value::from(value));
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.put(field, Value::String(value.to_string()));
    }
}

static SHARED: Shared = Shared::new();
/// Whether the forwarder became the process's global subscriber (decided once).
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Hands the engine's `tracing` events at `level` and above (`None`: none) to `sink`.
///
/// The first call makes the forwarder the process's global `tracing` subscriber unless one is
/// already set (then nothing is forwarded and this returns `false`: the host's subscriber
/// keeps every event). Later calls replace the sink and the level. Returns whether the
/// forwarder is the process's subscriber.
pub fn install_log_sink(sink: Arc<dyn LogSink>, level: Option<LogLevel>) -> bool {
    SHARED.set_sink(sink);
    let changed = SHARED.set_level(level);
    let installed = *INSTALLED.get_or_init(|| {
        tracing::subscriber::set_global_default(Forwarder { shared: &SHARED }).is_ok()
    });
    if installed && changed {
        rebuild_interest();
    }
    installed
}

/// Changes the least severe level forwarded (`None`: nothing); cheap when it is unchanged.
/// Events below it are not formatted at all.
pub fn set_log_level(level: Option<LogLevel>) {
    if SHARED.set_level(level) && INSTALLED.get().copied().unwrap_or(false) {
        rebuild_interest();
    }
}

/// The level `FERROMCP_LOG` names (`off`, `error`, `warn`, `info`, `debug`, `trace`), or
/// `default` when it is unset or names none of them.
pub fn env_level(default: Option<LogLevel>) -> Option<LogLevel> {
    match std::env::var("FERROMCP_LOG") {
        Ok(v) if v.eq_ignore_ascii_case("off") => None,
        Ok(v) => LogLevel::from_name(v.trim()).or(default),
        Err(_) => default,
    }
}

/// The Node and Swift bindings' default: [`StderrSink`] at `FERROMCP_LOG`'s level, `info`
/// when unset (so a server with a `requestLog` layer prints its lines, and nothing else is
/// printed unless something goes wrong). Whether the forwarder is the process's subscriber.
pub fn install_stderr_default() -> bool {
    install_log_sink(Arc::new(StderrSink), env_level(Some(LogLevel::Info)))
}

/// Makes every call site ask the subscribers again (the global max level follows
/// [`Subscriber::max_level_hint`]). `tracing::callsite` is `tracing-core`'s, re-exported by
/// `tracing` (hidden from its docs); naming it there adds no crate.
fn rebuild_interest() {
    tracing::callsite::rebuild_interest_cache();
}

/// The least severe level forwarded now (`None`: nothing).
pub fn log_level() -> Option<LogLevel> {
    SHARED.level()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Collect(Mutex<Vec<LogRecord>>);

    impl LogSink for Collect {
        fn log(&self, record: LogRecord) {
            self.0.lock().unwrap().push(record);
        }
    }

    struct Noisy;

    impl std::fmt::Debug for Noisy {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            panic!("formatted although below the level: {f:p}")
        }
    }

    fn forwarder(level: Option<LogLevel>, sink: Arc<Collect>) -> Forwarder {
        let shared: &'static Shared = Box::leak(Box::new(Shared::new()));
        shared.set_sink(sink);
        shared.set_level(level);
        Forwarder { shared }
    }

    #[test]
    fn an_event_becomes_a_record_with_its_fields() {
        let sink = Arc::new(Collect::default());
        tracing::subscriber::with_default(forwarder(Some(LogLevel::Info), sink.clone()), || {
            let tool: Option<&str> = Some("echo");
            let none: Option<&str> = None;
            tracing::info!(target: "ferromcp::request", method = %"tools/call", tool, absent = none,
                duration_us = 41u64, code = -32603i64, ok = true, "request");
        });
        let got = sink.0.lock().unwrap();
        assert_eq!(got.len(), 1);
        let r = &got[0];
        assert_eq!(
            (r.level, r.target.as_str()),
            (LogLevel::Info, "ferromcp::request")
        );
        assert_eq!(
            (r.logger.as_str(), r.message.as_str()),
            ("ferromcp.request", "request")
        );
        assert_eq!(
            Value::Object(r.fields_map()),
            serde_json::json!({"method": "tools/call", "tool": "echo", "duration_us": 41,
                "code": -32603, "ok": true})
        );
        assert_eq!(
            r.line(),
            "request method=tools/call tool=echo duration_us=41 code=-32603 ok=true"
        );
    }

    #[test]
    fn events_below_the_level_are_neither_forwarded_nor_formatted() {
        let sink = Arc::new(Collect::default());
        tracing::subscriber::with_default(forwarder(Some(LogLevel::Warn), sink.clone()), || {
            tracing::info!(noisy = ?Noisy, "below");
            tracing::debug!(noisy = ?Noisy, "below");
            tracing::warn!("kept");
        });
        let got = sink.0.lock().unwrap();
        assert_eq!(
            got.iter().map(|r| r.message.as_str()).collect::<Vec<_>>(),
            ["kept"]
        );
    }

    #[test]
    fn no_level_forwards_nothing() {
        let sink = Arc::new(Collect::default());
        tracing::subscriber::with_default(forwarder(None, sink.clone()), || {
            tracing::error!(noisy = ?Noisy, "off");
        });
        assert!(sink.0.lock().unwrap().is_empty());
    }

    #[test]
    fn logger_names_sit_under_ferromcp() {
        assert_eq!(logger_name("ferromcp::request"), "ferromcp.request");
        assert_eq!(logger_name("ferromcp"), "ferromcp");
        assert_eq!(
            logger_name("ferromcp_embed::authorization"),
            "ferromcp.embed.authorization"
        );
        assert_eq!(logger_name("h2::codec"), "ferromcp.h2.codec");
    }

    #[test]
    fn strings_with_spaces_are_quoted_in_the_line() {
        let fields = vec![
            ("detail".into(), Value::from("password failed for \"app\"")),
            ("empty".into(), Value::from("")),
        ];
        let r = LogRecord {
            level: LogLevel::Error,
            target: "ferromcp::masked".into(),
            logger: "ferromcp.masked".into(),
            message: "error masked".into(),
            fields,
        };
        assert_eq!(
            r.line(),
            r#"error masked detail="password failed for \"app\"" empty="""#
        );
    }

    #[test]
    fn a_subscriber_the_host_set_is_kept() {
        // The only test of this binary that touches the global default.
        struct Host;
        impl Subscriber for Host {
            fn enabled(&self, _: &Metadata<'_>) -> bool {
                true
            }
            fn new_span(&self, _: &Attributes<'_>) -> Id {
                Id::from_u64(1)
            }
            fn record(&self, _: &Id, _: &Record<'_>) {}
            fn record_follows_from(&self, _: &Id, _: &Id) {}
            fn event(&self, _: &Event<'_>) {}
            fn enter(&self, _: &Id) {}
            fn exit(&self, _: &Id) {}
        }
        tracing::subscriber::set_global_default(Host).expect("first global subscriber");
        let sink = Arc::new(Collect::default());
        assert!(!install_log_sink(sink.clone(), Some(LogLevel::Trace)));
        tracing::dispatcher::get_default(|d| assert!(d.is::<Host>()));
    }

    #[test]
    fn level_names_round_trip() {
        for l in [
            LogLevel::Trace,
            LogLevel::Debug,
            LogLevel::Info,
            LogLevel::Warn,
            LogLevel::Error,
        ] {
            assert_eq!(LogLevel::from_name(l.name()), Some(l));
        }
        assert_eq!(LogLevel::from_name("WARNING"), Some(LogLevel::Warn));
        assert_eq!(LogLevel::from_name("loud"), None);
    }
}
