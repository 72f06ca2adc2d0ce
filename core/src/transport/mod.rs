//! Transports: how frames (one JSON-RPC message or batch each) move between peers.
//!
//! A transport is a [`FrameReader`] and a [`FrameWriter`]. The session layer owns parsing and
//! all protocol decisions, so every transport gets identical handling of bad input.
//! Message-oriented transports (stdio, child process, in-memory, WebSocket) plug into
//! [`crate::session::Connection`]; HTTP transports drive sessions per request instead.

pub mod answer_wait;
#[cfg(unix)]
pub mod child;
mod framing;
#[cfg(feature = "http")]
pub mod http;
mod memory;
mod stdio;
#[cfg(feature = "websocket")]
pub mod websocket;

#[cfg(unix)]
pub use child::{
    ChildHandle, ChildProcessOptions, ChildReader, ChildStdinPipe, ChildWriter, StderrMode,
};
pub use framing::{LineReader, LineWriter};
pub use memory::{memory_pair, MemoryReader, MemoryWriter};
pub use stdio::{stdio, stdio_with_limit, StdinSource, StdioReader, StdioWriter, StdoutSink};
#[cfg(feature = "websocket")]
pub use websocket::{WebSocketListener, WebSocketOptions, WebSocketReader, WebSocketWriter};

use std::future::Future;
use std::io;

/// What one read from a transport produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStatus {
    /// A complete frame is in the caller's buffer.
    Frame,
    /// A frame larger than the limit arrived; it was discarded. Carries its size so far. The
    /// caller's buffer may hold the frame's first bytes, or a summary of its envelope as JSON
    /// ([`LineReader`] scans the whole line as it skips it), from which the refusal reads the
    /// message's id; it is empty otherwise.
    Oversized(usize),
    /// The peer closed its end cleanly.
    Eof,
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
