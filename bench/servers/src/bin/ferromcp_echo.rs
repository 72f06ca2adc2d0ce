//! ferromcp with a Rust handler, written the way the README teaches: `#[tokio::main]` (tokio's
//! multi-threaded runtime with its defaults), then `serve_stdio()` or `serve_http(...)`.
//! Usage: `ferromcp-echo stdio` | `ferromcp-echo http PORT [stateful|stateless|json]`.
//! `ferromcp-echo-current-thread` is the same server on a current-thread runtime.

#[path = "../echo_common.rs"]
mod echo_common;

use echo_common::{build, http_options, mode, Mode};
use ferromcp::transport::http::serve_http;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match mode() {
        Mode::Stdio => build().serve_stdio().await?,
        Mode::Http(port, m) => {
            let http = serve_http(build(), ("127.0.0.1", port), http_options(&m)).await?;
            eprintln!("ferromcp-echo listening on {}", http.local_addr());
            http.wait().await?;
        }
    }
    Ok(())
}
