//! Entry points for the fuzz targets in `fuzz/` (behind the `fuzzing` feature, not an API).
//!
//! The parsers worth fuzzing sit in private modules; rather than making those modules public,
//! this module gives the fuzz targets exactly the calls they need: the JSON-RPC scanner and fast
//! path next to the full parser they must agree with, and the HTTP/1.1 connection of
//! [`crate::transport::http::serve_http`] run over an in-memory stream, so that its requests
//! can be compared with what hyper's server reads from the same bytes. The other fuzzed parsers
//! (SSE, URI templates, schemas, the line framer) are public already.

/// Runs `drive` on a current-thread runtime whose clock is paused: a task waiting for bytes
/// that never come lets time jump to its next timer instead of hanging the fuzzer.
pub fn block_on<F: std::future::Future>(drive: F) -> F::Output {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime");
    }
    RUNTIME.with(|rt| rt.block_on(drive))
}

/// The SSE encoder the HTTP server writes events with (its parser is public).
#[cfg(feature = "http")]
pub fn sse_encode(
    id: Option<&str>,
    event: Option<&str>,
    data: &str,
    retry_ms: Option<u64>,
) -> Vec<u8> {
    crate::transport::http::sse::encode(id, event, data, retry_ms).to_vec()
}

/// The JSON-RPC readers: the scanner and fast path against `serde_json` and the full parser.
pub mod jsonrpc {
    use crate::jsonrpc::{fast, parse, scan, Message};
    use serde::Deserialize;
    use serde_json::{Map, Value};

    /// Checks every JSON-RPC reader on `bytes` and panics where two disagree:
    /// - what the scanner reads as a [`Value`], `serde_json` reads as the same value;
    /// - a message the fast path builds is the one the full parser builds;
    /// - a `tools/call` request whose params the typed path reads has the id and params the full
    ///   parser reads;
    /// - the id the envelope scanner reads (for refusing an oversized message) is the one the
    ///   full parser reads, from the whole message and from any prefix of it;
    /// - the full parser and [`crate::jsonrpc::parse`] never panic.
    pub fn check(bytes: &[u8]) {
        if let Ok(v) = scan::read(bytes, None, |d| Value::deserialize(d)) {
            match serde_json::from_slice::<Value>(bytes) {
                Ok(s) => assert_eq!(v, s, "the scanner and serde_json read different values"),
                Err(e) => panic!("the scanner read {v}, serde_json refused: {e}"),
            }
        }
        let full = parse::parse_full(bytes);
        let _ = crate::jsonrpc::parse(bytes);
        check_envelope_scan(bytes, &full);
        if let Some(m) = fast::parse(bytes) {
            match &full {
                Ok(crate::jsonrpc::Incoming::Single(f)) => {
                    assert_eq!(
                        &m, f,
                        "the fast path and the full parser built different messages"
                    )
                }
                other => panic!("the fast path built {m:?}, the full parser {other:?}"),
            }
        }
        match fast::parse_request_as::<Map<String, Value>>(bytes, "tools/call", None) {
            None => {}
            Some(fast::Fast::Message(m)) => match &full {
                Ok(crate::jsonrpc::Incoming::Single(f)) => {
                    assert_eq!(
                        &m, f,
                        "the typed path and the full parser built different messages"
                    )
                }
                other => panic!("the typed path built {m:?}, the full parser {other:?}"),
            },
            Some(fast::Fast::Typed(id, params)) => match &full {
                Ok(crate::jsonrpc::Incoming::Single(Message::Request(r))) => {
                    assert_eq!(r.method, "tools/call");
                    assert_eq!(
                        (&id, Some(&Value::Object(params))),
                        (&r.id, r.params.as_ref()),
                        "the typed path read another id or params than the full parser"
                    );
                }
                other => panic!("the typed path read a tools/call, the full parser {other:?}"),
            },
        }
    }

    /// The envelope scanner reads the id of a valid request or response as the full parser
    /// does (or not at all: escaped keys and ids are left unread), and a prefix of the message
    /// never shows another id or kind than the whole.
    fn check_envelope_scan(
        bytes: &[u8],
        full: &Result<crate::jsonrpc::Incoming, crate::jsonrpc::ErrorResponse>,
    ) {
        let whole = crate::jsonrpc::scan_envelope(bytes);
        let id = match full {
            Ok(crate::jsonrpc::Incoming::Single(Message::Request(r))) => &r.id,
            Ok(crate::jsonrpc::Incoming::Single(Message::Response(r))) => &r.id,
            _ => return,
        };
        if let Some(seen) = &whole.id {
            assert_eq!(seen, id, "the envelope scanner read another id");
        }
        for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() * 2 / 3] {
            let part = crate::jsonrpc::scan_envelope(&bytes[..cut]);
            if let Some(seen) = &part.id {
                assert_eq!(seen, id, "a prefix of {cut} bytes shows another id");
            }
            assert!(!part.method || whole.method, "a prefix shows a method");
            assert!(!part.answer || whole.answer, "a prefix shows a result");
        }
    }
}

