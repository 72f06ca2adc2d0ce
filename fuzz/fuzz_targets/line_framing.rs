//! The newline framer of stdio and child processes (`ferromcp::transport::LineReader`): the
//! frames read from a stream do not depend on how its bytes arrive (one read, one byte per read
//! or cut where the input says), and they are what splitting the bytes at newlines gives.
#![no_main]

use ferromcp::transport::{FrameReader, LineReader, ReadStatus};
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// The largest frame in this target: small, so that oversized lines are common.
const MAX: usize = 64;

/// A stream handing out its bytes in the given pieces, one per read.
struct Pieces(VecDeque<Vec<u8>>);

impl AsyncRead for Pieces {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if let Some(mut piece) = self.0.pop_front() {
            let n = piece.len().min(buf.remaining());
            buf.put_slice(&piece[..n]);
            if n < piece.len() {
                self.0.push_front(piece.split_off(n));
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// The most of an oversized line the framer keeps (for reading the id of a refused request).
const OVERSIZED_PREFIX: usize = 4096;

#[derive(Debug)]
enum Got {
    Frame(Vec<u8>),
    /// An oversized line's length, and the bytes of it kept (read) or the whole line (expected).
    Oversized(usize, Vec<u8>),
}

impl PartialEq for Got {
    /// Frames compare whole. Of an oversized line the framer keeps a prefix: at least as much as
    /// had to arrive to know it too long (the limit plus one byte), at most 4 KiB; how much
    /// between depends on the reads (only with a limit under 4 KiB, as here).
    fn eq(&self, other: &Got) -> bool {
        match (self, other) {
            (Got::Frame(a), Got::Frame(b)) => a == b,
            (Got::Oversized(n, a), Got::Oversized(m, b)) => {
                let (kept, line) = if a.len() <= b.len() { (a, b) } else { (b, a) };
                n == m
                    && line.starts_with(kept)
                    && kept.len() >= (MAX + 1).min(*n)
                    && kept.len() <= OVERSIZED_PREFIX
            }
            _ => false,
        }
    }
}

fn frames(pieces: Vec<Vec<u8>>) -> Vec<Got> {
    ferromcp::fuzzing::block_on(async move {
        let mut reader = LineReader::new(Pieces(pieces.into()), MAX);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            match reader.read_frame(&mut buf).await.expect("reading memory") {
                ReadStatus::Frame => out.push(Got::Frame(buf.clone())),
                ReadStatus::Oversized(n) => out.push(Got::Oversized(n, buf.clone())),
                ReadStatus::Eof => return out,
            }
        }
    })
}

/// What the framer should read: lines split at `\n`, one trailing `\r` dropped, blank lines
/// (whitespace only) skipped, lines longer than `MAX` reported with their length.
fn expected(bytes: &[u8]) -> Vec<Got> {
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if bytes.ends_with(b"\n") || bytes.is_empty() {
        lines.pop();
    }
    lines
        .into_iter()
        .filter_map(|line| {
            if line.len() > MAX {
                return Some(Got::Oversized(line.len(), line.to_vec()));
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            (!line.iter().all(u8::is_ascii_whitespace)).then(|| Got::Frame(line.to_vec()))
        })
        .collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&seed, bytes)) = data.split_first() else {
        return;
    };
    let want = expected(bytes);
    assert_eq!(frames(vec![bytes.to_vec()]), want, "read whole");
    assert_eq!(
        frames(bytes.chunks(1).map(<[u8]>::to_vec).collect()),
        want,
        "read byte by byte"
    );
    let step = usize::from(seed % 16) + 2;
    assert_eq!(
        frames(bytes.chunks(step).map(<[u8]>::to_vec).collect()),
        want,
        "read {step} bytes at a time"
    );
});
