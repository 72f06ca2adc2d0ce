//! `Content-Encoding` of HTTP bodies (gzip, br, zstd): what the server and the client of the HTTP
//! transports negotiate and how a body is encoded and decoded, kept apart from both so that each
//! side only decides *when* (the server in `server/compression.rs`, the client in its transport).
//!
//! - [`negotiate`]: the coding a response gets, from the request's `Accept-Encoding` (q-values,
//!   `*`, `identity;q=0`) and the server's order of preference;
//! - [`brotli_stream`]: the brotli encoder behind `codec`, instantiated once;
//! - [`codec`]: the encoders (a complete body, or a stream flushed after every piece so that each
//!   SSE event can be decoded as soon as it arrives) and decoders;
//! - [`bounded`]: decoding a request body within the body size limit *after* decoding, without
//!   ever holding more than that limit (a decompression bomb is refused, not inflated);
//! - [`body`]: the response and client bodies that encode or decode as they are polled.
//!
//! Configuration: [`CompressionOptions`] in
//! [`HttpServerOptions::compression`](super::HttpServerOptions::compression) (on by default;
//! `None` turns it off) and [`HttpClientOptions::compression`](super::HttpClientOptions::compression).

pub(crate) mod body;
pub(crate) mod bounded;
mod brotli_stream;
pub(crate) mod codec;
pub(crate) mod negotiate;

/// A content coding this crate encodes and decodes (RFC 9110 §8.4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentCoding {
    /// `gzip` (RFC 1952; `x-gzip` is read as the same).
    Gzip,
    /// `br`, Brotli (RFC 7932).
    Brotli,
    /// `zstd`, Zstandard (RFC 8878).
    Zstd,
}

impl ContentCoding {
    /// Every coding, in the default order of preference: zstd (fastest for its ratio), br,
    /// then gzip (which every client has).
    pub const ALL: [ContentCoding; 3] = [
        ContentCoding::Zstd,
        ContentCoding::Brotli,
        ContentCoding::Gzip,
    ];

    /// The coding's name in `Content-Encoding` and `Accept-Encoding`.
    pub fn name(self) -> &'static str {
        match self {
            ContentCoding::Gzip => "gzip",
            ContentCoding::Brotli => "br",
            ContentCoding::Zstd => "zstd",
        }
    }

    /// The coding named `name` (ASCII case-insensitive; `x-gzip` is `gzip`), if supported.
    pub fn from_name(name: &[u8]) -> Option<ContentCoding> {
        let is = |n: &str| name.eq_ignore_ascii_case(n.as_bytes());
        if is("gzip") || is("x-gzip") {
            Some(ContentCoding::Gzip)
        } else if is("br") {
            Some(ContentCoding::Brotli)
        } else if is("zstd") {
            Some(ContentCoding::Zstd)
        } else {
            None
        }
    }
}

/// How hard an encoder works: the level each coding gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CompressionLevel {
    /// gzip 1, br 1, zstd 1: least CPU per byte.
    Fastest,
    /// gzip 6, br 4, zstd 3: each library's usual level for dynamic content.
    #[default]
    Default,
    /// gzip 9, br 9, zstd 12: smaller bodies for several times the CPU.
    Smallest,
}

/// Compression of the HTTP server's bodies ([`super::HttpServerOptions::compression`]).
///
/// Responses with a JSON or SSE body are encoded with the first of [`Self::codings`] that the
/// request's `Accept-Encoding` weighs highest (a client that sends no `Accept-Encoding` gets
/// identity); a complete body under [`Self::min_size`] bytes is sent as is. Request bodies in
/// any of [`Self::codings`] are decoded, within `max_body_size` after decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompressionOptions {
    /// The codings used and accepted, in the server's order of preference (among those the
    /// client weighs equally). Default: zstd, br, gzip. Empty: responses are never encoded and
    /// only identity request bodies are accepted.
    pub codings: Vec<ContentCoding>,
    /// Smallest complete body that is encoded (bytes): below it the CPU is not worth the bytes
    /// saved (a body under one TCP segment gains nothing on the wire). Default 1,024.
    pub min_size: usize,
    /// How hard the encoders work. Default [`CompressionLevel::Default`].
    pub level: CompressionLevel,
    /// Whether SSE streams are encoded too (each event flushed at once, so streaming is
    /// unchanged); a POST's stream that is complete when its answer is written and smaller
    /// than `min_size` is sent as is. Default true.
    pub streams: bool,
}

ferromcp_protocol::with_setters!(CompressionOptions {
    codings: Vec<ContentCoding> => with_codings,
    min_size: usize => with_min_size,
    level: CompressionLevel => with_level,
    streams: bool => with_streams,
});

impl Default for CompressionOptions {
    fn default() -> Self {
        Self {
            codings: ContentCoding::ALL.to_vec(),
            min_size: 1024,
            level: CompressionLevel::Default,
            streams: true,
        }
    }
}

/// The `Accept-Encoding` value of a client that takes every coding of this crate.
pub(crate) const ACCEPT_ALL: &str = "zstd, br, gzip";
