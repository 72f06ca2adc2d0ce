//! ferromcp with a Rust handler: the benchmark's `echo` tool over stdio and Streamable HTTP
//! (session cap 20,000 and 30 min idle timeout, set explicitly). Usage: `ferromcp-echo stdio` | `ferromcp-echo http PORT [stateful|stateless|json]`.

use ferromcp::server::Server;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

fn build() -> Server {
    Server::builder("ferromcp-bench", env!("CARGO_PKG_VERSION"))
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .build()
        .expect("server builds")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        None | Some("stdio") => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            if let Err(e) = rt.block_on(build().serve_stdio()) {
                eprintln!("server stopped: {e}");
                std::process::exit(1);
            }
        }
        Some("http") => {
            use ferromcp::transport::http::{serve_http, HttpServerOptions};
            let port: u16 = args.get(2).and_then(|p| p.parse().ok()).unwrap_or(0);
            let mode = args.get(3).map(String::as_str).unwrap_or("stateful");
            // Set explicitly for the benchmark: the driver holds 10,000 idle sessions (plus the
            // few of its load phases, which it DELETEs) and must not hit the session cap (503)
            // or lose sessions to idle reaping while it reads RSS.
            let options = HttpServerOptions {
                stateless: mode != "stateful",
                json_response: mode == "json",
                max_sessions: 20_000,
                session_idle_timeout: std::time::Duration::from_secs(30 * 60),
                ..HttpServerOptions::default()
            };
            // One thread: on this 2-core machine the driver needs the other core, and a
            // current-thread runtime has no cross-worker wake-ups. Measured A/B on 2026-11-22
            // (2 runs each, stateless JSON, 32 clients): current-thread 97-101k calls/s at
            // 9.8-10.2 µs server CPU per call, multi-thread 75-78k at 12.8-14.4 µs. (The floor,
            // tried the same way, did better multi-threaded: it stays so.)
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let handle = serve_http(build(), ("127.0.0.1", port), options)
                    .await
                    .expect("bind");
                eprintln!("ferromcp-echo listening on {}", handle.local_addr());
                if let Err(e) = handle.wait().await {
                    eprintln!("server stopped: {e}");
                    std::process::exit(1);
                }
            });
        }
        Some(other) => {
            eprintln!(
                "usage: ferromcp-echo [stdio | http PORT [stateful|stateless|json]] (got {other})"
            );
            std::process::exit(2);
        }
    }
}
