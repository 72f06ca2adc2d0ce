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

/// The client a request comes from, when its connection's peer is `peer` and its forwarding
/// header reads `header` (every line of it, in order, joined by commas): `peer` itself unless
/// it is in `trusted`; else the entries are read from the right, each trusted one passing on to
/// the next, and the first that is not trusted is the client. When every entry is trusted the
/// leftmost is; an entry that is not an address stops the walk at the last address read (the
/// nearest hop known for sure). Addresses come back canonical (an IPv4-mapped one as IPv4).
pub(crate) fn client_behind(peer: IpAddr, header: Option<&str>, trusted: &[IpRange]) -> IpAddr {
    let mut client = peer.to_canonical();
    if !is_trusted(trusted, client) {
        return client;
    }
    let Some(header) = header else {
        return client;
    };
    for entry in header.rsplit(',') {
        if entry.trim().is_empty() {
            continue;
        }
        let Some(ip) = entry_address(entry) else {
            break;
        };
        client = ip.to_canonical();
        if !is_trusted(trusted, client) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

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
            client_behind(ip("203.0.113.9"), Some("1.1.1.1"), &t),
            ip("203.0.113.9")
        );
        // A trusted peer without the header: the peer.
        assert_eq!(client_behind(p, None, &t), p);
        // Spoofed entries left of the real client are never reached.
        assert_eq!(
            client_behind(p, Some("6.6.6.6, 198.51.100.4"), &t),
            ip("198.51.100.4")
        );
        // Two trusted hops, then the client.
        assert_eq!(
            client_behind(p, Some("6.6.6.6, 198.51.100.4, 10.1.1.1"), &t),
            ip("198.51.100.4")
        );
        // Every entry trusted: the leftmost.
        assert_eq!(
            client_behind(p, Some("10.9.9.9, 10.1.1.1"), &t),
            ip("10.9.9.9")
        );
        // Not an address: the walk stops at the nearest hop known.
        assert_eq!(
            client_behind(p, Some("198.51.100.4, unknown, 10.1.1.1"), &t),
            ip("10.1.1.1")
        );
        assert_eq!(client_behind(p, Some("garbage"), &t), p);
        // IPv6, mapped peers, ports.
        let v6 = ip("fd00::5");
        assert_eq!(
            client_behind(v6, Some("2001:db8::7, [fd00::9]:80"), &t),
            ip("2001:db8::7")
        );
        assert_eq!(
            client_behind(ip("::ffff:10.0.0.2"), Some("198.51.100.4:5000"), &t),
            ip("198.51.100.4")
        );
        assert_eq!(
            client_behind(ip("::ffff:203.0.113.9"), Some("1.1.1.1"), &t),
            ip("203.0.113.9")
        );
        // Empty entries (a header line that was empty) are skipped.
        assert_eq!(
            client_behind(p, Some("198.51.100.4, ,"), &t),
            ip("198.51.100.4")
        );
    }
}
