//! Bodies that encode or decode as they are polled: the server's encoded stream (an SSE stream
//! whose every piece is flushed, so each event can be decoded as soon as it arrives), the frames
//! a server read ahead before choosing (see `server/compression.rs`), and the client's decoded
//! body.

use super::codec::{Decoder, Encoder};
use super::ContentCoding;
use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A body whose first frames were already read: they are sent first, then (unless the body had
/// ended) the rest of `inner`. The inner body is kept until this one is dropped (a stream's
/// clean-up runs then, as it would have).
pub(crate) struct Peeked<B: Body> {
    pub(crate) queued: VecDeque<Result<Frame<B::Data>, B::Error>>,
    /// `inner` returned its end: it is not polled again.
    pub(crate) ended: bool,
    pub(crate) inner: B,
}

// Nothing of it is pinned in place: the inner body is itself `Unpin` where it is polled.
impl<B: Body> Unpin for Peeked<B> {}

impl<B: Body + Unpin> Body for Peeked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        if let Some(f) = self.queued.pop_front() {
            return Poll::Ready(Some(f));
        }
        if self.ended {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn size_hint(&self) -> SizeHint {
        // Unknown, as the inner stream's was: the framing of the answer stays what it was.
        SizeHint::default()
    }
}

/// A body encoded as it streams: every data frame of `inner` is encoded and flushed at once.
pub(crate) struct Encoded<B> {
    inner: B,
    encoder: Option<Encoder>,
}

impl<B> Encoded<B> {
    /// `inner` encoded by `encoder`.
    pub(crate) fn new(inner: B, encoder: Encoder) -> Self {
        Self {
            inner,
            encoder: Some(encoder),
        }
    }
}

impl<B> Body for Encoded<B>
where
    B: Body<Data = Bytes, Error = axum::Error> + Unpin,
{
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        loop {
            let Some(encoder) = this.encoder.as_mut() else {
                return Poll::Ready(None);
            };
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(Some(Ok(frame))) => {
                    let Ok(data) = frame.into_data() else {
                        // Trailers are not sent on an encoded stream.
                        continue;
                    };
                    if data.is_empty() {
                        continue;
                    }
                    let out = encoder.push(&data).and_then(|()| encoder.flush());
                    match out {
                        Ok(out) if out.is_empty() => continue,
                        Ok(out) => return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out))))),
                        Err(e) => return Poll::Ready(Some(Err(axum::Error::new(e)))),
                    }
                }
                Poll::Ready(None) => {
                    let encoder = this.encoder.take().expect("checked above");
                    return match encoder.finish() {
                        Ok(out) if out.is_empty() => Poll::Ready(None),
                        Ok(out) => Poll::Ready(Some(Ok(Frame::data(Bytes::from(out))))),
                        Err(e) => Poll::Ready(Some(Err(axum::Error::new(e)))),
                    };
                }
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// The error of a [`Decoded`] body: the inner body's, or the coding's.
pub(crate) type DecodeBodyError = Box<dyn std::error::Error + Send + Sync>;

/// A client's view of a response body in a content coding: decoded as it arrives, each frame
/// giving what its bytes decode to (so an SSE stream is read event by event as before).
pub(crate) struct Decoded<B> {
    inner: B,
    /// The body is not encoded: its frames pass as they are.
    identity: bool,
    /// `None` once the encoded body ended or failed.
    decoder: Option<Decoder<Vec<u8>>>,
    /// The decoder could not be made: the first poll says so.
    broken: Option<std::io::Error>,
}

impl<B> Decoded<B> {
    /// `inner` as it is (`coding` `None`), or decoded from `coding`.
    pub(crate) fn new(inner: B, coding: Option<ContentCoding>) -> Self {
        // The window a server's zstd frame may ask for is zstd's default limit (128 MiB).
        let (decoder, broken) = match coding.map(|c| Decoder::new(c, Vec::new(), 27)) {
            None => (None, None),
            Some(Ok(d)) => (Some(d), None),
            Some(Err(e)) => (None, Some(e)),
        };
        Self {
            inner,
            identity: coding.is_none(),
            decoder,
            broken,
        }
    }
}

impl<B> Body for Decoded<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<DecodeBodyError>,
{
    type Data = Bytes;
    type Error = DecodeBodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, DecodeBodyError>>> {
        let this = &mut *self;
        if let Some(e) = this.broken.take() {
            return Poll::Ready(Some(Err(e.into())));
        }
        loop {
            if !this.identity && this.decoder.is_none() {
                return Poll::Ready(None);
            }
            let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(f) => f,
            };
            let Some(decoder) = this.decoder.as_mut() else {
                return Poll::Ready(frame.map(|r| r.map_err(Into::into)));
            };
            match frame {
                Some(Err(e)) => {
                    this.decoder = None;
                    return Poll::Ready(Some(Err(e.into())));
                }
                Some(Ok(frame)) => {
                    let Ok(data) = frame.into_data() else {
                        continue;
                    };
                    if let Err(e) = decoder.push(&data).and_then(|()| decoder.flush()) {
                        this.decoder = None;
                        return Poll::Ready(Some(Err(e.into())));
                    }
                    let out = std::mem::take(decoder.sink());
                    if !out.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                    }
                }
                None => {
                    let decoder = this.decoder.take().expect("checked above");
                    return match decoder.finish() {
                        Ok(out) if out.is_empty() => Poll::Ready(None),
                        Ok(out) => Poll::Ready(Some(Ok(Frame::data(Bytes::from(out))))),
                        Err(e) => Poll::Ready(Some(Err(e.into()))),
                    };
                }
            }
        }
    }
}

/// A client's response body, decoded from the coding its `Content-Encoding` names (as it is
/// when it names none, or one this crate does not know: its reader then fails on what it
/// reads, as on any malformed body).
pub(crate) fn decoded_body(
    resp: http::Response<hyper::body::Incoming>,
) -> Decoded<hyper::body::Incoming> {
    let coding = resp
        .headers()
        .get(http::header::CONTENT_ENCODING)
        .and_then(|v| ContentCoding::from_name(v.as_bytes().trim_ascii()));
    Decoded::new(resp.into_body(), coding)
}
