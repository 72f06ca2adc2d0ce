//! mcp-bench: runs every benchmark server back to back (interleaved, N repetitions), checks every
//! response, and writes a Markdown report with medians, spread and ratios plus SVG charts.
//!
//! Env: MCP_BENCH_WRAP="strace -f -c -o FILE" runs each server under a profiler or tracer.
//!
//! Usage: mcp-bench [--smoke] [--reps N] [--phase-ms MS] [--only a,b] [--row NAME] [--transports stdio,http-json,..] [--huge-sessions N] [--root DIR] [--bin-dir DIR] [--out DIR]
//!
//! `--only a,b` and `--row NAME` select rows by their names (see [`RowFilter`]): `--only` by
//! substrings, split at commas; `--row` by one whole name, commas included.
//!
//! `--huge-sessions N`: how many idle sessions the rows with `Spec::huge_sessions` (ferromcp's
//! Rust rows) hold for their last RSS figure (default 100,000; 2,000 with `--smoke`). Their
//! servers get `FERROMCP_BENCH_MAX_SESSIONS` = N + N/10 (at least 110,000, the servers' own
//! default) so the cap stays above it; opening them may take 180 s per 100,000.

mod http;
mod httpload;
mod httpwire;
mod keepalive;
mod middleware_rows;
mod procstat;
mod proto;
mod report;
mod sdk_form_rows;
mod selection;
mod stdio;

use selection::RowFilter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub type Metrics = BTreeMap<&'static str, f64>;

/// How much load each phase applies.
pub struct Load {
    pub warmup: u64,
    pub seq: u64,
    pub pipe: u64,
    pub inflight: u64,
    pub clients: usize,
    /// Sessions opened for the per-idle-session memory figure.
    pub sessions: usize,
    /// Idle sessions held in all for the "RSS with N idle sessions" figure.
    pub big_sessions: usize,
    /// Idle sessions held in all for the "RSS with N idle sessions" figure of the rows with
    /// `Spec::huge_sessions` (on from `big_sessions`, same server).
    pub huge_sessions: usize,
    /// How long opening `big_sessions` may take before the row gives up (opening the huge ones
    /// may take 3× this per 100,000, see [`Load::huge_deadline`]).
    pub big_deadline: Duration,
    pub phase: Duration,
    /// Spawns whose median is the cold-start figure (fewer once `cold_budget` is spent, at
    /// least three).
    pub cold: usize,
    pub cold_budget: Duration,
}

/// Idle sessions counted as "100,000" in the targets (issue 19) and read on the way to more.
pub const LAKH: usize = 100_000;

impl Load {
    /// How long going on from `big_sessions` to `huge_sessions` may take: 3× `big_deadline`
    /// per 100,000 sessions (started), so it scales with `--huge-sessions`.
    pub fn huge_deadline(&self) -> Duration {
        self.big_deadline * 3 * self.huge_sessions.div_ceil(LAKH).max(1) as u32
    }

    /// The session cap the huge rows' servers are given (`FERROMCP_BENCH_MAX_SESSIONS`): a tenth
    /// above `huge_sessions` for the load phases' few sessions, at least the servers' default.
    pub fn huge_cap(&self) -> usize {
        (self.huge_sessions + self.huge_sessions / 10).max(110_000)
    }
}

/// Sequential calls, timed one by one: up to `load.seq` of them, for the phase's length (at
/// least `min`). `call` makes call `id` and returns its latency. Returns the latencies (ns) and
/// the wall time (s); `id` is left at the next unused id.
pub fn timed_calls(
    load: &Load,
    min: usize,
    id: &mut u64,
    mut call: impl FnMut(u64) -> Result<std::time::Duration, String>,
) -> Result<(Vec<u64>, f64), String> {
    let start = std::time::Instant::now();
    let mut lat = Vec::with_capacity(load.seq as usize);
    while (lat.len() as u64) < load.seq && (lat.len() < min || start.elapsed() < load.phase) {
        lat.push(call(*id)?.as_nanos() as u64);
        *id += 1;
    }
    Ok((lat, start.elapsed().as_secs_f64()))
}

pub fn latency_metrics(m: &mut Metrics, prefix: &'static str, lat: &mut [u64], wall: f64) {
    lat.sort_unstable();
    let pick = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)] as f64 / 1e3;
    let key = |s: &str| -> &'static str { Box::leak(format!("{prefix}_{s}").into_boxed_str()) };
    m.insert(key("p50_us"), pick(0.50));
    m.insert(key("p99_us"), pick(0.99));
    m.insert(key("rate"), lat.len() as f64 / wall);
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Swift,
}

