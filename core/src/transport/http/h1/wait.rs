//! A kept-alive connection's bounded wait for its client's next request, before it sleeps.
//!
//! After an answer is written, the connection's task would await readiness and its worker park
//! in `epoll_wait`; on a VM whose idle vCPUs halt (`guest_halt_poll_ns=0`), the next request of
//! a sequential client then pays a vCPU wake-up (tens of µs). Instead, the task reads the
//! socket without blocking, yielding the CPU between tries, for at most
//! [`answer_wait::SPIN`]: a sequential client's next request usually arrives within that time
//! and the worker that wrote the answer reads it while its vCPU is still awake.
//!
//! It only waits when waiting cannot delay other work: on a multi-threaded runtime with two
//! or more workers (another worker keeps polling the I/O driver and timers), and when no other
//! connection of the process has begun a request since this connection's previous one began
//! (a sequential client alone, not one of many busy connections, whose next requests would
//! queue behind the wait on this worker). The wait ends as soon as another connection's request
//! begins. `FERROMCP_ANSWER_WAIT=0` turns it off.
//! The socket is read directly (not through the runtime's readiness, which is updated only
//! when a worker polls the driver); the runtime treats readiness as a hint, so a read that
//! finds the data gone is harmless.

use crate::transport::answer_wait;
use bytes::BytesMut;

/// A connection's socket as the wait reads it: its file descriptor. Waiting reads the socket
/// with `recv(MSG_DONTWAIT)`, so it exists on Unix only; elsewhere no connection has a socket to
/// wait on (the type has no values) and every connection sleeps as before.
#[cfg(unix)]
pub(crate) type Socket = std::os::fd::RawFd;
/// A connection's socket as the wait reads it: none outside Unix (see the Unix definition).
#[cfg(not(unix))]
pub(crate) type Socket = std::convert::Infallible;

/// The socket of a plain TCP connection, for [`super::serve_connection`].
#[cfg(unix)]
pub(crate) fn socket_of(tcp: &tokio::net::TcpStream) -> Option<Socket> {
    Some(std::os::fd::AsRawFd::as_raw_fd(tcp))
}

/// The socket of a plain TCP connection: none outside Unix (the connection never waits).
#[cfg(not(unix))]
pub(crate) fn socket_of(_tcp: &tokio::net::TcpStream) -> Option<Socket> {
    None
}
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Requests begun in the process (every connection that may wait counts its requests here).
static BEGUN: AtomicU64 = AtomicU64::new(0);

/// What a connection knows about the requests begun around its own.
#[derive(Default)]
pub(super) struct Turns {
    /// [`BEGUN`] after this connection's previous request began.
    previous: Option<u64>,
    /// [`BEGUN`] after this connection's current request began, if no other request had begun
    /// since its previous one (the connection may then wait after answering it).
    alone: Option<u64>,
}

impl Turns {
    /// Counts a request of this connection beginning.
    pub(super) fn begin(&mut self) {
        let now = BEGUN.fetch_add(1, Ordering::Relaxed) + 1;
        self.alone = self.previous.filter(|p| p + 1 == now).map(|_| now);
        self.previous = Some(now);
    }

    /// Whether the connection may wait after its current request (see [`next_request`]).
    pub(super) fn may_wait(&self) -> bool {
        self.alone.is_some()
    }
}

/// The socket a connection may wait on, or `None` when it must not wait at all (waiting turned
/// off, no socket, or a runtime on which a busy worker would hold up the I/O driver).
pub(super) fn waiter(fd: Option<Socket>) -> Option<Socket> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let fd = fd?;
    if !answer_wait::enabled() {
        return None;
    }
    let rt = Handle::try_current().ok()?;
    (rt.runtime_flavor() == RuntimeFlavor::MultiThread && rt.metrics().num_workers() >= 2)
        .then_some(fd)
}

