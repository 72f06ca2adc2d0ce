//! Reads what a message is (request, response, notification) and its id from the first bytes of
//! a message too large to parse, so that refusing it can still name the request it refuses: the
//! peer matches the error to its request (a request over the limit), or the one waiting request
//! fails at once (a response over the limit) instead of waiting forever.
//!
//! A single pass over the top level of a JSON object: keys are read, values skipped (strings,
//! numbers, literals, nested objects and arrays), nothing is allocated but the id. A prefix cut
//! short stops the scan with what was seen so far.

use super::RequestId;
use std::sync::Arc;

/// What the first bytes of a message say about it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Envelope {
    /// Its `id`, when seen (an integer or a string).
    pub(crate) id: Option<RequestId>,
    /// Whether a `method` key was seen (a request or notification).
    pub(crate) method: bool,
    /// Whether a `result` or `error` key was seen (a response).
    pub(crate) answer: bool,
    /// Whether the whole object was scanned (so a key not seen is absent).
    pub(crate) complete: bool,
}

/// Scans the top level of the JSON object at the start of `bytes`.
pub(crate) fn scan_envelope(bytes: &[u8]) -> Envelope {
    let mut env = Envelope::default();
    let mut s = Scanner { b: bytes, i: 0 };
    s.ws();
    if !s.eat(b'{') {
        return env;
    }
    loop {
        s.ws();
        let Some(key) = s.string() else {
            return env;
        };
        s.ws();
        if !s.eat(b':') {
            return env;
        }
        s.ws();
        match key {
            b"id" => {
                let start = s.i;
                if s.peek() == Some(b'"') {
                    match s.string() {
                        Some(v) if !v.contains(&b'\\') => {
                            env.id = std::str::from_utf8(v)
                                .ok()
                                .map(|t| RequestId::String(Arc::from(t)));
                        }
                        Some(_) => {}
                        None => return env,
                    }
                } else if !s.skip_value() {
                    return env;
                } else {
                    env.id = std::str::from_utf8(&bytes[start..s.i])
                        .ok()
                        .and_then(|t| t.trim().parse::<i64>().ok())
                        .map(RequestId::Number);
                }
            }
            other => {
                match other {
                    b"method" => env.method = true,
                    b"result" | b"error" => env.answer = true,
                    _ => {}
                }
                if !s.skip_value() {
                    return env;
                }
            }
        }
        s.ws();
        if s.eat(b'}') {
            env.complete = true;
            return env;
        }
        if !s.eat(b',') {
            return env;
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }
    /// A string's raw contents (escapes left as they are); `None` if cut short or not a string.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    self.i += 1;
                    return Some(&self.b[start..self.i - 1]);
                }
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
        None
    }
    /// Skips one value; false if cut short or malformed.
    fn skip_value(&mut self) -> bool {
        match self.peek() {
            Some(b'"') => self.string().is_some(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(c) = self.peek() {
                    match c {
                        b'"' => {
                            if self.string().is_none() {
                                return false;
                            }
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return true;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
                false
            }
            Some(_) => {
                let start = self.i;
                while matches!(self.peek(), Some(c) if !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.i += 1;
                }
                // A scalar that runs to the end of the prefix may have been cut short.
                self.i > start && self.i < self.b.len()
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_kinds() {
        let e = scan_envelope(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"#);
        assert_eq!(e.id, Some(RequestId::Number(7)));
        assert!(e.method && !e.answer && !e.complete);
        let e = scan_envelope(br#"{"jsonrpc":"2.0","method":"x"}"#);
        assert!(e.method && e.complete && e.id.is_none());
        let e = scan_envelope(br#" { "result" : {"x":[1,{"id":9}]}, "id" : "r-1" }"#);
        assert_eq!(e.id, Some(RequestId::String("r-1".into())));
        assert!(e.answer && !e.method);
        // The id after a large value still counts when the prefix reaches it.
        let e = scan_envelope(br#"{"params":{"s":"a\"}b"},"id":-3,"method":"x"}"#);
        assert_eq!(e.id, Some(RequestId::Number(-3)));
        // Cut short before the id: no id.
        let e = scan_envelope(br#"{"jsonrpc":"2.0","method":"x","params":{"s":"aaaa"#);
        assert_eq!(e.id, None);
        assert!(e.method);
        // A number cut by the end of the prefix is not trusted.
        assert_eq!(scan_envelope(br#"{"id":12"#).id, None);
        assert_eq!(scan_envelope(b"[1,2]"), Envelope::default());
        assert_eq!(scan_envelope(br#"{"id":1.5,"method":"x"}"#).id, None);
        assert_eq!(scan_envelope(br#"{"id":null,"method":"x"}"#).id, None);
    }
}
