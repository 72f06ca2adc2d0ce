//! A replica for the process-level fault suite (`tests/scale/faults.mjs`, run by
//! `scripts/fault-suite`): an HTTP server with a slow tool, whose engine logs (`tracing`,
//! level INFO and up) go to stderr one line each, so the suite can check what each fault logs.
//!
//! ```text
//! fault_replica --port N [--redis-url URL] [--max-sessions N] [--jwks-url URL]
//! ```
//! Tools: `slow` (`{"ms": N}`: reports progress every 100 ms, answers after N ms).

use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use std::sync::Arc;
use std::time::Duration;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    /// Milliseconds before the answer.
    ms: u64,
}

/// Writes each event at INFO and up as one line on stderr: `LEVEL target: message k=v ...`.
struct StderrLog;

struct Line(String);

impl tracing::field::Visit for Line {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.push_str(&format!(" {value:?}"));
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }
}

impl tracing::Subscriber for StderrLog {
    fn enabled(&self, m: &tracing::Metadata<'_>) -> bool {
        *m.level() <= tracing::Level::INFO
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, e: &tracing::Event<'_>) {
        let m = e.metadata();
        let mut line = Line(format!("{} {}:", m.level(), m.target()));
        e.record(&mut line);
        eprintln!("{}", line.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn usage() -> ! {
    eprintln!(
        "usage: fault_replica --port N [--redis-url URL] [--max-sessions N] [--jwks-url URL]"
    );
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    tracing::subscriber::set_global_default(StderrLog).expect("the only subscriber");
    let mut options = HttpServerOptions::default();
    let mut port: u16 = 0;
    let mut jwks = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--port" => port = value().parse().unwrap_or_else(|_| usage()),
            "--redis-url" => options.redis_url = Some(value()),
            "--max-sessions" => options.max_sessions = value().parse().unwrap_or_else(|_| usage()),
            "--jwks-url" => jwks = Some(value()),
            _ => usage(),
        }
    }
    let resource = format!("http://127.0.0.1:{port}/mcp");
    if let Some(url) = jwks {
        let verifier =
            ferromcp::auth::JwtVerifier::from_jwks_url(url, "https://issuer.test", &resource)
                .expect("a JWKS URL")
                .fetch_timeout(Duration::from_secs(2));
        options.auth = Some(Arc::new(ferromcp::auth::ResourceAuth::new(
            resource.clone(),
            vec!["https://issuer.test".into()],
            Arc::new(verifier),
        )));
    }
    let server = Server::builder("fault-replica", "1.0")
        .tool(
            "slow",
            "Reports progress every 100 ms; answers after `ms`",
            |a: SlowArgs, ctx| async move {
                let steps = a.ms / 100;
                for i in 0..steps {
                    ctx.progress(i as f64, Some(steps as f64), None).await.ok();
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                tokio::time::sleep(Duration::from_millis(a.ms % 100)).await;
                format!("slept {} ms", a.ms)
            },
        )
        .build()
        .expect("the server builds");
    let handle = match serve_http(server, ("127.0.0.1", port), options).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("fault_replica: cannot serve: {e}");
            std::process::exit(1);
        }
    };
    eprintln!("fault_replica: listening on {}", handle.url("/mcp"));
    if let Err(e) = handle.wait().await {
        eprintln!("fault_replica: stopped: {e}");
        std::process::exit(1);
    }
}
