//! ferromcp with a Rust handler, written the way the README teaches: tokio's multi-threaded
//! runtime with its defaults (what `#[tokio::main]` builds), then `serve_stdio()` or
//! `serve_http(...)`.
//! Usage: `ferromcp-echo stdio` | `ferromcp-echo http PORT [stateful|stateless|json]`.
//! `ferromcp-echo-current-thread` is the same server on a current-thread runtime.
//! `FERROMCP_BENCH_WAIT=spin` opts the runtime's threads in to the engine's spinning wait
//! (`ferromcp::wait::WaitPolicy::spin()` in `on_thread_start`, the row "Rust handler, spin
//! opted in"); unset, they park, as in any user's own runtime.

#[path = "../echo_common.rs"]
mod echo_common;

use echo_common::{build, http_options, mode, observe, Mode};
use ferromcp::transport::http::serve_http;
use ferromcp::wait::WaitPolicy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    rt.enable_all();
    match std::env::var("FERROMCP_BENCH_WAIT").as_deref() {
        Err(_) | Ok("") => {}
        Ok("spin") => {
            rt.on_thread_start(|| WaitPolicy::spin().set_for_this_thread());
        }
        Ok(other) => {
            return Err(format!("FERROMCP_BENCH_WAIT must be spin or unset, not {other:?}").into())
        }
    }
    rt.build()?.block_on(serve())
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    match mode() {
        Mode::Stdio => build().serve_stdio().await?,
        Mode::Http(port, m) => {
            let http = serve_http(build(), ("127.0.0.1", port), http_options(&m)).await?;
            observe(&http);
            eprintln!("ferromcp-echo listening on {}", http.local_addr());
            http.wait().await?;
        }
    }
    Ok(())
}
