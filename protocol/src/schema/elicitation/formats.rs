//! The string formats a form-mode elicitation schema may name (`email`, `uri`, `date`,
//! `date-time`), checked without a regex engine. They live apart from the schema reader in
//! `elicitation.rs` because they are grammar checks of their own (RFC 5321/5322, RFC 3986,
//! RFC 3339) with their own tests.

/// A practical `addr-spec` check: `local@domain` with a dot-atom (or quoted) local part and a
/// hostname or bracketed address literal as the domain.
pub(super) fn is_email(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    if local.is_empty() || local.len() > 64 || domain.is_empty() || domain.len() > 253 {
        return false;
    }
    let local_ok = if local.len() >= 2 && local.starts_with('"') && local.ends_with('"') {
        local[1..local.len() - 1]
            .chars()
            .all(|c| c != '"' && c != '\\' && !c.is_control())
    } else {
        !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || "!#$%&'*+-/=?^_`{|}~".contains(c))
    };
    if !local_ok {
        return false;
    }
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return !literal.is_empty()
            && literal.chars().all(|c| {
                c.is_ascii_hexdigit() || c == '.' || c == ':' || c.is_ascii_alphanumeric()
            });
    }
    domain.split('.').all(|label| {
        !label.is_empty()
            && label.chars().count() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_alphanumeric() || c == '-')
    })
}

/// An absolute URI per RFC 3986: a scheme, `:`, and only URI characters with well-formed
/// percent-escapes after it.
pub(super) fn is_uri(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return false;
    }
    let rest = &s.as_bytes()[colon + 1..];
    let mut i = 0;
    while i < rest.len() {
        let b = rest[i];
        if b == b'%' {
            if i + 2 >= rest.len() {
                return false;
            }
            if !rest[i + 1].is_ascii_hexdigit() || !rest[i + 2].is_ascii_hexdigit() {
                return false;
            }
            i += 3;
            continue;
        }
        let ok = b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b);
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `full-date` of RFC 3339: `YYYY-MM-DD` naming a real calendar day.
pub(super) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&s[0..4]), digits(&s[5..7]), digits(&s[8..10]))
    else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `date-time` of RFC 3339: `full-date "T" HH:MM:SS[.frac](Z|±HH:MM)`.
pub(super) fn is_date_time(s: &str) -> bool {
    if s.len() < 20 || !s.is_char_boundary(10) || !s.is_char_boundary(11) {
        return false;
    }
    if !is_date(&s[..10]) || !matches!(s.as_bytes()[10], b'T' | b't') {
        return false;
    }
    let time = &s[11..];
    let tb = time.as_bytes();
    if tb.len() < 9 || tb[2] != b':' || tb[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (
        digits(&time[0..2]),
        digits(&time[3..5]),
        digits(&time[6..8]),
    ) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut rest = &time[8..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', ..] if rest.len() == 6 && rest.as_bytes()[3] == b':' => {
            matches!((digits(&rest[1..3]), digits(&rest[4..6])), (Some(oh), Some(om)) if oh <= 23 && om <= 59)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert!(is_email("user@example.com"));
        assert!(is_email("first.last+tag@sub.example.org"));
        assert!(!is_email("user@@example.com"));
        assert!(!is_email("user example.com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("user@"));
        assert!(!is_email("user@-bad.com"));
        assert!(is_uri("https://example.com/a?b=c#d"));
        assert!(is_uri("urn:isbn:0451450523"));
        assert!(!is_uri("not a uri"));
        assert!(!is_uri("/relative/path"));
        assert!(!is_uri("http://bad%zz"));
        assert!(!is_uri("http://x/%4"));
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("2024-1-01"));
        assert!(is_date_time("2024-02-29T12:30:00Z"));
        assert!(is_date_time("2024-02-29T12:30:00.123+02:00"));
        assert!(!is_date_time("2024-02-29 12:30:00"));
        assert!(!is_date_time("2024-02-29T25:30:00Z"));
        assert!(!is_date_time("2024-02-29T12:30:00"));
        assert!(!is_date_time("2024-02-29T12:30:00.Z"));
    }
}
