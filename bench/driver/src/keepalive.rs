//! The I/O-free half of one keep-alive benchmark connection: the request it is about to send,
//! the bytes read so far, the MCP session and era it speaks. The blocking client
//! ([`crate::http::Conn`]) and the event-loop client ([`crate::httpload::AConn`]) each add only
//! their socket calls around it, so both send the same bytes and check replies the same way.

use crate::httpwire::{self, Reply};
use crate::proto;

/// One connection's wire state, between socket calls.
pub struct KeepAlive {
    port: u16,
    buf: Vec<u8>,
    len: usize,
    req: Vec<u8>,
    body: Vec<u8>,
    /// The MCP session of the last handshake (stateful servers).
    pub session: Option<String>,
    /// Speaks the per-request era (2026-07-28): no handshake, `_meta` on every call.
    pub per_request: bool,
}

impl KeepAlive {
    /// Fresh state for a connection to `127.0.0.1:port`, in the handshake era, no session.
    pub fn new(port: u16) -> KeepAlive {
        KeepAlive {
            port,
            buf: vec![0; 64 * 1024],
            len: 0,
            req: Vec::with_capacity(1024),
            body: Vec::with_capacity(256),
            session: None,
            per_request: false,
        }
    }

    /// Formats a request with `method` and `body` (the session header, and in the per-request
    /// era the 2026-07-28 headers of a POST); [`KeepAlive::request_bytes`] gives it to send.
    pub fn encode(&mut self, method: &str, body: &[u8]) {
        self.req.clear();
        httpwire::push_request(
            &mut self.req,
            method,
            self.port,
            self.session.as_deref(),
            body,
            self.per_request && method == "POST",
        );
    }

    /// Formats the `tools/call` echo with `id` in this connection's era.
    pub fn encode_call(&mut self, id: u64) {
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        if self.per_request {
            proto::push_call_per_request(&mut body, id);
        } else {
            proto::push_call(&mut body, id);
        }
        self.encode("POST", &body);
        self.body = body;
    }

    /// The request the last `encode*` formatted.
    pub fn request_bytes(&self) -> &[u8] {
        &self.req
    }

    /// Takes the complete reply at the front of what was read, if there is one (`eof`: the peer
    /// closed, so a read-to-close body ends here).
    pub fn next_reply(&mut self, eof: bool) -> Result<Option<Reply>, String> {
        match httpwire::parse_reply(&self.buf[..self.len], eof)? {
            Some((r, used)) => {
                self.buf.copy_within(used..self.len, 0);
                self.len -= used;
                Ok(Some(r))
            }
            None => Ok(None),
        }
    }

    /// Where the next read goes (the buffer doubles when it is full).
    pub fn spare(&mut self) -> &mut [u8] {
        if self.len == self.buf.len() {
            let n = self.buf.len() * 2;
            self.buf.resize(n, 0);
        }
        &mut self.buf[self.len..]
    }

    /// Records that a read put `n` bytes into [`KeepAlive::spare`].
    pub fn filled(&mut self, n: usize) {
        self.len += n;
    }

    /// Forgets what was read: the connection was replaced by a new one (the session and era
    /// are kept).
    pub fn reconnected(&mut self) {
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_split_across_reads_is_taken_once_whole() {
        let mut k = KeepAlive::new(1);
        let reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
        let (a, b) = reply.split_at(20);
        k.spare()[..a.len()].copy_from_slice(a);
        k.filled(a.len());
        assert!(k.next_reply(false).unwrap().is_none());
        k.spare()[..b.len()].copy_from_slice(b);
        k.filled(b.len());
        let first = k.next_reply(false).unwrap().expect("first reply complete");
        assert_eq!(first.status, 200);
        let second = k.next_reply(false).unwrap().expect("second reply complete");
        assert_eq!(second.status, 202);
        assert!(k.next_reply(false).unwrap().is_none());
    }

    #[test]
    fn the_call_carries_the_session_or_the_per_request_headers() {
        let mut k = KeepAlive::new(1);
        k.session = Some("s1".into());
        k.encode_call(7);
        let text = String::from_utf8(k.request_bytes().to_vec()).unwrap();
        assert!(text.contains("Mcp-Session-Id: s1\r\n"), "{text}");
        assert!(!text.contains("Mcp-Method"), "{text}");
        k.session = None;
        k.per_request = true;
        k.encode_call(8);
        let text = String::from_utf8(k.request_bytes().to_vec()).unwrap();
        assert!(text.contains("Mcp-Method: tools/call\r\n"), "{text}");
        assert!(!text.contains("Mcp-Session-Id"), "{text}");
    }
}
