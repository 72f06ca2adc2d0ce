//! ferromcp with a Rust handler: the benchmark's `echo` tool over stdio (and, once the
//! Streamable HTTP transport is merged, over HTTP). Usage: `ferromcp-echo stdio`.

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
        .tool("echo", "Echoes the text back", |a: EchoArgs, _ctx| async move { a.text })
        .build()
        .expect("server builds")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        None | Some("stdio") => {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            if let Err(e) = rt.block_on(build().serve_stdio()) {
                eprintln!("server stopped: {e}");
                std::process::exit(1);
            }
        }
        Some(other) => {
            eprintln!("usage: ferromcp-echo stdio (got {other}; HTTP is not merged yet)");
            std::process::exit(2);
        }
    }
}
