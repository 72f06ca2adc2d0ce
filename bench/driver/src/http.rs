//! Streamable HTTP load: spawning the server, sequential calls at 1 client over a blocking
//! keep-alive socket, closed-loop load at N clients on one epoll thread ([`crate::httpload`]),
//! and memory with idle sessions. The HTTP/1.1 client is the driver's own
//! ([`crate::httpwire`]); no HTTP or MCP library.

use crate::httpwire::{self, Reply};
use crate::keepalive::KeepAlive;
use crate::{httpload, proto};
use crate::{procstat, Load, Metrics};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A blocking keep-alive connection, for the 1-client phase (no event loop on the path).
pub struct Conn {
    port: u16,
    stream: TcpStream,
    /// What is sent and read, the session and the era (shared with the event-loop client).
    pub wire: KeepAlive,
}

impl Conn {
    /// Connects with TCP_NODELAY and a 30 s read timeout.
    pub fn connect(port: u16) -> Result<Conn, String> {
        Ok(Conn {
            stream: open(port)?,
            wire: KeepAlive::new(port),
            port,
        })
    }

    /// Sends one request and reads its reply (reconnecting when the server closes).
    pub fn request(&mut self, method: &str, body: &[u8]) -> Result<Reply, String> {
        self.wire.encode(method, body);
        self.exchange()
    }

    /// Sends what `wire` holds and reads the reply; a reply that closes the connection opens a
    /// new one for the next request.
    fn exchange(&mut self) -> Result<Reply, String> {
        self.stream
            .write_all(self.wire.request_bytes())
            .map_err(|e| format!("send: {e}"))?;
        let mut eof = false;
        loop {
            if let Some(r) = self.wire.next_reply(eof)? {
                if r.close {
                    self.stream = open(self.port)?;
                    self.wire.reconnected();
                }
                return Ok(r);
            }
            if eof {
                return Err("connection closed".into());
            }
            let n = self
                .stream
                .read(self.wire.spare())
                .map_err(|e| format!("recv: {e}"))?;
            eof = n == 0;
            self.wire.filled(n);
        }
    }

    /// initialize + notifications/initialized; keeps the session id if the server gave one.
    /// Nothing in the per-request era (it has no handshake).
    pub fn handshake(&mut self) -> Result<(), String> {
        self.wire.session = None;
        if self.wire.per_request {
            return Ok(());
        }
        let r = self.request("POST", proto::initialize(0).as_bytes())?;
        self.wire.session = httpwire::check_initialize_reply(r)?;
        let r = self.request("POST", proto::INITIALIZED.as_bytes())?;
        httpwire::check_initialized_reply(&r)
    }

    /// One tools/call echo; checks the response.
    pub fn call(&mut self, id: u64) -> Result<(), String> {
        self.wire.encode_call(id);
        let r = self.exchange()?;
        httpwire::check_call_reply(&r, id)
    }

    /// Ends the session (DELETE), ignoring servers that refuse it.
    pub fn close_session(&mut self) {
        if self.wire.session.is_some() {
            let _ = self.request("DELETE", b"");
            self.wire.session = None;
        }
    }
}

/// A blocking socket to `127.0.0.1:port` with TCP_NODELAY and a 30 s read timeout.
fn open(port: u16) -> Result<TcpStream, String> {
    let stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(30))).ok();
    Ok(stream)
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub struct Server {
    child: Child,
    pub port: u16,
}

