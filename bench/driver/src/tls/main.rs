//! `mcp-bench-tls`: ferromcp's HTTP server over TLS beside a bare rustls + hyper floor and the
//! same ferromcp server over plain HTTP, at 1 and 32 keep-alive clients and with a new
//! connection per call (TLS sessions resumed, or a full handshake each time). Issue 38's rows;
//! the figures go to docs/tls.md and bench/results/tls.md.
//!
//! ```text
//! mcp-bench-tls [--secs S] [--reps R]     measure; a Markdown table on stdout
//! mcp-bench-tls serve KIND PKI_DIR        (internal) one server, its port on stdout
//! ```
//!
//! The test PKI (a CA and a `localhost` certificate, EC P-256) is made by
//! tests/tls/make-test-pki.sh (the `openssl` command). Repetitions are interleaved (every
//! server and row once, then again), each server a child process started once per repetition;
//! the table gives medians over the repetitions. Server CPU per call is the server process's
//! CPU time (schedstat) over the phase divided by its calls.

mod load;
#[path = "../procstat.rs"]
#[allow(dead_code)]
mod procstat;
mod servers;

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use load::Reuse;

/// The rows: (label, clients, reuse).
const ROWS: [(&str, usize, Reuse); 4] = [
    ("1 client, keep-alive", 1, Reuse::KeepAlive),
    ("32 clients, keep-alive", 32, Reuse::KeepAlive),
    (
        "32 clients, new connection per call, TLS session resumed",
        32,
        Reuse::Resumed,
    ),
    (
        "32 clients, new connection per call, full handshake",
        32,
        Reuse::Full,
    ),
];

struct Figures {
    rate: f64,
    p50_us: f64,
    cpu_us: f64,
    resumed: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn start(kind: &str, pki: &Path) -> Result<(Child, u16), String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(me)
        .args(["serve", kind])
        .arg(pki)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn {kind}: {e}"))?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let port = line
        .trim()
        .parse()
        .map_err(|_| format!("{kind} did not start: {line:?}"))?;
    Ok((child, port))
}

fn measure(secs: f64, reps: usize) -> Result<(), String> {
    let pki = std::env::temp_dir().join(format!("mcp-bench-tls-{}", std::process::id()));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/tls/make-test-pki.sh");
    let ok = Command::new(&script)
        .arg(&pki)
        .status()
        .map_err(|e| format!("{script:?}: {e}"))?;
    if !ok.success() {
        return Err(format!("{script:?} failed"));
    }
    let ca = pki.join("ca.pem");
    let mut samples: Vec<Vec<Vec<Figures>>> = servers::KINDS
        .iter()
        .map(|_| ROWS.iter().map(|_| Vec::new()).collect())
        .collect();
    for rep in 0..reps {
        for (k, kind) in servers::KINDS.iter().enumerate() {
            let (mut child, port) = start(kind, &pki)?;
            for (r, (label, clients, reuse)) in ROWS.iter().enumerate() {
                let tls = if servers::uses_tls(kind) {
                    Some(load::connector(&ca, *reuse != Reuse::Full)?)
                } else {
                    None
                };
                // a short warm-up (connections, caches), then the phase
                load::run(port, tls.clone(), *reuse, *clients, 0.3)?;
                let cpu0 = procstat::cpu_ns(child.id()).unwrap_or(0);
                let out = load::run(port, tls, *reuse, *clients, secs)
                    .map_err(|e| format!("{kind}, {label}: {e}"))?;
                let cpu = procstat::cpu_ns(child.id())
                    .unwrap_or(0)
                    .saturating_sub(cpu0);
                let f = Figures {
                    rate: out.calls as f64 / out.elapsed.as_secs_f64(),
                    p50_us: out.p50.as_secs_f64() * 1e6,
                    cpu_us: cpu as f64 / 1e3 / out.calls.max(1) as f64,
                    resumed: if out.handshakes > 0 {
                        out.resumed as f64 / out.handshakes as f64
                    } else {
                        f64::NAN
                    },
                };
                eprintln!(
                    "rep {}: {kind}, {label}: {:.0} calls/s, p50 {:.1} µs, server CPU {:.1} µs/call, resumed {:.0} %",
                    rep + 1,
                    f.rate,
                    f.p50_us,
                    f.cpu_us,
                    f.resumed * 100.0
                );
                samples[k][r].push(f);
            }
            drop(child.stdin.take()); // the server ends when its stdin closes
            let _ = child.wait();
        }
    }
    let _ = std::fs::remove_dir_all(&pki);
    println!("| server | row | calls/s | p50 | server CPU per call | handshakes resumed |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for (r, (label, _, _)) in ROWS.iter().enumerate() {
        for (k, kind) in servers::KINDS.iter().enumerate() {
            let s = &samples[k][r];
            let resumed = median(s.iter().map(|f| f.resumed).collect());
            let name = match *kind {
                "floor" => "floor (rustls + hyper, no MCP library)",
                "ferromcp" => "**ferromcp, TLS**",
                _ => "ferromcp, plain HTTP",
            };
            println!(
                "| {name} | {label} | {:.0} | {:.1} µs | {:.1} µs | {} |",
                median(s.iter().map(|f| f.rate).collect()),
                median(s.iter().map(|f| f.p50_us).collect()),
                median(s.iter().map(|f| f.cpu_us).collect()),
                if resumed.is_nan() {
                    "—".to_string()
                } else {
                    format!("{:.0} %", resumed * 100.0)
                }
            );
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.first().map(String::as_str) == Some("serve") {
        match (args.get(1), args.get(2)) {
            (Some(kind), Some(pki)) => servers::serve(kind, Path::new(pki)),
            _ => Err("usage: mcp-bench-tls serve KIND PKI_DIR".into()),
        }
    } else {
        let mut secs = 3.0;
        let mut reps = 3;
        let mut it = args.iter();
        let mut bad = None;
        while let Some(a) = it.next() {
            match (a.as_str(), it.next().map(|v| v.parse::<f64>())) {
                ("--secs", Some(Ok(v))) if v > 0.0 => secs = v,
                ("--reps", Some(Ok(v))) if v >= 1.0 => reps = v as usize,
                _ => bad = Some(a.clone()),
            }
        }
        match bad {
            Some(a) => Err(format!(
                "bad argument {a:?}; usage: mcp-bench-tls [--secs S] [--reps R]"
            )),
            None => measure(secs, reps),
        }
    };
    if let Err(e) = result {
        eprintln!("mcp-bench-tls: {e}");
        std::process::exit(1);
    }
}
