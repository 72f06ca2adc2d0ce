//! The grammar of a chunked request body (RFC 9112 §7.1), checked as strictly as hyper does and
//! a little more: the chunk-size line and trailer field lines, as pure functions over one line
//! (without its CRLF), so the connection layer ([`super::h1`]) and fuzzing share them.
//!
//! - chunk-size is one or more hex digits, nothing before them (no sign, no space); spaces or
//!   tabs may follow, then the end of the line or `;` and extensions;
//! - extensions are ignored but must hold no control byte other than HTAB (hyper accepts them;
//!   a CR or LF there is how smuggling between parsers begins);
//! - a trailer line is `name: value` with a token name and no control byte other than HTAB in
//!   the value; an obsolete folded line (starting with a space or tab) is refused;
//! - lines end with CRLF: a bare LF or a CR not followed by LF is refused by the line reader;
//! - the `Transfer-Encoding` field that asks for chunked framing is a list of transfer codings,
//!   each a token with optional `;name=value` parameters (RFC 9112 §7, RFC 9110 §5.6): anything
//!   else (`~ gzip`, a stray quote) is refused, where hyper only looks at the last coding.
//!
//! Caps (in [`super::h1`]): one chunk-size or trailer line at most [`MAX_LINE`] bytes,
//! extensions at most [`MAX_EXTENSIONS`] bytes over the whole body, trailers at most
//! [`MAX_TRAILERS`] bytes and [`MAX_TRAILER_FIELDS`] fields.

/// Longest chunk-size line (with extensions) or trailer line.
pub(crate) const MAX_LINE: usize = 4096;
/// Most bytes of chunk extensions over a whole body (as hyper).
pub(crate) const MAX_EXTENSIONS: usize = 16 * 1024;
/// Most bytes of trailer fields (as hyper).
pub(crate) const MAX_TRAILERS: usize = 16 * 1024;
/// Most trailer fields.
pub(crate) const MAX_TRAILER_FIELDS: usize = 64;

/// Whether `b` is a control byte other than HTAB (refused in extensions and field values).
fn is_ctl(b: u8) -> bool {
    (b < 0x20 && b != b'\t') || b == 0x7f
}

/// A token character (RFC 9110 §5.6.2).
pub(crate) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Whether a `Transfer-Encoding` field value is a well-formed list of transfer codings
/// (RFC 9112 §7, RFC 9110 §5.6.1): `coding *( OWS "," OWS coding )`, where a coding is a token
/// followed by any `OWS ";" OWS name BWS "=" BWS ( token / quoted-string )` parameters, empty
/// list elements allowed. Which codings are named, and whether the last is `chunked`, is for
/// the caller. Bytes outside visible ASCII (obs-text) are refused, as hyper refuses them.
#[cfg(test)]
pub(crate) fn transfer_codings_well_formed(v: &[u8]) -> bool {
    transfer_codings(v, &mut Vec::new())
}

/// Reads a `Transfer-Encoding` field value as [`transfer_codings_well_formed`] checks it,
/// appending the name of each coding (without its parameters) to `names`, in order; false when
/// the value is not a well-formed list.
pub(crate) fn transfer_codings<'a>(v: &'a [u8], names: &mut Vec<&'a [u8]>) -> bool {
    let ows = |i: &mut usize| {
        while *i < v.len() && (v[*i] == b' ' || v[*i] == b'\t') {
            *i += 1;
        }
    };
    let token = |i: &mut usize| {
        let start = *i;
        while *i < v.len() && is_tchar(v[*i]) {
            *i += 1;
        }
        *i > start
    };
    let quoted = |i: &mut usize| {
        // At the opening quote: qdtext or quoted-pair up to the closing quote.
        *i += 1;
        while *i < v.len() {
            match v[*i] {
                b'"' => {
                    *i += 1;
                    return true;
                }
                b'\\'
                    if *i + 1 < v.len()
                        && (v[*i + 1] == b'\t' || (0x20..0x7f).contains(&v[*i + 1])) =>
                {
                    *i += 2
                }
                b'\t' | 0x20..=0x7e if v[*i] != b'\\' => *i += 1,
                _ => return false,
            }
        }
        false
    };
    let mut i = 0;
    loop {
        ows(&mut i);
        if i == v.len() {
            return true;
        }
        if v[i] != b',' {
            let name = i;
            if !token(&mut i) {
                return false;
            }
            names.push(&v[name..i]);
            ows(&mut i);
            while i < v.len() && v[i] == b';' {
                i += 1;
                ows(&mut i);
                if !token(&mut i) {
                    return false;
                }
                ows(&mut i);
                if i == v.len() || v[i] != b'=' {
                    return false;
                }
                i += 1;
                ows(&mut i);
                let value = if i < v.len() && v[i] == b'"' {
                    quoted(&mut i)
                } else {
                    token(&mut i)
                };
                if !value {
                    return false;
                }
                ows(&mut i);
            }
            if i == v.len() {
                return true;
            }
            if v[i] != b',' {
                return false;
            }
        }
        i += 1;
    }
}

