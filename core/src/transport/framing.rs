//! Newline-delimited framing over any byte stream, with a maximum frame size.
//!
//! Used by the stdio server, the child-process client and anything else that speaks
//! one-JSON-message-per-line. An oversized line is skipped to its end without being buffered,
//! so a hostile peer costs at most `max_size` bytes of memory.

use super::{FrameReader, FrameWriter, ReadStatus};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

/// Reads newline-terminated frames from a byte stream.
///
/// `read_frame` is cancel-safe: a partially read line is kept inside the reader, so dropping the
/// future (e.g. in `select!`) loses nothing.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max_size: usize,
    partial: Vec<u8>,
    oversized: usize,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineReader<R> {
    /// Wraps `inner`; frames longer than `max_size` bytes are reported as oversized.
    pub fn new(inner: R, max_size: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(64 * 1024, inner),
            max_size,
            partial: Vec::new(),
            oversized: 0,
        }
    }

    fn finish(&mut self, buf: &mut Vec<u8>) -> Option<ReadStatus> {
        if self.oversized > 0 {
            let size = std::mem::take(&mut self.oversized);
            self.partial.clear();
            return Some(ReadStatus::Oversized(size));
        }
        if self.partial.last() == Some(&b'\r') {
            self.partial.pop();
        }
        if self.partial.iter().all(|b| b.is_ascii_whitespace()) {
            self.partial.clear();
            return None; // blank lines are not frames
        }
        std::mem::swap(buf, &mut self.partial);
        self.partial.clear();
        Some(ReadStatus::Frame)
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> FrameReader for LineReader<R> {
    async fn read_frame(&mut self, buf: &mut Vec<u8>) -> io::Result<ReadStatus> {
        buf.clear();
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                // EOF: a final unterminated line still counts as a frame.
                if self.oversized == 0 && self.partial.is_empty() {
                    return Ok(ReadStatus::Eof);
                }
                match self.finish(buf) {
                    Some(status) => return Ok(status),
                    None => return Ok(ReadStatus::Eof),
                }
            }
            let (chunk, found) = match memchr(available) {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if self.oversized > 0 || self.partial.len() + chunk.len() > self.max_size {
                self.oversized += self.partial.len() + chunk.len();
                self.partial.clear();
            } else {
                self.partial.extend_from_slice(chunk);
            }
            let consumed = found.unwrap_or(available.len());
            self.inner.consume(consumed);
            if found.is_some() {
                if let Some(status) = self.finish(buf) {
                    return Ok(status);
                }
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
