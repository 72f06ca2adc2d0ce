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

#[derive(Debug, PartialEq)]
enum Got {
    Frame(Vec<u8>),
    /// An oversized line's length, and the summary of its envelope the framer hands over (the
    /// framer scans the whole line as it skips it, however it arrives).
    Oversized(usize, Vec<u8>),
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
                other => panic!("a status this target does not know: {other:?}"),
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
                let summary = ferromcp::fuzzing::envelope_summary(line);
                return Some(Got::Oversized(line.len(), summary));
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
