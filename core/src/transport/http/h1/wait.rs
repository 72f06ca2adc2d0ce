//! A kept-alive connection's bounded wait for its client's next request, before it sleeps.
//!
//! After an answer is written, the connection's task would await readiness and its worker park
//! in `epoll_wait`; on a VM whose idle vCPUs halt (`guest_halt_poll_ns=0`), the next request of
//! a sequential client then pays a vCPU wake-up (tens of µs). Instead, the task may read the
//! socket without blocking, yielding the CPU between tries, for the budget of the thread's
//! [`WaitPolicy`]: a sequential client's next request usually arrives within that time and the
//! worker that wrote the answer reads it while its vCPU is still awake.
//!
//! Whether it waits is the engine's one gate ([`crate::wait`]): only on a thread whose policy
//! spins (the engine's own runtime in a binding, or a user's runtime that opted in with
//! [`WaitPolicy::set_for_this_thread`]; a user's own `#[tokio::main]` parks), and only while the
//! process's HTTP requests come one at a time ([`Traffic::gate`] of this module's request
//! count: a sequential client alone, not one of many busy connections, whose next requests
//! would queue behind the wait on this worker). The wait ends as soon as another request
//! begins. On a runtime of one thread the wait holds that thread (its I/O driver and timers
//! included) for at most the budget; the gate keeps that to a lone sequential client.
//! The socket is read directly (not through the runtime's readiness, which is updated only
//! when a worker polls the driver); the runtime treats readiness as a hint, so a read that
//! finds the data gone is harmless.

use crate::wait::{Outstanding, Traffic, WaitPolicy};
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

/// HTTP requests of the connections that may wait (their own count: a request through a
/// binding's handler is also a foreign call of [`crate::wait::CALLS`], and counting both in
/// one place would make every such request overlap itself).
static REQUESTS: Traffic = Traffic::new();

/// The request of a connection that may wait, outstanding from when its head is read until the
/// connection looks for the next one (or closes).
#[derive(Default)]
pub(super) struct Turns {
    current: Option<Outstanding<'static>>,
    /// [`Traffic::begun`] of [`REQUESTS`] once this connection's current request began.
    begun: usize,
}

impl Turns {
    /// Counts a request of this connection beginning.
    pub(super) fn begin(&mut self) {
        // The previous request (pipelined: its answer is written) ends first, so it does not
        // count as another outstanding request.
        self.current = None;
        self.current = Some(REQUESTS.begin());
        self.begun = REQUESTS.begun();
    }

    /// Ends the current request (its answer is written) and says whether the connection may
    /// wait for its next one: the gate of this thread's policy is open and no other request
    /// began since this one.
    pub(super) fn may_wait(&mut self) -> bool {
        self.current = None;
        REQUESTS.gate(WaitPolicy::here()).is_some() && REQUESTS.begun() == self.begun
    }
}

/// The socket a connection may wait on, or `None` when it must not wait at all (no socket, or
/// the policy of the thread serving it parks).
pub(super) fn waiter(fd: Option<Socket>) -> Option<Socket> {
    fd.filter(|_| WaitPolicy::here().budget().is_some())
}

/// Reads the next request's first bytes from `fd` into `buf`'s spare room (which must be
/// non-empty), waiting at most the budget of this thread's [`WaitPolicy`] (after
/// [`Turns::may_wait`] said yes). `Some(n)`: `n` bytes were read (0: the peer closed); `None`:
/// nothing came (or another request began, or the read failed: then the usual await reports
/// it).
pub(super) fn next_request(fd: Socket, turns: &Turns, buf: &mut BytesMut) -> Option<usize> {
    let budget = WaitPolicy::here().budget()?;
    let mine = turns.begun;
    let n = crate::wait::spin(budget, || {
        if REQUESTS.begun() != mine {
            return Err(());
        }
        Ok(read_now(fd, buf))
    })?;
    #[cfg(all(test, unix))]
    if n > 0 {
        tests::caught_on(fd);
    }
    Some(n)
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
    use crate::wait::WaitPolicy;
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

    /// A server on a runtime with `workers` worker threads (0: current-thread) whose threads
    /// have the wait policy `policy`, and whose endpoint answers each request with its body;
    /// returns its address and the server sockets' fds.
    struct Server {
        addr: std::net::SocketAddr,
        fds: Arc<Mutex<Vec<RawFd>>>,
        /// The multi-threaded runtime (a current-thread one runs on its own thread).
        _rt: Option<tokio::runtime::Runtime>,
    }

    fn server(workers: usize, policy: WaitPolicy) -> Server {
        let rt = if workers == 0 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(workers)
                .on_thread_start(move || policy.set_for_this_thread());
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
                // A closed connection of another test may have had this number.
                CAUGHT.lock().unwrap().retain(|(f, _)| *f != fd);
                seen.lock().unwrap().push(fd);
                let limits = Limits {
                    max_head: 8 * 1024,
                    max_body: 64 * 1024,
                    request_timeout: Duration::from_secs(10),
                    idle_timeout: Duration::from_secs(10),
                    header_read_timeout: Duration::from_secs(10),
                    write_timeout: Duration::from_secs(10),
                    gauges: Arc::new(Gauges::new(16 << 20)),
                    before_body: None,
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
            std::thread::spawn(move || {
                policy.set_for_this_thread();
                rt.block_on(serve)
            });
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
    /// current-thread runtime) under `policy` and returns how many of its next requests a wait
    /// read.
    fn sequential_calls_caught(workers: usize, policy: WaitPolicy, calls: usize) -> usize {
        let s = server(workers, policy);
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
            sequential_calls_caught(2, WaitPolicy::spin(), 300) > 0,
            "no wait found its next request"
        );
    }

    #[test]
    fn a_request_after_the_wait_is_still_answered() {
        let s = server(2, WaitPolicy::spin());
        let mut c = connect(&s);
        for i in 0..5 {
            // Far longer than the wait: the connection has gone to sleep on the socket.
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(call(&mut c, &format!("late {i}")), format!("late {i}"));
        }
    }

    #[test]
    fn a_users_own_runtime_never_waits() {
        // Its threads never set a policy: they park, multi-threaded or not.
        assert_eq!(sequential_calls_caught(2, WaitPolicy::Park, 300), 0);
        assert_eq!(sequential_calls_caught(0, WaitPolicy::Park, 100), 0);
    }

    #[test]
    fn a_current_thread_runtime_that_opted_in_waits() {
        assert!(sequential_calls_caught(0, WaitPolicy::spin(), 300) > 0);
    }

    #[test]
    fn many_connections_are_all_served() {
        let s = server(2, WaitPolicy::spin());
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
}
