//! A request as the Streamable HTTP endpoint's handlers see it: method, target, header fields
//! and the whole body.
//!
//! The endpoint reads a handful of headers once each, so a request keeps its head as the bytes
//! that arrived plus where each field sits in them, and a lookup is a short scan: no `HeaderMap`
//! (no hashing, no allocation per field). The HTTP/1.1 layer (`h1`) builds one from the bytes it
//! read; [`super::router`]'s axum handlers build one from axum's request.

use bytes::Bytes;
use http::{HeaderMap, Method};
use std::net::IpAddr;
use std::sync::Arc;

/// Where one header field sits in [`Fields::raw`].
#[derive(Debug, Clone, Copy)]
struct Span {
    name: (u32, u32),
    value: (u32, u32),
}

/// A request's header fields, in the order they came, and the address of the peer whose
/// connection they arrived on ([`Self::set_peer`]): what the request contexts of the messages
/// a request carries read through [`Self::shared`], headers and peer alike.
///
/// Both parts are shared: a clone (the copy the request's handlers read through
/// [`Self::shared`]) costs two reference counts, no allocation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fields {
    raw: Bytes,
    spans: Arc<[Span]>,
    /// Where the first field of each [`Mcp`] name is (its index + 1; 0: none), found once
    /// when the fields are made: the POST handler looks up these names on every request.
    mcp: [u32; MCP_NAMES.len()],
    /// Whether a `traceparent` field is present (the OpenTelemetry layer asks on every
    /// request), noted in the same pass as [`Self::mcp`].
    traceparent: bool,
    /// The IP address of the connection's peer, when the server knows it (set by the listener
    /// for each request it reads, by the axum adapter from `ConnectInfo`).
    peer: Option<IpAddr>,
}

/// The MCP header fields every POST looks up, found once per request ([`Fields::get_mcp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mcp {
    /// `MCP-Protocol-Version`.
    Version = 0,
    /// `Mcp-Session-Id`.
    SessionId = 1,
    /// `Mcp-Method` (per-request era).
    Method = 2,
    /// `Mcp-Name` (per-request era).
    Name = 3,
}

/// The [`Mcp`] names in lowercase, in that order; no two have the same length.
const MCP_NAMES: [&str; 4] = [
    "mcp-protocol-version",
    "mcp-session-id",
    "mcp-method",
    "mcp-name",
];

/// The W3C trace-context field, noted when the fields are made ([`Fields::traceparent`]).
const TRACEPARENT: &str = "traceparent";

/// Where each field of a head sits, made with [`Fields::spans`] before the head's bytes are
/// split off the read buffer, then joined to them with [`Fields::over`].
pub(super) struct Spans(Arc<[Span]>);

impl Fields {
    /// Fields over `raw`, from `(name, value)` byte ranges into it.
    pub(super) fn from_ranges(
        raw: Bytes,
        ranges: impl IntoIterator<Item = (std::ops::Range<usize>, std::ops::Range<usize>)>,
    ) -> Fields {
        Fields::over(raw, Fields::spans(ranges))
    }

    /// The spans of `(name, value)` byte ranges, in one allocation when the iterator knows its
    /// length (a slice of parsed headers mapped to ranges does).
    pub(super) fn spans(
        ranges: impl IntoIterator<Item = (std::ops::Range<usize>, std::ops::Range<usize>)>,
    ) -> Spans {
        Spans(
            ranges
                .into_iter()
                .map(|(n, v)| Span {
                    name: (n.start as u32, n.end as u32),
                    value: (v.start as u32, v.end as u32),
                })
                .collect(),
        )
    }

    /// Fields over `raw`, with `spans` (ranges into `raw`) made by [`Self::spans`].
    pub(super) fn over(raw: Bytes, spans: Spans) -> Fields {
        let mut fields = Fields {
            raw,
            spans: spans.0,
            mcp: [0; MCP_NAMES.len()],
            traceparent: false,
            peer: None,
        };
        fields.find_mcp();
        fields
    }

