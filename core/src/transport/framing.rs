//! Newline-delimited framing over any byte stream, with a maximum frame size.
//!
//! Used by the stdio server, the child-process client and anything else that speaks
//! one-JSON-message-per-line. An oversized line is skipped to its end without being buffered,
//! so a hostile peer costs at most `max_size` bytes of memory.

use super::{FrameReader, FrameWriter, ReadStatus};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

/// Reads newline-terminated frames from a byte stream.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max_size: usize,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineReader<R> {
    /// Wraps `inner`; frames longer than `max_size` bytes are reported as oversized.
    pub fn new(inner: R, max_size: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(64 * 1024, inner),
            max_size,
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> FrameReader for LineReader<R> {
    async fn read_frame(&mut self, buf: &mut Vec<u8>) -> io::Result<ReadStatus> {
        buf.clear();
        let mut oversized = 0usize;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                // EOF: a final unterminated line still counts as a frame.
                if oversized > 0 {
                    return Ok(ReadStatus::Oversized(oversized));
                }
                if buf.iter().any(|b| !b.is_ascii_whitespace()) {
                    return Ok(ReadStatus::Frame);
                }
                return Ok(ReadStatus::Eof);
            }
            let (chunk, found) = match memchr(available) {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if oversized > 0 || buf.len() + chunk.len() > self.max_size {
                oversized += buf.len() + chunk.len();
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
            let consumed = found.unwrap_or(available.len());
            self.inner.consume(consumed);
            if found.is_some() {
                if oversized > 0 {
                    return Ok(ReadStatus::Oversized(oversized));
                }
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                if buf.iter().all(|b| b.is_ascii_whitespace()) {
                    buf.clear();
                    continue; // blank lines are not frames
                }
                return Ok(ReadStatus::Frame);
            }
        }
    }
}

fn memchr(haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == b'\n')
}

/// Writes newline-terminated frames to a byte stream, buffering until flushed.
pub struct LineWriter<W: AsyncWrite> {
    inner: BufWriter<W>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> LineWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner: BufWriter::with_capacity(64 * 1024, inner),
        }
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> FrameWriter for LineWriter<W> {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        self.inner.write_all(frame).await?;
        self.inner.write_all(b"\n").await
    }
    async fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().await
    }
    async fn close(&mut self) -> io::Result<()> {
        self.inner.flush().await?;
        self.inner.shutdown().await
    }
}
