//! The stdio server transport: messages on stdin/stdout, nothing else on stdout.
//!
//! Logs must go to stderr; the engine never prints to stdout except through this writer.
//! When stdin/stdout are pipes (the normal case: a client spawned us), they are driven by the
//! reactor directly (non-blocking, epoll/kqueue) instead of tokio's blocking-thread stdio, so a
//! message costs no thread hop. Anything else (a terminal, a file) falls back to tokio's stdio.

use super::{LineReader, LineWriter, TransportKind};
use crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE;
use crate::server::Server;
use crate::McpError;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The process's stdin: a reactor-driven pipe when possible, tokio's stdin otherwise.
#[non_exhaustive]
pub enum StdinSource {
    /// stdin is a pipe, read without blocking.
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    /// Anything else.
    Std(tokio::io::Stdin),
}

/// The process's stdout: a reactor-driven pipe when possible, tokio's stdout otherwise.
#[non_exhaustive]
pub enum StdoutSink {
    /// stdout is a pipe, written without blocking.
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    /// Anything else.
    Std(tokio::io::Stdout),
}

#[cfg(unix)]
fn dup_fifo(fd: i32) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    use std::os::unix::fs::FileTypeExt;
    // SAFETY: dup returns a fresh descriptor that we own (or -1).
    let new = unsafe { libc::dup(fd) };
    if new < 0 {
        return None;
    }
    // SAFETY: `new` is a valid, owned descriptor.
    let file = unsafe { std::fs::File::from_raw_fd(new) };
    match file.metadata() {
        Ok(m) if m.file_type().is_fifo() => Some(file),
        _ => None,
    }
}

impl StdinSource {
    /// Opens stdin.
    pub fn open() -> Self {
        #[cfg(unix)]
        if let Some(rx) =
            dup_fifo(0).and_then(|f| tokio::net::unix::pipe::Receiver::from_file(f).ok())
        {
            return StdinSource::Pipe(rx);
        }
        StdinSource::Std(tokio::io::stdin())
    }
}

impl StdoutSink {
    /// Opens stdout.
    pub fn open() -> Self {
        #[cfg(unix)]
        if let Some(tx) =
            dup_fifo(1).and_then(|f| tokio::net::unix::pipe::Sender::from_file(f).ok())
        {
            return StdoutSink::Pipe(tx);
        }
        StdoutSink::Std(tokio::io::stdout())
    }
}

impl AsyncRead for StdinSource {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdinSource::Pipe(p) => Pin::new(p).poll_read(cx, buf),
            StdinSource::Std(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for StdoutSink {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdoutSink::Pipe(p) => Pin::new(p).poll_write(cx, buf),
            StdoutSink::Std(s) => Pin::new(s).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdoutSink::Pipe(p) => Pin::new(p).poll_flush(cx),
            StdoutSink::Std(s) => Pin::new(s).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdoutSink::Pipe(p) => Pin::new(p).poll_shutdown(cx),
            StdoutSink::Std(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// Reads frames from the process's stdin.
pub type StdioReader = LineReader<StdinSource>;
/// Writes frames to the process's stdout.
pub type StdioWriter = LineWriter<StdoutSink>;

/// The process's stdin and stdout as a transport, with the default message size limit.
/// Must be called inside a tokio runtime.
pub fn stdio() -> (StdioReader, StdioWriter) {
    stdio_with_limit(DEFAULT_MAX_MESSAGE_SIZE)
}

/// The process's stdin and stdout as a transport, accepting frames up to `max_message_size`.
/// Must be called inside a tokio runtime.
pub fn stdio_with_limit(max_message_size: usize) -> (StdioReader, StdioWriter) {
    (
        LineReader::new(StdinSource::open(), max_message_size).with_kind(TransportKind::Stdio),
        LineWriter::new(StdoutSink::open()),
    )
}

/// A server served on this process's stdio: methods of [`Server`] kept with the transport they
/// use, so the server layer below does not reach up for it.
impl Server {
    /// Serves one session over this process's stdin/stdout until stdin closes.
    ///
    /// The usual `main` of a stdio server (not run here: it waits on stdin). Log to stderr:
    /// stdout carries the protocol.
    ///
    /// ```no_run
    /// use ferromcp::server::Server;
    /// use serde_json::Value;
    ///
    /// #[tokio::main]
    /// async fn main() -> Result<(), ferromcp::McpError> {
    ///     let server = Server::builder("hello", "1.0")
    ///         .tool("greet", "Says hello", |_: Value, _ctx| async { "Hello!" })
    ///         .build()?;
    ///     server.serve_stdio().await
    /// }
    /// ```
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        let (reader, writer) = stdio_with_limit(self.options().session.max_message_size);
        self.serve(reader, writer).await
    }

    /// [`Self::serve_stdio`] until stdin closes or `shutdown` completes, then winds down
    /// gracefully as [`Server::serve_until`] does (an open `subscriptions/listen` gets its
    /// completion result before stdout closes).
    pub async fn serve_stdio_until(
        &self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        let (reader, writer) = stdio_with_limit(self.options().session.max_message_size);
        self.serve_until(reader, writer, shutdown).await
    }
}