/// Parses a chunk-size line: the chunk's size and how many bytes of extensions it carries.
pub(crate) fn parse_size_line(line: &[u8]) -> Result<(u64, usize), &'static str> {
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 {
        return Err("malformed chunk size");
    }
    let mut size: u64 = 0;
    for &b in &line[..digits] {
        let d = (b as char).to_digit(16).expect("hex digit") as u64;
        size = size
            .checked_mul(16)
            .and_then(|s| s.checked_add(d))
            .ok_or("chunk size too large")?;
    }
    let rest = &line[digits..];
    let rest = &rest[rest
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count()..];
    match rest.first() {
        None => Ok((size, 0)),
        Some(b';') => {
            if rest.iter().any(|&b| is_ctl(b)) {
                return Err("control character in chunk extension");
            }
            Ok((size, rest.len()))
        }
        Some(_) => Err("malformed chunk size"),
    }
}

/// Checks one trailer field line (`name: value`).
pub(crate) fn check_trailer_line(line: &[u8]) -> Result<(), &'static str> {
    let colon = line
        .iter()
        .position(|b| *b == b':')
        .ok_or("malformed trailer field")?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    if name.is_empty() || !name.iter().all(|b| is_tchar(*b)) {
        return Err("malformed trailer field name");
    }
    if value.iter().any(|&b| is_ctl(b)) {
        return Err("control character in trailer field");
    }
    Ok(())
}

/// Finds the end of the first line of `buf`, searching from `from` (bytes before it were
/// searched already): `Ok(Some(i))` when `buf[i..i + 2]` is its CRLF, `Ok(None)` when no line
/// end has arrived yet, `Err` for a bare LF or a CR not followed by LF.
pub(crate) fn find_crlf(buf: &[u8], from: usize) -> Result<Option<usize>, &'static str> {
    for (i, &b) in buf.iter().enumerate().skip(from) {
        match b {
            b'\n' => return Err("bare LF in a chunked body line"),
            b'\r' => {
                return match buf.get(i + 1) {
                    Some(b'\n') => Ok(Some(i)),
                    Some(_) => Err("bare CR in a chunked body line"),
                    None => Ok(None),
                }
            }
            _ => {}
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_sizes() {
        assert_eq!(parse_size_line(b"1a"), Ok((26, 0)));
        assert_eq!(parse_size_line(b"0"), Ok((0, 0)));
        assert_eq!(parse_size_line(b"00000000000000000001"), Ok((1, 0)));
        assert_eq!(parse_size_line(b"5 \t"), Ok((5, 0)));
        assert_eq!(parse_size_line(b"5;a=b"), Ok((5, 4)));
        assert_eq!(parse_size_line(b"5 ; a=\"b c\""), Ok((5, 9)));
        for bad in [
            &b""[..],
            b" 5",
            b"+5",
            b"-5",
            b"0x5",
            b"5 5",
            b"5;a\x00",
            b"5;a\x7f",
            b"5;\x0b",
            b"1ffffffffffffffff",
            b"g",
        ] {
            assert!(parse_size_line(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn trailer_lines() {
        assert!(check_trailer_line(b"X-T: v").is_ok());
        assert!(check_trailer_line(b"X-T:\tv v").is_ok());
        for bad in [
            &b"X-T"[..],
            b": v",
            b" X: v",
            b"X T: v",
            b"X-T: a\x00b",
            b"X-T: a\x1bb",
        ] {
            assert!(check_trailer_line(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn transfer_coding_lists() {
        for good in [
            &b"chunked"[..],
            b"CHUNKED",
            b"gzip, chunked",
            b"gzip,chunked",
            b" gzip ,\tchunked ",
            b"gzip;q=1, chunked",
            b"x ; a = b ; c=\"d, e\\\"f\" , chunked",
            b", chunked",
            b"gzip,, chunked",
        ] {
            assert!(transfer_codings_well_formed(good), "{good:?}");
        }
        let mut names = Vec::new();
        assert!(transfer_codings(
            b"x ; a = b ; c=\"d, chunked\" ,, CHUNKED",
            &mut names
        ));
        assert_eq!(names, [&b"x"[..], b"CHUNKED"]);
        for bad in [
            &b"~ gzip, chunked"[..],
            b"gzip chunked",
            b"gzip;, chunked",
            b"gzip;q, chunked",
            b"gzip;q=, chunked",
            b"gzip;q=\"1, chunked",
            b"gzip;q=\"\x01\", chunked",
            b"g\xe9zip, chunked",
            b"gzip/1, chunked",
            b"chunked\x0b",
        ] {
            assert!(!transfer_codings_well_formed(bad), "{bad:?}");
        }
    }

    #[test]
    fn line_ends() {
        assert_eq!(find_crlf(b"abc\r\n", 0), Ok(Some(3)));
        assert_eq!(find_crlf(b"abc\r", 0), Ok(None));
        assert_eq!(find_crlf(b"abc", 0), Ok(None));
        assert!(find_crlf(b"ab\ncd\r\n", 0).is_err());
        assert!(find_crlf(b"ab\rcd\r\n", 0).is_err());
        assert_eq!(find_crlf(b"abc\r\n", 3), Ok(Some(3)));
    }
}
