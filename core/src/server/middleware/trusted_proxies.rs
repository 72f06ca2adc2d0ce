//! Which client a request behind proxies comes from: the proxies trusted to say so (IP addresses
//! and CIDR ranges, [`IpRange`]) and the rule reading a forwarding header such as
//! `X-Forwarded-For` ([`client_behind`]).
//!
//! A forwarding header is a list every proxy appends its own peer to, and anybody may send one
//! with any content: only the entries appended by proxies we trust are facts. So the header is
//! read only when the connection's peer is a trusted proxy, and from the right: each entry that
//! is a trusted proxy passes the question one hop further left, and the first entry that is
//! not trusted is the client (what nginx's `real_ip_recursive on` and Express's `trust proxy`
//! with a list of addresses do). Taking the leftmost entry instead would let any client pick
//! its own address by sending the header, since a proxy appends to what it received.
//!
//! Two syntaxes ([`HeaderSyntax`], chosen by the header's name): the list of addresses of
//! `X-Forwarded-For` and its kin, and RFC 7239's `Forwarded` (`for=192.0.2.60;proto=https,
//! for="[2001:db8::17]:4711"`), whose elements are the hops and whose `for` parameter is each
//! hop's client. The walk is the same. Only the header the configuration names is read: a
//! proxy that appends to one passes the other on from the client untouched, so reading both
//! (or preferring one when both are present) would let a client name its own address in the
//! header its proxies do not write.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// An IP address or a CIDR range of them (`10.0.0.0/8`, `2001:db8::/32`, `127.0.0.1`); an
/// IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is matched as the IPv4 address it maps.
///
/// ```
/// use ferromcp::server::middleware::IpRange;
///
/// let private: IpRange = "10.0.0.0/8".parse().unwrap();
/// assert!(private.contains("10.20.30.40".parse().unwrap()));
/// assert!(private.contains("::ffff:10.1.2.3".parse().unwrap()));
/// assert!(!private.contains("11.0.0.1".parse().unwrap()));
/// assert!("10.0.0.0/33".parse::<IpRange>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpRange {
    network: IpAddr,
    prefix: u8,
}

impl IpRange {
    /// The range of `prefix` leading bits of `address` (the other bits are ignored); `None`
    /// when `prefix` is longer than the address (32 for IPv4, 128 for IPv6).
    pub fn new(address: IpAddr, prefix: u8) -> Option<Self> {
        let address = address.to_canonical();
        let bits = match address {
            IpAddr::V4(_) => 32,
            IpAddr::V6(_) => 128,
        };
        (prefix <= bits).then(|| Self {
            network: mask(address, prefix),
            prefix,
        })
    }

    /// Whether `ip` is in the range.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        ip.is_ipv4() == self.network.is_ipv4() && mask(ip, self.prefix) == self.network
    }

    /// The loopback ranges, `127.0.0.0/8` and `::1/128`: a proxy on the same host.
    pub fn loopback() -> Vec<IpRange> {
        vec![
            Self::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 0)), 8).expect("a valid prefix"),
            Self::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 128).expect("a valid prefix"),
        ]
    }
}

/// `ip` with all but its first `prefix` bits cleared.
fn mask(ip: IpAddr, prefix: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let m = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(v4) & m))
        }
        IpAddr::V6(v6) => {
            let m = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(v6) & m))
        }
    }
}

impl FromStr for IpRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not an IP address or a CIDR range (e.g. 10.0.0.0/8)");
        let (address, prefix) = match s.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s.trim(), None),
        };
        let address: IpAddr = address.parse().map_err(|_| bad())?;
        let prefix = match prefix {
            None => match address.to_canonical() {
                IpAddr::V4(_) => 32,
                IpAddr::V6(_) => 128,
            },
            Some(p) => {
                let p: u8 = p.parse().map_err(|_| bad())?;
                // A mapped address's prefix counts the 96 bits of its IPv6 form.
                match address {
                    IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => {
                        p.checked_sub(96).ok_or_else(bad)?
                    }
                    _ => p,
                }
            }
        };
        Self::new(address, prefix).ok_or_else(bad)
    }
}

impl std::fmt::Display for IpRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

