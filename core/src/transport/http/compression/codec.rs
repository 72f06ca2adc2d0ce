//! The encoders and decoders of each [`ContentCoding`], over `std::io::Write`: an encoder writes
//! into a buffer that is taken after each piece (a stream is flushed after each one, so the
//! bytes taken so far decode to everything pushed so far); a decoder writes what it decodes into
//! any sink, which is how [`super::bounded`] stops a body at its limit.

use super::brotli_stream::BrotliStream;
use super::{CompressionLevel, ContentCoding};
use std::io::{self, Write};

/// Brotli's window (log2 of its bytes): 4 MiB, the library's default for streams.
const BROTLI_WINDOW: u32 = 22;
/// Size of the brotli decoder's internal buffer.
const BROTLI_BUFFER: usize = 16 * 1024;

/// An encoder for one body, writing into a buffer of its own.
pub(crate) enum Encoder {
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Brotli(Box<BrotliStream>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
}

impl Encoder {
    /// An encoder for `coding` at `level`.
    pub(crate) fn new(coding: ContentCoding, level: CompressionLevel) -> io::Result<Encoder> {
        use CompressionLevel::*;
        Ok(match coding {
            ContentCoding::Gzip => {
                let l = match level {
                    Fastest => 1,
                    Default => 6,
                    Smallest => 9,
                };
                Encoder::Gzip(flate2::write::GzEncoder::new(
                    Vec::new(),
                    flate2::Compression::new(l),
                ))
            }
            ContentCoding::Brotli => {
                let q = match level {
                    Fastest => 1,
                    Default => 4,
                    Smallest => 9,
                };
                Encoder::Brotli(Box::new(BrotliStream::new(q, BROTLI_WINDOW)))
            }
            ContentCoding::Zstd => {
                let l = match level {
                    Fastest => 1,
                    Default => 3,
                    Smallest => 12,
                };
                Encoder::Zstd(zstd::stream::write::Encoder::new(Vec::new(), l)?)
            }
        })
    }

    fn output(&mut self) -> &mut Vec<u8> {
        match self {
            Encoder::Gzip(e) => e.get_mut(),
            Encoder::Brotli(e) => e.output(),
            Encoder::Zstd(e) => e.get_mut(),
        }
    }

    /// Encodes `data` (its bytes may stay in the encoder until the next flush or the end).
    pub(crate) fn push(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Encoder::Gzip(e) => e.write_all(data),
            Encoder::Brotli(e) => e.push(data),
            Encoder::Zstd(e) => e.write_all(data),
        }
    }

    /// Flushes what was pushed (gzip's sync flush, brotli's and zstd's flush: the output so far
    /// decodes to every byte pushed) and takes the output.
    pub(crate) fn flush(&mut self) -> io::Result<Vec<u8>> {
        match self {
            Encoder::Gzip(e) => e.flush()?,
            Encoder::Brotli(e) => e.flush()?,
            Encoder::Zstd(e) => e.flush()?,
        }
        Ok(std::mem::take(self.output()))
    }

    /// Ends the body and takes the rest of the output.
    pub(crate) fn finish(self) -> io::Result<Vec<u8>> {
        match self {
            Encoder::Gzip(e) => e.finish(),
            Encoder::Brotli(mut e) => {
                e.finish()?;
                Ok(std::mem::take(e.output()))
            }
            Encoder::Zstd(e) => e.finish(),
        }
    }
}

/// `data` encoded whole with `coding` at `level`.
pub(crate) fn encode(
    coding: ContentCoding,
    level: CompressionLevel,
    data: &[u8],
) -> io::Result<Vec<u8>> {
    let mut e = Encoder::new(coding, level)?;
    if let Encoder::Zstd(z) = &mut e {
        // The size known up front lets zstd size its window to the body.
        z.set_pledged_src_size(Some(data.len() as u64))?;
    }
    e.push(data)?;
    e.finish()
}

/// A decoder writing what it decodes into `W`.
pub(crate) enum Decoder<W: Write> {
    Gzip(flate2::write::MultiGzDecoder<W>),
    Brotli(Box<brotli::DecompressorWriter<W>>),
    Zstd(zstd::stream::write::Decoder<'static, W>),
}

impl<W: Write> Decoder<W> {
    /// A decoder of `coding` into `sink`. `max_window_log` bounds the window a zstd frame may ask
    /// for (log2 of bytes; the decoder allocates it): a frame asking for more is an error.
    /// (gzip's window is 32 KiB and brotli's at most 16 MiB.)
    pub(crate) fn new(coding: ContentCoding, sink: W, max_window_log: u32) -> io::Result<Self> {
        Ok(match coding {
            ContentCoding::Gzip => Decoder::Gzip(flate2::write::MultiGzDecoder::new(sink)),
            ContentCoding::Brotli => Decoder::Brotli(Box::new(brotli::DecompressorWriter::new(
                sink,
                BROTLI_BUFFER,
            ))),
            ContentCoding::Zstd => {
                let mut d = zstd::stream::write::Decoder::new(sink)?;
                d.window_log_max(max_window_log)?;
                Decoder::Zstd(d)
            }
        })
    }

