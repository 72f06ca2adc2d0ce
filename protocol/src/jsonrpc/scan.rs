//! A strict reader of a common subset of JSON, as a serde [`Deserializer`]: what the fast path
//! runs first.
//!
//! It accepts only what is certainly valid JSON and reads exactly as `serde_json` reads it:
//! strings without escapes or control characters (valid UTF-8, borrowed from the frame),
//! integers of at most 18 digits (no fraction, exponent or `-0`), `true`, `false`, `null`,
//! arrays and objects nested at most 100 (`MAX_DEPTH`) deep, JSON whitespace, and nothing after the
//! top-level value. Its visitors are called just as `serde_json` calls them (`visit_borrowed_str`,
//! `visit_u64` for non-negative and `visit_i64` for negative integers, `visit_unit` for null,
//! ...), so whatever it reads is what `serde_json` reads from the same bytes. Anything outside the
//! subset is an error, and the caller reads the frame with `serde_json` instead: that costs a
//! second pass over unusual frames only.
//!
//! It is cheaper than `serde_json` on the common frames because of what the subset leaves out:
//! an ASCII string is taken as it is, without looking for escapes or validating UTF-8 again.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Deepest nesting read (`serde_json` itself stops at 128).
const MAX_DEPTH: u32 = 100;

/// Name of a newtype struct for which the scanner hands the visitor the value's JSON text as it
/// stands in the frame (`visit_borrowed_str`, after checking it as it checks any value), so a
/// member can be kept as text and read later, or looked up by its text. `serde_json` does not
/// know the name: it calls `visit_newtype_struct` as for any newtype, and the visitor reads the
/// value itself (the session's `_meta` reader does both). A text the caller already knows (the
/// session's table of recent `_meta` texts) is recognised by the [`KnownText`] the caller passes
/// to [`read`] instead of being checked again.
#[doc(hidden)]
pub const RAW_TEXT: &str = "$ferromcp::raw_text";

// Stays open (no #[non_exhaustive]): a #[doc(hidden)] seam the engine (`ferromcp`) builds and
// matches across the crate boundary; not an API.
/// The input is outside the subset (or a visitor refused it): read it with `serde_json`.
#[derive(Debug)]
#[doc(hidden)]
pub struct Outside;

impl fmt::Display for Outside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("outside the subset the scanner reads")
    }
}

impl std::error::Error for Outside {}

impl de::Error for Outside {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Outside
    }
}

/// Finds a JSON text that the caller has seen before at the start of `rest` (a frame from some
/// value's first byte), nested at most `room` deep, and returns its length: the scanner then
/// passes over those bytes without checking them again. It must answer only for a text that is
/// one whole valid JSON value ending where the length says (the session's `_meta` table keeps
/// texts the scanner or `serde_json` accepted). Passed in by the caller, so that this layer
/// keeps no cache of its own and knows nothing of what the texts are.
#[doc(hidden)]
pub type KnownText = fn(rest: &[u8], room: u32) -> Option<usize>;

/// Reads `bytes` as one value with `read` (e.g. `|d| d.deserialize_map(visitor)`), requiring
/// nothing but whitespace after it.
#[doc(hidden)]
pub fn read<'a, T>(
    bytes: &'a [u8],
    known: Option<KnownText>,
    read: impl FnOnce(&mut Scanner<'a>) -> Result<T, Outside>,
) -> Result<T, Outside> {
    let mut s = Scanner {
        b: bytes,
        i: 0,
        depth: 0,
        known,
    };
    let value = read(&mut s)?;
    s.ws();
    if s.i != s.b.len() {
        return Err(Outside);
    }
    Ok(value)
}

/// The reader: a position in the frame.
#[doc(hidden)]
pub struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    depth: u32,
    /// The texts the caller knows ([`KnownText`]), if any.
    known: Option<KnownText>,
}

impl<'a> Scanner<'a> {
    /// Skips JSON whitespace.
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Result<u8, Outside> {
        self.ws();
        self.b.get(self.i).copied().ok_or(Outside)
    }