impl Server {
    /// Spawns `cmd` (with `env` added) and waits until it accepts connections on `port`.
    pub fn spawn(
        cmd: &[String],
        env: &[(String, String)],
        port: u16,
        log: &std::path::Path,
    ) -> Result<Server, String> {
        let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
        let child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .map_err(|e| format!("spawn {cmd:?}: {e}"))?;
        let mut s = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(s);
            }
            if let Ok(Some(st)) = s.child.try_wait() {
                return Err(format!("server exited early: {st}"));
            }
            if Instant::now() > deadline {
                return Err("server did not listen within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        procstat::terminate(&mut self.child);
    }
}

/// Runs one HTTP measurement of a server already listening: 1 client (blocking socket), then
/// `load.clients` clients on one epoll thread; `per_request`: as 2026-07-28 clients.
pub fn run(server: &Server, load: &Load, per_request: bool) -> Result<Metrics, String> {
    let mut m = Metrics::new();
    let pid = server.pid();
    let me = std::process::id();
    // 1 client.
    let mut c = Conn::connect(server.port)?;
    c.wire.per_request = per_request;
    c.handshake()?;
    let mut id = 1u64;
    for _ in 0..load.warmup {
        c.call(id)?;
        id += 1;
    }
    let timed = |c: &mut Conn, i| {
        let t = Instant::now();
        c.call(i).map(|()| t.elapsed())
    };
    let (cpu0, own0) = (procstat::cpu_ns(pid), procstat::cpu_ns(me));
    let sw0 = procstat::voluntary_switches(pid);
    let (mut lat, wall) = crate::timed_calls(load, 100, &mut id, |i| timed(&mut c, i))?;
    let sw1 = procstat::voluntary_switches(pid);
    let n1 = lat.len() as f64;
    crate::latency_metrics(&mut m, "c1", &mut lat, wall);
    if let (Some(a), Some(b)) = (sw0, sw1) {
        m.insert("c1_csw", (b - a) as f64 / n1);
    }
    if let (Some(a), Some(b)) = (cpu0, procstat::cpu_ns(pid)) {
        m.insert("c1_cpu_us", (b - a) as f64 / 1e3 / n1);
    }
    if let (Some(a), Some(b)) = (own0, procstat::cpu_ns(me)) {
        m.insert("c1_drv_us", (b - a) as f64 / 1e3 / n1);
    }
    // 1 client again, the driver and every server thread on one CPU.
    if procstat::pin(pid, Some(procstat::current_cpu())) {
        for _ in 0..load.warmup {
            c.call(id)?;
            id += 1;
        }
        let (mut lat, wall) = crate::timed_calls(load, 100, &mut id, |i| timed(&mut c, i))?;
        crate::latency_metrics(&mut m, "c1pin", &mut lat, wall);
    }
    procstat::pin(pid, None);
    c.close_session();
    drop(c);
    // N clients, closed loop, all on this thread.
    let rt = httpload::runtime()?;
    let marks = std::cell::Cell::new((None, None));
    let (mut all, wall) = rt.block_on(httpload::closed_loop(
        server.port,
        load.clients,
        load.warmup / 10 + 1,
        load.phase,
        per_request,
        || marks.set((procstat::cpu_ns(pid), procstat::cpu_ns(me))),
    ))?;
    let (cpu0, own0) = marks.get();
    let (cpu1, own1) = (procstat::cpu_ns(pid), procstat::cpu_ns(me));
    let n = all.len() as f64;
    crate::latency_metrics(&mut m, "cN", &mut all, wall);
    if let (Some(a), Some(b)) = (cpu0, cpu1) {
        m.insert("cN_cpu_us", (b - a) as f64 / 1e3 / n);
    }
    if let (Some(a), Some(b)) = (own0, own1) {
        m.insert("cN_drv_us", (b - a) as f64 / 1e3 / n);
    }
    Ok(m)
}

/// RSS (KiB) once it has settled: read every 100 ms until two reads differ by under 0.5 % (at
/// most 3 s).
fn settled_rss(pid: u32) -> Result<u64, String> {
    let mut last = procstat::rss_kib(pid).ok_or("no RSS")?;
    for _ in 0..30 {
        std::thread::sleep(Duration::from_millis(100));
        let now = procstat::rss_kib(pid).ok_or("no RSS")?;
        if now.abs_diff(last) * 200 < last.max(1) {
            return Ok(now);
        }
        last = now;
    }
    Ok(last)
}

/// Memory with idle sessions, on a freshly spawned stateful server: after one warm-up session
/// (a few calls, then DELETE), the RSS growth over opening `load.sessions` sessions (KiB each),
/// then the RSS with `load.big_sessions` idle sessions in all. Sessions are opened by 16
/// keep-alive connections (initialize + notifications/initialized each, no GET stream) and left
/// idle; the connections stay open while RSS is read (after it settles, /proc/PID/status VmRSS).
///
/// With `huge`, it goes on to `load.huge_sessions` idle sessions and reads the RSS again (and,
/// past 100,000, once on the way at 100,000), timing the opening.
pub fn idle_sessions(
    server: &Server,
    load: &Load,
    huge: bool,
    m: &mut Metrics,
) -> Result<(), String> {
    let rt = httpload::runtime()?;
    let pid = server.pid();
    let port = server.port;
    let mut c = Conn::connect(port)?;
    c.handshake()?;
    for id in 1..=load.warmup.min(50) {
        c.call(id)?;
    }
    c.close_session();
    drop(c);
    let before = settled_rss(pid)?;
    let far = Instant::now() + Duration::from_secs(120);
    let (c1, opened, err) = rt.block_on(httpload::open_sessions(port, 16, load.sessions, far));
    if let Some(e) = err {
        return Err(format!(
            "idle sessions: {e} (after {opened} of {})",
            load.sessions
        ));
    }
    let after = settled_rss(pid)?;
    m.insert(
        "idle_kib",
        (after as f64 - before as f64) / opened.max(1) as f64,
    );
    let more = load.big_sessions.saturating_sub(opened);
    let deadline = Instant::now() + load.big_deadline;
    let (c2, opened2, err) = rt.block_on(httpload::open_sessions(port, 16, more, deadline));
    let total = opened + opened2;
    if let Some(e) = err {
        return Err(format!(
            "{} idle sessions: {e} (after {total})",
            load.big_sessions
        ));
    }
    if total < load.big_sessions {
        return Err(format!(
            "{} idle sessions: only {total} opened in {} s",
            load.big_sessions,
            load.big_deadline.as_secs()
        ));
    }
    let big = settled_rss(pid)?;
    m.insert("big_rss_mib", big as f64 / 1024.0);
    m.insert(
        "big_kib",
        (big as f64 - before as f64) / total.max(1) as f64,
    );
    if huge {
        // Then on to `load.huge_sessions` in all (ferromcp's Rust rows: issue 19's target is
        // 100,000; `--huge-sessions` asks for more). Past 100,000 the RSS is read at 100,000 on
        // the way (`lakh_rss_mib`). The time from `big_sessions` to all of them is `huge_open_s`.
        let deadline = Instant::now() + load.huge_deadline();
        let started = Instant::now();
        let mut held = Vec::new();
        let mut all = total;
        let mut settling = Duration::ZERO;
        let mut steps = vec![load.huge_sessions];
        if load.huge_sessions > crate::LAKH && total < crate::LAKH {
            steps.insert(0, crate::LAKH);
        }
        for step in steps {
            let more = step.saturating_sub(all);
            let (c3, opened3, err) = rt.block_on(httpload::open_sessions(port, 16, more, deadline));
            held.push(c3);
            all += opened3;
            if let Some(e) = err {
                return Err(format!(
                    "{} idle sessions: {e} (after {all}, {:.0} s)",
                    load.huge_sessions,
                    started.elapsed().as_secs_f64()
                ));
            }
            if all < step {
                return Err(format!(
                    "{} idle sessions: only {all} opened in {} s",
                    load.huge_sessions,
                    load.huge_deadline().as_secs()
                ));
            }
            if step != load.huge_sessions {
                // Read on the way; the wait for RSS to settle is not counted as opening time.
                let t = Instant::now();
                m.insert("lakh_open_s", (t - started).as_secs_f64());
                m.insert("lakh_rss_mib", settled_rss(pid)? as f64 / 1024.0);
                settling += t.elapsed();
            }
        }
        m.insert("huge_open_s", (started.elapsed() - settling).as_secs_f64());
        let huge = settled_rss(pid)?;
        m.insert("huge_rss_mib", huge as f64 / 1024.0);
        m.insert(
            "huge_kib",
            (huge as f64 - before as f64) / all.max(1) as f64,
        );
        drop(held);
    }
    drop((c1, c2));
    Ok(())
}