/// One server under test.
pub struct Spec {
    pub name: &'static str,
    pub lang: Lang,
    /// The official SDK of its language, the floor, or ferromcp.
    pub kind: Kind,
    pub stdio: Option<Vec<String>>,
    /// HTTP command per mode ("stateful", "stateless", "json"); `{port}` is substituted.
    pub http: BTreeMap<&'static str, Vec<String>>,
    /// Extra environment for the server process.
    pub env: Vec<(String, String)>,
    /// Why a row is missing, for rows that cannot run.
    pub na: Option<String>,
    pub smoke: bool,
    /// Whether the idle-session phase goes on to `Load::huge_sessions` (ferromcp's Rust rows,
    /// whose servers set a session cap above it).
    pub huge_sessions: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Floor,
    Ferro,
    Official,
    /// Another framework, or an official SDK with a setting of its own (the middleware rows):
    /// measured beside the others, never the reference of a ratio or a target.
    Other,
}

pub const MODES: [&str; 4] = ["stateful", "stateless", "json", PER_REQUEST];
/// The HTTP modes of servers that speak only the handshake era (up to 2025-11-25).
pub const HANDSHAKE_MODES: [&str; 3] = ["stateful", "stateless", "json"];
/// The HTTP modes a smoke run measures.
pub const SMOKE_MODES: [&str; 3] = ["stateful", "json", PER_REQUEST];
/// The per-request era (2026-07-28): the driver's clients send no `initialize` and no session,
/// every `tools/call` carries `_meta` and `Mcp-Method` / `Mcp-Name`; the server runs as in
/// `stateless` (ferromcp serves both eras on one endpoint in any mode).
pub const PER_REQUEST: &str = "per-request";