    /// Consumes `c`, the next byte after whitespace.
    #[inline]
    fn expect(&mut self, c: u8) -> Result<(), Outside> {
        if self.peek()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(Outside)
        }
    }

    /// A string at the current position (its opening quote).
    #[inline]
    fn string(&mut self) -> Result<&'a str, Outside> {
        let start = self.i + 1;
        let mut j = start;
        let mut ascii = true;
        loop {
            match *self.b.get(j).ok_or(Outside)? {
                b'"' => break,
                // Escapes are `serde_json`'s to decode; a raw control character is invalid.
                b'\\' | 0..=0x1f => return Err(Outside),
                0x80.. => ascii = false,
                _ => {}
            }
            j += 1;
        }
        let raw = &self.b[start..j];
        self.i = j + 1;
        if ascii {
            // SAFETY: every byte is below 0x80, so `raw` is ASCII and therefore valid UTF-8.
            Ok(unsafe { std::str::from_utf8_unchecked(raw) })
        } else {
            std::str::from_utf8(raw).map_err(|_| Outside)
        }
    }

    /// The literal `word` at the current position.
    fn literal(&mut self, word: &[u8]) -> Result<(), Outside> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Outside)
        }
    }

    /// An integer at the current position, given to `v` as `serde_json` gives it.
    fn integer<V: Visitor<'a>>(&mut self, v: V) -> Result<V::Value, Outside> {
        let negative = self.b[self.i] == b'-';
        if negative {
            self.i += 1;
        }
        let start = self.i;
        let mut n: u64 = 0;
        while let Some(&d @ b'0'..=b'9') = self.b.get(self.i) {
            n = n * 10 + u64::from(d - b'0');
            self.i += 1;
            if self.i - start > 18 {
                return Err(Outside);
            }
        }
        let digits = &self.b[start..self.i];
        if digits.is_empty() || (digits[0] == b'0' && digits.len() > 1) {
            return Err(Outside);
        }
        if let Some(b'.' | b'e' | b'E') = self.b.get(self.i) {
            return Err(Outside);
        }
        match (negative, n) {
            (false, n) => v.visit_u64(n),
            // `serde_json` reads -0 as a float.
            (true, 0) => Err(Outside),
            // At most 18 digits: fits an i64.
            (true, n) => v.visit_i64(-(n as i64)),
        }
    }

    /// Passes over one value, checking it as reading it would, without a visitor (what
    /// [`RAW_TEXT`] asks for: the text, not the value).
    fn skip(&mut self) -> Result<(), Outside> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.enter()?;
                if self.peek()? == close {
                    self.i += 1;
                } else {
                    loop {
                        if open == b'{' {
                            if self.peek()? != b'"' {
                                return Err(Outside);
                            }
                            self.string()?;
                            self.expect(b':')?;
                        }
                        self.skip()?;
                        match self.peek()? {
                            b',' => self.i += 1,
                            c if c == close => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(Outside),
                        }
                    }
                }
                self.depth -= 1;
                Ok(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.integer(de::IgnoredAny).map(drop),
            _ => Err(Outside),
        }
    }

    fn enter(&mut self) -> Result<(), Outside> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Outside);
        }
        self.i += 1;
        Ok(())
    }
}

