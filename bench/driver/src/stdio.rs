//! The stdio load: spawn the server, initialize (cold start), sequential calls, then pipelined
//! calls with a fixed number in flight.
//!
//! Everything runs on the calling thread with no channels: the pipelined phase reads responses
//! from one large buffer and, each time that buffer is drained (just before it would block on
//! `read`), writes all the refills (one per completed response) in a single `write` syscall.

use crate::proto::{self, Checked, Seen};
use crate::{procstat, Load, Metrics};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Size of the response buffer: many responses are taken per `read` syscall.
const READ_BUF: usize = 256 * 1024;

/// A spawned stdio server with the driver's own line buffer over its stdout.
struct Proc {
    child: Child,
    input: ChildStdin,
    output: ChildStdout,
    buf: Vec<u8>,
    /// Start and end of the unread bytes in `buf`.
    head: usize,
    tail: usize,
    out: Vec<u8>,
}

impl Proc {
    /// Writes `bytes` with as few syscalls as the pipe allows.
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.input
            .write_all(bytes)
            .map_err(|e| format!("write: {e}"))
    }

    /// The next complete line already in the buffer (without its `\n`), if any.
    fn next_line(&mut self) -> Option<(usize, usize)> {
        let pos = self.buf[self.head..self.tail]
            .iter()
            .position(|b| *b == b'\n')?;
        let line = (self.head, self.head + pos);
        self.head += pos + 1;
        Some(line)
    }

    /// Reads more bytes (blocking); compacts the buffer first when needed.
    fn fill(&mut self) -> Result<(), String> {
        if self.head == self.tail {
            self.head = 0;
            self.tail = 0;
        } else if self.tail == self.buf.len() {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
            if self.tail == self.buf.len() {
                let n = self.buf.len() * 2;
                self.buf.resize(n, 0);
            }
        }
        let n = self
            .output
            .read(&mut self.buf[self.tail..])
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("server closed stdout".into());
        }
        self.tail += n;
        Ok(())
    }

    /// The next line (blocking), as a range into `buf`.
    fn recv(&mut self) -> Result<(usize, usize), String> {
        loop {
            if let Some(l) = self.next_line() {
                return Ok(l);
            }
            self.fill()?;
        }
    }

    /// One sequential call; returns its latency.
    fn call(&mut self, id: u64) -> Result<Duration, String> {
        let mut out = std::mem::take(&mut self.out);
        out.clear();
        proto::push_call(&mut out, id);
        out.push(b'\n');
        let t = Instant::now();
        let sent = self.write(&out);
        self.out = out;
        sent?;
        loop {
            let (a, b) = self.recv()?;
            match proto::check_call(&self.buf[a..b])? {
                Checked::Echo(got) if got == id => return Ok(t.elapsed()),
                Checked::Echo(got) => return Err(format!("expected id {id}, got {got}")),
                Checked::Other => continue,
            }
        }
    }
}

/// Spawns `cmd` (with `env` added) with piped stdin/stdout and stderr appended to `log`.
fn spawn(cmd: &[String], env: &[(String, String)], log: &std::fs::File) -> Result<Proc, String> {
    let log = log.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(|e| format!("spawn {:?}: {e}", cmd))?;
    Ok(Proc {
        input: child.stdin.take().unwrap(),
        output: child.stdout.take().unwrap(),
        child,
        buf: vec![0; READ_BUF],
        head: 0,
        tail: 0,
        out: Vec::with_capacity(64 * 1024),
    })
}

impl Proc {
    /// Sends `initialize` and waits for its answer (lines before it, e.g. logs, are skipped).
    fn initialize(&mut self) -> Result<(), String> {
        let mut init = proto::initialize(0).into_bytes();
        init.push(b'\n');
        self.write(&init)?;
        loop {
            let (a, b) = self.recv()?;
            let line = &self.buf[a..b];
            if serde_json::from_slice::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .is_some()
            {
                return proto::check_initialize(line, 0);
            }
        }
    }

