//! mcp-bench-replicas: the scale-out rows of the benchmark (issue 17). ferromcp-echo (Rust
//! handler, stateful Streamable HTTP) at N concurrent keep-alive clients, in one run:
//! - `in-memory, 1 process`: the in-memory row (as `mcp-bench`'s http-stateful at 32 clients);
//! - `in-memory, 2 replicas, sticky`: two processes, each client's session on one of them;
//! - `Redis, 2 replicas, sticky`: two processes on one redis-server, each client on one;
//! - `Redis, 2 replicas, round robin`: the same, but every call of a session goes to the
//!   other replica than the call before (what a load balancer without sticky sessions does).
//!
//! Rows are interleaved per repetition; each figure is the median over repetitions. Per call it
//! reports the Redis commands (the sum of `INFO commandstats` calls over the measured phase,
//! divided by the calls; a pipeline is one round trip of several commands) and the CPU time of
//! the server processes and of redis-server (/proc/PID/task/*/schedstat), and the servers'
//! voluntary context switches (thread sleeps, i.e. hand-overs), and the driver's own CPU time
//! (its one thread drives every client: when it is the busiest thread, it bounds the rate).
//!
//! Usage: mcp-bench-replicas [--bin-dir DIR] [--reps N] [--phase-ms MS] [--clients N] [--out FILE]

#[allow(dead_code)]
mod httpload;
#[allow(dead_code)]
mod httpwire;
#[allow(dead_code)]
mod keepalive;
#[allow(dead_code)]
mod procstat;
#[allow(dead_code)]
mod proto;

use httpload::AConn;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// A spawned process, stopped (SIGTERM, then SIGKILL) when dropped.
struct Proc {
    child: Child,
}