impl<'de> Deserializer<'de> for &mut Scanner<'de> {
    type Error = Outside;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        match self.peek()? {
            b'"' => {
                let s = self.string()?;
                v.visit_borrowed_str(s)
            }
            b'{' => self.deserialize_map(v),
            b'[' => self.deserialize_seq(v),
            b't' => {
                self.literal(b"true")?;
                v.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                v.visit_bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                v.visit_unit()
            }
            b'-' | b'0'..=b'9' => self.integer(v),
            _ => Err(Outside),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        if self.peek()? != b'{' {
            return Err(Outside);
        }
        self.enter()?;
        let value = v.visit_map(Entries {
            s: &mut *self,
            first: true,
        })?;
        self.expect(b'}')?;
        self.depth -= 1;
        Ok(value)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        if self.peek()? != b'[' {
            return Err(Outside);
        }
        self.enter()?;
        let value = v.visit_seq(Entries {
            s: &mut *self,
            first: true,
        })?;
        self.expect(b']')?;
        self.depth -= 1;
        Ok(value)
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        if self.peek()? != b'"' {
            return Err(Outside);
        }
        let s = self.string()?;
        v.visit_borrowed_str(s)
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        self.deserialize_str(v)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        self.deserialize_str(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Outside> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Outside> {
        if name == RAW_TEXT {
            // The value's own JSON text, checked by reading it (see `RAW_TEXT`), or found
            // among the `_meta` texts read before (each request of a client repeats its own).
            self.ws();
            let start = self.i;
            let known = self
                .known
                .and_then(|known| known(&self.b[start..], MAX_DEPTH - self.depth));
            match known {
                Some(len) => self.i += len,
                None => self.skip()?,
            }
            // SAFETY: the scanner accepted these bytes as JSON: ASCII outside strings, and
            // strings checked as UTF-8.
            let text = unsafe { std::str::from_utf8_unchecked(&self.b[start..self.i]) };
            return v.visit_borrowed_str(text);
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        _v: V,
    ) -> Result<V::Value, Outside> {
        // Not needed by anything the fast path reads.
        Err(Outside)
    }

    // `serde_json` reads these in ways of their own; nothing the fast path reads asks for them.
    fn deserialize_bytes<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, Outside> {
        Err(Outside)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, Outside> {
        Err(Outside)
    }

    fn deserialize_i128<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, Outside> {
        Err(Outside)
    }

    fn deserialize_u128<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, Outside> {
        Err(Outside)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char unit unit_struct tuple tuple_struct
        struct ignored_any
    }
}

/// The members of an object or the elements of an array.
struct Entries<'s, 'de> {
    s: &'s mut Scanner<'de>,
    first: bool,
}

impl Entries<'_, '_> {
    /// Whether another entry follows (consuming the comma before it); `close` ends the container.
    fn more(&mut self, close: u8) -> Result<bool, Outside> {
        let c = self.s.peek()?;
        if c == close {
            return Ok(false);
        }
        if self.first {
            self.first = false;
        } else if c == b',' {
            self.s.i += 1;
        } else {
            return Err(Outside);
        }
        Ok(true)
    }
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Outside;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Outside> {
        if !self.more(b'}')? {
            return Ok(None);
        }
        if self.s.peek()? != b'"' {
            return Err(Outside);
        }
        let key = seed.deserialize(&mut *self.s)?;
        self.s.expect(b':')?;
        Ok(Some(key))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Outside> {
        seed.deserialize(&mut *self.s)
    }
}

impl<'de> SeqAccess<'de> for Entries<'_, 'de> {
    type Error = Outside;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Outside> {
        if !self.more(b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.s).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::Value;

    fn scan(bytes: &[u8]) -> Option<Value> {
        read(bytes, None, |d| Value::deserialize(d)).ok()
    }

    /// The text the scanner hands a [`RAW_TEXT`] newtype for `bytes`.
    fn raw_text(bytes: &[u8]) -> Option<&str> {
        raw_text_knowing(bytes, None)
    }

    /// [`raw_text`] with the texts `known` recognises.
    fn raw_text_knowing(bytes: &[u8], known: Option<KnownText>) -> Option<&str> {
        struct Text;
        impl<'de> Visitor<'de> for Text {
            type Value = &'de str;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("raw text")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<&'de str, E> {
                Ok(v)
            }
        }
        read(bytes, known, |d| {
            d.deserialize_newtype_struct(RAW_TEXT, Text)
        })
        .ok()
    }

    #[test]
    fn raw_text_is_the_value_as_written_and_checked_as_reading_it_would() {
        for v in [
            r#"{"a":[1,-2,{"b":null}],"c":"xéy","d":{},"e":[],"f":true,"g":false}"#,
            r#"[ 1 , { "k" : "v" } ]"#,
            r#""s""#,
            "0",
            "null",
        ] {
            let framed = format!(" {v} ");
            assert_eq!(raw_text(framed.as_bytes()), Some(v), "{v}");
        }
        // What the scanner refuses to read, it refuses to pass over.
        for bad in [
            "[1,]",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            "{1:2}",
            "[1 2]",
            "01",
            "1.5",
            r#""\n""#,
            "tru",
            r#"{"a":[}"#,
            "[",
        ] {
            assert_eq!(raw_text(bad.as_bytes()), None, "{bad}");
            assert!(scan(bad.as_bytes()).is_none(), "{bad}");
        }
        let deep = "[".repeat(MAX_DEPTH as usize + 1) + &"]".repeat(MAX_DEPTH as usize + 1);
        assert_eq!(raw_text(deep.as_bytes()), None);
    }

    #[test]
    fn a_remembered_meta_text_is_passed_over_as_it_would_be_read() {
        const TEXT: &str = r#"{"raw-text-known":{"a":[1,2]},"b":"c"}"#;
        fn known(rest: &[u8], room: u32) -> Option<usize> {
            (room >= 2 && rest.starts_with(TEXT.as_bytes())).then_some(TEXT.len())
        }
        let text = TEXT;
        assert_eq!(
            raw_text_knowing(format!(" {text} ").as_bytes(), Some(known)),
            Some(text)
        );
        // What follows it is still read, and refused when it is not JSON.
        for bad in [format!("{text}}}"), format!("{text},"), format!("{text}x")] {
            assert_eq!(raw_text_knowing(bad.as_bytes(), Some(known)), None, "{bad}");
        }
    }

    /// Whatever the scanner reads, `serde_json` reads the same way.
    fn agrees(bytes: &[u8]) -> bool {
        match scan(bytes) {
            Some(v) => {
                let s: Value = serde_json::from_slice(bytes).unwrap_or_else(|e| {
                    panic!(
                        "scanner read {:?}, serde_json: {e}",
                        String::from_utf8_lossy(bytes)
                    )
                });
                assert_eq!(v, s, "{:?}", String::from_utf8_lossy(bytes));
                true
            }
            None => false,
        }
    }

    #[test]
    fn reads_the_subset_as_serde_json_does() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"bench-1"}}}"#,
            " { \"a\" : [ 1 , -2 , true , false , null , { } , [ ] , \"x\" ] }\r\n\t",
            r#"{"n":999999999999999999,"m":-999999999999999999,"z":0,"u":"héllo ✓"}"#,
            r#"{"a":1,"a":2}"#,
            "[]",
            "\"s\"",
            "0",
        ] {
            assert!(agrees(ok.as_bytes()), "declined {ok}");
        }
        for outside in [
            r#"{"a":"\n"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":1.5}"#,
            r#"{"a":1e3}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":1000000000000000000}"#,
            r#"{"a":-}"#,
            r#"{"a":1,}"#,
            r#"[1,]"#,
            r#"{"a" 1}"#,
            r#"{"a":tru}"#,
            r#"{"a":nulll}"#,
            r#"{"a":1}x"#,
            r#"{"a":1"#,
            r#"{a:1}"#,
            "",
            " ",
        ] {
            assert!(scan(outside.as_bytes()).is_none(), "read {outside}");
        }
        assert!(scan(b"{\"a\":\"\xff\"}").is_none());
        let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
        assert!(scan(deep.as_bytes()).is_none());
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(agrees(ok.as_bytes()));
    }

    #[test]
    fn never_reads_what_serde_json_rejects_or_reads_otherwise() {
        // Every one-byte deletion, duplication and replacement (by a byte that matters to
        // JSON) of some frames: whatever the scanner reads must agree with serde_json.
        let frames = [
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"bench-12","n":[-5,0,true,null]}}}"#,
            r#"[{"a":"é"},{"b":false}]"#,
        ];
        let bytes: &[u8] = b"{}[]\",:-0123456789.eE+tfnul \\\n\x01\xc3";
        for frame in frames {
            let f = frame.as_bytes();
            for i in 0..f.len() {
                let mut deleted = f.to_vec();
                deleted.remove(i);
                agrees(&deleted);
                let mut doubled = f.to_vec();
                doubled.insert(i, f[i]);
                agrees(&doubled);
                for &b in bytes {
                    let mut replaced = f.to_vec();
                    replaced[i] = b;
                    agrees(&replaced);
                }
            }
        }
    }
}
