//! Shared helpers of the multi-replica tests: a round-robin HTTP proxy (every request goes to
//! the next replica), and an SSE stream read event by event.
#![allow(dead_code)]

use bytes::Bytes;
use ferromcp::transport::http::{SseEvent, SseParser};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A round-robin reverse proxy in front of replicas: each request goes to the next replica
/// that answers (a replica refusing connections is skipped).
pub struct Proxy {
    /// `http://127.0.0.1:PORT` of the proxy.
    pub base: String,
    /// Requests each replica received.
    pub hits: Arc<Vec<AtomicUsize>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// Starts a proxy in front of `backends` (`127.0.0.1:PORT` each).
pub async fn proxy(backends: Vec<String>) -> Proxy {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits: Arc<Vec<AtomicUsize>> =
        Arc::new(backends.iter().map(|_| AtomicUsize::new(0)).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let backends = Arc::new(backends);
    let client: Client<HttpConnector, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).build_http();
    let h2 = hits.clone();
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (backends, next, client, hits) =
                (backends.clone(), next.clone(), client.clone(), h2.clone());
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                    let (backends, next, client, hits) =
                        (backends.clone(), next.clone(), client.clone(), hits.clone());
                    async move {
                        Ok::<_, std::convert::Infallible>(
                            forward(req, &backends, &next, &client, &hits).await,
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    Proxy { base, hits, task }
}

async fn forward(
    req: hyper::Request<Incoming>,
    backends: &[String],
    next: &AtomicUsize,
    client: &Client<HttpConnector, Full<Bytes>>,
    hits: &[AtomicUsize],
) -> hyper::Response<ProxyBody> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".into());
    for _ in 0..backends.len() {
        let i = next.fetch_add(1, Ordering::Relaxed) % backends.len();
        let mut b = hyper::Request::builder()
            .method(parts.method.clone())
            .uri(format!("http://{}{}", backends[i], path));
        for (k, v) in &parts.headers {
            if k != hyper::header::HOST {
                b = b.header(k, v);
            }
        }
        let out = b.body(Full::new(body.clone())).unwrap();
        if let Ok(resp) = client.request(out).await {
            hits[i].fetch_add(1, Ordering::Relaxed);
            return resp.map(|b| b.boxed());
        }
    }
    hyper::Response::builder()
        .status(502)
        .body(
            Full::new(Bytes::from_static(b"no replica answered"))
                .map_err(|never| match never {})
                .boxed(),
        )
        .unwrap()
}

/// An SSE response read event by event.
pub struct SseReader {
    body: Incoming,
    parser: SseParser,
    ready: VecDeque<SseEvent>,
}

impl SseReader {
    /// Opens `GET url` with the session's headers (and `Last-Event-ID` when resuming).
    pub async fn get(url: &str, sid: &str, last_event_id: Option<&str>) -> (u16, SseReader) {
        let client: Client<HttpConnector, Full<Bytes>> =
            Client::builder(TokioExecutor::new()).build_http();
        let mut b = hyper::Request::builder()
            .method("GET")
            .uri(url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(id) = last_event_id {
            b = b.header("last-event-id", id);
        }
        let resp = client
            .request(b.body(Full::new(Bytes::new())).unwrap())
            .await
            .unwrap();
        let status = resp.status().as_u16();
        (
            status,
            SseReader {
                body: resp.into_body(),
                parser: SseParser::new(),
                ready: VecDeque::new(),
            },
        )
    }

    /// POSTs `body` with `headers` and reads the answer as an SSE stream (a per-request-era
    /// `subscriptions/listen`, say).
    pub async fn post(url: &str, headers: &[(String, String)], body: &str) -> (u16, SseReader) {
        let client: Client<HttpConnector, Full<Bytes>> =
            Client::builder(TokioExecutor::new()).build_http();
        let mut b = hyper::Request::builder().method("POST").uri(url);
        for (k, v) in headers {
            b = b.header(k.as_str(), v.as_str());
        }
        let resp = tokio::time::timeout(
            Duration::from_secs(10),
            client.request(b.body(Full::new(Bytes::from(body.to_string()))).unwrap()),
        )
        .await
        .expect("response head within 10 s")
        .unwrap();
        let status = resp.status().as_u16();
        (
            status,
            SseReader {
                body: resp.into_body(),
                parser: SseParser::new(),
                ready: VecDeque::new(),
            },
        )
    }

    /// The next event, a priming event (id, no data) included; `None` when the stream ends.
    #[allow(dead_code)]
    pub async fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(e) = self.ready.pop_front() {
                return Some(e);
            }
            let frame = tokio::time::timeout(Duration::from_secs(10), self.body.frame())
                .await
                .expect("SSE event within 10 s")?
                .ok()?;
            if let Ok(data) = frame.into_data() {
                self.ready.extend(self.parser.feed(&data));
            }
        }
    }

    /// The next event with data (priming events are skipped); `None` when the stream ends.
    pub async fn next(&mut self) -> Option<SseEvent> {
        loop {
            while let Some(e) = self.ready.pop_front() {
                if !e.data.is_empty() {
                    return Some(e);
                }
            }
            let frame = tokio::time::timeout(Duration::from_secs(10), self.body.frame())
                .await
                .expect("SSE event within 10 s")?
                .ok()?;
            if let Ok(data) = frame.into_data() {
                self.ready.extend(self.parser.feed(&data));
            }
        }
    }
}

/// Collects the method of every notification a client receives.
pub fn notes() -> (ferromcp::client::NotificationFn, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    (
        Arc::new(move |n: ferromcp::jsonrpc::Notification| s2.lock().unwrap().push(n.method)),
        seen,
    )
}

/// A `redis-server` of the test's own on a free port, stopped when dropped.
pub struct RedisServer {
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
    port: u16,
    child: Option<tokio::process::Child>,
}

/// Starts `redis-server` on `port`; `None` when it did not answer within 2 s.
async fn start_redis_on(port: u16) -> Option<tokio::process::Child> {
    let child = tokio::process::Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect(
            "redis-server not found: run scripts/setup-test-deps (apt-get install redis-server)",
        );
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Some(child);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

#[allow(dead_code)]
impl RedisServer {
    fn signal(&self, sig: i32) {
        let pid = self
            .child
            .as_ref()
            .and_then(|c| c.id())
            .expect("redis-server runs") as i32;
        // SAFETY: a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
    }

    /// Freezes the server (SIGSTOP): connections stay open and nothing answers.
    pub fn freeze(&self) {
        self.signal(libc::SIGSTOP);
    }

    /// Lets a frozen server go on (SIGCONT).
    pub fn thaw(&self) {
        self.signal(libc::SIGCONT);
    }

    /// Kills the server (SIGKILL): its data is gone, connections are refused.
    pub async fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill().await;
            let _ = c.wait().await;
        }
    }

