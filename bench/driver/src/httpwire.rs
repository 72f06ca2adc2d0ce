//! The driver's own minimal HTTP/1.1 wire format (no HTTP library): request formatting and an
//! incremental reply parser (Content-Length, chunked and read-to-close bodies), plus extraction
//! of JSON-RPC messages from SSE `data:` events. Shared by the blocking and the epoll clients.

use crate::proto;
use std::borrow::Cow;
use std::io::Write as _;

/// One parsed HTTP reply.
pub struct Reply {
    pub status: u16,
    /// The `Mcp-Session-Id` header, if any.
    pub session: Option<String>,
    /// `Content-Type: text/event-stream`.
    pub sse: bool,
    pub body: Vec<u8>,
    /// The server will close the connection after this reply.
    pub close: bool,
}

/// `MCP_BENCH_ACCEPT_ENCODING` (e.g. `gzip, deflate, br, zstd`, what the official clients
/// send): sent as `Accept-Encoding` with every request, to measure what compression costs
/// (docs/compression.md). Unset: none (answers are never encoded).
fn accept_encoding() -> Option<&'static str> {
    static VALUE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    VALUE
        .get_or_init(|| std::env::var("MCP_BENCH_ACCEPT_ENCODING").ok())
        .as_deref()
}

/// Appends one request to `out`: `method` on `/mcp`, with the MCP headers, the session header
/// when `session` is set and `body` (sent with Content-Length). `per_request`: a per-request-era
/// (2026-07-28) `tools/call echo`, with that version and its `Mcp-Method` / `Mcp-Name` headers.
pub fn push_request(
    out: &mut Vec<u8>,
    method: &str,
    port: u16,
    session: Option<&str>,
    body: &[u8],
    per_request: bool,
) {
    let version = if per_request {
        proto::PER_REQUEST_VERSION
    } else {
        proto::PROTOCOL_VERSION
    };
    let _ = write!(
        out,
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: {version}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if per_request {
        out.extend_from_slice(b"Mcp-Method: tools/call\r\nMcp-Name: echo\r\n");
    }
    if let Some(codings) = accept_encoding() {
        let _ = write!(out, "Accept-Encoding: {codings}\r\n");
    }
    if let Some(s) = session {
        let _ = write!(out, "Mcp-Session-Id: {s}\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Parses one reply from the start of `buf`. `Ok(None)`: incomplete, read more (`eof`: the
/// peer closed, so a body without length ends here). `Ok(Some((reply, used)))`: `used` bytes
/// of `buf` made up the reply.
pub fn parse_reply(buf: &[u8], eof: bool) -> Result<Option<(Reply, usize)>, String> {
    let Some(hend) = find(buf, b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = std::str::from_utf8(&buf[..hend]).map_err(|_| "non-UTF-8 headers".to_string())?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let (mut len, mut chunked, mut sse, mut session, mut close) = (None, false, false, None, false);
    for l in lines {
        if let Some((k, v)) = l.split_once(':') {
            let v = v.trim();
            let k = k.trim();
            if k.eq_ignore_ascii_case("content-length") {
                len = v.parse::<usize>().ok();
            } else if k.eq_ignore_ascii_case("transfer-encoding") {
                chunked = v.eq_ignore_ascii_case("chunked");
            } else if k.eq_ignore_ascii_case("content-type") {
                sse = v.starts_with("text/event-stream");
            } else if k.eq_ignore_ascii_case("mcp-session-id") {
                session = Some(v.to_string());
            } else if k.eq_ignore_ascii_case("connection") {
                close = v.eq_ignore_ascii_case("close");
            }
        }
    }
    let mut pos = hend + 4;
    let mut body = Vec::new();
    if chunked {
        loop {
            let Some(e) = find(&buf[pos..], b"\r\n") else {
                return Ok(None);
            };
            let line = std::str::from_utf8(&buf[pos..pos + e]).unwrap_or("");
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| format!("bad chunk size {line:?}"))?;
            pos += e + 2;
            if size == 0 {
                // Trailers until the empty line.
                loop {
                    let Some(e) = find(&buf[pos..], b"\r\n") else {
                        return Ok(None);
                    };
                    pos += e + 2;
                    if e == 0 {
                        break;
                    }
                }
                break;
            }
            if buf.len() < pos + size + 2 {
                return Ok(None);
            }
            body.extend_from_slice(&buf[pos..pos + size]);
            pos += size + 2;
        }
    } else if let Some(n) = len {
        if buf.len() < pos + n {
            return Ok(None);
        }
        body.extend_from_slice(&buf[pos..pos + n]);
        pos += n;
    } else if status != 202 && status != 204 && status != 304 && status >= 200 {
        if !eof {
            return Ok(None);
        }
        body.extend_from_slice(&buf[pos..]);
        pos = buf.len();
        close = true;
    }
    Ok(Some((
        Reply {
            status,
            session,
            sse,
            body,
            close,
        },
        pos,
    )))
}

/// The JSON-RPC messages of a reply: the body itself, or each SSE event's data (the `data:`
/// lines of one event joined with `\n`; events end at a blank line).
pub fn json_messages(r: &Reply) -> Vec<Cow<'_, [u8]>> {
    fn flush<'a>(data: &mut Option<Cow<'a, [u8]>>, out: &mut Vec<Cow<'a, [u8]>>) {
        if let Some(d) = data.take() {
            if !d.iter().all(u8::is_ascii_whitespace) {
                out.push(d);
            }
        }
    }
    if !r.sse {
        return vec![Cow::Borrowed(&r.body[..])];
    }
    let mut out = Vec::new();
    let mut data: Option<Cow<'_, [u8]>> = None;
    for line in r.body.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            flush(&mut data, &mut out);
        } else if let Some(d) = line.strip_prefix(b"data:") {
            let d = d.strip_prefix(b" ").unwrap_or(d);
            data = Some(match data.take() {
                None => Cow::Borrowed(d),
                Some(prev) => {
                    let mut v = prev.into_owned();
                    v.push(b'\n');
                    v.extend_from_slice(d);
                    Cow::Owned(v)
                }
            });
        }
    }
    flush(&mut data, &mut out);
    out
}

