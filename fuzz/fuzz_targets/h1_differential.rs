//! ferromcp's HTTP/1.1 server connection against hyper's: the same bytes are sent to both over
//! an in-memory stream, each handing every request it reads to an endpoint that answers
//! `200 ok`. Both must hand over the same requests (method, target, header fields, body), in
//! the same order, and refuse the same ones.
//!
//! Known, deliberate differences (each checked narrowly below, so that anything else fails):
//! - A request target that is not a URI (`GET a%zz HTTP/1.1`): hyper answers 400; ferromcp hands
//!   the raw target to the endpoint, which routes by path and answers 404 to anything but its
//!   own path. Nothing is framed differently, so the comparison stops at that request.
//! - More than 100 header fields: hyper refuses them, ferromcp reads up to 128 (431 beyond;
//!   browsers and proxies send more than 64).
//! - After a `CONNECT` request answered 2xx, hyper treats the connection as a tunnel and reads
//!   no more requests; ferromcp keeps reading HTTP (its endpoint never answers CONNECT with 2xx).
//! - Framing ferromcp refuses and hyper reads (RFC 9112 §6): `Transfer-Encoding` together with
//!   `Content-Length` (400; hyper reads it as chunked, dropping the `Content-Length`), a
//!   coding other than `chunked` in the list (`gzip, chunked`: 501; hyper reads the body as if
//!   it were only chunked), `chunked` named twice (400), and a request target with a
//!   `#fragment` (400; hyper drops the fragment). Recognized by ferromcp's refusal message.
//! - A chunked body's trailer section with a bare LF or CR, control bytes, or a field name that
//!   is not a token: ferromcp refuses the request (400, RFC 9112 §7.1 and issue 16), hyper reads
//!   some of these. Recognized by ferromcp's refusal message.
//! - A chunk extension holding a control byte other than HTAB (`1;a=\x01`): RFC 9112 §7.1.1
//!   allows none there (chunk-ext-val is a token or a quoted-string, whose qdtext excludes
//!   them); ferromcp refuses the request with 400, hyper skips extensions without looking. Also
//!   recognized by the refusal message, as is ferromcp's cap on extension bytes per body
//!   (16 KiB, which hyper has too but counts differently).
//! - A `Transfer-Encoding` value that is not a list of transfer codings, each a token with
//!   optional `;name=value` parameters (`~ gzip, chunked`, an unclosed quote): ferromcp refuses
//!   the request (400 "malformed Transfer-Encoding", RFC 9112 §7 and RFC 9110 §5.6), hyper
//!   only checks that the last element is `chunked`. The grammar's own tests are in
//!   `core/src/transport/http/chunked.rs`; here it is recognized by the refusal message.
//! - Repeated `Content-Length` fields with one value (`3` and `3`): both read the body the same;
//!   hyper keeps one of the fields, ferromcp all, so repeats are compared once.
#![no_main]

use bytes::Bytes;
use ferromcp::fuzzing::h1::{exchange, Seen};
use http::Uri;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

/// A request as hyper read it.
#[derive(Debug)]
struct HyperSeen {
    method: String,
    uri: Uri,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn hyper_serve(bytes: &[u8]) -> Vec<HyperSeen> {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = seen.clone();
    ferromcp::fuzzing::block_on(exchange(bytes, move |io| async move {
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let record = record.clone();
            async move {
                let (parts, body) = req.into_parts();
                if let Ok(body) = body.collect().await {
                    record.borrow_mut().push(HyperSeen {
                        method: parts.method.as_str().to_owned(),
                        uri: parts.uri,
                        headers: parts
                            .headers
                            .iter()
                            .map(|(n, v)| {
                                (
                                    n.as_str().to_owned(),
                                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                                )
                            })
                            .collect(),
                        body: body.to_bytes().to_vec(),
                    });
                }
                Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from_static(b"ok"))))
            }
        });
        let _ = hyper::server::conn::http1::Builder::new()
            .serve_connection(hyper_util::rt::TokioIo::new(io), service)
            .await;
    }));
    let requests = std::mem::take(&mut *seen.borrow_mut());
    requests
}

