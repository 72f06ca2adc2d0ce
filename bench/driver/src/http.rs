//! Streamable HTTP load: a minimal HTTP/1.1 keep-alive client over std TcpStream (no HTTP or MCP
//! library), sequential calls at 1 client, closed-loop load at N clients, and memory per idle
//! session.

use crate::proto::{self, Checked};
use crate::{procstat, Load, Metrics};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

pub struct Conn {
    port: u16,
    stream: TcpStream,
    reader: BufReader<TcpStream>,
    pub session: Option<String>,
    req: Vec<u8>,
}

pub struct Reply {
    pub status: u16,
    pub session: Option<String>,
    pub sse: bool,
    pub body: Vec<u8>,
}

impl Conn {
    pub fn connect(port: u16) -> Result<Conn, String> {
        let stream =
            TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream.set_read_timeout(Some(Duration::from_secs(30))).ok();
        let reader =
            BufReader::with_capacity(64 * 1024, stream.try_clone().map_err(|e| e.to_string())?);
        Ok(Conn {
            port,
            stream,
            reader,
            session: None,
            req: Vec::with_capacity(1024),
        })
    }

    pub fn post(&mut self, body: &[u8]) -> Result<Reply, String> {
        self.req.clear();
        let _ = write!(
            self.req,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\nContent-Length: {}\r\n",
            self.port,
            proto::PROTOCOL_VERSION,
            body.len()
        );
        if let Some(s) = &self.session {
            let _ = write!(self.req, "Mcp-Session-Id: {s}\r\n");
        }
        self.req.extend_from_slice(b"\r\n");
        self.req.extend_from_slice(body);
        self.stream
            .write_all(&self.req)
            .map_err(|e| format!("send: {e}"))?;
        self.read_reply()
    }

    fn read_line(&mut self, line: &mut String) -> Result<(), String> {
        line.clear();
        let n = self
            .reader
            .read_line(line)
            .map_err(|e| format!("recv: {e}"))?;
        if n == 0 {
            return Err("connection closed".into());
        }
        Ok(())
    }

