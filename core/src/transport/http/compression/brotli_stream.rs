//! The brotli encoder the engine uses for whole bodies and for SSE streams alike, driving the
//! brotli crate's encoder state directly through one call site.
//!
//! Why not `brotli::CompressorWriter`: its `write` and its flush/finish path each pass their own
//! closure to the generic `compress_stream`, and every closure type instantiates the whole
//! encoder (block splitting, the hashers, entropy coding: most of the crate's 1.4 MB) once more.
//! Here every operation goes through [`BrotliStream::run`] with one named callback, so the
//! native modules hold the encoder once (bench/results/package-size-levers.md, "Where the bytes
//! go"). The output is the same: the same state machine is called with the same operations in
//! the same order.

use brotli::enc::encode::{
    BrotliEncoderDestroyInstance, BrotliEncoderOperation, BrotliEncoderParameter,
    BrotliEncoderStateStruct,
};
use brotli::enc::interface::{PredictionModeContextMap, StaticCommand};
use brotli::enc::StandardAlloc;
use brotli::{InputPair, InputReferenceMut};
use std::io;

/// Bytes of room made at the end of the output for each call of the encoder.
const OUTPUT_CHUNK: usize = 16 * 1024;

/// A brotli stream being encoded into a buffer of its own.
pub(crate) struct BrotliStream {
    state: BrotliEncoderStateStruct<StandardAlloc>,
    out: Vec<u8>,
}

/// The encoder's per-metablock callback: the engine does not inspect metablocks. A named
/// function (not a closure at each call) so that there is one instantiation of the encoder.
fn no_metablock_callback(
    _: &mut PredictionModeContextMap<InputReferenceMut<'_>>,
    _: &mut [StaticCommand],
    _: InputPair<'_>,
    _: &mut StandardAlloc,
) {
}

impl BrotliStream {
    /// An encoder at `quality` (0-11) with a window of 2^`window_log` bytes.
    pub(crate) fn new(quality: u32, window_log: u32) -> BrotliStream {
        let mut state = BrotliEncoderStateStruct::new(StandardAlloc::default());
        state.set_parameter(BrotliEncoderParameter::BROTLI_PARAM_QUALITY, quality);
        state.set_parameter(BrotliEncoderParameter::BROTLI_PARAM_LGWIN, window_log);
        BrotliStream {
            state,
            out: Vec::new(),
        }
    }

    /// Encodes `data` (its bytes may stay in the encoder until the next flush or the end).
    pub(crate) fn push(&mut self, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        self.run(BrotliEncoderOperation::BROTLI_OPERATION_PROCESS, data)
    }

    /// Makes the output so far decode to every byte pushed.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.run(BrotliEncoderOperation::BROTLI_OPERATION_FLUSH, &[])
    }

    /// Ends the stream.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.run(BrotliEncoderOperation::BROTLI_OPERATION_FINISH, &[])
    }

    /// The output so far (taken by the caller after a flush).
    pub(crate) fn output(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// The one call site of the encoder: runs `op` over `input` until the encoder has taken all
    /// of it and, for a flush or the end, written out everything it holds.
    fn run(&mut self, op: BrotliEncoderOperation, input: &[u8]) -> io::Result<()> {
        let mut available_in = input.len();
        let mut input_offset = 0;
        let mut total_out = None;
        loop {
            let mut output_offset = self.out.len();
            self.out.resize(output_offset + OUTPUT_CHUNK, 0);
            let mut available_out = OUTPUT_CHUNK;
            let ok = self.state.compress_stream(
                op,
                &mut available_in,
                input,
                &mut input_offset,
                &mut available_out,
                &mut self.out,
                &mut output_offset,
                &mut total_out,
                &mut no_metablock_callback,
            );
            self.out.truncate(output_offset);
            if !ok {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "brotli encoder refused its input",
                ));
            }
            let done = match op {
                BrotliEncoderOperation::BROTLI_OPERATION_PROCESS => available_in == 0,
                BrotliEncoderOperation::BROTLI_OPERATION_FINISH => self.state.is_finished(),
                _ => !self.state.has_more_output(),
            };
            if done {
                return Ok(());
            }
        }
    }
}

impl Drop for BrotliStream {
    fn drop(&mut self) {
        BrotliEncoderDestroyInstance(&mut self.state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The bytes are brotli's own writer's, for a whole body and for a stream flushed per piece.
    #[test]
    fn the_output_is_the_brotli_writers_byte_for_byte() {
        let body: Vec<u8> = (0..60_000u32)
            .flat_map(|i| format!("{{\"n\":{},\"s\":\"{}\"}}", i % 977, i % 13).into_bytes())
            .collect();
        for quality in [1, 4, 9] {
            let mut ours = BrotliStream::new(quality, 22);
            let mut theirs = brotli::CompressorWriter::new(Vec::new(), 16 * 1024, quality, 22);
            for (i, piece) in body.chunks(50_000).enumerate() {
                ours.push(piece).unwrap();
                theirs.write_all(piece).unwrap();
                if i % 2 == 0 {
                    ours.flush().unwrap();
                    theirs.flush().unwrap();
                    assert_eq!(ours.output(), theirs.get_ref(), "q{quality} piece {i}");
                }
            }
            ours.finish().unwrap();
            assert_eq!(ours.output(), &theirs.into_inner(), "q{quality} end");
        }
    }
}
