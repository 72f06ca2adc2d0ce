//! The stdio load: spawn the server, initialize (cold start), sequential calls, then pipelined
//! calls with a fixed number in flight.

use crate::proto::{self, Checked, Seen};
use crate::{procstat, Load, Metrics};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Proc {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Proc {
    fn send(&mut self, msg: &[u8]) -> Result<(), String> {
        self.input
            .write_all(msg)
            .and_then(|_| self.input.write_all(b"\n"))
            .map_err(|e| format!("write: {e}"))
    }
    fn flush(&mut self) -> Result<(), String> {
        self.input.flush().map_err(|e| format!("flush: {e}"))
    }
    fn recv(&mut self) -> Result<&[u8], String> {
        self.line.clear();
        let n = self
            .output
            .read_until(b'\n', &mut self.line)
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("server closed stdout".into());
        }
        Ok(&self.line)
    }
    /// One sequential call; returns its latency.
    fn call(&mut self, id: u64) -> Result<Duration, String> {
        let req = proto::call(id);
        let t = Instant::now();
        self.send(&req)?;
        self.flush()?;
        loop {
            let line = self.recv()?;
            match proto::check_call(line)? {
                Checked::Echo(got) if got == id => return Ok(t.elapsed()),
                Checked::Echo(got) => return Err(format!("expected id {id}, got {got}")),
                Checked::Other => continue,
            }
        }
    }
}

pub fn run(cmd: &[String], load: &Load, stderr_log: &std::path::Path) -> Result<Metrics, String> {
    let mut m = Metrics::new();
    let log = std::fs::File::create(stderr_log).map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(|e| format!("spawn {:?}: {e}", cmd))?;
    let pid = child.id();
    let input = BufWriter::with_capacity(64 * 1024, child.stdin.take().unwrap());
    let output = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
    let mut p = Proc {
        child,
        input,
        output,
        line: Vec::new(),
    };
    let result = (|| {
        p.send(proto::initialize(0).as_bytes())?;
        p.flush()?;
        loop {
            let line = p.recv()?.to_vec();
            if serde_json::from_slice::<serde_json::Value>(&line)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .is_some()
            {
                proto::check_initialize(&line, 0)?;
                break;
            }
        }
        m.insert("cold_ms", t0.elapsed().as_secs_f64() * 1e3);
        p.send(proto::INITIALIZED.as_bytes())?;
        let mut id = 1u64;
        // Warm-up.
        for _ in 0..load.warmup {
            p.call(id)?;
            id += 1;
        }
        // Sequential.
        let cpu0 = procstat::cpu_ns(pid);
        let start = Instant::now();
        let mut lat = Vec::with_capacity(load.seq as usize);
        while (lat.len() as u64) < load.seq && (lat.len() < 200 || start.elapsed() < load.phase) {
            lat.push(p.call(id)?.as_nanos() as u64);
            id += 1;
        }
        let wall = start.elapsed().as_secs_f64();
        let cpu1 = procstat::cpu_ns(pid);
        crate::latency_metrics(&mut m, "seq", &mut lat, wall);
        if let (Some(a), Some(b)) = (cpu0, cpu1) {
            m.insert("seq_cpu_us", (b - a) as f64 / 1e3 / lat.len() as f64);
        }
        // Pipelined.
        let (n, wall, cpu) = pipelined(&mut p, pid, id, load)?;
        m.insert("pipe_rate", n as f64 / wall);
        if let Some(c) = cpu {
            m.insert("pipe_cpu_us", c as f64 / 1e3 / n as f64);
        }
        Ok(())
    })();
    // Hang up: close stdin, give the server a moment, then kill.
    let Proc {
        mut child, input, ..
    } = p;
    drop(input);
    let deadline = Instant::now() + Duration::from_millis(500);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    result.map(|_| m)
}

/// Keeps `load.inflight` requests outstanding; returns (responses, seconds, server CPU ns).
fn pipelined(
    p: &mut Proc,
    pid: u32,
    first_id: u64,
    load: &Load,
) -> Result<(u64, f64, Option<u64>), String> {
    let inflight = load.inflight;
    let total_cap = load.pipe;
    let final_count = AtomicU64::new(u64::MAX);
    let (credit_tx, credit_rx) = mpsc::sync_channel::<()>(inflight as usize + 1);
    for _ in 0..inflight {
        credit_tx.send(()).unwrap();
    }
    let mut seen = Seen::new(first_id, total_cap);
    let cpu0 = procstat::cpu_ns(pid);
    let start = Instant::now();
    let Proc {
        input,
        output,
        line,
        ..
    } = p;
    let res: Result<(), String> = std::thread::scope(|s| {
        let final_count = &final_count;
        let writer = s.spawn(move || -> Result<(), String> {
            let mut buf = Vec::with_capacity(256);
            let mut sent = 0u64;
            loop {
                match credit_rx.try_recv() {
                    Ok(()) => {}
                    Err(mpsc::TryRecvError::Empty) => {
                        input.flush().map_err(|e| format!("flush: {e}"))?;
                        if credit_rx.recv().is_err() {
                            return Ok(());
                        }
                    }
                    Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
                }
                buf.clear();
                proto::push_call(&mut buf, first_id + sent);
                buf.push(b'\n');
                input.write_all(&buf).map_err(|e| format!("write: {e}"))?;
                sent += 1;
                if sent == total_cap || (sent & 63 == 0 && start.elapsed() >= load.phase) {
                    // Published before the flush that lets the last responses come back.
                    final_count.store(sent, Ordering::SeqCst);
                    input.flush().map_err(|e| format!("flush: {e}"))?;
                    return Ok(());
                }
            }
        });
        let reader = (|| -> Result<(), String> {
            loop {
                if seen.count == final_count.load(Ordering::SeqCst) {
                    return Ok(());
                }
                line.clear();
                let n = output
                    .read_until(b'\n', line)
                    .map_err(|e| format!("read: {e}"))?;
                if n == 0 {
                    return Err("server closed stdout during pipelined phase".into());
                }
                if let Checked::Echo(id) = proto::check_call(line)? {
                    seen.mark(id)?;
                    let _ = credit_tx.try_send(());
                }
            }
        })();
        drop(credit_tx);
        let w = writer.join().map_err(|_| "writer panicked".to_string())?;
        reader.and(w)
    });
    res?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, procstat::cpu_ns(pid)) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    Ok((seen.count, wall, cpu))
}
