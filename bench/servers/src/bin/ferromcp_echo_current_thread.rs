//! The same echo server as `ferromcp-echo` on a tokio current-thread runtime (one thread for
//! everything): the tuned variant, kept beside the README's `#[tokio::main]` to show what the
//! runtime choice changes. Usage: as `ferromcp-echo`.

#[path = "../echo_common.rs"]
mod echo_common;

use echo_common::{build, http_options, mode, observe, Mode};
use ferromcp::transport::http::serve_http;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match mode() {
        Mode::Stdio => build().serve_stdio().await?,
        Mode::Http(port, m) => {
            let http = serve_http(build(), ("127.0.0.1", port), http_options(&m)).await?;
            observe(&http);
            eprintln!(
                "ferromcp-echo-current-thread listening on {}",
                http.local_addr()
            );
            http.wait().await?;
        }
    }
    Ok(())
}
