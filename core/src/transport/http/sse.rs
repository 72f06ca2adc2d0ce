//! Server-sent events: encoding events and an incremental parser for reading them.

use bytes::Bytes;

/// Encodes one SSE event. `data` may span lines; each becomes a `data:` line.
///
/// The text is built in a buffer of exactly its length: it never grows (a stateful event id
/// is longer than a fixed allowance), and the `Bytes` made from it takes the buffer as is
/// (a buffer with spare room costs `Bytes` a second allocation).
pub(crate) fn encode(
    id: Option<&str>,
    event: Option<&str>,
    data: &str,
    retry_ms: Option<u64>,
) -> Bytes {
    let mut digits = [0u8; 20];
    let retry = retry_ms.map(|r| super::h1::itoa(r, &mut digits));
    // Most events are one line (a compact JSON message): then this is one vectorized search.
    let newlines = memchr::memchr_iter(b'\n', data.as_bytes()).count();
    let data_len = if data.is_empty() {
        "data: \n".len()
    } else {
        data.len() + 1 + (newlines + 1) * "data: ".len()
    };
    let len = event.map_or(0, |e| "event: \n".len() + e.len())
        + id.map_or(0, |i| "id: \n".len() + i.len())
        + retry.map_or(0, |r| "retry: \n".len() + r.len())
        + data_len
        + 1;
    let mut s = String::with_capacity(len);
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
    if let Some(r) = retry {
        s.push_str("retry: ");
        // `itoa` writes only ASCII digits.
        s.push_str(std::str::from_utf8(r).expect("ASCII digits"));
        s.push('\n');
    }
    if data.is_empty() {
        s.push_str("data: \n");
    } else if newlines == 0 {
        // One line (as a compact JSON message is): no splitting.
        s.push_str("data: ");
        s.push_str(data);
        s.push('\n');
    } else {
        for line in data.split('\n') {
            s.push_str("data: ");
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push('\n');
    debug_assert_eq!(s.len(), len, "an SSE event's length is counted exactly");
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
#[non_exhaustive]
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

ferromcp_protocol::with_setters!(SseEvent {
    event: Option<String> => with_event,
    id: Option<String> => with_id,
    data: String => with_data,
    retry: Option<u64> => with_retry,
});

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

    /// What `encode` writes, built the plain way (`format!`), to check the counted buffer
    /// against.
    fn reference(id: Option<&str>, event: Option<&str>, data: &str, retry: Option<u64>) -> String {
        let mut s = String::new();
        if let Some(e) = event {
            s += &format!("event: {e}\n");
        }
        if let Some(i) = id {
            s += &format!("id: {i}\n");
        }
        if let Some(r) = retry {
            s += &format!("retry: {r}\n");
        }
        if data.is_empty() {
            s += "data: \n";
        } else {
            for line in data.split('\n') {
                s += &format!("data: {line}\n");
            }
        }
        s + "\n"
    }

    /// Every combination of fields, with data of no, one and several lines (and line ends at
    /// its edges), long ids and `retry` values of every width: the same text as the plain
    /// way (and, in a debug build, the exact-length assertion in `encode` holds).
    #[test]
    fn events_are_written_in_a_buffer_of_their_exact_length() {
        let long_id = format!("{}/{}-12345:678", "f".repeat(32), "0e47cdf9");
        let ids = [None, Some(""), Some("s/r-1:0"), Some(long_id.as_str())];
        let events = [None, Some("message"), Some("endpoint")];
        let datas = [
            "",
            "x",
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "a\nb",
            "\n",
            "\nlead",
            "trail\n",
            "a\n\n\nb\n",
            "é\n€",
        ];
        let retries = [None, Some(0), Some(9), Some(10), Some(1000), Some(u64::MAX)];
        for id in ids {
            for event in events {
                for data in datas {
                    for retry in retries {
                        let got = encode(id, event, data, retry);
                        assert_eq!(
                            std::str::from_utf8(&got).unwrap(),
                            reference(id, event, data, retry),
                            "{id:?} {event:?} {data:?} {retry:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn retry_field_is_written_in_decimal() {
        let e = encode(Some("s/r-1:0"), None, "", Some(1000));
        assert_eq!(&e[..], b"id: s/r-1:0\nretry: 1000\ndata: \n\n");
    }
}