/// Checks a tools/call reply: HTTP 200 and an echo response for `id` among its messages.
pub fn check_call_reply(r: &Reply, id: u64) -> Result<(), String> {
    if r.status != 200 {
        return Err(format!(
            "tools/call: HTTP {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        ));
    }
    for msg in json_messages(r) {
        match proto::check_call(&msg)? {
            proto::Checked::Echo(got) if got == id => return Ok(()),
            proto::Checked::Echo(got) => return Err(format!("expected id {id}, got {got}")),
            proto::Checked::Other => {}
        }
    }
    Err(format!(
        "no response for id {id} in {}",
        String::from_utf8_lossy(&r.body)
    ))
}

/// Checks an initialize reply; returns the session id the server gave (if any).
pub fn check_initialize_reply(r: Reply) -> Result<Option<String>, String> {
    if r.status != 200 {
        return Err(format!(
            "initialize: HTTP {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        ));
    }
    let msgs = json_messages(&r);
    let msg = msgs.first().ok_or("initialize: empty reply")?;
    proto::check_initialize(msg, 0)?;
    drop(msgs);
    Ok(r.session)
}

/// Checks the reply to notifications/initialized (any 2xx).
pub fn check_initialized_reply(r: &Reply) -> Result<(), String> {
    if !(200..300).contains(&r.status) {
        return Err(format!("initialized: HTTP {}", r.status));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_length_reply_split_across_reads() {
        let full = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: abc\r\ncontent-length: 5\r\n\r\nhelloHTTP/1.1";
        for cut in 0..full.len() - 13 {
            assert!(
                parse_reply(&full[..cut], false).unwrap().is_none(),
                "cut {cut}"
            );
        }
        let (r, used) = parse_reply(full, false).unwrap().unwrap();
        assert_eq!(
            (r.status, &r.body[..], used),
            (200, &b"hello"[..], full.len() - 8)
        );
        assert_eq!(r.session.as_deref(), Some("abc"));
        assert!(!r.sse && !r.close);
    }

    #[test]
    fn chunked_sse_reply_with_multiline_event() {
        let body =
            "event: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: \r\n\r\ndata: {\"b\":2}\n\n";
        let (c1, c2) = body.split_at(20);
        let full = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{c1}\r\n{:x}\r\n{c2}\r\n0\r\n\r\n",
            c1.len(),
            c2.len()
        );
        assert!(parse_reply(&full.as_bytes()[..full.len() - 2], false)
            .unwrap()
            .is_none());
        let (r, used) = parse_reply(full.as_bytes(), false).unwrap().unwrap();
        assert_eq!(used, full.len());
        assert!(r.sse);
        let msgs: Vec<Vec<u8>> = json_messages(&r).into_iter().map(|m| m.to_vec()).collect();
        assert_eq!(msgs, vec![b"{\"a\":\n1}".to_vec(), b"{\"b\":2}".to_vec()]);
    }

    #[test]
    fn accepted_without_body_and_read_to_close() {
        let (r, used) = parse_reply(b"HTTP/1.1 202 Accepted\r\n\r\n", false)
            .unwrap()
            .unwrap();
        assert_eq!((r.status, r.body.len(), used), (202, 0, 25));
        let raw = b"HTTP/1.1 200 OK\r\n\r\n{}";
        assert!(parse_reply(raw, false).unwrap().is_none());
        let (r, _) = parse_reply(raw, true).unwrap().unwrap();
        assert!(r.close && r.body == b"{}");
    }
}
