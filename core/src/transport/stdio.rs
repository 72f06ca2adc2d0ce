//! The stdio server transport: messages on stdin/stdout, nothing else on stdout.
//!
//! Logs must go to stderr; the engine never prints to stdout except through this writer.

use super::{LineReader, LineWriter};
use crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE;

/// Reads frames from the process's stdin.
pub type StdioReader = LineReader<tokio::io::Stdin>;
/// Writes frames to the process's stdout.
pub type StdioWriter = LineWriter<tokio::io::Stdout>;

/// The process's stdin and stdout as a transport, with the default message size limit.
pub fn stdio() -> (StdioReader, StdioWriter) {
    stdio_with_limit(DEFAULT_MAX_MESSAGE_SIZE)
}

/// The process's stdin and stdout as a transport, accepting frames up to `max_message_size`.
pub fn stdio_with_limit(max_message_size: usize) -> (StdioReader, StdioWriter) {
    (
        LineReader::new(tokio::io::stdin(), max_message_size),
        LineWriter::new(tokio::io::stdout()),
    )
}