    fn read_reply(&mut self) -> Result<Reply, String> {
        let mut line = String::new();
        self.read_line(&mut line)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line {line:?}"))?;
        let (mut len, mut chunked, mut sse, mut session, mut close) =
            (None, false, false, None, false);
        loop {
            self.read_line(&mut line)?;
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                let v = v.trim();
                match k.to_ascii_lowercase().as_str() {
                    "content-length" => len = v.parse::<usize>().ok(),
                    "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
                    "content-type" => sse = v.starts_with("text/event-stream"),
                    "mcp-session-id" => session = Some(v.to_string()),
                    "connection" => close = v.eq_ignore_ascii_case("close"),
                    _ => {}
                }
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                self.read_line(&mut line)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| format!("bad chunk size {line:?}"))?;
                if size == 0 {
                    // Trailers until the empty line.
                    loop {
                        self.read_line(&mut line)?;
                        if line.trim_end().is_empty() {
                            break;
                        }
                    }
                    break;
                }
                let start = body.len();
                body.resize(start + size, 0);
                self.reader
                    .read_exact(&mut body[start..])
                    .map_err(|e| format!("recv chunk: {e}"))?;
                self.read_line(&mut line)?; // CRLF after the chunk
            }
        } else if let Some(n) = len {
            body.resize(n, 0);
            self.reader
                .read_exact(&mut body)
                .map_err(|e| format!("recv body: {e}"))?;
        } else if status != 202 && status != 204 {
            self.reader
                .read_to_end(&mut body)
                .map_err(|e| format!("recv body: {e}"))?;
            close = true;
        }
        if close {
            // The server will not keep this connection: reconnect for the next request.
            let fresh = Conn::connect(self.port)?;
            self.stream = fresh.stream;
            self.reader = fresh.reader;
        }
        Ok(Reply {
            status,
            session,
            sse,
            body,
        })
    }

    /// initialize + notifications/initialized; keeps the session id if the server gave one.
    pub fn handshake(&mut self) -> Result<(), String> {
        self.session = None;
        let r = self.post(proto::initialize(0).as_bytes())?;
        if r.status != 200 {
            return Err(format!(
                "initialize: HTTP {} {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            ));
        }
        let msg = json_messages(&r)
            .into_iter()
            .next()
            .ok_or("initialize: empty reply")?;
        proto::check_initialize(&msg, 0)?;
        self.session = r.session;
        let r = self.post(proto::INITIALIZED.as_bytes())?;
        if !(200..300).contains(&r.status) {
            return Err(format!("initialized: HTTP {}", r.status));
        }
        Ok(())
    }

    /// One tools/call echo; checks the response.
    pub fn call(&mut self, id: u64) -> Result<(), String> {
        let r = self.post(&proto::call(id))?;
        if r.status != 200 {
            return Err(format!(
                "tools/call: HTTP {} {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            ));
        }
        for msg in json_messages(&r) {
            match proto::check_call(&msg)? {
                Checked::Echo(got) if got == id => return Ok(()),
                Checked::Echo(got) => return Err(format!("expected id {id}, got {got}")),
                Checked::Other => {}
            }
        }
        Err(format!(
            "no response for id {id} in {}",
            String::from_utf8_lossy(&r.body)
        ))
    }
}

/// The JSON-RPC messages of a reply: the body itself, or each SSE event's data.
fn json_messages(r: &Reply) -> Vec<Vec<u8>> {
    if !r.sse {
        return vec![r.body.clone()];
    }
    let mut out = Vec::new();
    let mut data = Vec::new();
    for line in r.body.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if !data.is_empty() {
                out.push(std::mem::take(&mut data));
            }
        } else if let Some(d) = line.strip_prefix(b"data:") {
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(d.strip_prefix(b" ").unwrap_or(d));
        }
    }
    if !data.is_empty() {
        out.push(data);
    }
    out.retain(|d| !d.iter().all(u8::is_ascii_whitespace));
    out
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
    pub fn spawn(cmd: &[String], port: u16, log: &std::path::Path) -> Result<Server, String> {
        let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
        let child = Command::new(&cmd[0])
            .args(&cmd[1..])
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
        // SIGTERM first (lets a profiler wrapper write its data), SIGKILL after 3 s.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs one HTTP measurement of a server already listening.
pub fn run(server: &Server, load: &Load, sessions: bool) -> Result<Metrics, String> {
    let mut m = Metrics::new();
    let pid = server.pid();
    // 1 client.
    let mut c = Conn::connect(server.port)?;
    c.handshake()?;
    let mut id = 1u64;
    for _ in 0..load.warmup {
        c.call(id)?;
        id += 1;
    }
    let cpu0 = procstat::cpu_ns(pid);
    let start = Instant::now();
    let mut lat = Vec::new();
    while (lat.len() as u64) < load.seq && (lat.len() < 100 || start.elapsed() < load.phase) {
        let t = Instant::now();
        c.call(id)?;
        lat.push(t.elapsed().as_nanos() as u64);
        id += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let n1 = lat.len();
    crate::latency_metrics(&mut m, "c1", &mut lat, wall);
    if let (Some(a), Some(b)) = (cpu0, procstat::cpu_ns(pid)) {
        m.insert("c1_cpu_us", (b - a) as f64 / 1e3 / n1 as f64);
    }
    drop(c);
    // N clients, closed loop.
    let clients = load.clients;
    let barrier = Arc::new(Barrier::new(clients + 1));
    let mut handles = Vec::new();
    for k in 0..clients {
        let barrier = barrier.clone();
        let port = server.port;
        let phase = load.phase;
        let warm = load.warmup / 10 + 1;
        handles.push(std::thread::spawn(move || -> Result<Vec<u64>, String> {
            let r = (|| -> Result<Conn, String> {
                let mut c = Conn::connect(port)?;
                c.handshake()?;
                let base = (k as u64 + 1) << 32;
                for id in base..base + warm {
                    c.call(id)?;
                }
                Ok(c)
            })();
            barrier.wait();
            let mut c = r?;
            let mut lat = Vec::new();
            let start = Instant::now();
            let mut id = ((k as u64 + 1) << 32) + 1_000_000;
            while lat.len() < 20 || start.elapsed() < phase {
                let t = Instant::now();
                c.call(id)?;
                lat.push(t.elapsed().as_nanos() as u64);
                id += 1;
            }
            Ok(lat)
        }));
    }
    barrier.wait();
    let cpu0 = procstat::cpu_ns(pid);
    let start = Instant::now();
    let mut all = Vec::new();
    let mut err = None;
    for h in handles {
        match h
            .join()
            .map_err(|_| "client panicked".to_string())
            .and_then(|r| r)
        {
            Ok(l) => all.extend(l),
            Err(e) => err = Some(e),
        }
    }
    let wall = start.elapsed().as_secs_f64();
    if let Some(e) = err {
        return Err(e);
    }
    let n = all.len();
    crate::latency_metrics(&mut m, "cN", &mut all, wall);
    if let (Some(a), Some(b)) = (cpu0, procstat::cpu_ns(pid)) {
        m.insert("cN_cpu_us", (b - a) as f64 / 1e3 / n as f64);
    }
    // Memory per idle session: open `load.sessions` sessions and leave them idle.
    if sessions {
        std::thread::sleep(Duration::from_millis(200));
        let before = procstat::rss_kib(pid).ok_or("no RSS")?;
        let mut c = Conn::connect(server.port)?;
        let mut opened = 0;
        for _ in 0..load.sessions {
            c.handshake()?;
            if c.session.is_some() {
                opened += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(300));
        let after = procstat::rss_kib(pid).ok_or("no RSS")?;
        if opened > 0 {
            m.insert("idle_kib", (after as f64 - before as f64) / opened as f64);
        }
    }
    Ok(m)
}