    /// Starts a new, empty server on the same port.
    pub async fn restart_empty(&mut self) {
        self.kill().await;
        self.child = Some(
            start_redis_on(self.port)
                .await
                .expect("redis-server restarts"),
        );
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // Thawed first, so that kill_on_drop's SIGKILL is not left to a stopped process.
        if let Some(pid) = self.child.as_ref().and_then(|c| c.id()) {
            // SAFETY: a signal to our own child process.
            unsafe { libc::kill(pid as i32, libc::SIGCONT) };
        }
    }
}

/// Starts a `redis-server` (persistence off) on a free port and waits until it answers.
/// `None` (the caller skips, saying so) only when `redis-server` is not installed and
/// `FERROMCP_REDIS_OPTIONAL=1`, which `scripts/test` sets where it could not install it.
///
/// # Panics
/// When `redis-server` is not installed otherwise (`scripts/setup-test-deps --redis-only`
/// installs it), or does not start.
pub async fn redis_server() -> Option<RedisServer> {
    let installed = std::process::Command::new("redis-server")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok();
    if !installed && std::env::var_os("FERROMCP_REDIS_OPTIONAL").is_some_and(|v| v == "1") {
        eprintln!("SKIP: redis-server is not installed (FERROMCP_REDIS_OPTIONAL=1)");
        return None;
    }
    for _ in 0..5 {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        if let Some(child) = start_redis_on(port).await {
            return Some(RedisServer {
                url: format!("redis://127.0.0.1:{port}"),
                port,
                child: Some(child),
            });
        }
    }
    panic!("redis-server did not start");
}