    /// Fills [`Self::mcp`] and [`Self::traceparent`]: one pass over the fields, where a field
    /// is compared with the one name of its length (if any) only when it starts with `m` (or
    /// `t`) in either case.
    fn find_mcp(&mut self) {
        for (i, s) in self.spans.iter().enumerate() {
            let name = self.name(s);
            match name.first().map(|b| b | 0x20) {
                Some(b'm') => {}
                Some(b't') => {
                    if name.len() == TRACEPARENT.len()
                        && is_folded_token(name, TRACEPARENT.as_bytes())
                    {
                        self.traceparent = true;
                    }
                    continue;
                }
                _ => continue,
            }
            let k = match name.len() {
                20 => Mcp::Version,
                14 => Mcp::SessionId,
                10 => Mcp::Method,
                8 => Mcp::Name,
                _ => continue,
            } as usize;
            if self.mcp[k] == 0 && is_folded_token(name, MCP_NAMES[k].as_bytes()) {
                // (Fewer fields than `u32::MAX`: their positions are `u32`s.)
                self.mcp[k] = i as u32 + 1;
            }
        }
    }

    /// The first value of MCP header `h`: what [`Self::get`] gives for its name, without
    /// passing over the fields again.
    pub(crate) fn get_mcp(&self, h: Mcp) -> Option<&[u8]> {
        match self.mcp[h as usize] {
            0 => None,
            i => Some(self.value(&self.spans[i as usize - 1])),
        }
    }

    /// Fields copied from an axum/`http` header map.
    pub(super) fn from_map(map: &HeaderMap) -> Fields {
        let mut raw = Vec::new();
        let mut ranges = Vec::with_capacity(map.len());
        for (name, value) in map {
            let n = raw.len();
            raw.extend_from_slice(name.as_str().as_bytes());
            let v = raw.len();
            raw.extend_from_slice(value.as_bytes());
            ranges.push((n..v, v..raw.len()));
        }
        Fields::from_ranges(Bytes::from(raw), ranges)
    }

    fn name(&self, s: &Span) -> &[u8] {
        &self.raw[s.name.0 as usize..s.name.1 as usize]
    }

    fn value(&self, s: &Span) -> &[u8] {
        &self.raw[s.value.0 as usize..s.value.1 as usize]
    }

    /// Every value of header `name` (given in lowercase), in order.
    pub(crate) fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.spans
            .iter()
            .filter(move |s| self.is(s, name))
            .map(move |s| self.value(s))
    }

    /// The first value of header `name` (given in lowercase).
    pub(crate) fn get(&self, name: &str) -> Option<&[u8]> {
        self.spans
            .iter()
            .find(|s| self.is(s, name))
            .map(|s| self.value(s))
    }

    /// Whether field `s` is named `lower` (a name in lowercase), in any ASCII case. Most fields
    /// differ in length from the name looked for: only those are compared byte by byte.
    fn is(&self, s: &Span, lower: &str) -> bool {
        (s.name.1 - s.name.0) as usize == lower.len() && is_lowercase_of(self.name(s), lower)
    }

    /// The first value of each header of `names` (each given in lowercase), found in one pass
    /// over the fields: what [`Self::get`] gives for each name.
    #[cfg(test)]
    pub(crate) fn get_each<const N: usize>(&self, names: [&str; N]) -> [Option<&[u8]>; N] {
        self.get_each_once(names).map(|(first, _)| first)
    }

    /// The first value of each header of `names` (each given in lowercase) and whether it
    /// occurs more than once, found in one pass over the fields: what [`Self::get_each`] gives,
    /// with a duplicate flag per name.
    pub(crate) fn get_each_once<const N: usize>(
        &self,
        names: [&str; N],
    ) -> [(Option<&[u8]>, bool); N] {
        let mut found = [(None, false); N];
        for s in self.spans.iter() {
            for (want, slot) in names.iter().zip(found.iter_mut()) {
                if self.is(s, want) {
                    match slot.0 {
                        None => slot.0 = Some(self.value(s)),
                        Some(_) => slot.1 = true,
                    }
                }
            }
        }
        found
    }

    /// The first value of header `name` as text, if it is visible ASCII (what
    /// `HeaderValue::to_str` accepts).
    pub(crate) fn get_str(&self, name: &str) -> Option<&str> {
        visible_str(self.get(name)?)
    }

    /// Whether a comma-separated header lists `token` (ASCII case-insensitive).
    pub(crate) fn has_token(&self, name: &str, token: &str) -> bool {
        self.get_all(name).any(|v| lists_token(v, token.as_bytes()))
    }

    /// Every field as `(name in lowercase, value)` text (values that are not UTF-8 are
    /// converted lossily).
    pub(crate) fn pairs(&self) -> Vec<(String, String)> {
        self.spans
            .iter()
            .map(|s| {
                (
                    String::from_utf8_lossy(self.name(s)).to_ascii_lowercase(),
                    String::from_utf8_lossy(self.value(s)).into_owned(),
                )
            })
            .collect()
    }

    /// Records the IP address of the peer whose connection these fields arrived on (the
    /// request contexts' [`client_address`](crate::session::RequestContext::client_address)).
    pub(crate) fn set_peer(&mut self, peer: Option<IpAddr>) {
        self.peer = peer;
    }

    /// The fields as the request contexts of this request give them to handlers (shared, read
    /// only when a handler asks).
    pub(crate) fn shared(&self) -> crate::session::HttpHeaders {
        std::sync::Arc::new(self.clone())
    }
}