/// Reads the next request's first bytes from `fd` into `buf`'s spare room (which must be
/// non-empty), waiting at most [`answer_wait::SPIN`], if the connection's last request was the
/// only one begun in the process since its previous one. `Some(n)`: `n` bytes were read (0: the
/// peer closed); `None`: nothing came (or the wait was not allowed, or another connection's
/// request began, or the read failed: then the usual await reports it).
pub(super) fn next_request(fd: Socket, turns: &Turns, buf: &mut BytesMut) -> Option<usize> {
    let mine = turns.alone?;
    let start = Instant::now();
    loop {
        if BEGUN.load(Ordering::Relaxed) != mine {
            return None;
        }
        if let Some(n) = read_now(fd, buf) {
            #[cfg(all(test, unix))]
            if n > 0 {
                tests::caught_on(fd);
            }
            return Some(n);
        }
        if start.elapsed() >= answer_wait::SPIN {
            return None;
        }
        std::thread::yield_now();
    }
}

/// One read of `fd` that does not block: `Some(n)` bytes read (0: end of stream), `None` if
/// nothing is there yet or the read failed.
#[cfg(unix)]
fn read_now(fd: Socket, buf: &mut BytesMut) -> Option<usize> {
    let spare = buf.spare_capacity_mut();
    // SAFETY: `spare` is writable memory of `spare.len()` bytes owned by `buf`; `recv` writes
    // at most that many bytes and reports how many.
    let n = unsafe {
        libc::recv(
            fd,
            spare.as_mut_ptr().cast(),
            spare.len(),
            libc::MSG_DONTWAIT,
        )
    };
    if n < 0 {
        return None;
    }
    let n = n as usize;
    // SAFETY: `recv` initialised the first `n` bytes of the spare room.
    unsafe { buf.set_len(buf.len() + n) };
    Some(n)
}

