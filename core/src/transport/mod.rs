//! Transports: how frames (one JSON-RPC message or batch each) move between peers.
//!
//! A transport is a [`FrameReader`] and a [`FrameWriter`]. The session layer owns parsing and
//! all protocol decisions, so every transport gets identical handling of bad input.
//! Message-oriented transports (stdio, child process, in-memory, WebSocket) plug into
//! [`crate::session::Connection`]; HTTP transports drive sessions per request instead.

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

// The frame seam sits below the session layer (`crate::frame_io`), which drives it; transports
// implement it. Its public paths stay here.
pub use crate::frame_io::{FrameReader, FrameWriter, ReadStatus, TransportKind, Undelivered};
