//! Shared helpers for the integration tests: a raw-JSON test peer that drives a [`Server`] over
//! an in-memory transport, and a helper that connects a real [`Client`] to a server.
#![allow(dead_code)]

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::transport::{
    memory_pair, FrameReader, FrameWriter, MemoryReader, MemoryWriter, ReadStatus,
};
use ferromcp::McpError;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::task::JoinHandle;

/// How long a test waits for any single message before failing (a test must never hang).
pub const RECV_TIMEOUT: Duration = Duration::from_secs(5);

/// A raw peer: one side of a memory transport, with a [`Server`] serving the other side.
pub struct RawPeer {
    pub reader: MemoryReader,
    pub writer: MemoryWriter,
    pub task: JoinHandle<Result<(), McpError>>,
    stash: VecDeque<Value>,
}

impl RawPeer {
    /// Starts `server` on one side of a fresh memory pair; the test holds the other side.
    pub fn start(server: &Server) -> Self {
        let ((r_test, w_test), (r_srv, w_srv)) = memory_pair(256);
        let server = server.clone();
        let task = tokio::spawn(async move { server.serve(r_srv, w_srv).await });
        RawPeer {
            reader: r_test,
            writer: w_test,
            task,
            stash: VecDeque::new(),
        }
    }

    /// Sends one JSON value as a frame.
    pub async fn send(&mut self, v: Value) {
        self.send_raw(serde_json::to_string(&v).unwrap().as_bytes())
            .await;
    }

    /// Sends raw bytes as a frame.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_frame(bytes).await.expect("write frame");
        self.writer.flush().await.expect("flush");
    }

    /// The next message within `d`, or `None`.
    pub async fn recv_within(&mut self, d: Duration) -> Option<Value> {
        if let Some(v) = self.stash.pop_front() {
            return Some(v);
        }
        let mut buf = Vec::new();
        match tokio::time::timeout(d, self.reader.read_frame(&mut buf)).await {
            Err(_) => None,
            Ok(Ok(ReadStatus::Frame)) => Some(
                serde_json::from_slice(&buf)
                    .unwrap_or_else(|e| panic!("server sent invalid JSON ({e}): {buf:?}")),
            ),
            Ok(Ok(ReadStatus::Eof)) => None,
            Ok(other) => panic!("unexpected read status {other:?}"),
        }
    }

    /// The next message (panics after [`RECV_TIMEOUT`]).
    pub async fn recv(&mut self) -> Value {
        self.recv_within(RECV_TIMEOUT)
            .await
            .expect("no message from the server within the timeout")
    }

    /// Reads until the answer (result or error) with `id` arrives; other messages are kept for
    /// later `recv` calls.
    pub async fn response(&mut self, id: Value) -> Value {
        let mut skipped = VecDeque::new();
        let mut found = None;
        // First look in the stash.
        while let Some(m) = self.stash.pop_front() {
            if found.is_none() && is_answer(&m, &id) {
                found = Some(m);
            } else {
                skipped.push_back(m);
            }
        }
        let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
        while found.is_none() {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let m = self
                .recv_within(left)
                .await
                .unwrap_or_else(|| panic!("no answer for id {id} within the timeout"));
            if is_answer(&m, &id) {
                found = Some(m);
            } else {
                skipped.push_back(m);
            }
        }
        self.stash = skipped;
        found.unwrap()
    }

    /// Sends a request and returns its answer (whole message).
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response(id).await
    }

    /// Sends a request and returns its `result`, panicking on an error answer.
    pub async fn call(&mut self, id: Value, method: &str, params: Value) -> Value {
        let m = self.request(id, method, params).await;
        match m.get("result") {
            Some(r) => r.clone(),
            None => panic!("{method} failed: {m}"),
        }
    }

    /// Performs the handshake requesting `version`; returns the initialize result.
    pub async fn initialize(&mut self, version: &str) -> Value {
        let m = self
            .request(
                json!("init"),
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test-peer", "version": "0"}
                }),
            )
            .await;
        let result = m
            .get("result")
            .unwrap_or_else(|| panic!("initialize failed: {m}"))
            .clone();
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        result
    }

    /// Asserts the session still answers a ping.
    pub async fn assert_alive(&mut self) {
        let id = json!(format!("alive-{}", rand_id()));
        let m = self.request(id.clone(), "ping", json!({})).await;
        assert_eq!(m["result"], json!({}), "ping after bad input failed: {m}");
    }

    /// Asserts that no message arrives within `d`.
    pub async fn assert_silent(&mut self, d: Duration) {
        if let Some(m) = self.recv_within(d).await {
            panic!("expected silence, got {m}");
        }
    }
}

fn rand_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn is_answer(m: &Value, id: &Value) -> bool {
    m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
}

/// The error code of an error answer (panics on a success).
pub fn error_code(m: &Value) -> i64 {
    m.get("error")
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("expected an error answer, got {m}"))
}

/// Connects a real [`Client`] to `server` over an in-memory transport.
pub async fn connect(server: &Server, handlers: ClientHandlers) -> Client {
    connect_with(server, handlers, ClientOptions::new("test-client", "0")).await
}

/// Like [`connect`] with explicit client options.
pub async fn connect_with(
    server: &Server,
    handlers: ClientHandlers,
    opts: ClientOptions,
) -> Client {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(256);
    let server = server.clone();
    tokio::spawn(async move { server.serve(r_s, w_s).await });
    tokio::time::timeout(RECV_TIMEOUT, Client::connect(opts, handlers, r_c, w_c))
        .await
        .expect("connect timed out")
        .expect("connect failed")
}

/// Runs a future with the standard timeout.
pub async fn within<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(RECV_TIMEOUT, f)
        .await
        .expect("operation timed out")
}
