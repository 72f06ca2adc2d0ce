//! What the proxy adds to a call (issue 39 point 5): the same `tools/call echo` made directly to
//! the Rust bench echo server (`bench/servers`, `ferromcp-echo`) and through `ferromcp proxy` in
//! front of it, at 1 and 32 concurrent callers, for a stdio backend and a Streamable HTTP one.
//! Prints per row the p50 and p99 latency, the calls per second, the CPU per call of the proxy
//! process (all of it added) and of the echo server (from `/proc/PID/task/*/schedstat`, ns), and
//! the proxy's voluntary context switches per call (each one a thread going to sleep to wait:
//! the hand-overs a call costs, whatever else runs on the machine).
//!
//! Every comparison is made inside one repetition (direct, then proxied, back to back), and the
//! repetitions (`--reps`, default 3) are summed up by their medians: the machine is shared, so
//! figures of different runs are not compared. `--baseline PATH` adds the rows of a second
//! `ferromcp` binary (the proxy before a change) to each repetition, for a before/after in one
//! run; `--baseline-env K=V[,K=V]` runs that baseline (or, without `--baseline`, the same
//! binary) with those variables, e.g. `FERROMCP_WAIT_POLICY=park`; `--echo-env K=V[,K=V]` runs
//! every echo server (direct and behind the proxies) with those, e.g. `FERROMCP_BENCH_WAIT=spin`. `--only stdio` or
//! `--only http` runs one half. `--fastmcp PYTHON` adds FastMCP's proxy
//! (`bench/servers/python/fastmcp_proxy.py`, `--fastmcp-script` to move it; `fastmcp` pinned in
//! requirements-test.txt, so `.tools/venv/bin/python` after scripts/setup-test-deps) in front of
//! the same echo server, one row per `--fastmcp-sessions` value (default `fresh,shared`: a fresh
//! backend session per request, as `create_proxy(transport)` builds it, and one connected
//! client's session shared by all), with `--fastmcp-calls` calls per row (default 640).
//!
//! Callers: over stdio, all share the one connection (concurrent requests on it); over HTTP,
//! each has its own client session. The client is the engine's Rust client in this process on
//! both sides of a comparison, so its cost cancels out of the ratio.
//!
//! ```sh
//! cargo build --release -p ferromcp-cli --bin ferromcp -p ferromcp-bench-servers --bin ferromcp-echo
//! cargo run --release -p ferromcp-proxy --example proxy_bench -- \
//!     --ferromcp target/release/ferromcp --echo target/release/ferromcp-echo [--calls 4000] \
//!     [--reps 3] [--only stdio|http] [--baseline OLD_FERROMCP] [--baseline-env K=V] [--echo-env K=V] \
//!     [--fastmcp .tools/venv/bin/python [--fastmcp-calls 640] [--fastmcp-sessions fresh,shared]]
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
    echo: Echo,
}

/// Where the echo server is.
#[derive(Clone, Copy)]
enum Echo {
    /// This pid.
    Pid(u32),
    /// The first child of this pid (a proxy's stdio backend), looked up after the warm-up,
    /// since FastMCP's proxy starts its backend with its first request; no figure when it is
    /// not the same process at the end of the row.
    ChildOf(u32),
}

/// A figure summed over the live threads of `pid`: the first number of each thread's
/// `/proc/PID/task/TID/<file>` after `prefix` (the whole file when `prefix` is empty).
fn per_thread_sum(pid: u32, file: &str, prefix: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0.0;
    };
    let mut total = 0.0;
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join(file)).unwrap_or_default();
        let value = if prefix.is_empty() {
            Some(text.as_str())
        } else {
            text.lines().find_map(|l| l.strip_prefix(prefix))
        };
        total += value
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
    }
    total
}

/// CPU time of `pid`'s live threads so far, in µs (`schedstat`, ns resolution).
fn cpu_us(pid: u32) -> f64 {
    per_thread_sum(pid, "schedstat", "") / 1e3
}