    /// Hangs up: closes stdin, gives the server up to `grace` to exit, then kills it.
    fn hang_up(self, grace: Duration) {
        let Proc {
            mut child, input, ..
        } = self;
        drop(input);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Cold start (ms): spawn to the `initialize` answer, for a server that is then hung up.
fn cold_start(
    cmd: &[String],
    env: &[(String, String)],
    log: &std::fs::File,
) -> Result<f64, String> {
    let t0 = Instant::now();
    let mut p = spawn(cmd, env, log)?;
    let r = p.initialize();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    p.hang_up(Duration::ZERO);
    r.map(|()| ms)
}

/// Runs the stdio phases against `cmd` (with `env` added to its environment).
///
/// Cold start is the median over several spawns (`load.cold` in all, fewer if they take over
/// `load.cold_budget`): one spawn of a ~2 ms event is mostly noise on a shared VM.
pub fn run(
    cmd: &[String],
    env: &[(String, String)],
    load: &Load,
    stderr_log: &std::path::Path,
) -> Result<Metrics, String> {
    let mut m = Metrics::new();
    let log = std::fs::File::create(stderr_log).map_err(|e| e.to_string())?;
    let mut colds = Vec::with_capacity(load.cold);
    let budget = Instant::now() + load.cold_budget;
    while colds.len() + 1 < load.cold && (colds.len() < 2 || Instant::now() < budget) {
        colds.push(cold_start(cmd, env, &log)?);
    }
    let t0 = Instant::now();
    let mut p = spawn(cmd, env, &log)?;
    let pid = p.child.id();
    let me = std::process::id();
    let result = (|| {
        p.initialize()?;
        colds.push(t0.elapsed().as_secs_f64() * 1e3);
        colds.sort_by(|a, b| a.total_cmp(b));
        m.insert("cold_ms", colds[colds.len() / 2]);
        p.write(format!("{}\n", proto::INITIALIZED).as_bytes())?;
        let mut id = 1u64;
        // Warm-up.
        for _ in 0..load.warmup {
            p.call(id)?;
            id += 1;
        }
        // Sequential.
        let cpu0 = procstat::cpu_ns(pid);
        let own0 = procstat::cpu_ns(me);
        let sw0 = procstat::voluntary_switches(pid);
        let (mut lat, wall) = crate::timed_calls(load, 200, &mut id, |i| p.call(i))?;
        let (cpu1, own1) = (procstat::cpu_ns(pid), procstat::cpu_ns(me));
        let sw1 = procstat::voluntary_switches(pid);
        let n = lat.len() as f64;
        crate::latency_metrics(&mut m, "seq", &mut lat, wall);
        if let (Some(a), Some(b)) = (sw0, sw1) {
            m.insert("seq_csw", (b - a) as f64 / n);
        }
        if let (Some(a), Some(b)) = (cpu0, cpu1) {
            m.insert("seq_cpu_us", (b - a) as f64 / 1e3 / n);
        }
        if let (Some(a), Some(b)) = (own0, own1) {
            m.insert("seq_drv_us", (b - a) as f64 / 1e3 / n);
        }
        // Sequential again, the driver and every server thread on one CPU.
        if procstat::pin(pid, Some(procstat::current_cpu())) {
            for _ in 0..load.warmup {
                p.call(id)?;
                id += 1;
            }
            let (mut lat, wall) = crate::timed_calls(load, 200, &mut id, |i| p.call(i))?;
            crate::latency_metrics(&mut m, "pin", &mut lat, wall);
        }
        procstat::pin(pid, None);
        // Pipelined.
        let own0 = procstat::cpu_ns(me);
        let (n, wall, cpu) = pipelined(&mut p, pid, id, load)?;
        m.insert("pipe_rate", n as f64 / wall);
        if let Some(c) = cpu {
            m.insert("pipe_cpu_us", c as f64 / 1e3 / n as f64);
        }
        if let (Some(a), Some(b)) = (own0, procstat::cpu_ns(me)) {
            m.insert("pipe_drv_us", (b - a) as f64 / 1e3 / n as f64);
        }
        Ok(())
    })();
    p.hang_up(Duration::from_millis(500));
    result.map(|_| m)
}

/// Keeps `load.inflight` requests outstanding; returns (responses, seconds, server CPU ns).
///
/// One thread: check every complete response in the buffer, queue one refill per response, and
/// when the buffer runs dry send the queued refills in one `write` before blocking on `read`.
fn pipelined(
    p: &mut Proc,
    pid: u32,
    first_id: u64,
    load: &Load,
) -> Result<(u64, f64, Option<u64>), String> {
    let cap = load.pipe;
    let mut seen = Seen::new(first_id, cap);
    let mut out = std::mem::take(&mut p.out);
    out.clear();
    let cpu0 = procstat::cpu_ns(pid);
    let start = Instant::now();
    let mut sent = 0u64;
    let mut stopped = false;
    while sent < load.inflight.min(cap) {
        proto::push_call(&mut out, first_id + sent);
        out.push(b'\n');
        sent += 1;
    }
    let res = (|| -> Result<(), String> {
        loop {
            if !out.is_empty() {
                p.write(&out)?;
                out.clear();
                if !stopped && start.elapsed() >= load.phase {
                    stopped = true;
                }
            }
            if stopped && seen.count == sent {
                return Ok(());
            }
            p.fill()?;
            while let Some((a, b)) = p.next_line() {
                if let Checked::Echo(id) = proto::check_call(&p.buf[a..b])? {
                    seen.mark(id)?;
                    if !stopped && sent < cap {
                        proto::push_call(&mut out, first_id + sent);
                        out.push(b'\n');
                        sent += 1;
                        stopped = sent == cap;
                    }
                }
            }
        }
    })();
    p.out = out;
    res?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, procstat::cpu_ns(pid)) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    Ok((seen.count, wall, cpu))
}