impl Proc {
    /// Spawns `cmd` and waits until `port` accepts connections.
    fn spawn(cmd: &mut Command, port: u16) -> Result<Proc, String> {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawn {cmd:?}: {e}"))?;
        let mut p = Proc { child };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(st)) = p.child.try_wait() {
                return Err(format!("{cmd:?} exited early: {st}"));
            }
            if Instant::now() > deadline {
                return Err(format!("{cmd:?} did not listen within 30 s"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(p)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        procstat::terminate(&mut self.child);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `INFO commandstats` of the Redis at `port`: calls per command (without INFO itself).
fn command_stats(port: u16) -> Result<BTreeMap<String, u64>, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("redis: {e}"))?;
    s.write_all(b"INFO commandstats\r\n")
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    // A bulk string: `$LEN\r\n` then LEN bytes and `\r\n`.
    loop {
        let n = s.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("redis closed the connection".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(eol) = buf.windows(2).position(|w| w == b"\r\n") {
            let len: usize = std::str::from_utf8(&buf[1..eol])
                .ok()
                .and_then(|l| l.parse().ok())
                .ok_or("bad INFO reply")?;
            if buf.len() >= eol + 2 + len {
                let text = String::from_utf8_lossy(&buf[eol + 2..eol + 2 + len]).into_owned();
                let mut out = BTreeMap::new();
                for line in text.lines() {
                    let Some(rest) = line.strip_prefix("cmdstat_") else {
                        continue;
                    };
                    let Some((name, fields)) = rest.split_once(':') else {
                        continue;
                    };
                    let calls = fields
                        .split(',')
                        .find_map(|f| f.strip_prefix("calls="))
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                    if name != "info" {
                        out.insert(name.to_string(), calls);
                    }
                }
                return Ok(out);
            }
        }
    }
}

/// One row: how many server processes, on Redis or not, and how clients spread their calls.
struct Row {
    name: &'static str,
    replicas: usize,
    redis: bool,
    round_robin: bool,
}

const ROWS: [Row; 4] = [
    Row {
        name: "in-memory, 1 process",
        replicas: 1,
        redis: false,
        round_robin: false,
    },
    Row {
        name: "in-memory, 2 replicas, sticky",
        replicas: 2,
        redis: false,
        round_robin: false,
    },
    Row {
        name: "Redis, 2 replicas, sticky",
        replicas: 2,
        redis: true,
        round_robin: false,
    },
    Row {
        name: "Redis, 2 replicas, round robin",
        replicas: 2,
        redis: true,
        round_robin: true,
    },
];

/// One measured phase of one row.
#[derive(Default, Clone)]
struct Sample {
    rate: f64,
    p50_us: f64,
    p99_us: f64,
    redis_per_call: f64,
    server_cpu_us: f64,
    redis_cpu_us: f64,
    server_sleeps: f64,
    driver_cpu_us: f64,
    per_command: BTreeMap<String, f64>,
}

fn cpu(pids: &[u32]) -> u64 {
    pids.iter().filter_map(|p| procstat::cpu_ns(*p)).sum()
}

/// Voluntary context switches of the servers' threads: the hand-overs (a thread going to
/// sleep to wait for another, or for I/O) that calls cost.
fn sleeps(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|p| procstat::voluntary_switches(*p))
        .sum()
}

/// Runs one row: spawns its servers (and a fresh redis-server), N clients in closed loops for
/// `phase` after `warm` calls each.
fn run_row(
    row: &Row,
    bin: &Path,
    clients: usize,
    warm: u64,
    phase: Duration,
) -> Result<Sample, String> {
    let mut redis = None;
    let mut redis_port = 0;
    if row.redis {
        redis_port = free_port();
        redis = Some(Proc::spawn(
            Command::new("redis-server").args([
                "--port",
                &redis_port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ]),
            redis_port,
        )?);
    }
    let mut servers = Vec::new();
    let mut ports = Vec::new();
    for _ in 0..row.replicas {
        let port = free_port();
        let mut cmd = Command::new(bin.join("ferromcp-echo"));
        cmd.args(["http", &port.to_string(), "stateful"]);
        if row.redis {
            cmd.env(
                "FERROMCP_BENCH_REDIS_URL",
                format!("redis://127.0.0.1:{redis_port}/0"),
            );
        }
        servers.push(Proc::spawn(&mut cmd, port)?);
        ports.push(port);
    }
    let server_pids: Vec<u32> = servers.iter().map(Proc::pid).collect();
    let redis_pid = redis.as_ref().map(Proc::pid);

    let rt = httpload::runtime()?;
    let ready = Rc::new(tokio::sync::Barrier::new(clients + 1));
    let done = Rc::new(tokio::sync::Barrier::new(clients + 1));
    let release = Rc::new(tokio::sync::Barrier::new(clients + 1));
    let set = tokio::task::LocalSet::new();
    let mut handles = Vec::new();
    for k in 0..clients {
        let (ready, done, release) = (ready.clone(), done.clone(), release.clone());
        let route: Vec<u16> = if row.round_robin {
            (0..ports.len())
                .map(|i| ports[(k + i) % ports.len()])
                .collect()
        } else {
            vec![ports[k % ports.len()]]
        };
        handles.push(set.spawn_local(async move {
            let base = (k as u64 + 1) << 32;
            let prep = async {
                let mut conns = Vec::new();
                for port in &route {
                    conns.push(AConn::connect(*port).await?);
                }
                conns[0].handshake().await?;
                let session = conns[0].wire.session.clone();
                for c in &mut conns[1..] {
                    c.wire.session = session.clone();
                }
                for (i, id) in (base..base + warm).enumerate() {
                    let n = conns.len();
                    conns[i % n].call(id).await?;
                }
                Ok::<_, String>(conns)
            }
            .await;
            ready.wait().await;
            let run = async {
                let mut conns = prep?;
                let n = conns.len();
                let mut lat = Vec::with_capacity(1 << 16);
                let start = Instant::now();
                let mut id = base + 1_000_000;
                while lat.len() < 20 || start.elapsed() < phase {
                    let t = Instant::now();
                    conns[lat.len() % n].call(id).await?;
                    lat.push(t.elapsed().as_nanos() as u64);
                    id += 1;
                }
                Ok::<_, String>((conns, lat))
            }
            .await;
            done.wait().await;
            release.wait().await;
            let (mut conns, lat) = run?;
            conns[0].close_session().await;
            Ok::<_, String>(lat)
        }));
    }
    let me = std::process::id();
    let (lat, wall, calls_before, calls_after, cpu_s, cpu_r, slept, cpu_d) =
        set.block_on(&rt, async {
            ready.wait().await;
            let before = if row.redis {
                command_stats(redis_port)?
            } else {
                BTreeMap::new()
            };
            let (s0, r0) = (cpu(&server_pids), redis_pid.map(|p| cpu(&[p])).unwrap_or(0));
            let v0 = sleeps(&server_pids);
            let d0 = cpu(&[me]);
            let start = Instant::now();
            done.wait().await;
            let wall = start.elapsed().as_secs_f64();
            let (s1, r1) = (cpu(&server_pids), redis_pid.map(|p| cpu(&[p])).unwrap_or(0));
            let v1 = sleeps(&server_pids);
            let d1 = cpu(&[me]);
            let after = if row.redis {
                command_stats(redis_port)?
            } else {
                BTreeMap::new()
            };
            release.wait().await;
            let mut all = Vec::new();
            let mut err = None;
            for h in handles {
                match h
                    .await
                    .map_err(|e| format!("client task: {e}"))
                    .and_then(|r| r)
                {
                    Ok(l) => all.extend(l),
                    Err(e) => err = Some(e),
                }
            }
            match err {
                Some(e) => Err(e),
                None => Ok((all, wall, before, after, s1 - s0, r1 - r0, v1 - v0, d1 - d0)),
            }
        })?;
    drop(servers);
    drop(redis);
    let mut lat = lat;
    lat.sort_unstable();
    let n = lat.len() as f64;
    let pct = |q: f64| lat[((lat.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
    let mut per_command = BTreeMap::new();
    let mut total = 0u64;
    for (name, after) in &calls_after {
        let d = after - calls_before.get(name).copied().unwrap_or(0);
        if d > 0 {
            per_command.insert(name.clone(), d as f64 / n);
            total += d;
        }
    }
    Ok(Sample {
        rate: n / wall,
        p50_us: pct(0.5),
        p99_us: pct(0.99),
        redis_per_call: total as f64 / n,
        server_cpu_us: cpu_s as f64 / n / 1000.0,
        redis_cpu_us: cpu_r as f64 / n / 1000.0,
        server_sleeps: slept as f64 / n,
        driver_cpu_us: cpu_d as f64 / n / 1000.0,
        per_command,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let mut bin = PathBuf::from("target/release");
    let (mut reps, mut phase_ms, mut clients, mut out) = (3usize, 5000u64, 32usize, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("a value after the option");
        match a.as_str() {
            "--bin-dir" => bin = PathBuf::from(val()),
            "--reps" => reps = val().parse().expect("--reps N"),
            "--phase-ms" => phase_ms = val().parse().expect("--phase-ms MS"),
            "--clients" => clients = val().parse().expect("--clients N"),
            "--out" => out = Some(PathBuf::from(val())),
            _ => {
                eprintln!("usage: mcp-bench-replicas [--bin-dir DIR] [--reps N] [--phase-ms MS] [--clients N] [--out FILE]");
                std::process::exit(2);
            }
        }
    }
    let load_before = loadavg();
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); ROWS.len()];
    for rep in 0..reps {
        for (i, row) in ROWS.iter().enumerate() {
            eprint!("[rep {}/{reps}] {:<32} ... ", rep + 1, row.name);
            match run_row(row, &bin, clients, 50, Duration::from_millis(phase_ms)) {
                Ok(s) => {
                    eprintln!(
                        "{:.0} calls/s, p50 {:.0} µs, {:.2} Redis commands/call",
                        s.rate, s.p50_us, s.redis_per_call
                    );
                    samples[i].push(s);
                }
                Err(e) => {
                    eprintln!("FAILED: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
    let load_after = loadavg();
    let med = |i: usize, f: fn(&Sample) -> f64| median(samples[i].iter().map(f).collect());
    let mut md = String::new();
    md.push_str(&format!(
        "ferromcp-echo (Rust handler), stateful Streamable HTTP, {clients} concurrent keep-alive clients \
         on one driver thread, {reps} interleaved repetitions of {phase_ms} ms (medians); \
         loadavg before {load_before}, after {load_after}.\n\n"
    ));
    md.push_str("| row | calls/s | p50 µs | p99 µs | Redis commands / call | server CPU µs / call | redis-server CPU µs / call | server thread sleeps / call | driver CPU µs / call | calls/s vs in-memory, 1 process | p50 vs in-memory, 1 process |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    let (base_rate, base_p50) = (med(0, |s| s.rate), med(0, |s| s.p50_us));
    for (i, row) in ROWS.iter().enumerate() {
        let (rate, p50) = (med(i, |s| s.rate), med(i, |s| s.p50_us));
        md.push_str(&format!(
            "| {} | {:.0} | {:.0} | {:.0} | {} | {:.1} | {} | {:.2} | {:.1} | {:.2}x | {:.2}x |\n",
            row.name,
            rate,
            p50,
            med(i, |s| s.p99_us),
            if row.redis {
                format!("{:.2}", med(i, |s| s.redis_per_call))
            } else {
                "-".into()
            },
            med(i, |s| s.server_cpu_us),
            if row.redis {
                format!("{:.1}", med(i, |s| s.redis_cpu_us))
            } else {
                "-".into()
            },
            med(i, |s| s.server_sleeps),
            med(i, |s| s.driver_cpu_us),
            rate / base_rate,
            p50 / base_p50,
        ));
    }
    md.push_str("\nRedis commands per call, by command (last repetition):\n\n");
    for (i, row) in ROWS.iter().enumerate() {
        if let (true, Some(s)) = (row.redis, samples[i].last()) {
            let parts: Vec<String> = s
                .per_command
                .iter()
                .map(|(k, v)| format!("{k} {v:.2}"))
                .collect();
            md.push_str(&format!("- {}: {}\n", row.name, parts.join(", ")));
        }
    }
    print!("{md}");
    if let Some(out) = out {
        std::fs::write(&out, md).expect("write --out");
    }
}