impl<'de> Deserialize<'de> for IpRange {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(D::Error::custom)
    }
}

/// Whether `ip` is in any of `ranges`.
pub(crate) fn is_trusted(ranges: &[IpRange], ip: IpAddr) -> bool {
    ranges.iter().any(|r| r.contains(ip))
}

/// One entry of a forwarding header as an address: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`,
/// `[2001:db8::1]` or `[2001:db8::1]:5678`; `None` for anything else (`unknown`, an obfuscated
/// name).
fn entry_address(entry: &str) -> Option<IpAddr> {
    let e = entry.trim();
    if let Some(rest) = e.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        return inside.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    if let Ok(ip) = e.parse::<IpAddr>() {
        return Some(ip);
    }
    let (host, port) = e.rsplit_once(':')?;
    if !is_port(port) {
        return None;
    }
    host.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

fn is_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
}

/// How a forwarding header lists its hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeaderSyntax {
    /// Addresses separated by commas (`X-Forwarded-For`, `X-Real-IP`, ...).
    List,
    /// RFC 7239 `Forwarded`: elements separated by commas, each of `;`-separated
    /// `name=value` pairs (a value a token or a quoted string); the hop's client is `for`.
    Forwarded,
}

impl HeaderSyntax {
    /// The syntax of the header named `name`: `Forwarded` (any case) is RFC 7239's, any other
    /// a list of addresses.
    pub(crate) fn of(name: &str) -> Self {
        if name.trim().eq_ignore_ascii_case("forwarded") {
            HeaderSyntax::Forwarded
        } else {
            HeaderSyntax::List
        }
    }
}

/// The client a request comes from, when its connection's peer is `peer` and its forwarding
/// header, of syntax `syntax`, reads `header` (every line of it, in order, joined by commas):
/// `peer` itself unless it is in `trusted`; else the hops are read from the right, each
/// trusted one passing on to the next, and the first that is not trusted is the client. When
/// every hop is trusted the leftmost is; a hop that is not an address (`unknown`, an
/// obfuscated name, a `Forwarded` element without a readable `for`) stops the walk at the last
/// address read (the nearest hop known for sure). Addresses come back canonical (an
/// IPv4-mapped one as IPv4).
pub(crate) fn client_behind(
    peer: IpAddr,
    header: Option<&str>,
    syntax: HeaderSyntax,
    trusted: &[IpRange],
) -> IpAddr {
    let mut client = peer.to_canonical();
    if !is_trusted(trusted, client) {
        return client;
    }
    let Some(header) = header else {
        return client;
    };
    let hops: Vec<Option<IpAddr>> = match syntax {
        HeaderSyntax::List => header
            .split(',')
            .filter(|e| !e.trim().is_empty())
            .map(entry_address)
            .collect(),
        HeaderSyntax::Forwarded => split_unquoted(header, b',')
            .into_iter()
            .filter(|e| !e.trim().is_empty())
            .map(forwarded_for)
            .collect(),
    };
    for hop in hops.into_iter().rev() {
        let Some(ip) = hop else {
            break;
        };
        client = ip.to_canonical();
        if !is_trusted(trusted, client) {
            break;
        }
    }
    client
}

/// `text` split at each `sep` outside a quoted string (RFC 9110 `quoted-string`, where a
/// backslash escapes the next character).
fn split_unquoted(text: &str, sep: u8) -> Vec<&str> {
    let (mut parts, mut start, mut quoted, mut escaped) = (Vec::new(), 0, false, false);
    for (i, b) in text.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            _ if b == sep && !quoted => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Whether `b` may appear in an RFC 9110 token.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A parameter value of a `Forwarded` element: a token as is, a quoted string unescaped;
/// `None` when it is neither.
fn forwarded_value(v: &str) -> Option<String> {
    if let Some(inner) = v.strip_prefix('"') {
        let inner = inner.strip_suffix('"')?;
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(chars.next()?),
                '"' => return None,
                c => out.push(c),
            }
        }
        return Some(out);
    }
    (!v.is_empty() && v.bytes().all(is_tchar)).then(|| v.to_string())
}

