//! `ferromcp`: the proxy in front of MCP servers configured with the `mcpServers` JSON, and a
//! client for any MCP server (list, call, read, prompt, inspect). See docs/gateway.md.

mod args;
mod client_cmd;
mod render;
mod serve;

use args::Command;

fn main() {
    let parsed = args::parse(std::env::args().skip(1).collect());
    let command = match parsed {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ferromcp: {}\n\n{}", e.0, args::USAGE);
            std::process::exit(2);
        }
    };
    let status = match command {
        Command::Help => {
            print!("{}", args::USAGE);
            0
        }
        Command::Version => {
            println!("ferromcp {}", env!("CARGO_PKG_VERSION"));
            0
        }
        command => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            let outcome = runtime.block_on(async move {
                match command {
                    Command::Proxy(a) => serve::run(a).await,
                    other => client_cmd::run(other).await,
                }
            });
            // Backends and servers may leave tasks blocked on pipes: do not wait for them.
            runtime.shutdown_timeout(std::time::Duration::from_millis(500));
            match outcome {
                Ok(status) => status,
                Err(f) => {
                    eprintln!("ferromcp: {}", f.message);
                    f.status
                }
            }
        }
    };
    std::process::exit(status);
}
