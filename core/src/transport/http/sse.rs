//! Server-sent events: encoding events and an incremental parser for reading them.

use bytes::Bytes;

/// Encodes one SSE event. `data` may span lines; each becomes a `data:` line.
pub(crate) fn encode(
    id: Option<&str>,
    event: Option<&str>,
    data: &str,
    retry_ms: Option<u64>,
) -> Bytes {
    let mut s = String::with_capacity(data.len() + 48);
    if let Some(event) = event {
        s.push_str("event: ");
        s.push_str(event);
        s.push('\n');
    }
    if let Some(id) = id {
        s.push_str("id: ");
        s.push_str(id);
        s.push('\n');
    }
    if let Some(r) = retry_ms {
        s.push_str("retry: ");
        push_decimal(&mut s, r);
        s.push('\n');
    }
    if data.is_empty() {
        s.push_str("data: \n");
    }
    for line in data.split('\n') {
        if data.is_empty() {
            break;
        }
        s.push_str("data: ");
        s.push_str(line);
        s.push('\n');
    }
    s.push('\n');
    Bytes::from(s)
}

/// Appends `n` in decimal to `s` (an event id's sequence number, a `retry:` field): what
/// `write!(s, "{n}")` gives, without the formatting machinery, on every event of a stream.
pub(crate) fn push_decimal(s: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    // `itoa` writes only ASCII digits.
    s.push_str(std::str::from_utf8(super::h1::itoa(n, &mut buf)).expect("ASCII digits"));
}

/// One parsed SSE event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`None` means the default, `message`).
    pub event: Option<String>,
    /// The `id:` field, if the event carried one.
    pub id: Option<String>,
    /// The joined `data:` lines.
    pub data: String,
    /// The `retry:` field in milliseconds, if present.
    pub retry: Option<u64>,
}

/// Incremental SSE parser: feed bytes, take complete events.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    has_data: bool,
    touched: bool,
}

impl SseParser {
    /// A fresh parser.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the events they completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            if line.is_empty() {
                if self.touched {
                    let ev = std::mem::take(&mut self.current);
                    self.has_data = false;
                    self.touched = false;
                    out.push(ev);
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f.to_string(), v.strip_prefix(' ').unwrap_or(v).to_string()),
                None => (line.clone(), String::new()),
            };
            self.touched = true;
            match field.as_str() {
                "event" => self.current.event = Some(value),
                "id" => self.current.id = Some(value),
                "retry" => self.current.retry = value.trim().parse().ok(),
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(&value);
                    self.has_data = true;
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_decimal_writes_what_format_writes() {
        let mut n = 1u64;
        let mut samples = vec![0, u64::MAX, u64::MAX - 1];
        while let Some(m) = n.checked_mul(10) {
            samples.extend([n - 1, n, n + 1]);
            n = m;
        }
        for n in samples {
            let mut s = String::from("x");
            push_decimal(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn retry_field_is_written_in_decimal() {
        let e = encode(Some("s/r-1:0"), None, "", Some(1000));
        assert_eq!(&e[..], b"id: s/r-1:0\nretry: 1000\ndata: \n\n");
    }
}
