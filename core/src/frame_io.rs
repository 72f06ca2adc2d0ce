//! The seam between sessions and transports: a transport is a [`FrameReader`] and a
//! [`FrameWriter`] (one JSON-RPC message or batch per frame). It sits below the session layer,
//! which drives any pair ([`crate::session::Connection`]), and below the transports, which
//! implement it; both are named by their public paths under [`crate::transport`].

use crate::jsonrpc::RequestId;
use crate::McpError;
use std::future::Future;
use std::io;

/// What one read from a transport produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadStatus {
    /// A complete frame is in the caller's buffer.
    Frame,
    /// A frame larger than the limit arrived; it was discarded. Carries its size so far. The
    /// caller's buffer may hold the frame's first bytes, or a summary of its envelope as JSON
    /// (the line reader scans the whole line as it skips it), from which the refusal reads the
    /// message's id; it is empty otherwise.
    Oversized(usize),
    /// The peer closed its end cleanly.
    Eof,
    /// The transport could not deliver requests the session sent (an HTTP POST that failed):
    /// [`FrameReader::take_undelivered`] says which, and why; the session fails each with that
    /// error, so its caller sees what happened ([`crate::ErrorKind`]) and the underlying error.
    Undelivered,
}

/// Requests a transport could not deliver, and the error their callers get
/// ([`ReadStatus::Undelivered`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Undelivered {
    /// The ids of the requests.
    pub ids: Vec<RequestId>,
    /// Why they were not delivered (its kind and source kept).
    pub error: McpError,
}

impl Undelivered {
    /// The requests `ids` failed with `error`.
    pub fn new(ids: Vec<RequestId>, error: McpError) -> Self {
        Self { ids, error }
    }
}

/// What carries a transport's frames, as OpenTelemetry's `network.transport` and
/// `network.protocol.name` name it on `mcp.server.session.duration` (feature `otel`,
/// docs/observability.md). A transport that does not say is [`TransportKind::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// A process's standard input and output (`network.transport` `pipe`).
    Stdio,
    /// Streamable HTTP or the 2024-11-05 HTTP+SSE transport (`tcp`, `http`).
    Http,
    /// A WebSocket (`tcp`, `websocket`).
    WebSocket,
    /// In memory, or a transport of the user's own: no network attributes.
    Other,
}

/// The receiving half of a transport.
pub trait FrameReader: Send + 'static {
    /// Reads the next frame into `buf` (which is cleared first).
    ///
    /// Must be cancel-safe: if the returned future is dropped before completion, no frame data
    /// may be lost (the session loop polls it inside `select!`).
    fn read_frame(
        &mut self,
        buf: &mut Vec<u8>,
    ) -> impl Future<Output = io::Result<ReadStatus>> + Send;

    /// After [`ReadStatus::Undelivered`]: the requests that were not delivered and their error.
    /// Transports that deliver every request they accept keep the default (`None`).
    fn take_undelivered(&mut self) -> Option<Undelivered> {
        None
    }

    /// What carries this transport's frames (for telemetry); [`TransportKind::Other`] unless
    /// the transport says.
    fn transport_kind(&self) -> TransportKind {
        TransportKind::Other
    }
}

/// The sending half of a transport. Writes may be buffered until [`FrameWriter::flush`].
pub trait FrameWriter: Send + 'static {
    /// Queues one serialized message (no trailing newline).
    fn write_frame(&mut self, frame: &[u8]) -> impl Future<Output = io::Result<()>> + Send;
    /// Sends everything queued so far.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;
    /// Flushes and closes the sending direction (EOF for the peer).
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}
