//! Structured request logging through `tracing`: one event per request with its method, tool,
//! duration, outcome and principal (target `ferromcp::request`).

use super::{Middleware, MiddlewareRequest, MiddlewareResponse, Next, Outcome};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use std::time::Instant;

/// The logging's options. JSON: `{"level"?: "info"}` (`"trace"`, `"debug"`, `"info"`,
/// `"warn"`; errors are logged at `warn` at least).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct RequestLogConfig {
    /// The level of a successful request's event (default `info`).
    #[serde(default)]
    pub level: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Trace,
    Debug,
    Info,
    Warn,
}

/// Logs one `tracing` event per request (target `ferromcp::request`) when it is answered:
/// `method`, `tool` (for `tools/call`), `id`, `duration_us`, `outcome` (`ok`, `error`,
/// `cancelled`), `code` (for errors), `principal` (the token's subject or client id, when
/// there is one) and `session` ([`MiddlewareRequest::session_key`]).
pub struct RequestLog {
    level: Level,
}

impl RequestLog {
    /// Logging at `info` (errors at `warn`).
    ///
    /// ```
    /// use ferromcp::server::middleware::{RequestLog, RequestLogConfig};
    /// use ferromcp::server::Server;
    ///
    /// // One `tracing` event per request (method, id, tool, duration, outcome).
    /// let server = Server::builder("logged", "1.0").middleware(RequestLog::new()).build().unwrap();
    /// # drop(server);
    /// // The same from the bindings' JSON form (see `RequestLogConfig`); a level it does not
    /// // know is refused.
    /// let config: RequestLogConfig = serde_json::from_value(serde_json::json!({ "level": "debug" })).unwrap();
    /// assert!(RequestLog::from_config(&config).is_ok());
    /// let loud: RequestLogConfig = serde_json::from_value(serde_json::json!({ "level": "loud" })).unwrap();
    /// assert!(RequestLog::from_config(&loud).is_err());
    /// ```
    pub fn new() -> Self {
        Self { level: Level::Info }
    }

    /// Logging configured by name; fails on an unknown level.
    pub fn from_config(config: &RequestLogConfig) -> Result<Self, McpError> {
        let level = match config.level.as_deref() {
            None | Some("info") => Level::Info,
            Some("trace") => Level::Trace,
            Some("debug") => Level::Debug,
            Some("warn") => Level::Warn,
            Some(other) => {
                return Err(McpError::invalid_params(format!(
                    "requestLog.level: {other:?} is not one of trace, debug, info, warn"
                )))
            }
        };
        Ok(Self { level })
    }
}

impl Default for RequestLog {
    fn default() -> Self {
        Self::new()
    }
}

/// What one event says of its request.
struct Record {
    method: String,
    tool: Option<String>,
    id: String,
    principal: Option<String>,
    session: String,
    start: Instant,
}

impl Record {
    fn emit(&self, level: Level, outcome: Outcome) {
        let duration_us = self.start.elapsed().as_micros() as u64;
        let code = match outcome {
            Outcome::Error(code) => Some(code),
            _ => None,
        };
        let level = if code.is_some() { Level::Warn } else { level };
        macro_rules! event {
            ($lvl:expr) => {
                tracing::event!(
                    target: "ferromcp::request",
                    $lvl,
                    method = %self.method,
                    tool = self.tool.as_deref(),
                    id = %self.id,
                    duration_us,
                    outcome = outcome.as_str(),
                    code,
                    principal = self.principal.as_deref(),
                    session = %self.session,
                    "request"
                )
            };
        }
        match level {
            Level::Trace => event!(tracing::Level::TRACE),
            Level::Debug => event!(tracing::Level::DEBUG),
            Level::Info => event!(tracing::Level::INFO),
            Level::Warn => event!(tracing::Level::WARN),
        }
    }
}

/// Logs its request as cancelled if dropped before [`Self::done`].
struct Guard {
    record: Record,
    level: Level,
    done: bool,
}

impl Guard {
    fn done(&mut self, outcome: Outcome) {
        self.done = true;
        self.record.emit(self.level, outcome);
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.done {
            self.record.emit(self.level, Outcome::Cancelled);
        }
    }
}

impl Middleware for RequestLog {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let mut guard = Guard {
                record: Record {
                    method: request.method().to_string(),
                    tool: request.tool_name().map(str::to_string),
                    id: request.id().to_string(),
                    principal: request.principal_name().map(str::to_string),
                    session: request.session_key(),
                    start: Instant::now(),
                },
                level: self.level,
                done: false,
            };
            let result = next.run(request).await;
            guard.done(Outcome::of(&result));
            result
        })
    }
}