    /// Decodes `data` into the sink.
    pub(crate) fn push(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Decoder::Gzip(d) => d.write_all(data),
            Decoder::Brotli(d) => d.write_all(data),
            Decoder::Zstd(d) => d.write_all(data),
        }
    }

    /// Writes out what the decoder holds (the sink then has everything decodable so far).
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        match self {
            Decoder::Gzip(d) => d.flush(),
            Decoder::Brotli(d) => d.flush(),
            Decoder::Zstd(d) => d.flush(),
        }
    }

    /// The sink.
    pub(crate) fn sink(&mut self) -> &mut W {
        match self {
            Decoder::Gzip(d) => d.get_mut(),
            Decoder::Brotli(d) => d.get_mut(),
            Decoder::Zstd(d) => d.get_mut(),
        }
    }

    /// Ends the body: an error when it stopped before its coding's end (truncated).
    pub(crate) fn finish(self) -> io::Result<W> {
        let truncated = || io::Error::new(io::ErrorKind::UnexpectedEof, "truncated body");
        match self {
            Decoder::Gzip(d) => d.finish(),
            Decoder::Brotli(d) => d.into_inner().map_err(|_| truncated()),
            Decoder::Zstd(d) => d.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(coding: ContentCoding, data: &[u8]) -> io::Result<Vec<u8>> {
        let mut d = Decoder::new(coding, Vec::new(), 27)?;
        d.push(data)?;
        d.finish()
    }

    #[test]
    fn every_coding_round_trips_a_body() {
        let body: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for coding in ContentCoding::ALL {
            for level in [
                CompressionLevel::Fastest,
                CompressionLevel::Default,
                CompressionLevel::Smallest,
            ] {
                let enc = encode(coding, level, &body).unwrap();
                assert!(enc.len() < body.len() / 2, "{coding:?} {level:?}");
                assert_eq!(decode(coding, &enc).unwrap(), body, "{coding:?} {level:?}");
            }
        }
    }

    #[test]
    fn each_flushed_piece_decodes_to_what_was_pushed_so_far() {
        for coding in ContentCoding::ALL {
            let mut e = Encoder::new(coding, CompressionLevel::Default).unwrap();
            let mut d = Decoder::new(coding, Vec::new(), 27).unwrap();
            for i in 0..5 {
                let event = format!("id: {i}\ndata: {{\"n\":{i}}}\n\n");
                e.push(event.as_bytes()).unwrap();
                let piece = e.flush().unwrap();
                assert!(!piece.is_empty());
                d.push(&piece).unwrap();
                d.flush().unwrap();
                let got = std::mem::take(d.sink());
                assert_eq!(got, event.as_bytes(), "{coding:?} event {i}");
            }
            let tail = e.finish().unwrap();
            d.push(&tail).unwrap();
            assert!(d.finish().unwrap().is_empty(), "{coding:?}");
        }
    }

    #[test]
    fn a_truncated_or_corrupt_body_is_an_error() {
        let body = vec![b'x'; 10_000];
        for coding in ContentCoding::ALL {
            let enc = encode(coding, CompressionLevel::Default, &body).unwrap();
            assert!(
                decode(coding, &enc[..enc.len() / 2]).is_err(),
                "{coding:?} truncated"
            );
            assert!(
                decode(coding, b"not compressed at all").is_err(),
                "{coding:?} garbage"
            );
        }
    }

    #[test]
    fn coding_names_are_case_insensitive_and_x_gzip_is_gzip() {
        assert_eq!(ContentCoding::from_name(b"GZip"), Some(ContentCoding::Gzip));
        assert_eq!(
            ContentCoding::from_name(b"x-gzip"),
            Some(ContentCoding::Gzip)
        );
        assert_eq!(ContentCoding::from_name(b"BR"), Some(ContentCoding::Brotli));
        assert_eq!(ContentCoding::from_name(b"zstd"), Some(ContentCoding::Zstd));
        assert_eq!(ContentCoding::from_name(b"deflate"), None);
        assert_eq!(ContentCoding::from_name(b"identity"), None);
    }
}
