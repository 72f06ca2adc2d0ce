//! Which coding a response gets: `Accept-Encoding` read as RFC 9110 §12.5.3 says (a list of
//! codings with optional `q` weights across any number of fields; `*` weighs every coding not
//! named; `q=0` refuses one), then the coding the client weighs highest, ties going to the
//! server's order of preference. Without the field, or with only codings the server does not
//! use, the answer is identity.

use super::ContentCoding;

/// The coding among `ours` (in the server's order of preference) that the `Accept-Encoding`
/// field values `fields` weigh highest; `None` for identity.
pub(crate) fn choose<'a>(
    fields: impl Iterator<Item = &'a [u8]>,
    ours: &[ContentCoding],
) -> Option<ContentCoding> {
    // Weight of each of ours (thousandths; None: not named), and of `*`.
    let mut named: [Option<u16>; 3] = [None; 3];
    let mut star: Option<u16> = None;
    let mut any = false;
    for value in fields {
        for element in value.split(|&b| b == b',') {
            let mut parts = element.split(|&b| b == b';');
            let name = trim(parts.next().unwrap_or_default());
            if name.is_empty() {
                continue;
            }
            let mut q = Some(1000);
            for param in parts {
                let param = trim(param);
                if param.len() >= 2 && param[..2].eq_ignore_ascii_case(b"q=") {
                    q = qvalue(&param[2..]);
                }
            }
            // An element with a malformed weight is ignored.
            let Some(q) = q else { continue };
            any = true;
            if name == b"*" {
                star = Some(star.map_or(q, |s| s.max(q)));
            } else if let Some(c) = ContentCoding::from_name(name) {
                let slot = &mut named[slot(c)];
                *slot = Some(slot.map_or(q, |s| s.max(q)));
            }
        }
    }
    if !any {
        return None;
    }
    let mut best: Option<(ContentCoding, u16)> = None;
    for &c in ours {
        let q = named[slot(c)].or(star).unwrap_or(0);
        if q > 0 && best.is_none_or(|(_, b)| q > b) {
            best = Some((c, q));
        }
    }
    best.map(|(c, _)| c)
}

fn slot(c: ContentCoding) -> usize {
    match c {
        ContentCoding::Gzip => 0,
        ContentCoding::Brotli => 1,
        ContentCoding::Zstd => 2,
    }
}

/// Without leading and trailing spaces and tabs.
fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// A `qvalue` (`0`, `0.5`, `1`, `1.000`; at most three decimals) in thousandths.
fn qvalue(s: &[u8]) -> Option<u16> {
    let (int, frac) = match s.iter().position(|&b| b == b'.') {
        Some(dot) => (&s[..dot], &s[dot + 1..]),
        None => (s, &b""[..]),
    };
    if frac.len() > 3 || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut thousandths: u16 = 0;
    for i in 0..3 {
        thousandths = thousandths * 10 + frac.get(i).map_or(0, |d| u16::from(d - b'0'));
    }
    match int {
        b"0" => Some(thousandths),
        b"1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContentCoding::*;

    fn pick(fields: &[&str]) -> Option<ContentCoding> {
        choose(fields.iter().map(|f| f.as_bytes()), &ContentCoding::ALL)
    }

    #[test]
    fn equal_weights_go_to_the_servers_order() {
        assert_eq!(pick(&["gzip, deflate, br, zstd"]), Some(Zstd));
        assert_eq!(pick(&["gzip, deflate, br"]), Some(Brotli));
        assert_eq!(pick(&["gzip, deflate"]), Some(Gzip));
        assert_eq!(
            choose([&b"zstd, br, gzip"[..]].into_iter(), &[Gzip, Brotli]),
            Some(Gzip)
        );
    }

    #[test]
    fn the_highest_weight_wins() {
        assert_eq!(pick(&["zstd;q=0.5, gzip;q=0.8, br;q=0.1"]), Some(Gzip));
        assert_eq!(pick(&["zstd;q=0.5", "gzip ; q=1.0"]), Some(Gzip));
        assert_eq!(pick(&["br;q=0.001"]), Some(Brotli));
    }

    #[test]
    fn q_zero_refuses_and_star_covers_the_rest() {
        assert_eq!(pick(&["zstd;q=0, br;q=0, *"]), Some(Gzip));
        assert_eq!(pick(&["*;q=0.5, br"]), Some(Brotli));
        assert_eq!(pick(&["*"]), Some(Zstd));
        assert_eq!(pick(&["*;q=0"]), None);
        assert_eq!(pick(&["gzip;q=0, *;q=0.3"]), Some(Zstd));
    }

    #[test]
    fn identity_unknown_codings_and_no_field_get_identity() {
        assert_eq!(pick(&[]), None);
        assert_eq!(pick(&[""]), None);
        assert_eq!(pick(&["identity"]), None);
        assert_eq!(pick(&["deflate, compress"]), None);
        assert_eq!(choose([&b"gzip"[..]].into_iter(), &[]), None);
    }

    #[test]
    fn malformed_weights_are_ignored() {
        assert_eq!(pick(&["zstd;q=2, gzip"]), Some(Gzip));
        assert_eq!(pick(&["zstd;q=0.5555, br;q=abc, gzip;q=0.2"]), Some(Gzip));
        assert_eq!(pick(&["zstd;q=1.5"]), None);
        assert_eq!(qvalue(b"0.75"), Some(750));
        assert_eq!(qvalue(b"1.000"), Some(1000));
        assert_eq!(qvalue(b"1.001"), None);
        assert_eq!(qvalue(b"0."), Some(0));
    }
}
