//! Writing an answer: the status line and headers, then a complete body in the same write, or
//! a streamed body as chunks (close-delimited on HTTP/1.0), each write bounded in time.

use super::Conn;
use axum::body::Body;
use http::header;
use http::{Response, StatusCode, Version};
use http_body_util::BodyExt;
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

impl<IO: AsyncRead + AsyncWrite + Unpin> Conn<IO> {
    pub(super) async fn answer(
        &mut self,
        response: Response<Body>,
        close: bool,
        version: Version,
        head_only: bool,
    ) -> std::io::Result<()> {
        let (parts, mut body) = response.into_parts();
        let status = parts.status;
        let bodiless = status.is_informational()
            || status == StatusCode::NO_CONTENT
            || status == StatusCode::NOT_MODIFIED;
        let exact = hyper::body::Body::size_hint(&body).exact();
        let chunked = exact.is_none() && !bodiless && version == Version::HTTP_11;
        // An HTTP/1.0 stream ends when the connection does.
        let close = close || (exact.is_none() && !bodiless && !chunked);

        self.out.clear();
        let out = &mut self.out;
        out.extend_from_slice(if version == Version::HTTP_10 {
            b"HTTP/1.0 "
        } else {
            b"HTTP/1.1 "
        });
        out.extend_from_slice(status.as_str().as_bytes());
        out.push(b' ');
        out.extend_from_slice(status.canonical_reason().unwrap_or("").as_bytes());
        out.extend_from_slice(b"\r\n");
        for (name, value) in parts.headers.iter() {
            // Framing and connection headers are this layer's to write.
            if name == header::CONTENT_LENGTH
                || name == header::TRANSFER_ENCODING
                || name == header::CONNECTION
            {
                continue;
            }
            out.extend_from_slice(name.as_str().as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if let (Some(n), false) = (exact, bodiless) {
            out.extend_from_slice(b"content-length: ");
            out.extend_from_slice(itoa(n, &mut [0u8; 20]));
            out.extend_from_slice(b"\r\n");
        }
        if chunked {
            out.extend_from_slice(b"transfer-encoding: chunked\r\n");
        }
        if close {
            out.extend_from_slice(b"connection: close\r\n");
        } else if version == Version::HTTP_10 {
            out.extend_from_slice(b"connection: keep-alive\r\n");
        }
        out.extend_from_slice(b"\r\n");

        if bodiless || head_only {
            return write_timed(&mut self.io, &self.out, self.write_timeout).await;
        }
        if exact.is_some() {
            // Complete bodies are ready at once: gather them after the head, one write.
            while let Some(frame) = body.frame().await {
                if let Ok(data) = frame.map_err(std::io::Error::other)?.into_data() {
                    self.out.extend_from_slice(&data);
                }
            }
            return write_timed(&mut self.io, &self.out, self.write_timeout).await;
        }
        // A stream: the head goes out at once (the client learns the status and that events
        // will follow), then each frame as it comes, while watching for the client leaving.
        let gone = || std::io::Error::from(std::io::ErrorKind::ConnectionAborted);
        let mut head_pending = true;
        loop {
            let frame = {
                let next = body.frame();
                tokio::pin!(next);
                let ready = if head_pending {
                    // A frame already waiting joins the head in one write.
                    match futures_util::poll!(next.as_mut()) {
                        std::task::Poll::Ready(f) => Some(f),
                        std::task::Poll::Pending => {
                            write_timed(&mut self.io, &self.out, self.write_timeout).await?;
                            self.out.clear();
                            head_pending = false;
                            None
                        }
                    }
                } else {
                    None
                };
                match ready {
                    Some(f) => f,
                    None => self.while_reading(next).await.ok_or_else(gone)?,
                }
            };
            match frame {
                None => {
                    if chunked {
                        self.out.extend_from_slice(b"0\r\n\r\n");
                    }
                    return write_timed(&mut self.io, &self.out, self.write_timeout).await;
                }
                Some(frame) => {
                    let Ok(data) = frame.map_err(std::io::Error::other)?.into_data() else {
                        continue;
                    };
                    if data.is_empty() {
                        continue;
                    }
                    if chunked {
                        let mut hex = [0u8; 16];
                        self.out.extend_from_slice(hex_len(data.len(), &mut hex));
                        self.out.extend_from_slice(b"\r\n");
                        self.out.extend_from_slice(&data);
                        self.out.extend_from_slice(b"\r\n");
                    } else {
                        self.out.extend_from_slice(&data);
                    }
                    write_timed(&mut self.io, &self.out, self.write_timeout).await?;
                    self.out.clear();
                    head_pending = false;
                }
            }
        }
    }
}

/// Writes all of `buf`, each write making progress within `timeout` (a client that stops
/// reading gets its connection closed, rather than holding it forever).
///
/// Each write is first tried as is: a socket with room in its send buffer takes it at once, which
/// is the usual case for an answer, and then no timer is made (nor the clock read for it). Only a
/// write that would block waits under `timeout`.
pub(super) async fn write_timed<IO: AsyncWrite + Unpin>(
    io: &mut IO,
    mut buf: &[u8],
    timeout: Duration,
) -> std::io::Result<()> {
    while !buf.is_empty() {
        let at_once =
            std::future::poll_fn(
                |cx| match std::pin::Pin::new(&mut *io).poll_write(cx, buf) {
                    Poll::Ready(r) => Poll::Ready(Some(r)),
                    Poll::Pending => Poll::Ready(None),
                },
            )
            .await;
        let written = match at_once {
            Some(r) => r,
            None => match tokio::time::timeout(timeout, io.write(buf)).await {
                Ok(r) => r,
                Err(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the client stopped reading",
                    ))
                }
            },
        };
        match written {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `n` in hexadecimal (a chunk's size), written into `buf`.
fn hex_len(mut n: usize, buf: &mut [u8; 16]) -> &[u8] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = DIGITS[n & 15];
        n >>= 4;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// `n` in decimal, written into `buf` (also [`crate::transport::http::sse::push_decimal`]'s digits).
pub(crate) fn itoa(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}
