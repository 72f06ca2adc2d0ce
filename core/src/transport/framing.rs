//! Newline-delimited framing over any byte stream, with a maximum frame size.
//!
//! Used by the stdio server, the child-process client and anything else that speaks
//! one-JSON-message-per-line. An oversized line is skipped to its end without being buffered,
//! so a hostile peer costs at most `max_size` bytes of memory; as it is skipped, its envelope
//! is scanned ([`crate::jsonrpc::envelope_scan`]) so that the refusal can name the message's
//! id wherever the line writes it (the TypeScript SDK writes it after `params`).

use super::{FrameReader, FrameWriter, ReadStatus, TransportKind};
use crate::jsonrpc::envelope_scan::EnvelopeScan;
use std::io;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Bytes asked of the stream per read: a burst of pipelined frames is taken in one system call.
const READ_BUFFER: usize = 64 * 1024;

/// Reads newline-terminated frames from a byte stream.
///
/// `read_frame` is cancel-safe: a partially read line is kept inside the reader, so dropping the
/// future (e.g. in `select!`) loses nothing.
///
/// The read buffer is reserved, not zeroed: a process that reads one small message touches one
/// page of it, not sixteen (part of a stdio server's cold start).
pub struct LineReader<R> {
    inner: R,
    /// Bytes read and not yet consumed: `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    max_size: usize,
    partial: Vec<u8>,
    oversized: usize,
    /// The scan of an oversized line's envelope, fed as the line is skipped; its summary
    /// ([`crate::jsonrpc::envelope_scan::Envelope::write_summary`]) is handed over with
    /// [`ReadStatus::Oversized`] so the refusal can name the message's id.
    scan: EnvelopeScan,
    /// What `inner` is ([`FrameReader::transport_kind`]): the process's stdio says so.
    kind: TransportKind,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineReader<R> {
    /// Wraps `inner`; frames longer than `max_size` bytes are reported as oversized.
    pub fn new(inner: R, max_size: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            pos: 0,
            max_size,
            partial: Vec::new(),
            oversized: 0,
            scan: EnvelopeScan::default(),
            kind: TransportKind::Other,
        }
    }

    /// The same reader, saying its frames come over `kind`.
    pub(crate) fn with_kind(mut self, kind: TransportKind) -> Self {
        self.kind = kind;
        self
    }

    /// Reads more (one `read`) when every byte read so far is consumed; at EOF nothing is left
    /// unconsumed.
    async fn fill(&mut self) -> io::Result<()> {
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            if self.buf.capacity() < READ_BUFFER {
                self.buf.reserve_exact(READ_BUFFER);
            }
            // Reads into the reserved, uninitialized capacity.
            self.inner.read_buf(&mut self.buf).await?;
        }
        Ok(())
    }

    fn finish(&mut self, buf: &mut Vec<u8>) -> Option<ReadStatus> {
        if self.oversized > 0 {
            let size = std::mem::take(&mut self.oversized);
            self.partial.clear();
            buf.clear();
            std::mem::take(&mut self.scan).finish().write_summary(buf);
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
            self.fill().await?;
            let available = &self.buf[self.pos..];
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
                let size = self.partial.len() + chunk.len();
                if self.oversized == 0 {
                    // The line so far, then each piece of it as it is skipped: the refusal
                    // reads the message's id from the scan.
                    self.scan = EnvelopeScan::default();
                    self.scan.feed(&self.partial);
                }
                self.scan.feed(chunk);
                self.oversized += size;
                self.partial.clear();
            } else {
                self.partial.extend_from_slice(chunk);
            }
            let consumed = found.unwrap_or(available.len());
            self.pos += consumed;
            if found.is_some() {
                if let Some(status) = self.finish(buf) {
                    return Ok(status);
                }
            }
        }
    }

    fn transport_kind(&self) -> TransportKind {
        self.kind
    }
}

/// The index of the first `\n` in `haystack`, eight bytes at a time.
fn memchr(haystack: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    let mut chunks = haystack.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("chunks of eight")) ^ NEWLINES;
        // Sets the high bit of the lowest zero byte (a newline); higher bytes may be flagged
        // falsely, so only the lowest flag counts.
        let found = word.wrapping_sub(ONES) & !word & HIGHS;
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| offset + i)
}

/// Output is gathered up to this many bytes before it is written without waiting for a flush.
const WRITE_BUFFER: usize = 64 * 1024;

/// Writes newline-terminated frames to a byte stream, buffering until flushed.
///
/// Queuing a frame is a copy into the buffer (no system call, no waiting) unless the buffer is
/// full; `flush` writes everything queued in as few writes as the stream accepts.
pub struct LineWriter<W: AsyncWrite> {
    inner: W,
    buf: Vec<u8>,
    /// How much of `buf` has already been written (a flush cancelled midway resumes here).
    written: usize,
}

impl<W: AsyncWrite + Unpin + Send + 'static> LineWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            written: 0,
        }
    }

    /// Writes out the buffer.
    async fn write_buffer(&mut self) -> io::Result<()> {
        while self.written < self.buf.len() {
            match self.inner.write(&self.buf[self.written..]).await? {
                0 => return Err(io::ErrorKind::WriteZero.into()),
                n => self.written += n,
            }
        }
        self.buf.clear();
        self.written = 0;
        if self.buf.capacity() > WRITE_BUFFER {
            // One huge message must not pin its size in memory for the connection's lifetime.
            self.buf.shrink_to(WRITE_BUFFER);
        }
        Ok(())
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> FrameWriter for LineWriter<W> {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        if !self.buf.is_empty() && self.buf.len() + frame.len() >= WRITE_BUFFER {
            self.write_buffer().await?;
        }
        if self.buf.capacity() == 0 {
            self.buf.reserve(WRITE_BUFFER.max(frame.len() + 1));
        }
        self.buf.extend_from_slice(frame);
        self.buf.push(b'\n');
        Ok(())
    }
    async fn flush(&mut self) -> io::Result<()> {
        self.write_buffer().await?;
        self.inner.flush().await
    }
    async fn close(&mut self) -> io::Result<()> {
        self.flush().await?;
        self.inner.shutdown().await
    }
}

#[cfg(test)]
mod tests {
    use super::memchr;

    #[test]
    fn memchr_finds_the_first_newline() {
        let naive = |h: &[u8]| h.iter().position(|&b| b == b'\n');
        // Every position in every length up to 40, with bytes around the newline that could
        // confuse a word-at-a-time search (0x0a +/- 1, 0x8a, 0xff, 0x00).
        for len in 0..40 {
            for fill in [b'a', 0x09, 0x0b, 0x8a, 0xff, 0x00] {
                let mut h = vec![fill; len];
                assert_eq!(memchr(&h), naive(&h));
                for at in 0..len {
                    h[at] = b'\n';
                    assert_eq!(memchr(&h), naive(&h), "len {len} fill {fill:#x} at {at}");
                    if at + 3 < len {
                        h[at + 3] = b'\n';
                        assert_eq!(memchr(&h), Some(at));
                        h[at + 3] = fill;
                    }
                    h[at] = fill;
                }
            }
        }
    }
}