/// Never called outside Unix: [`Socket`] has no values there.
#[cfg(not(unix))]
fn read_now(fd: Socket, _buf: &mut BytesMut) -> Option<usize> {
    match fd {}
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::{serve_connection, Limits};
    use crate::transport::http::gauges::Gauges;
    use axum::body::Body;
    use http::{Response, StatusCode};
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, RawFd};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// Per listening test's socket: waits that found the next request (tests run in parallel,
    /// so a process-wide count would mix them).
    static CAUGHT: Mutex<Vec<(RawFd, usize)>> = Mutex::new(Vec::new());

    pub(super) fn caught_on(fd: RawFd) {
        let mut c = CAUGHT.lock().unwrap();
        match c.iter_mut().find(|(f, _)| *f == fd) {
            Some((_, n)) => *n += 1,
            None => c.push((fd, 1)),
        }
    }

    fn caught(fds: &[RawFd]) -> usize {
        let c = CAUGHT.lock().unwrap();
        c.iter()
            .filter(|(f, _)| fds.contains(f))
            .map(|(_, n)| n)
            .sum()
    }

    fn refusal(
        status: StatusCode,
        message: String,
        _id: Option<crate::jsonrpc::RequestId>,
    ) -> Response<Body> {
        Response::builder()
            .status(status)
            .body(Body::from(message))
            .expect("a valid response")
    }

    /// A server on a runtime with `workers` worker threads (0: current-thread) whose endpoint
    /// answers each request with its body; returns its address and the server sockets' fds.
    struct Server {
        addr: std::net::SocketAddr,
        fds: Arc<Mutex<Vec<RawFd>>>,
        /// The multi-threaded runtime (a current-thread one runs on its own thread).
        _rt: Option<tokio::runtime::Runtime>,
    }

    fn server(workers: usize) -> Server {
        let rt = if workers == 0 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(workers);
            b
        }
        .enable_all()
        .build()
        .unwrap();
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let fds = Arc::new(Mutex::new(Vec::new()));
        let seen = fds.clone();
        let serve = async move {
            loop {
                let (tcp, _) = listener.accept().await.unwrap();
                tcp.set_nodelay(true).unwrap();
                let fd = tcp.as_raw_fd();
                seen.lock().unwrap().push(fd);
                let limits = Limits {
                    max_head: 8 * 1024,
                    max_body: 64 * 1024,
                    request_timeout: Duration::from_secs(10),
                    idle_timeout: Duration::from_secs(10),
                    header_read_timeout: Duration::from_secs(10),
                    write_timeout: Duration::from_secs(10),
                    gauges: Arc::new(Gauges::new(16 << 20)),
                };
                tokio::spawn(serve_connection(
                    tcp,
                    Some(fd),
                    limits,
                    refusal,
                    tokio_util::sync::CancellationToken::new(),
                    |req: crate::transport::http::request::HttpRequest| async move {
                        Response::new(Body::from(req.body))
                    },
                ));
            }
        };
        let rt = if workers == 0 {
            // A current-thread runtime runs its tasks only inside `block_on`.
            std::thread::spawn(move || rt.block_on(serve));
            None
        } else {
            rt.spawn(serve);
            Some(rt)
        };
        Server { addr, fds, _rt: rt }
    }

    /// Sends `body` as one POST on `c` and returns the answer's body.
    fn call(c: &mut std::net::TcpStream, body: &str) -> String {
        write!(
            c,
            "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut got = Vec::new();
        let mut chunk = [0u8; 1024];
        loop {
            let n = c.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            got.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&got);
            if let Some(end) = text.find("\r\n\r\n") {
                let head = text[..end].to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .expect("a length")
                    .trim()
                    .parse()
                    .unwrap();
                if got.len() >= end + 4 + len {
                    assert!(head.starts_with("http/1.1 200"), "{head}");
                    return text[end + 4..end + 4 + len].to_owned();
                }
            }
        }
    }

    fn connect(s: &Server) -> std::net::TcpStream {
        let c = std::net::TcpStream::connect(s.addr).unwrap();
        c.set_nodelay(true).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        c
    }

    /// Makes `calls` sequential calls on one connection to a server with `workers` (0: a
    /// current-thread runtime) and returns how many of its next requests a wait read.
    fn sequential_calls_caught(workers: usize, calls: usize) -> usize {
        let s = server(workers);
        let mut c = connect(&s);
        for i in 0..calls {
            assert_eq!(call(&mut c, &format!("call {i}")), format!("call {i}"));
        }
        let fds = s.fds.lock().unwrap().clone();
        caught(&fds)
    }

    #[test]
    fn a_sequential_clients_next_request_is_read_by_the_wait() {
        // Some of 300 turn-arounds come within the wait even on a loaded machine.
        assert!(
            sequential_calls_caught(2, 300) > 0,
            "no wait found its next request"
        );
    }

    #[test]
    fn a_request_after_the_wait_is_still_answered() {
        let s = server(2);
        let mut c = connect(&s);
        for i in 0..5 {
            // Far longer than the wait: the connection has gone to sleep on the socket.
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(call(&mut c, &format!("late {i}")), format!("late {i}"));
        }
    }

    #[test]
    fn a_current_thread_runtime_never_waits() {
        assert_eq!(sequential_calls_caught(0, 100), 0);
    }

    #[test]
    fn many_connections_are_all_served() {
        let s = server(2);
        let clients: Vec<_> = (0..32)
            .map(|k| {
                let mut c = connect(&s);
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let body = format!("client {k} call {i}");
                        assert_eq!(call(&mut c, &body), body);
                    }
                })
            })
            .collect();
        for c in clients {
            c.join().unwrap();
        }
    }

    /// Run in a child process with `FERROMCP_ANSWER_WAIT=0` (the switch is read once per
    /// process): no wait happens. In this process it starts that child and checks its result.
    #[test]
    fn the_switch_turns_waiting_off() {
        if std::env::var_os("FERROMCP_ANSWER_WAIT_CHILD").is_some() {
            assert_eq!(std::env::var("FERROMCP_ANSWER_WAIT").as_deref(), Ok("0"));
            let s = server(2);
            let mut c = connect(&s);
            for i in 0..300 {
                assert_eq!(call(&mut c, &format!("call {i}")), format!("call {i}"));
            }
            let fds = s.fds.lock().unwrap().clone();
            assert_eq!(
                caught(&fds),
                0,
                "a wait happened with FERROMCP_ANSWER_WAIT=0"
            );
            return;
        }
        let name = "transport::http::h1::wait::tests::the_switch_turns_waiting_off";
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--test-threads=1"])
            .env("FERROMCP_ANSWER_WAIT_CHILD", "1")
            .env("FERROMCP_ANSWER_WAIT", "0")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(text.contains("1 passed"), "the child ran no test: {text}");
    }
}
