//! The `ferromcp` command as a library: [`run`] takes the command's arguments and returns its
//! exit status. The binary (`main.rs`) calls it, and so do the Python and Node native modules
//! (`ferromcp._native.cli_main`, the addon's `cliMain`), which is how `pip install ferromcp` and
//! `npm install ferromcp` give the same `ferromcp` command without a second binary in each
//! package: the command adds its own code and the proxy's to a module that already holds the
//! engine (docs/releasing.md, "The ferromcp command in the packages").
//!
//! The proxy in front of MCP servers configured with the `mcpServers` JSON, and a client for any
//! MCP server (list, call, read, prompt, inspect): docs/gateway.md.

mod args;
mod auth;
mod client_cmd;
mod middleware;
mod render;
mod serve;

use args::Command;
use std::io::Write;

/// Runs the `ferromcp` command with `args` (without the program name) and returns its exit
/// status: 0; 1 when the server answered with an error or the tool reported one; 2 on usage
/// errors. It prints to the process's stdout and stderr, and may install SIGINT/SIGTERM handlers
/// (`proxy`, to close its backends). It never exits the process: an embedding host does that.
pub fn run(args: Vec<String>) -> i32 {
    let status = run_command(args);
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    status
}

fn run_command(args: Vec<String>) -> i32 {
    let command = match args::parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ferromcp: {}\n\n{}", e.0, args::USAGE);
            return 2;
        }
    };
    match command {
        Command::Help => {
            print!("{}", args::USAGE);
            0
        }
        Command::Version => {
            println!("ferromcp {}", env!("CARGO_PKG_VERSION"));
            0
        }
        command => {
            let runtime = match runtime_for(&command) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("ferromcp: {e}");
                    return 2;
                }
            };
            let outcome = runtime.block_on(async move {
                match command {
                    Command::Proxy(a) => serve::run(*a).await,
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
    }
}

/// The runtime of a command. `ferromcp proxy --stdio` runs on one thread: a call crosses its
/// two pipes on the thread that read it, where a second worker would be woken and put to sleep
/// again on every call (measured in bench/results/proxy-latency.md). Everything else gets
/// tokio's multi-threaded defaults. `FERROMCP_WORKERS` (1 to 64; 1 is one thread) overrides
/// both, and `FERROMCP_WAIT_POLICY` (`spin`, 60 µs, unless set; `park`, `spin:<µs>`) sets
/// whether the threads spin briefly for an event about to come (docs/runtime.md): they are the
/// engine's own, so they get the bindings' policy, read by
/// [`ferromcp_embed::runtime::RuntimeSettings::wait_from_lookup`] (spinning, one HTTP caller
/// through `ferromcp proxy` was 6-35 % faster than parked: bench/results/proxy-latency.md, "The
/// command's threads spin by default").
fn runtime_for(command: &Command) -> Result<tokio::runtime::Runtime, String> {
    let workers_var = ferromcp_embed::runtime::WORKERS_VAR;
    let workers = match std::env::var(workers_var) {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<usize>() {
            Ok(n) if (1..=64).contains(&n) => Some(n),
            _ => {
                return Err(format!(
                    "{workers_var}={v:?}: expected a whole number, 1 to 64"
                ))
            }
        },
        _ => None,
    };
    let wait =
        ferromcp_embed::runtime::RuntimeSettings::wait_from_lookup(|name| std::env::var(name).ok())
            .map_err(|e| e.to_string())?;
    let stdio_proxy = matches!(command, Command::Proxy(a) if a.listen == args::Listen::Stdio);
    let mut builder = match workers {
        Some(1) => tokio::runtime::Builder::new_current_thread(),
        None if stdio_proxy => tokio::runtime::Builder::new_current_thread(),
        Some(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
        None => tokio::runtime::Builder::new_multi_thread(),
    };
    // The current-thread runtime's one thread is this one.
    wait.set_for_this_thread();
    builder
        .enable_all()
        .on_thread_start(move || wait.set_for_this_thread())
        .build()
        .map_err(|e| format!("cannot start a tokio runtime: {e}"))
}
