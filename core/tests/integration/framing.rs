//! Proves newline framing (`LineReader`/`LineWriter`): arbitrary chunking never corrupts frames
//! (property-style with a deterministic PRNG), CRLF is stripped, blank lines are ignored, oversized
//! lines are skipped with `ReadStatus::Oversized` without losing the next line, a final
//! unterminated line is still a frame, and `read_frame` is cancel-safe.

use ferromcp::transport::{FrameReader, FrameWriter, LineReader, LineWriter, ReadStatus};
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// xorshift64*: deterministic, dependency-free.
struct Prng(u64);
impl Prng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

async fn read_all<R: FrameReader>(r: &mut R) -> Vec<Result<Vec<u8>, usize>> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(5), r.read_frame(&mut buf))
            .await
            .expect("read hung")
            .expect("read failed")
        {
            ReadStatus::Frame => out.push(Ok(buf.clone())),
            ReadStatus::Oversized(n) => out.push(Err(n)),
            ReadStatus::Eof => return out,
            _ => panic!("a read status this test does not know"),
        }
    }
}

#[tokio::test]
async fn random_chunking_keeps_every_frame_intact() {
    for seed in 1..=20u64 {
        let mut rng = Prng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let count = 200 + rng.below(200) as usize;
        let frames: Vec<String> = (0..count)
            .map(|i| {
                let len = rng.below(300) as usize;
                let body: String = (0..len)
                    .map(|k| (b'a' + ((i + k) % 26) as u8) as char)
                    .collect();
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"m","params":{{"s":"{body}"}}}}"#)
            })
            .collect();
        let mut stream = Vec::new();
        for f in &frames {
            stream.extend_from_slice(f.as_bytes());
            stream.push(b'\n');
        }
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut reader = LineReader::new(rx, 1 << 20);
        let chunks: Vec<usize> = {
            let mut v = Vec::new();
            let mut left = stream.len();
            while left > 0 {
                let n = (1 + rng.below(97) as usize).min(left);
                v.push(n);
                left -= n;
            }
            v
        };
        let writer = tokio::spawn(async move {
            let mut pos = 0;
            for n in chunks {
                tx.write_all(&stream[pos..pos + n]).await.unwrap();
                pos += n;
            }
            drop(tx);
        });
        let got = read_all(&mut reader).await;
        writer.await.unwrap();
        assert_eq!(got.len(), frames.len(), "seed {seed}: frame count");
        for (g, want) in got.iter().zip(&frames) {
            assert_eq!(
                g.as_ref().ok().map(|b| b.as_slice()),
                Some(want.as_bytes()),
                "seed {seed}"
            );
        }
    }
}

#[tokio::test]
async fn crlf_blank_lines_and_final_unterminated_line() {
    let input: &[u8] = b"{\"a\":1}\r\n\n\r\n   \n{\"b\":2}\n{\"c\":3}";
    let mut reader = LineReader::new(input, 1024);
    let got = read_all(&mut reader).await;
    let want: Vec<Result<Vec<u8>, usize>> = vec![
        Ok(b"{\"a\":1}".to_vec()),
        Ok(b"{\"b\":2}".to_vec()),
        Ok(b"{\"c\":3}".to_vec()),
    ];
    assert_eq!(got, want);
}

#[tokio::test]
async fn oversized_line_is_skipped_and_next_line_read() {
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"first\":true}\n");
    input.extend(std::iter::repeat_n(b'x', 5000));
    input.push(b'\n');
    input.extend_from_slice(b"{\"after\":true}\n");
    // Chunk it through a small duplex so the oversized line spans many reads.
    let (mut tx, rx) = tokio::io::duplex(100);
    tokio::spawn(async move {
        for c in input.chunks(37) {
            tx.write_all(c).await.unwrap();
        }
    });
    let mut reader = LineReader::new(rx, 1000);
    let got = read_all(&mut reader).await;
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0], Ok(b"{\"first\":true}".to_vec()));
    match got[1] {
        Err(n) => assert!(n >= 1000, "oversized size reported: {n}"),
        Ok(_) => panic!("the oversized line must not come out as a frame"),
    }
    assert_eq!(got[2], Ok(b"{\"after\":true}".to_vec()));
}

#[tokio::test]
async fn line_of_exactly_max_size_is_a_frame() {
    let mut input = vec![b'y'; 64];
    input.push(b'\n');
    let mut reader = LineReader::new(std::io::Cursor::new(input.clone()), 64);
    assert_eq!(read_all(&mut reader).await, vec![Ok(vec![b'y'; 64])]);
    let mut input = vec![b'y'; 65];
    input.push(b'\n');
    let mut reader = LineReader::new(std::io::Cursor::new(input.clone()), 64);
    assert!(matches!(read_all(&mut reader).await.as_slice(), [Err(_)]));
}

#[tokio::test]
async fn read_frame_is_cancel_safe() {
    let (mut tx, rx) = tokio::io::duplex(1024);
    let mut reader = LineReader::new(rx, 1024);
    let mut buf = Vec::new();
    tx.write_all(b"{\"part\":").await.unwrap();
    // The read starts, consumes the first half, and is dropped mid-frame.
    let r = tokio::time::timeout(Duration::from_millis(100), reader.read_frame(&mut buf)).await;
    assert!(r.is_err(), "no complete frame yet");
    tx.write_all(b"\"one\"}\n{\"next\":2}\n").await.unwrap();
    drop(tx);
    let got = read_all(&mut reader).await;
    assert_eq!(
        got,
        vec![
            Ok(b"{\"part\":\"one\"}".to_vec()),
            Ok(b"{\"next\":2}".to_vec())
        ]
    );
}

#[tokio::test]
async fn line_writer_terminates_each_frame() {
    let (tx, rx) = tokio::io::duplex(4096);
    let mut w = LineWriter::new(tx);
    w.write_frame(b"{\"a\":1}").await.unwrap();
    w.write_frame(b"{\"b\":2}").await.unwrap();
    w.close().await.unwrap();
    let mut reader = LineReader::new(rx, 1024);
    assert_eq!(
        read_all(&mut reader).await,
        vec![Ok(b"{\"a\":1}".to_vec()), Ok(b"{\"b\":2}".to_vec())]
    );
}
