//! The many-connection HTTP load on one thread: a tokio current-thread runtime (epoll) drives
//! every connection, each one a closed loop (send, wait for its reply, record the latency, send
//! the next). Uses the driver's own HTTP/1.1 client ([`crate::httpwire`]), no HTTP library.

use crate::httpwire::{self, Reply};
use crate::keepalive::KeepAlive;
use crate::proto;
use std::cell::Cell;
use std::collections::HashSet;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One keep-alive connection driven by the event loop.
pub struct AConn {
    port: u16,
    stream: TcpStream,
    /// What is sent and read, the session and the era (shared with the blocking client).
    pub wire: KeepAlive,
}

impl AConn {
    /// Connects with TCP_NODELAY.
    pub async fn connect(port: u16) -> Result<AConn, String> {
        Ok(AConn {
            stream: open(port).await?,
            wire: KeepAlive::new(port),
            port,
        })
    }

    /// Sends one request and reads its reply (reconnecting when the server closes).
    pub async fn request(&mut self, method: &str, body: &[u8]) -> Result<Reply, String> {
        self.wire.encode(method, body);
        self.exchange().await
    }

    /// Sends what `wire` holds and reads the reply; a reply that closes the connection opens a
    /// new one for the next request.
    async fn exchange(&mut self) -> Result<Reply, String> {
        self.stream
            .write_all(self.wire.request_bytes())
            .await
            .map_err(|e| format!("send: {e}"))?;
        let mut eof = false;
        loop {
            if let Some(r) = self.wire.next_reply(eof)? {
                if r.close {
                    self.stream = open(self.port).await?;
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
                .await
                .map_err(|e| format!("recv: {e}"))?;
            eof = n == 0;
            self.wire.filled(n);
        }
    }

    /// initialize + notifications/initialized; keeps the session id if the server gave one.
    /// Nothing in the per-request era (it has no handshake).
    pub async fn handshake(&mut self) -> Result<(), String> {
        self.wire.session = None;
        if self.wire.per_request {
            return Ok(());
        }
        let r = self
            .request("POST", proto::initialize(0).as_bytes())
            .await?;
        self.wire.session = httpwire::check_initialize_reply(r)?;
        let r = self.request("POST", proto::INITIALIZED.as_bytes()).await?;
        httpwire::check_initialized_reply(&r)
    }

    /// One tools/call echo; checks the response.
    pub async fn call(&mut self, id: u64) -> Result<(), String> {
        self.wire.encode_call(id);
        let r = self.exchange().await?;
        httpwire::check_call_reply(&r, id)
    }

    /// Ends the session (DELETE), ignoring servers that refuse it.
    pub async fn close_session(&mut self) {
        if self.wire.session.is_some() {
            let _ = self.request("DELETE", b"").await;
            self.wire.session = None;
        }
    }
}

/// A socket on the current runtime to `127.0.0.1:port` with TCP_NODELAY.
async fn open(port: u16) -> Result<TcpStream, String> {
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    Ok(stream)
}

/// A current-thread runtime: every connection is served by this one thread's epoll loop.
pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))
}

/// Closed loop with `clients` connections for `phase`: returns every call's latency (ns) and the
/// measured wall time. `at_start` runs once all connections are ready, just before the clock.
/// `per_request`: the clients speak the per-request era (2026-07-28).
pub async fn closed_loop(
    port: u16,
    clients: usize,
    warm: u64,
    phase: Duration,
    per_request: bool,
    at_start: impl FnOnce(),
) -> Result<(Vec<u64>, f64), String> {
    let ready = Rc::new(tokio::sync::Barrier::new(clients + 1));
    let set = tokio::task::LocalSet::new();
    let mut handles = Vec::new();
    for k in 0..clients {
        let ready = ready.clone();
        handles.push(set.spawn_local(async move {
            let base = (k as u64 + 1) << 32;
            let prep = async {
                let mut c = AConn::connect(port).await?;
                c.wire.per_request = per_request;
                c.handshake().await?;
                for id in base..base + warm {
                    c.call(id).await?;
                }
                Ok::<_, String>(c)
            }
            .await;
            ready.wait().await;
            let mut c = prep?;
            let mut lat = Vec::with_capacity(1 << 16);
            let start = Instant::now();
            let mut id = base + 1_000_000;
            while lat.len() < 20 || start.elapsed() < phase {
                let t = Instant::now();
                c.call(id).await?;
                lat.push(t.elapsed().as_nanos() as u64);
                id += 1;
            }
            c.close_session().await;
            Ok::<_, String>(lat)
        }));
    }
    set.run_until(async move {
        ready.wait().await;
        at_start();
        let start = Instant::now();
        let mut all = Vec::new();
        let mut err = None;
        let mut wall = 0.0;
        for h in handles {
            match h
                .await
                .map_err(|e| format!("client task: {e}"))
                .and_then(|r| r)
            {
                Ok(l) => all.extend(l),
                Err(e) => err = Some(e),
            }
            // The clock stops when the last client finishes its last measured call; the
            // session DELETE after it is a few µs and is included.
            wall = start.elapsed().as_secs_f64();
        }
        match err {
            Some(e) => Err(e),
            None => Ok((all, wall)),
        }
    })
    .await
}

/// Opens stateful sessions (initialize + notifications/initialized, no GET stream) over `conns`
/// keep-alive connections until `want` more exist or `deadline` passes. Returns the connections
/// (kept open by the caller while it measures) and how many distinct sessions were opened.
pub async fn open_sessions(
    port: u16,
    conns: usize,
    want: usize,
    deadline: Instant,
) -> (Vec<AConn>, usize, Option<String>) {
    let left = Rc::new(Cell::new(want));
    let set = tokio::task::LocalSet::new();
    let mut handles = Vec::new();
    for _ in 0..conns.min(want.max(1)) {
        let left = left.clone();
        handles.push(set.spawn_local(async move {
            let mut ids = Vec::new();
            let mut c = match AConn::connect(port).await {
                Ok(c) => c,
                Err(e) => return (None, ids, Some(e)),
            };
            while left.get() > 0 && Instant::now() < deadline {
                left.set(left.get() - 1);
                match c.handshake().await {
                    Ok(()) => match c.wire.session.take() {
                        Some(s) => ids.push(s),
                        None => {
                            return (Some(c), ids, Some("no Mcp-Session-Id given".into()));
                        }
                    },
                    Err(e) => return (Some(c), ids, Some(e)),
                }
            }
            (Some(c), ids, None)
        }));
    }
    set.run_until(async move {
        let mut conns = Vec::new();
        let mut distinct = HashSet::new();
        let mut total = 0;
        let mut first_err = None;
        for h in handles {
            let (c, ids, e) = h
                .await
                .unwrap_or_else(|e| (None, Vec::new(), Some(e.to_string())));
            conns.extend(c);
            total += ids.len();
            distinct.extend(ids);
            if first_err.is_none() {
                first_err = e;
            }
        }
        if first_err.is_none() && distinct.len() != total {
            first_err = Some(format!(
                "{} session ids repeated among {total}",
                total - distinct.len()
            ));
        }
        (conns, distinct.len(), first_err)
    })
    .await
}
