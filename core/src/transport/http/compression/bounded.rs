//! Decoding a request body within the body size limit *after* decoding. What is decoded goes into
//! a sink that keeps at most the limit: past it the sink keeps nothing more and only scans what
//! still comes for the JSON-RPC id (so the 413 can carry it, as for a body too large on the wire),
//! for at most [`REFUSED_SCAN_BYTES`](crate::transport::http::h1::REFUSED_SCAN_BYTES), then stops
//! the decoder. A body that would inflate to a gigabyte costs the limit in memory and the time to
//! decode the limit plus that scan.

use super::codec::Decoder;
use super::ContentCoding;
use crate::jsonrpc::envelope_scan::EnvelopeScan;
use crate::jsonrpc::RequestId;
use std::io::{self, Write};

/// Why a body could not be decoded.
#[derive(Debug)]
pub(crate) enum DecodeError {
    /// It decodes to more than the limit; the JSON-RPC request's id when the scan found it.
    TooLarge(Option<RequestId>),
    /// It is not valid in its coding (corrupt or truncated).
    Invalid(io::Error),
}

/// Most bytes decoded past the limit while looking for the request's id.
const SCAN_PAST_LIMIT: usize = crate::transport::http::h1::REFUSED_SCAN_BYTES;

/// Decodes `body` in `coding`; its decoded form must be at most `limit` bytes.
pub(crate) fn decode_within(
    coding: ContentCoding,
    body: &[u8],
    limit: usize,
) -> Result<Vec<u8>, DecodeError> {
    let sink = Bounded {
        kept: Vec::with_capacity(limit.min(body.len().saturating_mul(4)).min(1 << 20)),
        limit,
        over: None,
        scanned: 0,
    };
    let mut d = Decoder::new(coding, sink, window_log_for(limit)).map_err(DecodeError::Invalid)?;
    // Written in pieces, so that a piece inflating past the limit stops the decoder early (the
    // sink fails once it has scanned enough past the limit).
    let mut failed = None;
    for piece in body.chunks(16 * 1024) {
        if let Err(e) = d.push(piece) {
            failed = Some(e);
            break;
        }
    }
    if failed.is_none() {
        failed = d.flush().err();
    }
    if d.sink().over.is_some() {
        return Err(too_large(d.sink().over.take()));
    }
    if let Some(e) = failed {
        return Err(DecodeError::Invalid(e));
    }
    match d.finish() {
        Ok(sink) if sink.over.is_none() => Ok(sink.kept),
        Ok(sink) => Err(too_large(sink.over)),
        Err(e) => Err(DecodeError::Invalid(e)),
    }
}

fn too_large(scan: Option<EnvelopeScan>) -> DecodeError {
    DecodeError::TooLarge(scan.and_then(|s| s.finish().request_id()))
}

/// The largest zstd window a body of at most `limit` decoded bytes may ask for (log2 of bytes;
/// the decoder allocates it): 8 MiB, the window RFC 8878 §3.1.1.1.2 asks every decoder to
/// support (what a streaming encoder picks at its usual levels, whatever the body's size), or
/// the next power of two above a larger limit, at most zstd's usual default (128 MiB).
fn window_log_for(limit: usize) -> u32 {
    let bits = usize::BITS - limit.saturating_sub(1).leading_zeros();
    (bits + 1).clamp(23, 27)
}

/// Keeps at most `limit` decoded bytes; past it, scans for the JSON-RPC id (keeping nothing) and
/// fails once the id is found or [`SCAN_PAST_LIMIT`] bytes were scanned, which stops the decoder.
struct Bounded {
    kept: Vec<u8>,
    limit: usize,
    over: Option<EnvelopeScan>,
    scanned: usize,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.over.is_none() {
            if self.kept.len() + buf.len() <= self.limit {
                self.kept.extend_from_slice(buf);
                return Ok(buf.len());
            }
            let mut scan = EnvelopeScan::default();
            scan.feed(&self.kept);
            self.scanned = self.kept.len();
            self.kept = Vec::new();
            self.over = Some(scan);
        }
        let scan = self.over.as_mut().expect("set above");
        if scan.settled() || self.scanned >= SCAN_PAST_LIMIT {
            return Err(io::Error::other("the decoded body is over the size limit"));
        }
        scan.feed(buf);
        self.scanned += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::codec::{encode, Encoder};
    use super::super::CompressionLevel;
    use super::*;

    #[test]
    fn a_body_within_the_limit_decodes_whole() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.repeat(100);
        for coding in ContentCoding::ALL {
            let enc = encode(coding, CompressionLevel::Default, &body).unwrap();
            assert_eq!(decode_within(coding, &enc, body.len()).unwrap(), body);
            match decode_within(coding, &enc, body.len() - 1) {
                Err(DecodeError::TooLarge(_)) => {}
                other => panic!("{coding:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_body_inflating_past_the_limit_is_refused_with_its_id() {
        // 64 MiB of padding after the id: refused once the limit (1 MiB) is passed.
        for coding in ContentCoding::ALL {
            let mut e = Encoder::new(coding, CompressionLevel::Fastest).unwrap();
            e.push(br#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"pad":""#)
                .unwrap();
            let zeros = vec![b'0'; 1 << 20];
            for _ in 0..64 {
                e.push(&zeros).unwrap();
            }
            e.push(b"\"}}").unwrap();
            let enc = e.finish().unwrap();
            match decode_within(coding, &enc, 1 << 20) {
                Err(DecodeError::TooLarge(Some(id))) => {
                    assert_eq!(id, RequestId::String("big-1".into()), "{coding:?}")
                }
                other => panic!("{coding:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn corrupt_bodies_are_invalid() {
        for coding in ContentCoding::ALL {
            match decode_within(coding, b"\x1f\x8b\x08garbage-garbage", 1000) {
                Err(DecodeError::Invalid(_)) => {}
                other => panic!("{coding:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_zstd_window_follows_the_limit() {
        assert_eq!(window_log_for(4 << 20), 23);
        assert_eq!(window_log_for(1000), 23);
        assert_eq!(window_log_for(32 << 20), 26);
        assert_eq!(window_log_for(usize::MAX), 27);
    }
}
