//! What the proxy adds to a call (issue 39 point 5): the same `tools/call echo` made directly to
//! the Rust bench echo server (`bench/servers`, `ferromcp-echo`) and through `ferromcp proxy` in
//! front of it, at 1 and 32 concurrent callers, for a stdio backend and a Streamable HTTP one.
//! Prints per row the p50 and p99 latency, the calls per second, and the CPU per call of the
//! proxy process (all of it added) and of the echo server, from `/proc/PID/stat`.
//!
//! Callers: over stdio, all share the one connection (concurrent requests on it); over HTTP,
//! each has its own client session. The client is the engine's Rust client in this process on
//! both sides of a comparison, so its cost cancels out of the ratio.
//!
//! ```sh
//! cargo build --release -p ferromcp-cli --bin ferromcp -p ferromcp-bench-servers --bin ferromcp-echo
//! cargo run --release -p ferromcp-proxy --example proxy_bench -- \
//!     --ferromcp target/release/ferromcp --echo target/release/ferromcp-echo [--calls 4000]
//! ```

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::HttpClientOptions;
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use serde_json::json;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the server under test runs, for its CPU figures.
struct Procs {
    /// The proxy's pid (none when direct).
    proxy: Option<u32>,
    /// The echo server's pid.
    echo: u32,
}

/// CPU time (user + system) of `pid` so far, in µs (clock ticks of 10 ms).
fn cpu_us(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        f.get(i - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let hz = 100.0;
    (ticks(14) + ticks(15)) / hz * 1e6
}

/// The first child process of `pid` (the proxy's stdio backend), from any of its threads.
fn child_of(pid: u32) -> Option<u32> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        if let Some(c) = children
            .split_whitespace()
            .next()
            .and_then(|c| c.parse().ok())
        {
            return Some(c);
        }
    }
    None
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn wait_port(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("nothing listens on {port}");
}

fn options() -> ClientOptions {
    ClientOptions::new("proxy-bench", "0")
}

async fn spawn_client(program: &str, args: &[&str]) -> Client {
    let p = ChildProcessOptions::new(program.to_string())
        .args(args.iter().map(|s| s.to_string()))
        .stderr(StderrMode::Null);
    Client::spawn(p, options(), ClientHandlers::default())
        .await
        .expect("client connects")
}

async fn http_client(url: &str) -> Client {
    ferromcp::client::http::connect(
        url,
        options(),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await
    .expect("client connects")
}

/// `callers` tasks making `calls` calls in all; returns the sorted latencies (µs) and the wall
/// time.
async fn run(clients: &[Arc<Client>], callers: usize, calls: usize) -> (Vec<f64>, Duration) {
    let per = calls / callers;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..callers {
        let c = clients[i % clients.len()].clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(per);
            for _ in 0..per {
                let t = Instant::now();
                let r = c
                    .request(
                        "tools/call",
                        Some(json!({ "name": "echo", "arguments": { "text": "hello" } })),
                        RequestOptions::default(),
                    )
                    .await
                    .expect("echo answers");
                assert_eq!(r["content"][0]["text"], "hello");
                lat.push(t.elapsed().as_secs_f64() * 1e6);
            }
            lat
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let wall = start.elapsed();
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (all, wall)
}

fn pick(lat: &[f64], q: f64) -> f64 {
    lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)]
}

/// One measured row: warm-up, then `calls` calls by `callers`; prints its line.
async fn measure(
    label: &str,
    clients: &[Arc<Client>],
    procs: &Procs,
    callers: usize,
    calls: usize,
) -> f64 {
    run(clients, callers, calls / 4).await;
    let (p0, e0) = (procs.proxy.map(cpu_us), cpu_us(procs.echo));
    let (lat, wall) = run(clients, callers, calls).await;
    let n = lat.len() as f64;
    let proxy_cpu = procs.proxy.map(|p| (cpu_us(p) - p0.unwrap()) / n);
    let echo_cpu = (cpu_us(procs.echo) - e0) / n;
    let p50 = pick(&lat, 0.5);
    println!(
        "| {label} | {callers} | {p50:.1} | {:.1} | {:.0} | {} | {echo_cpu:.1} |",
        pick(&lat, 0.99),
        n / wall.as_secs_f64(),
        proxy_cpu.map_or("-".into(), |c| format!("{c:.1}")),
    );
    p50
}

