//! Compression on the Streamable HTTP endpoint ([`super::super::HttpServerOptions::compression`]):
//! a request body in a content coding is decoded before it is parsed (within `max_body_size`
//! after decoding, counted in the server's buffered bytes while its request runs), and a JSON or
//! SSE answer is encoded in the coding negotiated from `Accept-Encoding`. The codecs and the
//! negotiation are in [`super::super::compression`]; this module decides when.

use super::super::compression::body::{Encoded, Peeked};
use super::super::compression::bounded::{decode_within, DecodeError};
use super::super::compression::{codec, negotiate, ContentCoding};
use super::super::gauges::Gauges;
use super::super::request::{Fields, HttpRequest};
use super::app::App;
use super::responses::{rpc_error, unavailable};
use crate::McpError;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use http_body_util::BodyExt;
use std::collections::VecDeque;
use std::sync::Arc;
use std::task::Poll;

/// Complete bodies at least this large are encoded on the blocking pool, so that a big answer
/// (a 10 MB result takes tens of milliseconds) does not hold up the connections sharing its
/// worker; smaller ones are encoded in place (moving them would cost more than encoding).
const ENCODE_ELSEWHERE: usize = 256 * 1024;

/// The coding the answer to a request with `headers` gets; `None`: identity (compression off,
/// no `Accept-Encoding`, or none of the server's codings accepted).
pub(super) fn response_coding(app: &App, headers: &Fields) -> Option<ContentCoding> {
    let o = app.options.compression.as_ref()?;
    negotiate::choose(headers.get_all("accept-encoding"), &o.codings)
}

/// A decoded request body's bytes, counted in the server's buffered total
/// ([`super::super::HttpServerOptions::max_buffered_bytes`]) until dropped.
pub(super) struct DecodedCharge {
    gauges: Arc<Gauges>,
    bytes: usize,
}

impl Drop for DecodedCharge {
    fn drop(&mut self) {
        self.gauges.recharge(self.bytes, 0);
    }
}

/// Decodes `req`'s body when its `Content-Encoding` names a coding: the body is replaced by its
/// decoded form, whose charge on the server's memory budget lasts as long as the returned value.
/// Refusals: 415 for a coding the server does not accept (with `Accept-Encoding` naming those
/// it does, RFC 7694), 413 for a body over `max_body_size` once decoded (with the request's id
/// when it comes within the bytes scanned), 400 for a body that is not valid in its coding, 503
/// when the server's buffered bytes would pass their budget.
pub(super) fn decode_request(
    app: &App,
    req: &mut HttpRequest,
) -> Result<Option<DecodedCharge>, Response> {
    if req.headers.get("content-encoding").is_none() {
        return Ok(None);
    }
    let accepted: &[ContentCoding] = match &app.options.compression {
        Some(o) => &o.codings,
        None => &[],
    };
    let mut coding = None;
    for value in req.headers.get_all("content-encoding") {
        for name in value.split(|&b| b == b',') {
            let name = name.trim_ascii();
            if name.is_empty() || name.eq_ignore_ascii_case(b"identity") {
                continue;
            }
            match ContentCoding::from_name(name).filter(|c| accepted.contains(c)) {
                Some(c) if coding.is_none() => coding = Some(c),
                Some(_) => {
                    return Err(unsupported(
                        accepted,
                        "a request body may have one content coding at most".into(),
                    ))
                }
                None => {
                    return Err(unsupported(
                        accepted,
                        format!(
                            "Content-Encoding {:?} is not accepted; {}",
                            String::from_utf8_lossy(name),
                            accepted_text(accepted)
                        ),
                    ))
                }
            }
        }
    }
    let Some(coding) = coding else {
        return Ok(None);
    };
    let limit = app.options.max_body_size;
    let decoded = match decode_within(coding, &req.body, limit) {
        Ok(d) => d,
        Err(DecodeError::TooLarge(id)) => {
            return Err(rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                id,
                McpError::invalid_request(format!(
                    "request body exceeds {limit} bytes once decoded ({})",
                    coding.name()
                )),
            ))
        }
        Err(DecodeError::Invalid(e)) => {
            return Err(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                McpError::invalid_request(format!(
                    "request body is not valid {}: {e}",
                    coding.name()
                )),
            ))
        }
    };
    let bytes = decoded.len();
    if !app.gauges.recharge(0, bytes) {
        return Err(unavailable(
            None,
            McpError::internal("the server is holding too much request data; try again later"),
        ));
    }
    req.body = Bytes::from(decoded);
    Ok(Some(DecodedCharge {
        gauges: app.gauges.clone(),
        bytes,
    }))
}

