//! An in-memory transport pair for tests and for hosting a server inside the client's process.

use super::{FrameReader, FrameWriter, ReadStatus};
use std::io;
use tokio::sync::mpsc;

/// The receiving half of an in-memory transport.
pub struct MemoryReader {
    rx: mpsc::UnboundedReceiver<Vec<u8>>,
    max_size: usize,
}

/// The sending half of an in-memory transport.
pub struct MemoryWriter {
    tx: Option<mpsc::UnboundedSender<Vec<u8>>>,
}

/// Two connected transports: what one side writes, the other reads.
///
/// Writes never wait. A connection reads and writes on one task, so two connections joined by
/// bounded queues deadlock as soon as both queues fill (each side waits to write, neither reads):
/// pipelining a few hundred requests did that. The bound is the peers' own: a session answers
/// at most `max_in_flight` requests at once and rejects the rest. `_capacity` is kept for
/// callers of the earlier bounded version.
///
/// ```
/// use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, ReadStatus};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let ((mut left_reader, _left_writer), (_right_reader, mut right_writer)) = memory_pair(16);
/// right_writer.write_frame(br#"{"jsonrpc":"2.0","method":"ping","id":1}"#).await?;
/// right_writer.flush().await?;
/// let mut frame = Vec::new();
/// assert!(matches!(left_reader.read_frame(&mut frame).await?, ReadStatus::Frame));
/// assert_eq!(frame, br#"{"jsonrpc":"2.0","method":"ping","id":1}"#);
/// # Ok(())
/// # }
/// ```
pub fn memory_pair(
    _capacity: usize,
) -> ((MemoryReader, MemoryWriter), (MemoryReader, MemoryWriter)) {
    let (tx_a, rx_a) = mpsc::unbounded_channel();
    let (tx_b, rx_b) = mpsc::unbounded_channel();
    let max_size = crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE;
    (
        (
            MemoryReader { rx: rx_a, max_size },
            MemoryWriter { tx: Some(tx_b) },
        ),
        (
            MemoryReader { rx: rx_b, max_size },
            MemoryWriter { tx: Some(tx_a) },
        ),
    )
}

impl MemoryReader {
    /// Sets the maximum frame size this reader accepts.
    pub fn with_max_size(mut self, max_size: usize) -> Self {
        self.max_size = max_size;
        self
    }
}

impl FrameReader for MemoryReader {
    async fn read_frame(&mut self, buf: &mut Vec<u8>) -> io::Result<ReadStatus> {
        match self.rx.recv().await {
            Some(frame) if frame.len() > self.max_size => {
                // The first bytes, from which the refusal reads the message's id.
                buf.clear();
                buf.extend_from_slice(&frame[..frame.len().min(4096)]);
                Ok(ReadStatus::Oversized(frame.len()))
            }
            Some(frame) => {
                *buf = frame;
                Ok(ReadStatus::Frame)
            }
            None => Ok(ReadStatus::Eof),
        }
    }
}

impl FrameWriter for MemoryWriter {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        let tx = self
            .tx
            .as_ref()
            .ok_or_else(|| io::Error::from(io::ErrorKind::BrokenPipe))?;
        tx.send(frame.to_vec())
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    async fn close(&mut self) -> io::Result<()> {
        self.tx = None;
        Ok(())
    }
}