/// The address in one `Forwarded` element's `for` parameter; `None` when the element has no
/// `for`, has it twice, is malformed, or names `unknown` or an obfuscated node (`_hidden`).
fn forwarded_for(element: &str) -> Option<IpAddr> {
    let mut found = None;
    for pair in split_unquoted(element, b';') {
        let pair = pair.trim();
        if pair.is_empty() {
            continue;
        }
        let (name, value) = pair.split_once('=')?;
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return None;
        }
        let value = forwarded_value(value)?;
        if name.eq_ignore_ascii_case("for") {
            if found.is_some() {
                return None; // RFC 7239 section 4: a parameter at most once per element
            }
            found = Some(value);
        }
    }
    node_address(&found?)
}

/// The address of an RFC 7239 node (section 6): `192.0.2.43`, `192.0.2.43:47011`,
/// `[2001:db8::17]`, `[2001:db8::17]:4711`, a port possibly obfuscated (`:_p1`). `None` for
/// `unknown`, an obfuscated identifier and an IPv6 address without its brackets.
fn node_address(node: &str) -> Option<IpAddr> {
    let port_ok = |p: &str| {
        is_port(p)
            || p.strip_prefix('_').is_some_and(|o| {
                !o.is_empty()
                    && o.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
            })
    };
    if let Some(rest) = node.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(port_ok)) {
            return None;
        }
        return inside.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    let host = match node.split_once(':') {
        Some((host, port)) if port_ok(port) => host,
        Some(_) => return None,
        None => node,
    };
    host.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use HeaderSyntax::{Forwarded, List};

    fn ranges(list: &[&str]) -> Vec<IpRange> {
        list.iter().map(|r| r.parse().unwrap()).collect()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_parse_and_match_v4_v6_and_mapped_addresses() {
        let r = ranges(&[
            "10.0.0.0/8",
            "192.168.1.7",
            "2001:db8::/32",
            "::ffff:172.16.0.0/108",
        ]);
        assert!(r[0].contains(ip("10.255.0.1")) && !r[0].contains(ip("11.0.0.0")));
        assert!(r[1].contains(ip("192.168.1.7")) && !r[1].contains(ip("192.168.1.8")));
        assert!(r[2].contains(ip("2001:db8:ffff::1")) && !r[2].contains(ip("2001:db9::1")));
        assert!(r[3].contains(ip("172.16.5.5")) && !r[3].contains(ip("172.32.0.1")));
        assert!(r[0].contains(ip("::ffff:10.0.0.1")));
        assert!(
            !r[0].contains(ip("::a00:1")),
            "an IPv6 address is not an IPv4 one"
        );
        assert_eq!(r[0].to_string(), "10.0.0.0/8");
        assert!(ranges(&["0.0.0.0/0"])[0].contains(ip("8.8.8.8")));
        assert!(ranges(&["::/0"])[0].contains(ip("::1")));
        for bad in [
            "10.0.0.0/33",
            "::/129",
            "10.0.0/8",
            "ten",
            "10.0.0.0/x",
            "",
            "::ffff:1.2.3.4/95",
        ] {
            let e = bad.parse::<IpRange>().unwrap_err();
            assert!(e.contains("CIDR"), "{bad}: {e}");
        }
    }

    #[test]
    fn entries_with_ports_and_brackets_are_addresses() {
        assert_eq!(entry_address(" 1.2.3.4 "), Some(ip("1.2.3.4")));
        assert_eq!(entry_address("1.2.3.4:5678"), Some(ip("1.2.3.4")));
        assert_eq!(entry_address("2001:db8::1"), Some(ip("2001:db8::1")));
        assert_eq!(entry_address("[2001:db8::1]"), Some(ip("2001:db8::1")));
        assert_eq!(entry_address("[2001:db8::1]:443"), Some(ip("2001:db8::1")));
        for not in [
            "unknown",
            "_hidden",
            "[1.2.3.4]",
            "1.2.3.4:",
            "1.2.3.4:x",
            "[::1]x",
        ] {
            assert_eq!(entry_address(not), None, "{not}");
        }
    }

    #[test]
    fn the_rightmost_untrusted_entry_is_the_client() {
        let t = ranges(&["10.0.0.0/8", "fd00::/8"]);
        let p = ip("10.0.0.2");
        // An untrusted peer: the header is not read.
        assert_eq!(
            client_behind(ip("203.0.113.9"), Some("1.1.1.1"), List, &t),
            ip("203.0.113.9")
        );
        // A trusted peer without the header: the peer.
        assert_eq!(client_behind(p, None, List, &t), p);
        // Spoofed entries left of the real client are never reached.
        assert_eq!(
            client_behind(p, Some("6.6.6.6, 198.51.100.4"), List, &t),
            ip("198.51.100.4")
        );
        // Two trusted hops, then the client.
        assert_eq!(
            client_behind(p, Some("6.6.6.6, 198.51.100.4, 10.1.1.1"), List, &t),
            ip("198.51.100.4")
        );
        // Every entry trusted: the leftmost.
        assert_eq!(
            client_behind(p, Some("10.9.9.9, 10.1.1.1"), List, &t),
            ip("10.9.9.9")
        );
        // Not an address: the walk stops at the nearest hop known.
        assert_eq!(
            client_behind(p, Some("198.51.100.4, unknown, 10.1.1.1"), List, &t),
            ip("10.1.1.1")
        );
        assert_eq!(client_behind(p, Some("garbage"), List, &t), p);
        // IPv6, mapped peers, ports.
        let v6 = ip("fd00::5");
        assert_eq!(
            client_behind(v6, Some("2001:db8::7, [fd00::9]:80"), List, &t),
            ip("2001:db8::7")
        );
        assert_eq!(
            client_behind(ip("::ffff:10.0.0.2"), Some("198.51.100.4:5000"), List, &t),
            ip("198.51.100.4")
        );
        assert_eq!(
            client_behind(ip("::ffff:203.0.113.9"), Some("1.1.1.1"), List, &t),
            ip("203.0.113.9")
        );
        // Empty entries (a header line that was empty) are skipped.
        assert_eq!(
            client_behind(p, Some("198.51.100.4, ,"), List, &t),
            ip("198.51.100.4")
        );
    }

    #[test]
    fn the_syntax_follows_the_header_name() {
        assert_eq!(HeaderSyntax::of("Forwarded"), Forwarded);
        assert_eq!(HeaderSyntax::of("forwarded"), Forwarded);
        assert_eq!(HeaderSyntax::of("x-forwarded-for"), List);
        assert_eq!(HeaderSyntax::of("x-real-ip"), List);
    }

    #[test]
    fn forwarded_nodes_v4_v6_ports_and_obfuscation() {
        let f = |e: &str| forwarded_for(e);
        // RFC 7239's own examples.
        assert_eq!(
            f("for=192.0.2.60;proto=http;by=203.0.113.43"),
            Some(ip("192.0.2.60"))
        );
        assert_eq!(
            f(r#"For="[2001:db8:cafe::17]:4711""#),
            Some(ip("2001:db8:cafe::17"))
        );
        assert_eq!(f(r#"for="192.0.2.43:47011""#), Some(ip("192.0.2.43")));
        assert_eq!(f(r#"for="[2001:db8::1]""#), Some(ip("2001:db8::1")));
        assert_eq!(
            f(r#"for="192.0.2.43""#),
            Some(ip("192.0.2.43")),
            "a quoted token"
        );
        // Parameter names in any case, pairs in any order, spaces around them.
        assert_eq!(
            f(" proto=https ; FOR=198.51.100.7 "),
            Some(ip("198.51.100.7"))
        );
        // An address with an obfuscated port is still an address.
        assert_eq!(f(r#"for="[2001:db8::1]:_p1""#), Some(ip("2001:db8::1")));
        assert_eq!(f(r#"for="192.0.2.1:_x.y-z""#), Some(ip("192.0.2.1")));
        // Not addresses: unknown, obfuscated identifiers, no `for`.
        for not in [
            "for=unknown",
            r#"for="unknown:80""#,
            "for=_hidden",
            r#"for="_SEVKISEK""#,
            "proto=https;by=203.0.113.43",
            "",
        ] {
            assert_eq!(f(not), None, "{not}");
        }
        // Malformed: IPv6 without brackets or unquoted, an unquoted port, a bad port, `for`
        // twice, an unterminated quote, a pair without `=`, a stray quote.
        for bad in [
            r#"for="2001:db8::1""#,
            "for=[2001:db8::1]",
            "for=192.0.2.1:80",
            r#"for="192.0.2.1:""#,
            r#"for="192.0.2.1:123456""#,
            r#"for="192.0.2.1:_""#,
            r#"for="[2001:db8::1]x""#,
            "for=192.0.2.1;for=198.51.100.1",
            r#"for="192.0.2.1"#,
            "for=192.0.2.1;secure",
            r#"for=192.0.2.1;x="a"b""#,
            "=192.0.2.1",
        ] {
            assert_eq!(f(bad), None, "{bad}");
        }
    }

    #[test]
    fn quoted_strings_keep_their_commas_semicolons_and_escapes() {
        assert_eq!(
            split_unquoted(r#"for="_a,b";x="c;d", for=1.2.3.4"#, b','),
            vec![r#"for="_a,b";x="c;d""#, " for=1.2.3.4"]
        );
        assert_eq!(
            forwarded_for(r#"x="q\"uote;d";for="192.0.2.9""#),
            Some(ip("192.0.2.9"))
        );
        assert_eq!(forwarded_value(r#""a\"b""#).as_deref(), Some("a\"b"));
        assert_eq!(forwarded_value(r#""a"b""#), None);
    }

    #[test]
    fn forwarded_is_walked_from_the_right_like_a_list() {
        let t = ranges(&["10.0.0.0/8", "fd00::/8"]);
        let p = ip("10.0.0.2");
        let walk = |h: &str| client_behind(p, Some(h), Forwarded, &t);
        // One element.
        assert_eq!(walk("for=198.51.100.4;proto=https"), ip("198.51.100.4"));
        // Several elements: the rightmost untrusted; spoofed ones left of it never reached.
        assert_eq!(
            walk(r#"for=6.6.6.6, for=198.51.100.4;proto=http, for="10.1.1.1:80""#),
            ip("198.51.100.4")
        );
        // Several header lines, joined by commas as every header field is.
        assert_eq!(
            walk("for=6.6.6.6, for=198.51.100.4, for=10.1.1.1"),
            walk("for=198.51.100.4, for=10.1.1.1")
        );
        // IPv6 clients and trusted IPv6 hops, with ports.
        assert_eq!(
            walk(r#"for="[2001:db8::7]:4711", for="[fd00::9]""#),
            ip("2001:db8::7")
        );
        // unknown, an obfuscated node or an element without `for` stops the walk at the
        // nearest address read.
        assert_eq!(
            walk("for=198.51.100.4, for=unknown, for=10.1.1.1"),
            ip("10.1.1.1")
        );
        assert_eq!(walk("for=198.51.100.4, for=_hidden"), p);
        assert_eq!(walk("for=198.51.100.4, proto=https"), p);
        // A malformed element likewise; a comma inside quotes is not an element's end.
        assert_eq!(walk(r#"for="198.51.100.4"#), p);
        assert_eq!(walk(r#"for=198.51.100.4, for="_x,y""#), p);
        // Every hop trusted: the leftmost. Empty elements skipped.
        assert_eq!(walk("for=10.9.9.9, for=10.1.1.1"), ip("10.9.9.9"));
        assert_eq!(walk("for=198.51.100.4, ,"), ip("198.51.100.4"));
        // The syntaxes are not mixed: an X-Forwarded-For value read as Forwarded names no
        // address, and a Forwarded value read as a list neither.
        assert_eq!(walk("198.51.100.4"), p);
        assert_eq!(client_behind(p, Some("for=198.51.100.4"), List, &t), p);
    }

    #[test]
    fn forwarded_from_an_untrusted_peer_is_ignored() {
        let t = ranges(&["10.0.0.0/8"]);
        for peer in ["203.0.113.9", "::ffff:203.0.113.9"] {
            assert_eq!(
                client_behind(ip(peer), Some("for=1.1.1.1"), Forwarded, &t),
                ip("203.0.113.9")
            );
        }
    }
}