/// What a 415 says the server accepts.
fn accepted_text(accepted: &[ContentCoding]) -> String {
    if accepted.is_empty() {
        return "this server accepts uncompressed request bodies only".into();
    }
    let names: Vec<&str> = accepted.iter().map(|c| c.name()).collect();
    format!("this server accepts {} (or none)", names.join(", "))
}

/// 415 with `Accept-Encoding` listing the codings accepted (`identity` when none is).
fn unsupported(accepted: &[ContentCoding], message: String) -> Response {
    let mut r = rpc_error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        None,
        McpError::invalid_request(message),
    );
    let list: Vec<&str> = accepted.iter().map(|c| c.name()).collect();
    let value = if list.is_empty() {
        "identity".to_string()
    } else {
        list.join(", ")
    };
    if let Ok(v) = HeaderValue::from_str(&value) {
        r.headers_mut().insert(header::ACCEPT_ENCODING, v);
    }
    r
}

/// The answer `r` in `coding` when it is worth it: a JSON or SSE body not already encoded; a
/// complete body of at least `min_size` bytes (kept as is when encoding does not make it
/// smaller); an SSE stream when `streams` is on, unless it was complete when its head was
/// written and smaller than `min_size`. Such answers say `Vary: accept-encoding` whatever the
/// outcome.
pub(super) async fn encode_response(
    app: &App,
    coding: Option<ContentCoding>,
    mut r: Response,
) -> Response {
    let Some(o) = app.options.compression.as_ref() else {
        return r;
    };
    let kind = r
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    let sse = kind.starts_with(b"text/event-stream");
    if !(sse || kind.starts_with(b"application/json")) || o.codings.is_empty() {
        return r;
    }
    if r.headers().contains_key(header::CONTENT_ENCODING) {
        return r;
    }
    r.headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    let Some(coding) = coding else {
        return r;
    };
    let exact = hyper::body::Body::size_hint(r.body()).exact();
    if let Some(n) = exact {
        if n < o.min_size as u64 {
            return r;
        }
        let (mut parts, body) = r.into_parts();
        let Ok(collected) = body.collect().await else {
            return Response::from_parts(parts, Body::empty());
        };
        let plain = collected.to_bytes();
        let level = o.level;
        let encoded = if plain.len() >= ENCODE_ELSEWHERE {
            let p = plain.clone();
            tokio::task::spawn_blocking(move || codec::encode(coding, level, &p))
                .await
                .ok()
                .and_then(Result::ok)
        } else {
            codec::encode(coding, level, &plain).ok()
        };
        let body = match encoded {
            Some(e) if e.len() < plain.len() => {
                parts
                    .headers
                    .insert(header::CONTENT_ENCODING, coding_value(coding));
                Body::from(e)
            }
            _ => Body::from(plain),
        };
        return Response::from_parts(parts, body);
    }
    if !sse || !o.streams {
        return r;
    }
    // A stream: what is ready now decides. Complete and small (the usual POST answer, written
    // whole before its head): as is. Otherwise encoded, every piece flushed.
    let (mut parts, mut body) = r.into_parts();
    let mut queued = VecDeque::new();
    let mut ended = false;
    let mut size = 0usize;
    for _ in 0..2 {
        let next = std::future::poll_fn(|cx| {
            Poll::Ready(hyper::body::Body::poll_frame(
                std::pin::Pin::new(&mut body),
                cx,
            ))
        })
        .await;
        match next {
            Poll::Pending => break,
            Poll::Ready(None) => {
                ended = true;
                break;
            }
            Poll::Ready(Some(f)) => {
                if let Some(d) = f.as_ref().ok().and_then(|f| f.data_ref()) {
                    size += d.len();
                }
                queued.push_back(f);
            }
        }
    }
    let peeked = Peeked {
        queued,
        ended,
        inner: body,
    };
    if ended && size < o.min_size {
        return Response::from_parts(parts, Body::new(peeked));
    }
    match codec::Encoder::new(coding, o.level) {
        Ok(encoder) => {
            parts
                .headers
                .insert(header::CONTENT_ENCODING, coding_value(coding));
            Response::from_parts(parts, Body::new(Encoded::new(peeked, encoder)))
        }
        Err(e) => {
            tracing::warn!(error = %e, "an encoder could not be made; answering as is");
            Response::from_parts(parts, Body::new(peeked))
        }
    }
}

fn coding_value(c: ContentCoding) -> HeaderValue {
    HeaderValue::from_static(c.name())
}
