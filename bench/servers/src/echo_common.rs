//! What both ferromcp echo binaries share: the server (the `echo` tool, as the README writes a
//! tool) and the HTTP options the benchmark sets explicitly.

use ferromcp::server::Server;
use ferromcp::transport::http::HttpServerOptions;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

/// The benchmark's `echo` server. With `FERROMCP_BENCH_OTEL=RATIO` (e.g. `0.01`) its requests
/// are traced and measured by ferromcp's OpenTelemetry layer (spans sampled at that ratio and
/// exported over OTLP/HTTP, metrics kept for Prometheus): the "OpenTelemetry" row, measured
/// beside the plain one in the same run (docs/observability.md).
pub fn build() -> Server {
    let mut builder = Server::builder("ferromcp-bench", env!("CARGO_PKG_VERSION"));
    if std::env::var("FERROMCP_BENCH_OTEL").as_deref() == Ok("passthrough") {
        // The cost of any middleware layer alone (a typed-lane tools/call stays typed through
        // a layer that does not read its params or result), to tell it apart from the
        // OpenTelemetry layer's own.
        builder = builder.middleware(PassThrough);
    } else if let Some(telemetry) = otel::from_env() {
        builder = builder.middleware(telemetry.server_layer());
        let _ = otel::TELEMETRY.set(telemetry);
    }
    for _ in 0..layers() {
        builder = builder.middleware(PassThrough);
    }
    builder
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .build()
        .expect("server builds")
}

/// How many pass-through middleware layers to install: `FERROMCP_BENCH_LAYERS` (0 to 64; unset,
/// 0), the rows "1 / 5 pass-through middleware layers" (issue 37). A value that does not parse
/// stops the server, so a typo cannot silently measure the server without layers.
fn layers() -> usize {
    match std::env::var("FERROMCP_BENCH_LAYERS") {
        Err(_) => 0,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n <= 64 => n,
            _ => {
                eprintln!("FERROMCP_BENCH_LAYERS must be a whole number from 0 to 64, got {v:?}");
                std::process::exit(2);
            }
        },
    }
}

/// The session cap when `FERROMCP_BENCH_MAX_SESSIONS` is not set: above the driver's default of
/// 100,000 idle sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 110_000;

/// The session cap: `FERROMCP_BENCH_MAX_SESSIONS` (a positive whole number; `mcp-bench` passes
/// its `--huge-sessions` N + N/10, at least 110,000), else [`DEFAULT_MAX_SESSIONS`]. A value
/// that does not parse stops the server, so a typo cannot silently measure the default cap.
pub fn max_sessions() -> usize {
    match std::env::var("FERROMCP_BENCH_MAX_SESSIONS") {
        Err(_) => DEFAULT_MAX_SESSIONS,
        Ok(v) => match v.trim().replace('_', "").parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("FERROMCP_BENCH_MAX_SESSIONS must be a positive whole number, got {v:?}");
                std::process::exit(2);
            }
        },
    }
}

/// The options for `mode` (`stateful`, `stateless` or `json`). Only the session cap and the
/// idle timeout differ from the defaults, and only because the driver holds 100,000 idle sessions
/// by default (plus the few of its load phases, which it DELETEs): it must not hit the cap (503)
/// or lose sessions to idle reaping while it reads RSS. The cap is 110,000, or
/// `FERROMCP_BENCH_MAX_SESSIONS` (see [`max_sessions`]; `mcp-bench --huge-sessions N` sets it
/// for N idle sessions, e.g. 1,100,000 for 1,000,000); nothing else changes with it. Nothing
/// here is a speed setting.
/// With `FERROMCP_BENCH_REDIS_URL` set, the sessions, events and bus are on that Redis (the
/// replicas rows of `mcp-bench-replicas`, issue 17).
pub fn http_options(mode: &str) -> HttpServerOptions {
    HttpServerOptions::default()
        .with_stateless(mode != "stateful")
        .with_json_response(mode == "json")
        .with_max_sessions(max_sessions())
        .with_session_idle_timeout(std::time::Duration::from_secs(30 * 60))
        .with_redis_url(std::env::var("FERROMCP_BENCH_REDIS_URL").ok())
        .with_compression(
            match std::env::var("FERROMCP_BENCH_COMPRESSION").as_deref() {
                Ok("off") => None,
                _ => HttpServerOptions::default().compression,
            },
        )
}

