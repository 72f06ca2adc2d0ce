//! Reads what a message is (request, response, notification) and its id from a message too
//! large to parse, so that refusing it can still name the request it refuses: the peer matches
//! the error to its request (a request over the limit), or the one waiting request fails at
//! once (a response over the limit) instead of waiting forever.
//!
//! A single pass over the top level of a JSON object: keys are read, values skipped (strings,
//! numbers, literals, nested objects and arrays), nothing is kept but the id. The scan is
//! incremental ([`EnvelopeScan::feed`]): a transport reading an oversized body on (and
//! discarding it) hands each piece to the scanner, so an id written after a huge `params` (as
//! the TypeScript SDK writes its messages) is still found, in constant memory. A message cut
//! short (only a prefix fed) stops the scan with what was seen so far ([`scan_envelope`]).
//!
//! The same scan names the id of a message the full parser refuses after its id (nested too
//! deep, invalid UTF-8 or a lone surrogate in a later string: [`super::parse`]), since it
//! neither decodes strings nor recurses.

use super::RequestId;
use std::sync::Arc;

// Stays open (no #[non_exhaustive]): a #[doc(hidden)] seam the engine (`ferromcp`) builds and
// matches across the crate boundary; not an API.
/// What the first bytes of a message say about it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Envelope {
    /// Its `id`, when seen (an integer or a string).
    pub id: Option<RequestId>,
    /// Whether a `method` key was seen (a request or notification).
    pub method: bool,
    /// Whether a `result` or `error` key was seen (a response).
    pub answer: bool,
    /// Whether the whole object was scanned (so a key not seen is absent).
    pub complete: bool,
}

impl Envelope {
    /// The id of a request: the id, when a `method` and no `result` or `error` was seen (an
    /// error answering a response could start an endless exchange of errors).
    #[doc(hidden)]
    pub fn request_id(&self) -> Option<RequestId> {
        self.id.clone().filter(|_| self.method && !self.answer)
    }
}

impl Envelope {
    /// Writes what was seen as a short JSON text that [`scan_envelope`] reads back as this very
    /// envelope (`{"id":7,"method":0` for a request cut short after its method, with `}` when
    /// the object was seen whole): how a framer that scanned a discarded message hands its
    /// envelope over where a message's first bytes are expected
    /// (`ferromcp::transport::ReadStatus::Oversized`).
    #[doc(hidden)]
    pub fn write_summary(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        let mut members: Vec<&[u8]> = Vec::new();
        let id;
        if let Some(i) = &self.id {
            id = [
                &b"\"id\":"[..],
                &serde_json::to_vec(i).expect("ids serialize"),
            ]
            .concat();
            members.push(&id);
        }
        if self.method {
            members.push(b"\"method\":0");
        }
        if self.answer {
            members.push(b"\"result\":0");
        }
        out.extend(members.join(&b","[..]));
        if self.complete {
            out.push(b'}');
        }
    }
}

/// Scans the top level of the JSON object at the start of `bytes`.
#[doc(hidden)]
pub fn scan_envelope(bytes: &[u8]) -> Envelope {
    let mut s = EnvelopeScan::default();
    s.feed(bytes);
    s.finish()
}

/// Longest id text kept (a longer string or number id is left unread).
const MAX_ID: usize = 1024;
/// Longest key kept: the envelope's own keys are shorter, so a longer one is none of them.
const MAX_KEY: usize = 8;

/// Where the scan is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening brace.
    #[default]
    Start,
    /// Before a key (after `{` or `,`).
    Key,
    /// Inside a key.
    KeyText { escaped: bool },
    /// After a key, before its colon.
    Colon,
    /// After a colon, before the value.
    Value,
    /// Inside a string value of the top level.
    Str { escaped: bool },
    /// Inside an object or array value, `depth` deep.
    Nested {
        depth: usize,
        in_string: bool,
        escaped: bool,
    },
    /// Inside a number or literal.
    Scalar,
    /// After a value, before `,` or `}`.
    After,
    /// The object ended (complete), or the input is no object: nothing more is read.
    Done,
}

/// An incremental scan of a message's envelope: [`Self::feed`] the bytes in order, then
/// [`Self::finish`] (or look at [`Self::envelope`] on the way).
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct EnvelopeScan {
    env: Envelope,
    state: State,
    /// The current key's first bytes (escapes as written) and its whole length.
    key: [u8; MAX_KEY],
    key_len: usize,
    /// Whether the value being read is the `id`'s.
    in_id: bool,
    /// The id's text being read (string contents as written, or a scalar), while it fits.
    id_text: Vec<u8>,
    /// The id's text is unusable (an escape in a string, too long, a nested value).
    id_unusable: bool,
}