struct Killed(Vec<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let ferromcp = arg("--ferromcp").unwrap_or_else(|| "target/release/ferromcp".into());
    let echo = arg("--echo").unwrap_or_else(|| "target/release/ferromcp-echo".into());
    let calls: usize = arg("--calls").and_then(|c| c.parse().ok()).unwrap_or(4000);
    let dir = std::env::temp_dir().join(format!("proxy-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    println!(
        "| row | callers | p50 µs | p99 µs | calls/s | proxy CPU µs/call | echo CPU µs/call |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");

    // stdio: direct, and through `ferromcp proxy --stdio` with the echo server over stdio.
    let stdio_cfg = dir.join("stdio.json");
    std::fs::write(
        &stdio_cfg,
        json!({ "mcpServers": { "echo": { "command": echo, "args": ["stdio"] } } }).to_string(),
    )
    .unwrap();
    for callers in [1, 32] {
        let direct = Arc::new(spawn_client(&echo, &["stdio"]).await);
        let procs = Procs {
            proxy: None,
            echo: direct.child_pid().unwrap(),
        };
        let d = measure(
            "stdio, direct",
            std::slice::from_ref(&direct),
            &procs,
            callers,
            calls,
        )
        .await;
        direct.close().await;
        let cfg = stdio_cfg.display().to_string();
        let proxied =
            Arc::new(spawn_client(&ferromcp, &["proxy", "--config", &cfg, "--stdio"]).await);
        let proxy_pid = proxied.child_pid().unwrap();
        let procs = Procs {
            proxy: Some(proxy_pid),
            echo: child_of(proxy_pid).expect("the proxy's backend"),
        };
        let p = measure(
            "stdio, proxy (stdio backend)",
            std::slice::from_ref(&proxied),
            &procs,
            callers,
            calls,
        )
        .await;
        println!(
            "| stdio: proxy p50 / direct p50 | {callers} | {:.2}x | | | | |",
            p / d
        );
        proxied.close().await;
    }

    // Streamable HTTP: direct, and through `ferromcp proxy --port` with the echo server over
    // HTTP (and over stdio: a stdio server exposed over HTTP).
    let echo_port = free_port();
    let mut children = Killed(Vec::new());
    children.0.push(
        Command::new(&echo)
            .args(["http", &echo_port.to_string(), "stateful"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let echo_pid = children.0[0].id();
    wait_port(echo_port).await;
    let echo_url = format!("http://127.0.0.1:{echo_port}/mcp");
    let http_cfg = dir.join("http.json");
    std::fs::write(
        &http_cfg,
        json!({ "mcpServers": { "echo": { "url": echo_url } } }).to_string(),
    )
    .unwrap();
    let proxy_port = free_port();
    children.0.push(
        Command::new(&ferromcp)
            .args([
                "proxy",
                "--config",
                &http_cfg.display().to_string(),
                "--port",
                &proxy_port.to_string(),
            ])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let proxy_pid = children.0[1].id();
    wait_port(proxy_port).await;
    let proxy_url = format!("http://127.0.0.1:{proxy_port}/mcp");
    let stdio_proxy_port = free_port();
    children.0.push(
        Command::new(&ferromcp)
            .args([
                "proxy",
                "--config",
                &stdio_cfg.display().to_string(),
                "--port",
                &stdio_proxy_port.to_string(),
            ])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdio_proxy_pid = children.0[2].id();
    wait_port(stdio_proxy_port).await;
    let stdio_proxy_url = format!("http://127.0.0.1:{stdio_proxy_port}/mcp");
    for callers in [1, 32] {
        let mut direct = Vec::new();
        let mut proxied = Vec::new();
        let mut proxied_stdio = Vec::new();
        for _ in 0..callers {
            direct.push(Arc::new(http_client(&echo_url).await));
            proxied.push(Arc::new(http_client(&proxy_url).await));
            proxied_stdio.push(Arc::new(http_client(&stdio_proxy_url).await));
        }
        let procs = Procs {
            proxy: None,
            echo: echo_pid,
        };
        let d = measure("HTTP, direct", &direct, &procs, callers, calls).await;
        let procs = Procs {
            proxy: Some(proxy_pid),
            echo: echo_pid,
        };
        let p = measure(
            "HTTP, proxy (HTTP backend)",
            &proxied,
            &procs,
            callers,
            calls,
        )
        .await;
        println!(
            "| HTTP: proxy p50 / direct p50 | {callers} | {:.2}x | | | | |",
            p / d
        );
        let backend = child_of(stdio_proxy_pid).expect("the proxy's backend");
        let procs = Procs {
            proxy: Some(stdio_proxy_pid),
            echo: backend,
        };
        let s = measure(
            "HTTP, proxy (stdio backend)",
            &proxied_stdio,
            &procs,
            callers,
            calls,
        )
        .await;
        println!(
            "| HTTP: proxy (stdio backend) p50 / direct HTTP p50 | {callers} | {:.2}x | | | | |",
            s / d
        );
        for c in direct.iter().chain(&proxied).chain(&proxied_stdio) {
            c.close().await;
        }
    }
    drop(children);
    let _ = std::fs::remove_dir_all(&dir);
}