impl crate::session::HeaderFields for Fields {
    fn pairs(&self) -> Vec<(String, String)> {
        Fields::pairs(self)
    }

    fn get(&self, name: &str) -> Option<String> {
        Fields::get(self, name).map(|v| String::from_utf8_lossy(v).into_owned())
    }

    fn get_all(&self, name: &str) -> Vec<String> {
        Fields::get_all(self, name)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect()
    }

    fn has_traceparent(&self) -> bool {
        self.traceparent
    }

    fn client_address(&self) -> Option<IpAddr> {
        self.peer
    }
}

/// Whether `name` is `lower` (a name in lowercase) in any ASCII case: what
/// `eq_ignore_ascii_case` answers, with only `name`'s side folded.
fn is_lowercase_of(name: &[u8], lower: &str) -> bool {
    name.len() == lower.len()
        && name
            .iter()
            .zip(lower.as_bytes())
            .all(|(&a, &b)| a == b || (b.is_ascii_lowercase() && a | 0x20 == b))
}

/// Whether header name `name` (a token, as the parser accepted it) is `lower`, a name of the
/// same length made of lowercase letters and `-` only, in any ASCII case: eight bytes at a time.
///
/// Each byte of `lower` has bit `0x20` set, so a byte of `name` with that bit forced matches it
/// only if it is that letter in either case or, for `-`, `-` itself or CR (`0x0d`), which is no
/// token byte.
fn is_folded_token(name: &[u8], lower: &[u8]) -> bool {
    debug_assert!(lower.iter().all(|b| b.is_ascii_lowercase() || *b == b'-'));
    if name.len() != lower.len() {
        return false;
    }
    let (mut a, mut b) = (name.chunks_exact(8), lower.chunks_exact(8));
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("eight bytes"));
    for (x, y) in (&mut a).zip(&mut b) {
        if word(x) | 0x2020_2020_2020_2020 != word(y) {
            return false;
        }
    }
    a.remainder()
        .iter()
        .zip(b.remainder())
        .all(|(&x, &y)| x | 0x20 == y)
}

/// A header value as text, if it is visible ASCII (what `HeaderValue::to_str` accepts).
///
/// It runs on several header values of every request, so every byte is tested without an early
/// exit (`&` over the bytes rather than `all`), a loop the compiler vectorizes, and the text is
/// not checked a second time as UTF-8.
pub(crate) fn visible_str(v: &[u8]) -> Option<&str> {
    let visible = v.iter().fold(true, |ok, &b| {
        ok & ((b == b'\t') | (b.wrapping_sub(0x20) < 0x5f))
    });
    if visible {
        // SAFETY: every byte is a tab or in 0x20..0x7f, i.e. ASCII, which is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(v) })
    } else {
        None
    }
}

/// Whether a comma-separated header value lists `token` (ASCII case-insensitive).
pub(super) fn lists_token(value: &[u8], token: &[u8]) -> bool {
    value
        .split(|b| *b == b',')
        .any(|t| t.trim_ascii().eq_ignore_ascii_case(token))
}

/// A request with its whole body.
#[derive(Debug)]
pub(crate) struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The request target as sent (origin form: path and query).
    pub target: Bytes,
    /// The header fields.
    pub headers: Fields,
    /// The body, whole.
    pub body: Bytes,
}