/// What [`crate::transport::LineReader`] hands over with `ReadStatus::Oversized` for an
/// oversized `line`: the summary of its envelope, scanned whole.
pub fn envelope_summary(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    crate::jsonrpc::scan_envelope(line).write_summary(&mut out);
    out
}

/// The HTTP/1.1 server connection, driven over an in-memory stream.
#[cfg(feature = "http")]
pub mod h1 {
    use crate::transport::http::gauges::Gauges;
    use crate::transport::http::h1::{serve_connection, Limits};
    use crate::transport::http::request::HttpRequest;
    use axum::body::Body;
    use http::{Response, StatusCode};
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Largest request body the fuzzed connection accepts.
    pub const MAX_BODY: usize = 1024 * 1024;

    /// One request as the endpoint was handed it.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct Seen {
        /// The method.
        pub method: String,
        /// The request target as sent.
        pub target: Vec<u8>,
        /// The header fields in order, names in lowercase (values not UTF-8 converted lossily).
        pub headers: Vec<(String, String)>,
        /// The whole body.
        pub body: Vec<u8>,
    }

    /// What a connection did with some bytes.
    #[derive(Debug, Default)]
    #[non_exhaustive]
    pub struct Outcome {
        /// The requests handed to the endpoint, in order.
        pub requests: Vec<Seen>,
        /// Everything the connection wrote back.
        pub output: Vec<u8>,
    }

    /// Sends `bytes` to a server over an in-memory stream: writes them, lets the server answer
    /// everything it can (until every task waits), then closes the sending side and reads all
    /// the server writes. Used for both servers the fuzz target compares.
    pub async fn exchange<Fut: std::future::Future<Output = ()>>(
        bytes: &[u8],
        serve: impl FnOnce(tokio::io::DuplexStream) -> Fut,
    ) -> Vec<u8> {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (mut rx, mut tx) = tokio::io::split(client);
        let send = async move {
            let _ = tx.write_all(bytes).await;
            // With the clock paused this wakes only once every other task waits.
            tokio::time::sleep(Duration::from_secs(1)).await;
            let _ = tx.shutdown().await;
            // Keeps the write half (and so the stream) open until the server is done.
            tokio::time::sleep(Duration::from_secs(3600)).await;
        };
        let receive = async move {
            let mut out = Vec::new();
            let _ = rx.read_to_end(&mut out).await;
            out
        };
        let server = async move {
            serve(server).await;
        };
        tokio::select! {
            (out, ()) = async { tokio::join!(receive, server) } => out,
            () = send => Vec::new(),
        }
    }

    fn refusal(
        status: StatusCode,
        message: String,
        _id: Option<crate::jsonrpc::RequestId>,
    ) -> Response<Body> {
        Response::builder()
            .status(status)
            .body(Body::from(message))
            .expect("a valid response")
    }

    /// Serves `bytes` as one connection of ferromcp's HTTP/1.1 server whose endpoint answers
    /// every request `200 ok`, and reports the requests it was handed.
    pub fn serve(bytes: &[u8]) -> Outcome {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let record = seen.clone();
        // The server's defaults, with a smaller body limit.
        let o = crate::transport::http::HttpServerOptions::default();
        let limits = Limits {
            max_head: o.max_head_size,
            max_body: MAX_BODY,
            request_timeout: o.request_timeout,
            idle_timeout: o.keep_alive_timeout,
            header_read_timeout: o.header_read_timeout,
            write_timeout: o.write_timeout,
            gauges: std::sync::Arc::new(Gauges::new(o.max_buffered_bytes)),
            before_body: None,
        };
        let output = super::block_on(exchange(bytes, move |io| {
            serve_connection(
                io,
                None,
                limits,
                refusal,
                tokio_util::sync::CancellationToken::new(),
                move |req: HttpRequest| {
                    record.borrow_mut().push(Seen {
                        method: req.method.as_str().to_owned(),
                        target: req.target.to_vec(),
                        headers: req.headers.pairs(),
                        body: req.body.to_vec(),
                    });
                    std::future::ready(Response::new(Body::from("ok")))
                },
            )
        }));
        let requests = seen.borrow().clone();
        Outcome { requests, output }
    }
}
