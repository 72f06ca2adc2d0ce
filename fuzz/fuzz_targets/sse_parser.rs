//! The SSE parser (`ferromcp::transport::http::SseParser`):
//! - the events of a stream do not depend on how it is split into chunks;
//! - an event the server encodes is parsed back as it was (for the values the server writes:
//!   `id`/`event` on one line, `data` without carriage returns).
#![no_main]

use ferromcp::transport::http::{SseEvent, SseParser};

fn parse_in(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    chunks.iter().flat_map(|c| parser.feed(c)).collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&split, stream)) = data.split_first() else {
        return;
    };
    // The stream whole, byte by byte, and cut at a point chosen by the first byte.
    let whole = parse_in(&[stream]);
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(
        whole,
        parse_in(&bytes),
        "byte-by-byte feeding changed the events"
    );
    let at = usize::from(split) % (stream.len() + 1);
    let (a, b) = stream.split_at(at);
    assert_eq!(
        whole,
        parse_in(&[a, b]),
        "a split at {at} changed the events"
    );

    // Round trip: the stream's text as the fields of one event.
    let text = String::from_utf8_lossy(stream);
    let mut fields = text.splitn(3, '\u{0}');
    let data_field: String = fields.next().unwrap_or("").replace('\r', "");
    let one_line = |s: Option<&str>| s.map(|s| s.replace(['\r', '\n'], ""));
    let id = one_line(fields.next());
    let event = one_line(fields.next());
    let retry = (split % 3 == 0).then_some(u64::from(split) * 1000);
    let encoded =
        ferromcp::fuzzing::sse_encode(id.as_deref(), event.as_deref(), &data_field, retry);
    let parsed = parse_in(&[&encoded]);
    assert_eq!(
        parsed,
        vec![SseEvent::default()
            .with_event(event)
            .with_id(id)
            .with_data(data_field)
            .with_retry(retry)],
        "an encoded event did not parse back"
    );
});