impl EnvelopeScan {
    /// Whether feeding more cannot change what the scan says: the object ended, the input is no
    /// object, or a request's id and method were both seen.
    #[doc(hidden)]
    pub fn settled(&self) -> bool {
        self.state == State::Done || (self.env.id.is_some() && self.env.method)
    }

    /// Scans `bytes`, the next piece of the message.
    #[doc(hidden)]
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            match self.state {
                State::Done => return,
                State::Start => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b'{' => self.state = State::Key,
                    _ => self.state = State::Done,
                },
                State::Key => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b'"' => {
                        self.key_len = 0;
                        self.state = State::KeyText { escaped: false };
                    }
                    _ => self.state = State::Done,
                },
                State::KeyText { escaped } => {
                    if !escaped && c == b'"' {
                        self.key_done();
                        self.state = State::Colon;
                    } else {
                        if self.key_len < MAX_KEY {
                            self.key[self.key_len] = c;
                        }
                        self.key_len += 1;
                        self.state = State::KeyText {
                            escaped: !escaped && c == b'\\',
                        };
                    }
                }
                State::Colon => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b':' => self.state = State::Value,
                    _ => self.state = State::Done,
                },
                State::Value => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b'"' => self.state = State::Str { escaped: false },
                    b'{' | b'[' => {
                        self.id_unusable = true;
                        self.state = State::Nested {
                            depth: 1,
                            in_string: false,
                            escaped: false,
                        };
                    }
                    b',' | b'}' | b']' => self.state = State::Done,
                    _ => {
                        self.state = State::Scalar;
                        continue; // the byte is the scalar's first
                    }
                },
                State::Str { escaped } => {
                    if !self.in_id && !escaped {
                        // Not the id: pass over to the next quote or escape at once.
                        let rest = &bytes[i..];
                        let skip = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                        if skip > 0 {
                            i += skip;
                            continue;
                        }
                    }
                    if !escaped && c == b'"' {
                        self.value_done(true);
                    } else {
                        if c == b'\\' {
                            self.id_unusable = true;
                        }
                        self.id_byte(c);
                        self.state = State::Str {
                            escaped: !escaped && c == b'\\',
                        };
                    }
                }
                State::Nested {
                    depth,
                    in_string,
                    escaped,
                } => {
                    // Runs of bytes that change nothing are passed over at once.
                    let rest = &bytes[i..];
                    let skip = if in_string {
                        if escaped {
                            0
                        } else {
                            rest.iter()
                                .position(|b| matches!(b, b'"' | b'\\'))
                                .unwrap_or(rest.len())
                        }
                    } else {
                        rest.iter()
                            .position(|b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'))
                            .unwrap_or(rest.len())
                    };
                    if skip > 0 {
                        i += skip;
                        continue;
                    }
                    self.state = match (in_string, escaped, c) {
                        (true, true, _) => State::Nested {
                            depth,
                            in_string: true,
                            escaped: false,
                        },
                        (true, false, b'\\') => State::Nested {
                            depth,
                            in_string: true,
                            escaped: true,
                        },
                        (true, false, _) => State::Nested {
                            depth,
                            in_string: false,
                            escaped: false,
                        },
                        (false, _, b'"') => State::Nested {
                            depth,
                            in_string: true,
                            escaped: false,
                        },
                        (false, _, b'{' | b'[') => State::Nested {
                            depth: depth + 1,
                            in_string: false,
                            escaped: false,
                        },
                        _ if depth == 1 => {
                            self.value_done(false);
                            self.state
                        }
                        _ => State::Nested {
                            depth: depth - 1,
                            in_string: false,
                            escaped: false,
                        },
                    };
                }
                State::Scalar => match c {
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' => {
                        self.value_done(false);
                        continue; // the byte is read again after the value
                    }
                    _ => self.id_byte(c),
                },
                State::After => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b',' => self.state = State::Key,
                    b'}' => {
                        self.env.complete = true;
                        self.state = State::Done;
                    }
                    _ => self.state = State::Done,
                },
            }
            i += 1;
        }
    }

    /// What was seen, once every byte of the message (or as much of it as will come) was fed.
    /// A number or literal that runs to the end is not trusted: the message may go on.
    #[doc(hidden)]
    pub fn finish(self) -> Envelope {
        self.env
    }

    /// A key ended: notes what it says about the message, and whether its value is the id.
    fn key_done(&mut self) {
        let key = &self.key[..self.key_len.min(MAX_KEY)];
        let whole = self.key_len <= MAX_KEY;
        self.in_id = whole && key == b"id";
        if whole {
            match key {
                b"method" => self.env.method = true,
                b"result" | b"error" => self.env.answer = true,
                _ => {}
            }
        }
        self.id_text.clear();
        self.id_unusable = false;
    }

    /// One byte of the value being read: kept when it is the id's.
    fn id_byte(&mut self, c: u8) {
        if self.in_id && !self.id_unusable {
            if self.id_text.len() < MAX_ID {
                self.id_text.push(c);
            } else {
                self.id_unusable = true;
            }
        }
    }

    /// A value ended (`string`: it was a string).
    fn value_done(&mut self, string: bool) {
        if self.in_id {
            self.env.id = None;
            if !self.id_unusable {
                let text = std::str::from_utf8(&self.id_text).ok();
                self.env.id = match string {
                    true => text.map(|t| RequestId::String(Arc::from(t))),
                    // A JSON integer (`-0` is a float to the full parser).
                    false => text
                        .filter(|t| t.starts_with(|c: char| c == '-' || c.is_ascii_digit()))
                        .filter(|t| *t != "-0")
                        .and_then(|t| t.parse::<i64>().ok())
                        .map(RequestId::Number),
                };
            }
            self.in_id = false;
            self.id_text = Vec::new();
        }
        self.state = State::After;
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
        assert_eq!(scan_envelope(br#"{"id":"a\"b","method":"x"}"#).id, None);
        assert_eq!(scan_envelope(br#"{"id":{"a":1},"method":"x"}"#).id, None);
        assert_eq!(scan_envelope(br#"{"id":+1,"method":"x"}"#).id, None);
    }

    /// Fed in pieces of any size, the scan sees what it sees fed at once.
    #[test]
    fn pieces_read_as_the_whole() {
        let frames: [&[u8]; 5] = [
            br#"{"method":"tools/call","params":{"a":["x\"}]",{"b":[]}],"c":"]}"},"jsonrpc":"2.0","id":7}"#,
            br#" { "result" : {"x":[1,{"id":9}]}, "id" : "r-1" }"#,
            br#"{"jsonrpc":"2.0","id":-12,"method":"x","params":"s\\"}"#,
            br#"{"p":"a\"b","id":"i","method":"m"}"#,
            br#"{"id":12"#,
        ];
        for f in frames {
            let whole = scan_envelope(f);
            for size in 1..f.len() {
                let mut s = EnvelopeScan::default();
                for piece in f.chunks(size) {
                    s.feed(piece);
                }
                assert_eq!(
                    s.finish(),
                    whole,
                    "{} in pieces of {size}",
                    String::from_utf8_lossy(f)
                );
            }
        }
        let e = scan_envelope(frames[0]);
        assert_eq!(e.request_id(), Some(RequestId::Number(7)));
        assert!(e.complete);
        assert_eq!(scan_envelope(frames[1]).request_id(), None);
        assert_eq!(scan_envelope(frames[2]).id, Some(RequestId::Number(-12)));
        assert_eq!(
            scan_envelope(frames[3]).id,
            Some(RequestId::String("i".into()))
        );
    }

    #[test]
    fn a_summary_reads_back_as_its_envelope() {
        for f in [
            &br#"{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1}}"#[..],
            br#"{"method":"m","params":{"a":"#,
            br#"{"result":{},"id":"r-1"}"#,
            br#"{"id":"\u00e9","method":"m"}"#,
            "{\"id\":\"é\",\"method\":\"m\"}".as_bytes(),
            br#"{"id":-4"#,
            b"[1]",
            b"",
        ] {
            let e = scan_envelope(f);
            let mut summary = Vec::new();
            e.write_summary(&mut summary);
            assert_eq!(
                scan_envelope(&summary),
                e,
                "{}",
                String::from_utf8_lossy(&summary)
            );
        }
    }

    /// Deep nesting and bytes that are not UTF-8 are passed over, not refused.
    #[test]
    fn deep_and_invalid_values_are_passed_over() {
        let mut f = br#"{"jsonrpc":"2.0","method":"m","params":"#.to_vec();
        f.extend(std::iter::repeat_n(b'[', 100_000));
        f.extend(std::iter::repeat_n(b']', 100_000));
        f.extend(b",\"x\":\"\xff\xfe\",\"id\":3}");
        let e = scan_envelope(&f);
        assert_eq!(e.request_id(), Some(RequestId::Number(3)));
        assert!(e.complete);
    }
}