/// Voluntary context switches of `pid`'s live threads so far.
fn switches(pid: u32) -> f64 {
    per_thread_sum(pid, "status", "voluntary_ctxt_switches:")
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
    // 20 s: a Python proxy (FastMCP) imports for seconds on a loaded machine.
    for _ in 0..800 {
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

async fn spawn_client(program: &str, args: &[&str], env: &[(String, String)]) -> Client {
    let p = ChildProcessOptions::new(program.to_string())
        .args(args.iter().map(|s| s.to_string()))
        .envs(env.iter().cloned())
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

/// One measured row.
struct Row {
    p50: f64,
    p99: f64,
    rate: f64,
    proxy_cpu: Option<f64>,
    proxy_switches: Option<f64>,
    echo_cpu: Option<f64>,
}

/// One measured row: warm-up, then `calls` calls by `callers`; prints its line.
async fn measure(
    label: &str,
    clients: &[Arc<Client>],
    procs: &Procs,
    callers: usize,
    calls: usize,
) -> Row {
    run(clients, callers, calls / 4).await;
    let echo_pid = || match procs.echo {
        Echo::Pid(p) => Some(p),
        Echo::ChildOf(p) => child_of(p),
    };
    let echo0 = echo_pid();
    let p0 = procs.proxy.map(|p| (cpu_us(p), switches(p)));
    let e0 = echo0.map(cpu_us);
    let (lat, wall) = run(clients, callers, calls).await;
    let n = lat.len() as f64;
    let echo_cpu = match (echo0, e0) {
        (Some(pid), Some(e0)) if echo_pid() == Some(pid) => Some((cpu_us(pid) - e0) / n),
        _ => None,
    };
    let proxy = procs
        .proxy
        .zip(p0)
        .map(|(p, (c0, s0))| ((cpu_us(p) - c0) / n, (switches(p) - s0) / n));
    let row = Row {
        p50: pick(&lat, 0.5),
        p99: pick(&lat, 0.99),
        rate: n / wall.as_secs_f64(),
        proxy_cpu: proxy.map(|p| p.0),
        proxy_switches: proxy.map(|p| p.1),
        echo_cpu,
    };
    let opt = |v: Option<f64>| v.map_or("-".into(), |c| format!("{c:.1}"));
    println!(
        "| {label} | {callers} | {:.1} | {:.1} | {:.0} | {} | {} | {} |",
        row.p50,
        row.p99,
        row.rate,
        opt(row.proxy_cpu),
        opt(row.proxy_switches),
        opt(row.echo_cpu),
    );
    row
}

/// The median of `v` (empty: 0).
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// The rows of one kind (a transport, a number of callers, direct or a proxy binary) over the
/// repetitions, and the ratio of each repetition's p50 to its direct row's.
#[derive(Default)]
struct Series {
    rows: Vec<Row>,
    ratios: Vec<f64>,
}

/// Every series, in the order they were first measured.
#[derive(Default)]
struct Summary(Vec<(String, usize, Series)>);

impl Summary {
    fn add(&mut self, label: &str, callers: usize, row: Row, direct_p50: Option<f64>) {
        let i = match self
            .0
            .iter()
            .position(|(l, c, _)| l == label && *c == callers)
        {
            Some(i) => i,
            None => {
                self.0.push((label.to_string(), callers, Series::default()));
                self.0.len() - 1
            }
        };
        let series = &mut self.0[i].2;
        if let Some(d) = direct_p50 {
            series.ratios.push(row.p50 / d);
        }
        series.rows.push(row);
    }

    fn print(&self, reps: usize) {
        println!();
        println!("Medians of {reps} repetitions (ratio: the median of each repetition's proxy p50 / its direct p50):");
        println!();
        println!("| row | callers | p50 µs | p99 µs | calls/s | proxy CPU µs/call | proxy switches/call | echo CPU µs/call | p50 / direct p50 |");
        println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (label, callers, s) in &self.0 {
            let m = |f: fn(&Row) -> f64| median(s.rows.iter().map(f).collect());
            let mo = |f: fn(&Row) -> Option<f64>| {
                let v: Vec<f64> = s.rows.iter().filter_map(f).collect();
                if v.is_empty() {
                    "-".to_string()
                } else {
                    format!("{:.1}", median(v))
                }
            };
            let ratio = if s.ratios.is_empty() {
                "-".to_string()
            } else {
                format!(
                    "{:.2}x ({})",
                    median(s.ratios.clone()),
                    s.ratios
                        .iter()
                        .map(|r| format!("{r:.2}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            println!(
                "| {label} | {callers} | {:.1} | {:.1} | {:.0} | {} | {} | {} | {ratio} |",
                m(|r| r.p50),
                m(|r| r.p99),
                m(|r| r.rate),
                mo(|r| r.proxy_cpu),
                mo(|r| r.proxy_switches),
                mo(|r| r.echo_cpu),
            );
        }
    }
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

/// A proxy under test: its label in the rows, its binary and its environment.
struct ProxyBin {
    label: &'static str,
    path: String,
    env: Vec<(String, String)>,
}

/// FastMCP's proxy (`bench/servers/python/fastmcp_proxy.py`), measured beside `ferromcp proxy`.
struct FastMcp {
    /// An interpreter with `fastmcp` installed (`--fastmcp`).
    python: String,
    /// `--fastmcp-script`.
    script: String,
    /// Calls per row (`--fastmcp-calls`): fewer than the other rows', since each of FastMCP's
    /// may open a backend session.
    calls: usize,
    /// `FERROMCP_BENCH_FASTMCP_SESSION` values, one row each (`--fastmcp-sessions`).
    sessions: Vec<String>,
}

impl FastMcp {
    /// The script's arguments after its front (`stdio` or a port) for a backend.
    fn backend_args(&self, echo: &str, echo_url: Option<&str>) -> Vec<String> {
        match echo_url {
            Some(url) => vec!["--backend-url".into(), url.into()],
            None => vec!["--backend-stdio".into(), echo.into(), "stdio".into()],
        }
    }

    fn env(&self, session: &str) -> Vec<(String, String)> {
        vec![(
            "FERROMCP_BENCH_FASTMCP_SESSION".to_string(),
            session.to_string(),
        )]
    }
}

/// `KEY=VALUE,KEY=VALUE` as pairs.
fn env_pairs(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .expect("--baseline-env and --echo-env take KEY=VALUE[,KEY=VALUE]");
            (k.to_string(), v.to_string())
        })
        .collect()
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
    let reps: usize = arg("--reps")
        .and_then(|c| c.parse().ok())
        .unwrap_or(3)
        .max(1);
    let only = arg("--only").unwrap_or_default();
    let baseline_env = arg("--baseline-env").map(|e| env_pairs(&e));
    let mut bins = vec![ProxyBin {
        label: "proxy",
        path: ferromcp.clone(),
        env: Vec::new(),
    }];
    if arg("--baseline").is_some() || baseline_env.is_some() {
        bins.push(ProxyBin {
            label: "baseline proxy",
            path: arg("--baseline").unwrap_or(ferromcp),
            env: baseline_env.unwrap_or_default(),
        });
    }
    let echo_env = arg("--echo-env").map(|e| env_pairs(&e)).unwrap_or_default();
    let fastmcp = arg("--fastmcp").map(|python| FastMcp {
        python,
        script: arg("--fastmcp-script")
            .unwrap_or_else(|| "bench/servers/python/fastmcp_proxy.py".into()),
        calls: arg("--fastmcp-calls")
            .and_then(|c| c.parse().ok())
            .unwrap_or(640)
            .max(32),
        sessions: arg("--fastmcp-sessions")
            .unwrap_or_else(|| "fresh,shared".into())
            .split(',')
            .map(str::to_string)
            .collect(),
    });
    let echo_env_json: serde_json::Map<String, serde_json::Value> = echo_env
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let dir = std::env::temp_dir().join(format!("proxy-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut summary = Summary::default();

    println!(
        "| row | callers | p50 µs | p99 µs | calls/s | proxy CPU µs/call | proxy switches/call | echo CPU µs/call |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");

    // stdio: direct, and through `ferromcp proxy --stdio` with the echo server over stdio.
    let stdio_cfg = dir.join("stdio.json");
    std::fs::write(
        &stdio_cfg,
        json!({ "mcpServers": { "echo": { "command": echo, "args": ["stdio"], "env": echo_env_json } } })
            .to_string(),
    )
    .unwrap();
    let cfg = stdio_cfg.display().to_string();
    for _ in 0..reps {
        if only == "http" {
            break;
        }
        for callers in [1, 32] {
            let direct = Arc::new(spawn_client(&echo, &["stdio"], &echo_env).await);
            let procs = Procs {
                proxy: None,
                echo: Echo::Pid(direct.child_pid().unwrap()),
            };
            let label = "stdio, direct";
            let d = measure(label, std::slice::from_ref(&direct), &procs, callers, calls).await;
            let direct_p50 = d.p50;
            summary.add(label, callers, d, None);
            direct.close().await;
            for bin in &bins {
                let proxied = Arc::new(
                    spawn_client(&bin.path, &["proxy", "--config", &cfg, "--stdio"], &bin.env)
                        .await,
                );
                let proxy_pid = proxied.child_pid().unwrap();
                let procs = Procs {
                    proxy: Some(proxy_pid),
                    echo: Echo::ChildOf(proxy_pid),
                };
                let label = format!("stdio, {} (stdio backend)", bin.label);
                let p = measure(
                    &label,
                    std::slice::from_ref(&proxied),
                    &procs,
                    callers,
                    calls,
                )
                .await;
                summary.add(&label, callers, p, Some(direct_p50));
                proxied.close().await;
            }
            for (f, session) in fastmcp
                .iter()
                .flat_map(|f| f.sessions.iter().map(move |s| (f, s)))
            {
                let mut args = vec![f.script.clone(), "stdio".to_string()];
                args.extend(f.backend_args(&echo, None));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let proxied = Arc::new(spawn_client(&f.python, &args, &f.env(session)).await);
                let proxy_pid = proxied.child_pid().unwrap();
                let procs = Procs {
                    proxy: Some(proxy_pid),
                    echo: Echo::ChildOf(proxy_pid),
                };
                let label = format!("stdio, FastMCP proxy, {session} sessions (stdio backend)");
                let p = measure(
                    &label,
                    std::slice::from_ref(&proxied),
                    &procs,
                    callers,
                    f.calls,
                )
                .await;
                summary.add(&label, callers, p, Some(direct_p50));
                proxied.close().await;
            }
        }
    }

    // Streamable HTTP: direct, and through `ferromcp proxy --port` with the echo server over
    // HTTP (and over stdio: a stdio server exposed over HTTP).
    if only != "stdio" {
        let echo_port = free_port();
        let mut children = Killed(Vec::new());
        children.0.push(
            Command::new(&echo)
                .envs(echo_env.iter().cloned())
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
        // Per binary: (label, pid, URL, backend kind, calls).
        let mut proxies = Vec::new();
        for bin in &bins {
            for (cfg, kind) in [(&http_cfg, "HTTP"), (&stdio_cfg, "stdio")] {
                let port = free_port();
                children.0.push(
                    Command::new(&bin.path)
                        .envs(bin.env.iter().cloned())
                        .args([
                            "proxy",
                            "--config",
                            &cfg.display().to_string(),
                            "--port",
                            &port.to_string(),
                        ])
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap(),
                );
                let pid = children.0.last().unwrap().id();
                wait_port(port).await;
                proxies.push((
                    format!("HTTP, {} ({kind} backend)", bin.label),
                    pid,
                    format!("http://127.0.0.1:{port}/mcp"),
                    kind,
                    calls,
                ));
            }
        }
        if let Some(f) = &fastmcp {
            for session in &f.sessions {
                for (url, kind) in [(Some(echo_url.as_str()), "HTTP"), (None, "stdio")] {
                    let port = free_port();
                    children.0.push(
                        Command::new(&f.python)
                            .envs(f.env(session))
                            .arg(&f.script)
                            .arg(port.to_string())
                            .args(f.backend_args(&echo, url))
                            .stderr(Stdio::null())
                            .spawn()
                            .unwrap(),
                    );
                    let pid = children.0.last().unwrap().id();
                    wait_port(port).await;
                    proxies.push((
                        format!("HTTP, FastMCP proxy, {session} sessions ({kind} backend)"),
                        pid,
                        format!("http://127.0.0.1:{port}/mcp"),
                        kind,
                        f.calls,
                    ));
                }
            }
        }
        for _ in 0..reps {
            for callers in [1, 32] {
                let mut direct = Vec::new();
                for _ in 0..callers {
                    direct.push(Arc::new(http_client(&echo_url).await));
                }
                let procs = Procs {
                    proxy: None,
                    echo: Echo::Pid(echo_pid),
                };
                let label = "HTTP, direct";
                let d = measure(label, &direct, &procs, callers, calls).await;
                let direct_p50 = d.p50;
                summary.add(label, callers, d, None);
                for c in &direct {
                    c.close().await;
                }
                for (label, pid, url, kind, calls) in &proxies {
                    let mut proxied = Vec::new();
                    for _ in 0..callers {
                        proxied.push(Arc::new(http_client(url).await));
                    }
                    let echo = match *kind {
                        "stdio" => Echo::ChildOf(*pid),
                        _ => Echo::Pid(echo_pid),
                    };
                    let procs = Procs {
                        proxy: Some(*pid),
                        echo,
                    };
                    let p = measure(label, &proxied, &procs, callers, *calls).await;
                    summary.add(label, callers, p, Some(direct_p50));
                    for c in &proxied {
                        c.close().await;
                    }
                }
            }
        }
        drop(children);
    }
    summary.print(reps);
    let _ = std::fs::remove_dir_all(&dir);
}