/// `base http {port} MODE` per mode (the interface of every bench server; `{port}` is substituted
/// at spawn); the per-request mode starts the server `stateless`.
fn http_modes(base: &[String], modes: &[&'static str]) -> BTreeMap<&'static str, Vec<String>> {
    modes
        .iter()
        .map(|m| {
            let mut c = base.to_vec();
            let server_mode = if *m == PER_REQUEST { "stateless" } else { m };
            c.extend([
                "http".to_string(),
                "{port}".to_string(),
                server_mode.to_string(),
            ]);
            (*m, c)
        })
        .collect()
}

/// `base stdio`.
fn stdio_cmd(base: &[String]) -> Vec<String> {
    let mut c = base.to_vec();
    c.push("stdio".into());
    c
}

fn specs(root: &Path, bins: &Path) -> Vec<Spec> {
    let b = |n: &str| bins.join(n).display().to_string();
    let py = root.join(".tools/venv/bin/python").display().to_string();
    let pyscript = |n: &str| {
        root.join("bench/servers/python")
            .join(n)
            .display()
            .to_string()
    };
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".into());
    let nodescript = root
        .join("bench/servers/node/echo.mjs")
        .display()
        .to_string();
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let modes = |base: Vec<String>, modes: &[&'static str]| http_modes(&base, modes);
    vec![
        Spec {
            name: "floor (serde_json, no MCP lib)",
            lang: Lang::Rust,
            kind: Kind::Floor,
            stdio: Some(v(&[&b("floor-echo"), "stdio"])),
            http: modes(v(&[&b("floor-echo")]), &["json"]),
            env: Vec::new(),
            na: None,
            smoke: true,
            huge_sessions: false,
        },
        // As the README writes it: #[tokio::main] (multi-threaded), serve_stdio / serve_http.
        Spec {
            name: "ferromcp (Rust handler)",
            lang: Lang::Rust,
            kind: Kind::Ferro,
            stdio: Some(v(&[&b("ferromcp-echo"), "stdio"])),
            http: modes(v(&[&b("ferromcp-echo")]), &MODES),
            env: Vec::new(),
            na: None,
            smoke: true,
            huge_sessions: true,
        },
        // The same server with its runtime's threads opted in to the engine's spinning wait
        // (`ferromcp::wait`; without it a user's own runtime parks).
        Spec {
            name: "ferromcp (Rust handler, spin opted in)",
            lang: Lang::Rust,
            kind: Kind::Ferro,
            stdio: Some(v(&[&b("ferromcp-echo"), "stdio"])),
            http: modes(v(&[&b("ferromcp-echo")]), &MODES),
            env: vec![("FERROMCP_BENCH_WAIT".into(), "spin".into())],
            na: None,
            smoke: false,
            huge_sessions: false,
        },
        // The same server on a current-thread runtime.
        Spec {
            name: "ferromcp (Rust handler, current-thread runtime)",
            lang: Lang::Rust,
            kind: Kind::Ferro,
            stdio: Some(v(&[&b("ferromcp-echo-current-thread"), "stdio"])),
            http: modes(v(&[&b("ferromcp-echo-current-thread")]), &MODES),
            env: Vec::new(),
            na: None,
            smoke: false,
            huge_sessions: true,
        },
        // Opt-in (MCP_BENCH_OTEL=1, else removed in main): the OpenTelemetry layer on,
        // spans sampled at 1 % (docs/observability.md measures it against the row above).
        Spec {
            name: "ferromcp (Rust handler, OpenTelemetry, 1% sampled)",
            lang: Lang::Rust,
            kind: Kind::Ferro,
            stdio: Some(v(&[&b("ferromcp-echo"), "stdio"])),
            http: modes(v(&[&b("ferromcp-echo")]), &MODES),
            env: vec![("FERROMCP_BENCH_OTEL".into(), "0.01".into())],
            na: None,
            smoke: false,
            huge_sessions: false,
        },
        // Opt-in (MCP_BENCH_ACCEPT_ENCODING set, else removed in main): the server with
        // compression off, the baseline of "ferromcp (Rust handler)" when the driver asks for
        // compressed answers (docs/compression.md).
        Spec {
            name: "ferromcp (Rust handler, compression off)",
            lang: Lang::Rust,
            kind: Kind::Ferro,
            stdio: Some(v(&[&b("ferromcp-echo"), "stdio"])),
            http: modes(v(&[&b("ferromcp-echo")]), &MODES),
            env: vec![("FERROMCP_BENCH_COMPRESSION".into(), "off".into())],
            na: None,
            smoke: false,
            huge_sessions: false,
        },
        Spec {
            name: "ferromcp (Rust handler, one pass-through middleware, OpenTelemetry baseline)",
            lang: Lang::Rust,
            kind: Kind::Ferro,
            stdio: Some(v(&[&b("ferromcp-echo"), "stdio"])),
            http: modes(v(&[&b("ferromcp-echo")]), &MODES),
            env: vec![("FERROMCP_BENCH_OTEL".into(), "passthrough".into())],
            na: None,
            smoke: false,
            huge_sessions: false,
        },
        ferro_python("ferromcp (Python handler, sync def)", root, false),
        ferro_python("ferromcp (Python handler, async def)", root, true),
        ferro_node("ferromcp (Node handler)", root, &node, false),
        ferro_node(
            "ferromcp (Node handler, official-example form)",
            root,
            &node,
            true,
        ),
        ferro_swift(root),
        Spec {
            name: "rmcp 3.9.0",
            lang: Lang::Rust,
            kind: Kind::Official,
            stdio: Some(v(&[&b("rmcp-echo"), "stdio"])),
            http: modes(v(&[&b("rmcp-echo")]), &HANDSHAKE_MODES),
            env: Vec::new(),
            na: None,
            smoke: false,
            huge_sessions: false,
        },
        Spec {
            name: "TS SDK 1.32.2 (McpServer)",
            lang: Lang::TypeScript,
            kind: Kind::Official,
            stdio: Some(vec![node.clone(), nodescript.clone(), "stdio".into()]),
            http: modes(vec![node, nodescript], &HANDSHAKE_MODES),
            env: Vec::new(),
            na: None,
            smoke: true,
            huge_sessions: false,
        },
        Spec {
            name: "Python SDK 2.3.0 (MCPServer)",
            lang: Lang::Python,
            kind: Kind::Official,
            stdio: Some(vec![
                py.clone(),
                pyscript("echo_mcpserver.py"),
                "stdio".into(),
            ]),
            http: modes(vec![py.clone(), pyscript("echo_mcpserver.py")], &MODES),
            env: Vec::new(),
            na: None,
            smoke: false,
            huge_sessions: false,
        },
        Spec {
            name: "Python SDK 2.3.0 (low-level Server)",
            lang: Lang::Python,
            kind: Kind::Official,
            stdio: Some(vec![
                py.clone(),
                pyscript("echo_lowlevel.py"),
                "stdio".into(),
            ]),
            http: modes(vec![py, pyscript("echo_lowlevel.py")], &MODES),
            env: Vec::new(),
            na: None,
            smoke: true,
            huge_sessions: false,
        },
    ]
}

/// The interpreter with the ferromcp binding: `MCP_BENCH_FERROMCP_PY` (set by scripts/bench
/// after building the binding), else `.tools/venv-python-binding-release`, checked by importing it.
/// `Err` says why the rows cannot run (`MCP_BENCH_FERROMCP_PY_ERR` from scripts/bench).
fn ferro_python_interpreter(root: &Path) -> Result<String, String> {
    if let Ok(e) = std::env::var("MCP_BENCH_FERROMCP_PY_ERR") {
        return Err(e);
    }
    let py = std::env::var("MCP_BENCH_FERROMCP_PY").unwrap_or_else(|_| {
        root.join(".tools/venv-python-binding-release/bin/python")
            .display()
            .to_string()
    });
    let ok = std::process::Command::new(&py)
        .args(["-c", "import ferromcp._native"])
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if ok {
        Ok(py)
    } else {
        Err(format!(
            "{py} cannot import ferromcp (scripts/bench builds it with scripts/lib-python-binding.sh)"
        ))
    }
}

/// A ferromcp row with a Python handler (bindings-python/bench/echo_server.py).
fn ferro_python(name: &'static str, root: &Path, is_async: bool) -> Spec {
    let script = root
        .join("bindings-python/bench/echo_server.py")
        .display()
        .to_string();
    let (stdio, http, na) = match ferro_python_interpreter(root) {
        Ok(py) => {
            let base = [py, script];
            (Some(stdio_cmd(&base)), http_modes(&base, &MODES), None)
        }
        Err(e) => (None, BTreeMap::new(), Some(format!("not run: {e}"))),
    };
    Spec {
        name,
        lang: Lang::Python,
        kind: Kind::Ferro,
        stdio,
        http,
        env: vec![(
            "FERROMCP_BENCH_ASYNC".into(),
            if is_async { "1" } else { "0" }.into(),
        )],
        na,
        smoke: true,
        huge_sessions: false,
    }
}

/// A ferromcp row with a JavaScript handler (bench/echo_server.mjs of the binding's directory:
/// `MCP_BENCH_FERROMCP_NODE`, set by scripts/bench after building it, else bindings-node).
/// `MCP_BENCH_FERROMCP_NODE_ERR` (from scripts/bench) says why the row cannot run. `official`:
/// the handler as the official TypeScript SDK's examples write it (an `async` function
/// returning `{ content: [...] }`, `FERROMCP_BENCH_HANDLER=official`) instead of a plain
/// function returning the text.
fn ferro_node(name: &'static str, root: &Path, node: &str, official: bool) -> Spec {
    let dir = std::env::var_os("MCP_BENCH_FERROMCP_NODE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("bindings-node"));
    let na = match std::env::var("MCP_BENCH_FERROMCP_NODE_ERR") {
        Ok(e) => Some(format!("not run: {e}")),
        Err(_) if !dir.join("dist/index.js").exists() || !dir.join("native/index.js").exists() => {
            Some(format!(
                "not run: {} is not built (scripts/bench builds it with scripts/lib-node-binding.sh)",
                dir.display()
            ))
        }
        Err(_) => None,
    };
    let base = [
        node.to_string(),
        dir.join("bench/echo_server.mjs").display().to_string(),
    ];
    let (stdio, http) = match na {
        Some(_) => (None, BTreeMap::new()),
        None => (Some(stdio_cmd(&base)), http_modes(&base, &MODES)),
    };
    Spec {
        name,
        lang: Lang::TypeScript,
        kind: Kind::Ferro,
        stdio,
        http,
        env: if official {
            vec![("FERROMCP_BENCH_HANDLER".into(), "official".into())]
        } else {
            Vec::new()
        },
        na,
        smoke: !official,
        huge_sessions: false,
    }
}

/// scripts/swift, which runs what is linked against the Swift runtime (natively, or in its
/// Debian trixie root through unshare + chroot).
fn swift_launcher(root: &Path) -> String {
    root.join("scripts/swift").display().to_string()
}

/// scripts/swift's trixie root (`--print-root`: empty when it uses a native toolchain).
fn swift_root(root: &Path) -> Option<String> {
    let out = std::process::Command::new(swift_launcher(root))
        .arg("--print-root")
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A ferromcp row with a Swift handler: bindings-swift/bench's release `EchoServer`
/// (`MCP_BENCH_FERROMCP_SWIFT`, set by scripts/bench after building it, else its place in
/// bindings-swift/bench/.build), run as `scripts/swift --exec EchoServer ...`.
/// `MCP_BENCH_FERROMCP_SWIFT_ERR` (from scripts/bench) says why the row cannot run.
fn ferro_swift(root: &Path) -> Spec {
    let bin = std::env::var_os("MCP_BENCH_FERROMCP_SWIFT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("bindings-swift/bench/.build/release/EchoServer"));
    let na = match std::env::var("MCP_BENCH_FERROMCP_SWIFT_ERR") {
        Ok(e) => Some(format!("not run: {e}")),
        Err(_) if !bin.exists() => Some(format!(
            "not run: {} is not built (scripts/bench builds it with scripts/lib-swift-bench.sh)",
            bin.display()
        )),
        Err(_) => None,
    };
    let base = [
        swift_launcher(root),
        "--exec".to_string(),
        bin.display().to_string(),
    ];
    let (stdio, http) = match na {
        Some(_) => (None, BTreeMap::new()),
        None => (Some(stdio_cmd(&base)), http_modes(&base, &MODES)),
    };
    Spec {
        name: "ferromcp (Swift handler)",
        lang: Lang::Swift,
        kind: Kind::Ferro,
        stdio,
        http,
        env: Vec::new(),
        na,
        smoke: true,
        huge_sessions: false,
    }
}

/// Median of 5 runs (ms) of `cmd args...` (a bare interpreter start): the baseline of a binding's
/// cold-start target (`python -c pass`, `node -e 0`).
fn bare_start(cmd: &str, args: &[&str]) -> Option<f64> {
    let mut xs = Vec::new();
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let ok = std::process::Command::new(cmd)
            .args(args)
            .status()
            .ok()?
            .success();
        if !ok {
            return None;
        }
        xs.push(t.elapsed().as_secs_f64() * 1e3);
    }
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Some(xs[2])
}

/// One measured run.
pub struct Sample {
    pub server: usize,
    pub transport: String,
    pub rep: usize,
    pub load: f64,
    pub result: Result<Metrics, String>,
    /// Partial problems (e.g. the idle-session phase) that did not fail the run.
    pub notes: Vec<String>,
}

/// Ends the run before it starts: `why` on stderr, exit status 2 (a usage error).
fn refuse(why: &str) -> ! {
    eprintln!("mcp-bench: {why}");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut smoke = false;
    let mut reps = None;
    let mut phase_ms = None;
    let mut only: Option<RowFilter> = None;
    let mut transports: Option<Vec<String>> = None;
    let mut root = PathBuf::from(".");
    let mut bins = None;
    let mut out = None;
    let mut huge_sessions = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--smoke" => smoke = true,
            "--reps" => reps = args.next().and_then(|x| x.parse().ok()),
            "--phase-ms" => phase_ms = args.next().and_then(|x| x.parse().ok()),
            "--huge-sessions" => {
                huge_sessions = Some(
                    args.next()
                        .and_then(|x| x.replace(['_', ','], "").parse::<usize>().ok())
                        .filter(|&n| n > 0)
                        .expect("--huge-sessions N (a positive whole number)"),
                )
            }
            "--only" => only
                .get_or_insert_with(RowFilter::default)
                .add_list(&args.next().expect("--only a,b")),
            "--row" => only
                .get_or_insert_with(RowFilter::default)
                .add_whole(&args.next().expect("--row NAME")),
            "--transports" => {
                let list = args.next().expect("--transports stdio,http-json,..");
                match selection::transports(&list) {
                    Ok(list) => transports = Some(list),
                    Err(e) => refuse(&e),
                }
            }
            "--root" => root = PathBuf::from(args.next().expect("--root DIR")),
            "--bin-dir" => bins = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            _ => {
                eprintln!("usage: mcp-bench [--smoke] [--reps N] [--phase-ms MS] [--only a,b] [--row NAME] [--transports stdio,http-json,..] [--huge-sessions N] [--root DIR] [--bin-dir DIR] [--out DIR]");
                std::process::exit(2);
            }
        }
    }
    let root = root.canonicalize().expect("root");
    let bins = bins.unwrap_or_else(|| {
        let t = std::env::var("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| root.join("target"));
        t.join("release")
    });
    let out = out.unwrap_or_else(|| root.join("bench/results"));
    let reps = reps.unwrap_or(if smoke { 1 } else { 3 });
    let load = Load {
        warmup: if smoke { 50 } else { 500 },
        seq: if smoke { 2_000 } else { 50_000 },
        pipe: if smoke { 20_000 } else { 2_000_000 },
        inflight: 64,
        clients: 32,
        sessions: if smoke { 200 } else { 1_000 },
        big_sessions: if smoke { 1_000 } else { 10_000 },
        huge_sessions: huge_sessions.unwrap_or(if smoke { 2_000 } else { LAKH }),
        big_deadline: Duration::from_secs(if smoke { 10 } else { 60 }),
        phase: Duration::from_millis(phase_ms.unwrap_or(if smoke { 300 } else { 2_000 })),
        cold: if smoke { 3 } else { 11 },
        cold_budget: Duration::from_secs(if smoke { 1 } else { 3 }),
    };
    let mut specs = specs(&root, &bins);
    specs.extend(sdk_form_rows::specs(&root));
    specs.extend(middleware_rows::specs(&root, &bins));
    if std::env::var("MCP_BENCH_ACCEPT_ENCODING").is_err() {
        specs.retain(|s| !s.name.contains("compression off"));
    }
    if std::env::var("MCP_BENCH_OTEL").as_deref() != Ok("1") {
        specs.retain(|s| !s.name.contains("OpenTelemetry"));
    }
    // Profiling aid: MCP_BENCH_WRAP="valgrind --tool=callgrind" (or "strace -f -c -o FILE") runs
    // every server under that command. CPU figures then measure the wrapper, not the server.
    if let Ok(wrap) = std::env::var("MCP_BENCH_WRAP") {
        let prefix: Vec<String> = wrap.split_whitespace().map(str::to_string).collect();
        let wrap_cmd = |c: &mut Vec<String>| {
            let mut w = prefix.clone();
            w.append(c);
            *c = w;
        };
        for s in &mut specs {
            if let Some(c) = &mut s.stdio {
                wrap_cmd(c);
            }
            for c in s.http.values_mut() {
                wrap_cmd(c);
            }
        }
    }
    if let Some(filter) = &only {
        let rows: Vec<&str> = specs.iter().map(|s| s.name).collect();
        if let Err(e) = filter.check(&rows) {
            refuse(&e);
        }
    }
    let selected: Vec<usize> = (0..specs.len())
        .filter(|&i| {
            let s = &specs[i];
            match &only {
                Some(filter) => filter.selects(s.name),
                None => !smoke || s.smoke,
            }
        })
        .collect();
    let raw = out.join("raw");
    std::fs::create_dir_all(&raw).expect("create results dir");
    let mut samples: Vec<Sample> = Vec::new();
    let load_start = procstat::loadavg();
    let idle_start = procstat::cpu_idle();
    for rep in 0..reps {
        for &i in &selected {
            let s = &specs[i];
            if s.na.is_some() {
                continue;
            }
            let slug: String = s
                .name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let wanted = |t: &str| {
                transports
                    .as_ref()
                    .is_none_or(|ts| ts.iter().any(|x| x == t))
            };
            if let Some(cmd) = s.stdio.as_ref().filter(|_| wanted("stdio")) {
                let la = procstat::loadavg();
                eprint!("[rep {}/{reps}] {:<38} stdio ... ", rep + 1, s.name);
                let r = stdio::run(
                    cmd,
                    &s.env,
                    &load,
                    &raw.join(format!("{slug}.stdio.stderr")),
                );
                report::print_progress(&r);
                samples.push(Sample {
                    server: i,
                    transport: "stdio".into(),
                    rep,
                    load: la,
                    result: r,
                    notes: Vec::new(),
                });
            }
            for (mode, cmd) in &s.http {
                if !wanted(&format!("http-{mode}")) || (smoke && !SMOKE_MODES.contains(mode)) {
                    continue;
                }
                let la = procstat::loadavg();
                eprint!("[rep {}/{reps}] {:<38} http-{mode} ... ", rep + 1, s.name);
                let port = http::free_port();
                let template = cmd;
                let on_port = |port: u16| -> Vec<String> {
                    template
                        .iter()
                        .map(|a| a.replace("{port}", &port.to_string()))
                        .collect()
                };
                let cmd = on_port(port);
                let mut notes = Vec::new();
                let log = raw.join(format!("{slug}.http-{mode}.stderr"));
                let mut env = s.env.clone();
                if s.huge_sessions {
                    env.push((
                        "FERROMCP_BENCH_MAX_SESSIONS".into(),
                        load.huge_cap().to_string(),
                    ));
                }
                let mut r = http::Server::spawn(&cmd, &env, port, &log)
                    .and_then(|srv| http::run(&srv, &load, *mode == PER_REQUEST));
                if let (Ok(m), true) = (&mut r, *mode == "stateful") {
                    // Memory on a fresh server, so the load phases' freed heap does not hide
                    // the sessions' growth.
                    let log = raw.join(format!("{slug}.http-{mode}.sessions.stderr"));
                    let port = http::free_port();
                    if let Err(e) = http::Server::spawn(&on_port(port), &env, port, &log)
                        .and_then(|srv| http::idle_sessions(&srv, &load, s.huge_sessions, m))
                    {
                        notes.push(e);
                    }
                }
                report::print_progress(&r);
                for n in &notes {
                    eprintln!("    note: {n}");
                }
                samples.push(Sample {
                    server: i,
                    transport: format!("http-{mode}"),
                    rep,
                    load: la,
                    result: r,
                    notes,
                });
            }
        }
    }
    let load_end = procstat::loadavg();
    let idle_end = procstat::cpu_idle();
    let runnable = |lang: Lang| {
        selected
            .iter()
            .map(|&i| &specs[i])
            .find(|s| s.kind == Kind::Ferro && s.lang == lang && s.na.is_none())
    };
    let bare = |lang: Lang, args: &[&str]| {
        runnable(lang)
            .and_then(|s| s.stdio.as_ref())
            .and_then(|c| bare_start(&c[0], args))
    };
    // What starting through scripts/swift costs (in its trixie root on Linux: unshare + chroot
    // + two shells), beside the same program started directly.
    let swift_launch_ms = runnable(Lang::Swift).and_then(|_| {
        let via = bare_start(&swift_launcher(&root), &["--exec", "/bin/true"])?;
        Some((via, bare_start("/bin/true", &[])?))
    });
    let ctx = report::Context {
        python_pass_ms: bare(Lang::Python, &["-c", "pass"]),
        node_zero_ms: bare(Lang::TypeScript, &["-e", "0"]),
        swift_launch_ms,
        swift_root: swift_launch_ms.and_then(|_| swift_root(&root)),
        smoke,
        reps,
        load: &load,
        load_start,
        load_end,
        idle_start,
        idle_end,
    };
    report::write(&out, &specs, &selected, &samples, &ctx);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of every row (the optional baseline rows are not listed without their env).
    fn row_names() -> Vec<&'static str> {
        let (root, bins) = (Path::new("/repo"), Path::new("/repo/target/release"));
        let mut specs = specs(root, bins);
        specs.extend(sdk_form_rows::specs(root));
        specs.extend(middleware_rows::specs(root, bins));
        specs.iter().map(|s| s.name).collect()
    }

    fn selected<'a>(f: &RowFilter, names: &[&'a str]) -> Vec<&'a str> {
        names.iter().copied().filter(|n| f.selects(n)).collect()
    }

    /// Every row, commas in its name or not, can be run alone with `--row` and its name;
    /// `--only` with a name that has a comma, or that begins another row's, selects other rows
    /// too.
    #[test]
    fn every_row_is_selected_alone_by_its_name_with_row() {
        let names = row_names();
        assert!(names.len() > 20, "{names:?}");
        for name in &names {
            let mut f = RowFilter::default();
            f.add_whole(name);
            assert_eq!(selected(&f, &names), [*name]);
        }
        let mut by_only = RowFilter::default();
        by_only.add_list("ferromcp (Python handler, sync def)");
        assert_eq!(
            selected(&by_only, &names),
            [
                "ferromcp (Python handler, sync def)",
                "ferromcp (Python handler, async def)",
                "ferromcp (Python handler, sync def, 1 Python middleware)",
            ]
        );
        let mut by_only = RowFilter::default();
        by_only.add_list("FastMCP 4.1.6");
        assert_eq!(
            selected(&by_only, &names),
            ["FastMCP 4.1.6", "FastMCP 4.1.6 (1 FastMCP middleware)"]
        );
    }
}