impl HttpRequest {
    /// The method.
    pub(crate) fn method(&self) -> &Method {
        &self.method
    }

    /// The header fields.
    pub(crate) fn headers(&self) -> &Fields {
        &self.headers
    }

    /// The authority of an absolute-form target (`http://host:port/path`) and its scheme's
    /// default port; `None` for an origin-form target (`/path`).
    pub(crate) fn absolute_authority(&self) -> Option<(&str, u16)> {
        if self.target.starts_with(b"/") {
            return None;
        }
        let t = std::str::from_utf8(&self.target).ok()?;
        let (scheme, rest) = t.split_once("://")?;
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        // Userinfo is not part of the host.
        let authority = rest[..end].rsplit('@').next().unwrap_or("");
        let port = if scheme.eq_ignore_ascii_case("https") {
            443
        } else {
            80
        };
        Some((authority, port))
    }

    /// The target without its query (the path of an absolute-form target).
    pub(crate) fn path(&self) -> &str {
        let t = std::str::from_utf8(&self.target).unwrap_or("");
        let t = t.split(['?', '#']).next().unwrap_or("");
        if t.starts_with('/') {
            return t;
        }
        // Absolute form (`http://host/path`): the path after the authority.
        match t.split_once("://") {
            Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
            None => t,
        }
    }

