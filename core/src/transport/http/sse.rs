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
        s.push_str(&format!("retry: {r}\n"));
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
