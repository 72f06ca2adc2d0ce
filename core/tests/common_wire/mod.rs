//! A raw-socket HTTP/1.1 client for wire-level tests: writes bytes as given and reads responses
//! off the connection as they come (keeping bytes that belong to the next one).
#![allow(dead_code)]

use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw POST to /mcp with a Content-Length body.
pub fn post_raw(addr: &str, body: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// One parsed response read off a connection.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// Reads responses off a raw connection, keeping bytes that belong to the next one.
pub struct Wire {
    pub tcp: TcpStream,
    pub buf: Vec<u8>,
}

impl Wire {
    pub async fn connect(addr: &str) -> Wire {
        Wire {
            tcp: TcpStream::connect(addr).await.unwrap(),
            buf: Vec::new(),
        }
    }
    pub async fn send(&mut self, bytes: &[u8]) {
        self.tcp.write_all(bytes).await.unwrap();
    }
    /// Reads more; false at end of stream.
    pub async fn more(&mut self) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        let n = tokio::time::timeout(Duration::from_secs(10), self.tcp.read(&mut chunk))
            .await
            .expect("read timed out")
            .unwrap_or(0);
        self.buf.extend_from_slice(&chunk[..n]);
        n > 0
    }
    /// The next response head (status line and headers).
    pub async fn head(&mut self) -> (u16, String) {
        loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8(self.buf.drain(..i + 4).collect()).unwrap();
                let status = head[9..12].parse().unwrap();
                return (status, head);
            }
            assert!(
                self.more().await,
                "connection closed before a response head"
            );
        }
    }
    /// The next whole response (Content-Length, chunked, or up to the connection's end).
    pub async fn answer(&mut self) -> Answer {
        let (status, head) = self.head().await;
        let mut a = Answer {
            status,
            head,
            body: Vec::new(),
        };
        if let Some(n) = a.header("content-length") {
            let n: usize = n.parse().unwrap();
            while self.buf.len() < n {
                assert!(self.more().await, "body cut short");
            }
            a.body = self.buf.drain(..n).collect();
        } else if a.header("transfer-encoding").as_deref() == Some("chunked") {
            loop {
                let size = self.chunk_size().await;
                while self.buf.len() < size + 2 {
                    assert!(self.more().await, "chunk cut short");
                }
                a.body.extend(self.buf.drain(..size));
                self.buf.drain(..2);
                if size == 0 {
                    break;
                }
            }
        } else {
            while self.more().await {}
            a.body = std::mem::take(&mut self.buf);
        }
        a
    }
    pub async fn chunk_size(&mut self) -> usize {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8(self.buf.drain(..i + 2).collect()).unwrap();
                return usize::from_str_radix(line.trim(), 16).unwrap();
            }
            assert!(self.more().await, "connection closed in a chunk size");
        }
    }
    /// Whether the server closes the connection (end of stream within a few seconds).
    pub async fn closed_by_server(&mut self) -> bool {
        let mut chunk = [0u8; 1024];
        matches!(
            tokio::time::timeout(Duration::from_secs(5), self.tcp.read(&mut chunk)).await,
            Ok(Ok(0)) | Ok(Err(_))
        )
    }
}

impl Wire {
    /// Wraps an already connected stream.
    pub fn over(tcp: TcpStream) -> Wire {
        Wire {
            tcp,
            buf: Vec::new(),
        }
    }
    /// Whether a complete response head arrives within `wait` (without consuming it).
    pub async fn answers_within(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if self.buf.windows(4).any(|w| w == b"\r\n\r\n") {
                return true;
            }
            let mut chunk = [0u8; 4096];
            match tokio::time::timeout_at(deadline, self.tcp.read(&mut chunk)).await {
                Ok(Ok(n)) if n > 0 => self.buf.extend_from_slice(&chunk[..n]),
                _ => return false,
            }
        }
    }
}