    /// The query string, if any.
    pub(crate) fn query(&self) -> Option<&str> {
        let t = std::str::from_utf8(&self.target).ok()?;
        let t = t.split('#').next().unwrap_or("");
        t.split_once('?').map(|(_, q)| q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(target: &str, raw: &str) -> HttpRequest {
        // `raw` is "name:value\n" lines.
        let mut ranges = Vec::new();
        let mut at = 0;
        for line in raw.split_inclusive('\n') {
            let colon = line.find(':').unwrap();
            let end = line.trim_end_matches('\n').len();
            ranges.push((at..at + colon, at + colon + 1..at + end));
            at += line.len();
        }
        HttpRequest {
            method: Method::GET,
            target: Bytes::from(target.to_string()),
            headers: Fields::from_ranges(Bytes::from(raw.to_string()), ranges),
            body: Bytes::new(),
        }
    }

    #[test]
    fn the_mcp_fields_are_found_as_get_finds_them() {
        use super::super::per_request::{METHOD_HEADER, NAME_HEADER};
        use super::super::{PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER};
        let names = [
            PROTOCOL_VERSION_HEADER,
            SESSION_ID_HEADER,
            METHOD_HEADER,
            NAME_HEADER,
        ];
        assert_eq!(MCP_NAMES, names);
        let all = [Mcp::Version, Mcp::SessionId, Mcp::Method, Mcp::Name];
        let r = request(
            "/",
            "Content-Length:2\nmcp-NAME:first\nMcp-Method:tools/call\nMcp-Methox:no\nmcp-name:second\nMCP-Protocol-Version:2026-07-28\nnope-session-id:x\n",
        );
        let h = r.headers();
        for (k, name) in all.into_iter().zip(names) {
            assert_eq!(h.get_mcp(k), h.get(name), "{name}");
        }
        assert_eq!(h.get_mcp(Mcp::Name), Some(&b"first"[..]));
        assert_eq!(h.get_mcp(Mcp::Method), Some(&b"tools/call"[..]));
        assert_eq!(h.get_mcp(Mcp::SessionId), None);
        assert_eq!(Fields::default().get_mcp(Mcp::Version), None);
        assert!(is_folded_token(
            b"MCP-Protocol-Version",
            b"mcp-protocol-version"
        ));
        assert!(!is_folded_token(
            b"MCP-Protocol-Versiom",
            b"mcp-protocol-version"
        ));
        assert!(!is_folded_token(
            b"MCP-Protocol+Version",
            b"mcp-protocol-version"
        ));
        assert!(!is_folded_token(b"mcp-nam", b"mcp-name"));
        assert!(!is_folded_token(b"mcp_name", b"mcp-name"));
    }

    /// `has_traceparent` answers what looking the field up answers, in any case.
    #[test]
    fn a_traceparent_field_is_noted_as_get_finds_it() {
        use crate::session::HeaderFields as _;
        for (raw, present) in [
            ("Content-Length:2\ntraceparent:00-ab-cd-01\n", true),
            ("TraceParent:x\nmcp-name:echo\n", true),
            ("mcp-session-id:s\nTRACEPARENT:\n", true),
            ("tracestate:a=b\ntraceparents:x\ntraceparen:x\n", false),
            ("Content-Length:2\nteaceparent:x\n", false),
        ] {
            let h = request("/", raw).headers;
            assert_eq!(h.has_traceparent(), present, "{raw}");
            assert_eq!(
                crate::session::HeaderFields::get(&h, "traceparent").is_some(),
                present,
                "{raw}"
            );
        }
        assert!(!Fields::default().has_traceparent());
    }

    #[test]
    fn visible_str_takes_tabs_and_visible_ascii_only() {
        for b in 0..=255u8 {
            let visible = b == b'\t' || (0x20..0x7f).contains(&b);
            let one = [b];
            assert_eq!(visible_str(&one).is_some(), visible, "byte {b:#04x}");
            // The byte in the middle of a longer value (past one vector's width) decides too.
            let mut long = [b'a'; 40];
            long[33] = b;
            assert_eq!(visible_str(&long).is_some(), visible, "byte {b:#04x} at 33");
        }
        assert_eq!(visible_str(b""), Some(""));
        assert_eq!(
            visible_str(b"text/event-stream;\tq=1"),
            Some("text/event-stream;\tq=1")
        );
        assert_eq!(visible_str("caf\u{e9}".as_bytes()), None);
    }

    #[test]
    fn lookups_are_case_insensitive_and_keep_order() {
        let r = request(
            "/mcp?sessionId=abc",
            "Host:x\nAccept:application/json\naccept:text/event-stream\nX-Bin:\u{e9}\nConnection:keep-alive, Close\n",
        );
        assert_eq!(r.headers().get_str("host"), Some("x"));
        let all: Vec<&[u8]> = r.headers().get_all("accept").collect();
        assert_eq!(
            all,
            vec![&b"application/json"[..], &b"text/event-stream"[..]]
        );
        assert_eq!(r.headers().get("missing"), None);
        let [accept, missing, host] = r.headers().get_each(["accept", "missing", "host"]);
        assert!(
            is_lowercase_of(b"Mcp-Name", "mcp-name") && is_lowercase_of(b"MCP-NAME", "mcp-name")
        );
        assert!(
            !is_lowercase_of(b"mcp_name", "mcp-name") && !is_lowercase_of(b"Mcp-Nam", "mcp-name")
        );
        // Only letters fold: '\r' | 0x20 is '-', '@' | 0x20 is '`'.
        assert!(!is_lowercase_of(b"mcp\rname", "mcp-name") && !is_lowercase_of(b"@", "`"));
        assert_eq!(accept, Some(&b"application/json"[..]), "the first value");
        assert_eq!((missing, host), (None, Some(&b"x"[..])));
        let [accept, missing, host] = r.headers().get_each_once(["accept", "missing", "host"]);
        assert_eq!(
            accept,
            (Some(&b"application/json"[..]), true),
            "first, repeated"
        );
        assert_eq!(missing, (None, false));
        assert_eq!(host, (Some(&b"x"[..]), false));
        // Not visible ASCII: no text, as HeaderValue::to_str.
        assert_eq!(r.headers().get_str("x-bin"), None);
        assert!(r.headers().has_token("connection", "close"));
        assert!(!r.headers().has_token("connection", "upgrade"));
        assert_eq!(r.path(), "/mcp");
        assert_eq!(r.query(), Some("sessionId=abc"));
    }

    #[test]
    fn targets_in_absolute_form() {
        let r = request("http://localhost:3000/mcp?x=1", "");
        assert_eq!(r.path(), "/mcp");
        assert_eq!(r.query(), Some("x=1"));
        assert_eq!(request("http://localhost:3000", "").path(), "/");
        assert_eq!(request("/", "").query(), None);
    }

    #[test]
    fn from_a_header_map() {
        let mut m = HeaderMap::new();
        m.append("accept", "a".parse().unwrap());
        m.append("accept", "b".parse().unwrap());
        m.insert("mcp-session-id", "s1".parse().unwrap());
        let f = Fields::from_map(&m);
        assert_eq!(f.get_all("accept").count(), 2);
        assert_eq!(f.get_str("mcp-session-id"), Some("s1"));
    }
}