/// Header fields grouped by name (hyper's map keeps the order of values per name only), without
/// `Content-Length` when `Transfer-Encoding` frames the body (hyper drops it).
fn grouped(headers: &[(String, String)]) -> Vec<(String, String)> {
    let mut h = headers.to_vec();
    if has(headers, "transfer-encoding") {
        h.retain(|(n, _)| n != "content-length");
    }
    let mut lengths = h.iter().filter(|(n, _)| n == "content-length");
    if let Some(first) = lengths.next().cloned() {
        if lengths.all(|l| *l == first) {
            h.retain(|(n, _)| n != "content-length");
            h.push(first);
        }
    }
    h.sort_by(|a, b| a.0.cmp(&b.0));
    h
}

fn has(headers: &[(String, String)], name: &str) -> bool {
    headers.iter().any(|(n, _)| n == name)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let outcome = ferromcp::fuzzing::h1::serve(data);
    let ours: Vec<Seen> = outcome.requests;
    let refused_chunked = {
        let out = String::from_utf8_lossy(&outcome.output);
        out.contains("trailer")
            || out.contains("chunked body line")
            || out.contains("chunk extension")
    };
    let refused_te_syntax = String::from_utf8_lossy(&outcome.output)
        .contains("malformed Transfer-Encoding");
    let refused_framing = {
        let out = String::from_utf8_lossy(&outcome.output);
        out.contains("Transfer-Encoding and Content-Length together")
            || out.contains("only chunked is")
            || out.contains("Transfer-Encoding must end with chunked")
            || out.contains("#fragment")
    };
    let theirs = hyper_serve(data);
    for i in 0..ours.len().max(theirs.len()) {
        let (o, t) = match (ours.get(i), theirs.get(i)) {
            (Some(o), Some(t)) => (o, t),
            (Some(o), None) => {
                // ferromcp read a request hyper refused or never reached.
                if o.headers.len() > 100 {
                    return; // hyper's cap on header fields (documented above).
                }
                if Uri::try_from(o.target.as_slice()).is_err() {
                    return; // hyper refuses targets that are not URIs (documented above).
                }
                if i > 0 && ours[i - 1].method == "CONNECT" {
                    return; // hyper made the connection a tunnel (documented above).
                }
                panic!(
                    "ferromcp read request {i} and hyper did not: {o:?}\ninput: {:?}",
                    String::from_utf8_lossy(data)
                );
            }
            (None, Some(t)) => {
                if refused_chunked && has(&t.headers, "transfer-encoding") {
                    return; // ferromcp's stricter trailers or extensions (documented above).
                }
                if refused_te_syntax && has(&t.headers, "transfer-encoding") {
                    return; // ferromcp's stricter Transfer-Encoding grammar (documented above).
                }
                if refused_framing {
                    return; // ferromcp's stricter framing rules (documented above).
                }
                panic!(
                    "hyper read request {i} and ferromcp did not: {t:?}\ninput: {:?}",
                    String::from_utf8_lossy(data)
                );
            }
            (None, None) => unreachable!(),
        };
        let ctx = || format!("request {i}\ninput: {:?}", String::from_utf8_lossy(data));
        assert_eq!(o.method, t.method, "method of {}", ctx());
        let target = Uri::try_from(o.target.as_slice())
            .unwrap_or_else(|e| panic!("hyper read a target ferromcp's is not ({e}): {}", ctx()));
        assert_eq!(target, t.uri, "target of {}", ctx());
        assert_eq!(
            grouped(&o.headers),
            grouped(&t.headers),
            "header fields of {}",
            ctx()
        );
        assert_eq!(o.body, t.body, "body of {}", ctx());
        if o.method == "CONNECT" {
            return;
        }
    }
});