/// The command line: `stdio`, or `http PORT MODE`.
pub enum Mode {
    Stdio,
    Http(u16, String),
}

/// Reads the command line (`PROG [stdio | http PORT [stateful|stateless|json]]`).
pub fn mode() -> Mode {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        None | Some("stdio") => Mode::Stdio,
        Some("http") => Mode::Http(
            args.get(2).and_then(|p| p.parse().ok()).unwrap_or(0),
            args.get(3).cloned().unwrap_or_else(|| "stateful".into()),
        ),
        Some(other) => {
            eprintln!(
                "usage: {} [stdio | http PORT [stateful|stateless|json]] (got {other})",
                args[0]
            );
            std::process::exit(2);
        }
    }
}

/// A middleware layer that hands every request on unchanged (`FERROMCP_BENCH_OTEL=passthrough`,
/// `FERROMCP_BENCH_LAYERS=N`).
struct PassThrough;

impl ferromcp::server::middleware::Middleware for PassThrough {
    fn handle<'a>(
        &'a self,
        request: ferromcp::server::middleware::MiddlewareRequest,
        next: ferromcp::server::middleware::Next<'a>,
    ) -> ferromcp::server::middleware::BoxFuture<
        'a,
        Result<ferromcp::server::middleware::MiddlewareResponse, ferromcp::McpError>,
    > {
        next.run(request)
    }
}

/// With `FERROMCP_BENCH_OTEL`, the telemetry of [`build`] also measures the HTTP server
/// `handle` (sessions, connections, SSE streams, session durations), as a user's would.
pub fn observe(handle: &ferromcp::transport::http::HttpServerHandle) {
    if let Some(t) = otel::TELEMETRY.get() {
        t.observe_http_server(handle);
    }
}

/// The OpenTelemetry set-up of the "OpenTelemetry" row.
mod otel {
    /// The telemetry [`super::build`] made, for [`super::observe`].
    pub static TELEMETRY: std::sync::OnceLock<Telemetry> = std::sync::OnceLock::new();

    use ferromcp::telemetry::{Sampling, Telemetry, TelemetryConfig};
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    /// Telemetry when `FERROMCP_BENCH_OTEL` names a sampling ratio. Spans go to
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`, else to a discarding OTLP/HTTP sink in this process (so
    /// the exporter's whole path runs: batching, protobuf, HTTP POST).
    pub fn from_env() -> Option<Telemetry> {
        let ratio: f64 = match std::env::var("FERROMCP_BENCH_OTEL") {
            Err(_) => return None,
            Ok(v) => v.trim().parse().unwrap_or_else(|_| {
                eprintln!("FERROMCP_BENCH_OTEL must be a sampling ratio (0 to 1), got {v:?}");
                std::process::exit(2);
            }),
        };
        let mut config = TelemetryConfig::from_env();
        if config.otlp_endpoint.is_none() {
            config.otlp_endpoint = Some(discard_sink());
        }
        config.sampling = Sampling::Ratio(ratio);
        config.prometheus = true;
        Some(Telemetry::new(config).expect("telemetry starts"))
    }

    /// An HTTP/1.1 server on 127.0.0.1 that reads each request and answers 200 with no body.
    fn discard_sink() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the OTLP sink");
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let mut w = stream.try_clone().expect("clone the sink stream");
                    let mut r = BufReader::new(stream);
                    loop {
                        let mut len = 0usize;
                        loop {
                            let mut line = String::new();
                            if r.read_line(&mut line).unwrap_or(0) == 0 {
                                return;
                            }
                            let l = line.trim_end().to_ascii_lowercase();
                            if l.is_empty() {
                                break;
                            }
                            if let Some(v) = l.strip_prefix("content-length:") {
                                len = v.trim().parse().unwrap_or(0);
                            }
                        }
                        let mut body = vec![0; len];
                        if r.read_exact(&mut body).is_err()
                            || w.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                                .is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        url
    }
}
