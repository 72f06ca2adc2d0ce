//! Reading a request's body as its head frames it: a `Content-Length` body (grown as it
//! arrives, never to the declared size up front), a chunked body with its size lines and
//! trailers checked, and a body refused as too large read on and scanned for its JSON-RPC id.

use super::write_timed;
use super::{chunked, over_budget, Conn, Framing, Limits, Stop};
use super::{REFUSED_SCAN_BYTES, REFUSED_SCAN_TIME};
use crate::jsonrpc::envelope_scan::EnvelopeScan;
use crate::jsonrpc::RequestId;
use bytes::{Buf, Bytes, BytesMut};
use http::{StatusCode, Version};
use tokio::io::{AsyncRead, AsyncWrite};

impl<IO: AsyncRead + AsyncWrite + Unpin> Conn<IO> {
    /// Reads the request's body as framed.
    pub(super) async fn read_body(
        &mut self,
        framing: Framing,
        expect_continue: bool,
        limits: &Limits,
        version: Version,
    ) -> Result<Bytes, Stop> {
        let too_large = || {
            Stop::Refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("request body exceeds {} bytes", limits.max_body),
            )
        };
        if let Framing::Length(n) = framing {
            if n > limits.max_body {
                return Err(too_large());
            }
            if n == 0 {
                return Ok(Bytes::new());
            }
            if self.buf.len() >= n {
                // The usual case: the body came with the head, in the same read.
                return Ok(self.buf.split_to(n).freeze());
            }
        }
        let deadline = tokio::time::Instant::now() + limits.request_timeout;
        let whole_length = match framing {
            Framing::Length(n) => Some(n),
            Framing::Chunked => None,
        };
        if expect_continue && whole_length.is_none_or(|n| self.buf.len() < n) {
            let line: &[u8] = if version == Version::HTTP_10 {
                b"HTTP/1.0 100 Continue\r\n\r\n"
            } else {
                b"HTTP/1.1 100 Continue\r\n\r\n"
            };
            write_timed(&mut self.io, line, self.write_timeout)
                .await
                .map_err(|_| Stop::Close)?;
        }
        match framing {
            Framing::Length(n) => {
                // The buffer grows with what arrives (doubling, at most to the declared
                // length), never to a declared length up front.
                while self.buf.len() < n {
                    let want = (n - self.buf.len()).min(self.buf.len().max(8 * 1024));
                    if self.buf.capacity() - self.buf.len() < want {
                        self.buf.reserve(want);
                    }
                    self.fill_by(deadline).await?;
                }
                Ok(self.buf.split_to(n).freeze())
            }
            Framing::Chunked => {
                let mut body = BytesMut::new();
                let mut extensions = 0usize;
                loop {
                    let line = self.line(deadline).await?;
                    let (size, ext) = chunked::parse_size_line(&line).map_err(Stop::bad)?;
                    extensions += ext;
                    if extensions > chunked::MAX_EXTENSIONS {
                        return Err(Stop::bad("chunk extensions too large"));
                    }
                    if size == 0 {
                        self.trailers(deadline).await?;
                        // The body is the handler's now, no longer this connection's.
                        self.held = 0;
                        self.account();
                        return Ok(body.freeze());
                    }
                    let Some(mut left) = usize::try_from(size)
                        .ok()
                        .filter(|s| body.len().saturating_add(*s) <= limits.max_body)
                    else {
                        // The body decoded so far and what follows, scanned for the request's
                        // id so the 413 can carry it (nothing more is kept).
                        let mut scan = EnvelopeScan::default();
                        scan.feed(&body);
                        drop(body);
                        self.held = 0;
                        self.account();
                        self.refused_id = self.scan_refused_chunks(scan, size).await;
                        return Err(too_large());
                    };
                    while left > 0 {
                        if self.buf.is_empty() {
                            self.fill_by(deadline).await?;
                        }
                        let take = left.min(self.buf.len());
                        body.extend_from_slice(&self.buf[..take]);
                        self.buf.advance(take);
                        left -= take;
                        self.held = body.capacity();
                        if !self.account() {
                            return Err(over_budget());
                        }
                    }
                    while self.buf.len() < 2 {
                        self.fill_by(deadline).await?;
                    }
                    if &self.buf[..2] != b"\r\n" {
                        return Err(Stop::bad("malformed chunk"));
                    }
                    self.buf.advance(2);
                }
            }
        }
    }

    /// One CRLF-terminated line of a chunked body, without its CRLF.
    /// Lines end with CRLF: a bare LF or CR is refused, and so is a line over
    /// [`chunked::MAX_LINE`]. Each byte is searched once however the line arrives.
    async fn line(&mut self, deadline: tokio::time::Instant) -> Result<Bytes, Stop> {
        let mut from = 0;
        loop {
            match chunked::find_crlf(&self.buf, from) {
                Ok(Some(i)) if i <= chunked::MAX_LINE => {
                    let line = self.buf.split_to(i).freeze();
                    self.buf.advance(2);
                    return Ok(line);
                }
                Ok(Some(_)) => return Err(Stop::bad("chunk line too long")),
                Ok(None) => {}
                Err(e) => return Err(Stop::bad(e)),
            }
            if self.buf.len() > chunked::MAX_LINE {
                return Err(Stop::bad("chunk line too long"));
            }
            // A CR at the end is looked at again once its LF may have come.
            from = self.buf.len().saturating_sub(1);
            self.fill_by(deadline).await?;
        }
    }

    /// The trailer section of a chunked body, up to its blank line: each field checked, their
    /// number and size capped (431 beyond), their content ignored.
    async fn trailers(&mut self, deadline: tokio::time::Instant) -> Result<(), Stop> {
        let (mut bytes, mut fields) = (0usize, 0usize);
        loop {
            let line = self.line(deadline).await?;
            if line.is_empty() {
                return Ok(());
            }
            bytes += line.len() + 2;
            fields += 1;
            if bytes > chunked::MAX_TRAILERS || fields > chunked::MAX_TRAILER_FIELDS {
                return Err(Stop::Refuse(
                    StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "chunk trailers too large".into(),
                ));
            }
            chunked::check_trailer_line(&line).map_err(Stop::bad)?;
        }
    }

    /// Reads on through a `Content-Length` body refused as too large (`len` bytes, the first
    /// of them in the buffer), feeding it to `scan` without keeping it, until the scan is
    /// settled, the body ends, or [`REFUSED_SCAN_BYTES`] or [`REFUSED_SCAN_TIME`] run out; the
    /// id of the request it is, if found. `wait`: more bytes may be waited for (not when the
    /// client waits for `100 Continue` before it sends the body).
    pub(super) async fn scan_refused(
        &mut self,
        mut scan: EnvelopeScan,
        len: usize,
        wait: bool,
    ) -> Option<RequestId> {
        let deadline = tokio::time::Instant::now() + REFUSED_SCAN_TIME;
        let end = len.min(REFUSED_SCAN_BYTES);
        let mut read = 0;
        loop {
            let take = self.buf.len().min(end - read);
            scan.feed(&self.buf[..take]);
            self.buf.advance(take);
            read += take;
            if scan.settled() || read >= end || !wait {
                break;
            }
            match tokio::time::timeout_at(deadline, self.fill()).await {
                Ok(true) => {}
                _ => break,
            }
        }
        scan.finish().request_id()
    }

    /// [`Self::scan_refused`] for a chunked body: reads on from a chunk of `size` bytes (its
    /// data next in the buffer) through the chunks after it, their data fed to `scan`.
    async fn scan_refused_chunks(
        &mut self,
        mut scan: EnvelopeScan,
        size: u64,
    ) -> Option<RequestId> {
        let deadline = tokio::time::Instant::now() + REFUSED_SCAN_TIME;
        let (mut left, mut read) = (size, 0usize);
        loop {
            while left > 0 {
                if scan.settled() || read >= REFUSED_SCAN_BYTES {
                    return scan.finish().request_id();
                }
                if self.buf.is_empty() && self.fill_by(deadline).await.is_err() {
                    return scan.finish().request_id();
                }
                let take = self
                    .buf
                    .len()
                    .min(usize::try_from(left).unwrap_or(usize::MAX));
                scan.feed(&self.buf[..take]);
                self.buf.advance(take);
                left -= take as u64;
                read += take;
            }
            if scan.settled() {
                break;
            }
            // The chunk's CRLF, then the next chunk's size line.
            let next = match self.line(deadline).await {
                Ok(end) if end.is_empty() => self.line(deadline).await,
                _ => break,
            };
            match next.ok().and_then(|l| chunked::parse_size_line(&l).ok()) {
                Some((n, _)) if n > 0 => left = n,
                _ => break,
            }
        }
        scan.finish().request_id()
    }
}
