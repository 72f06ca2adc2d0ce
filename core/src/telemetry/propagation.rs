//! W3C Trace Context and Baggage carried by MCP messages: read from and written to a request's
//! `params._meta` under the unprefixed keys `traceparent`, `tracestate` and `baggage` (SEP-414,
//! and the OpenTelemetry MCP semantic conventions' "Context propagation"), and read from the
//! HTTP request's header fields of the same names.
//!
//! Extraction never fails: a missing, malformed or unsupported `traceparent` (wrong length,
//! version `ff`, an all-zero trace or span id, a non-string value) yields a context with no
//! remote parent, and the request is served as the root of a new trace. The W3C parsing is the
//! OpenTelemetry SDK's (`TraceContextPropagator`, `BaggagePropagator`).

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The keys the propagators read and write, in `_meta` and as HTTP header names.
pub const CONTEXT_KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// Trace Context then Baggage: the W3C formats every OpenTelemetry SDK reads.
fn propagator() -> &'static TextMapCompositePropagator {
    static P: OnceLock<TextMapCompositePropagator> = OnceLock::new();
    P.get_or_init(|| {
        TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ])
    })
}

/// A `_meta` object seen by the propagators: string members only, others ignored.
struct MetaCarrier<'a>(&'a Map<String, Value>);

impl Extractor for MetaCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// A `_meta` object the propagators write into.
struct MetaWriter<'a>(&'a mut Map<String, Value>);

impl Injector for MetaWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        // The propagator writes an empty `tracestate` when there is none: leave it out.
        if !value.is_empty() {
            self.0.insert(key.to_string(), Value::String(value));
        }
    }
}

/// HTTP header fields (name, value) as the request carried them; names case-insensitive.
struct HeaderCarrier<'a>(&'a [(String, String)]);

impl Extractor for HeaderCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.iter().map(|(n, _)| n.as_str()).collect()
    }
}

/// The remote context in a request's `_meta`, when it holds a valid `traceparent`.
pub fn extract_from_meta(meta: &Map<String, Value>) -> Option<Context> {
    if !meta.contains_key("traceparent") {
        return None;
    }
    valid(propagator().extract(&MetaCarrier(meta)))
}

/// The remote context in HTTP header fields, when they hold a valid `traceparent`.
pub fn extract_from_headers(headers: &[(String, String)]) -> Option<Context> {
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("traceparent"))
    {
        return None;
    }
    valid(propagator().extract(&HeaderCarrier(headers)))
}

/// [`extract_from_headers`] with the fields read one by one through `field` (a name in
/// lowercase to its first value): nothing is built when there is no `traceparent`, which is
/// the common case the server layer meets on every request.
pub fn extract_from_header_lookup(field: impl Fn(&str) -> Option<String>) -> Option<Context> {
    let traceparent = field("traceparent")?;
    let mut fields = vec![("traceparent".to_string(), traceparent)];
    for key in &CONTEXT_KEYS[1..] {
        if let Some(v) = field(key) {
            fields.push((key.to_string(), v));
        }
    }
    extract_from_headers(&fields)
}

/// `cx` when its span context is valid (the propagator gives an empty one for a malformed
/// `traceparent`).
fn valid(cx: Context) -> Option<Context> {
    cx.span().span_context().is_valid().then_some(cx)
}

/// Writes `cx`'s trace context and baggage into `meta` (`traceparent`, and `tracestate` and
/// `baggage` when not empty). Nothing is written for a context without a valid span.
pub fn inject_into_meta(cx: &Context, meta: &mut Map<String, Value>) {
    propagator().inject_context(cx, &mut MetaWriter(meta));
}

/// The trace-context members of `cx` as (key, value) pairs, e.g. for HTTP header fields.
pub fn context_fields(cx: &Context) -> Vec<(String, String)> {
    let mut map = Map::new();
    inject_into_meta(cx, &mut map);
    map.into_iter()
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k, s)),
            _ => None,
        })
        .collect()
}

/// Writes `cx`'s trace context into `params._meta`, making `params` an object and `_meta` one
/// when they are absent. Params that are not an object (never valid MCP) are left alone.
pub fn inject_into_params(cx: &Context, params: &mut Option<Value>) {
    let params = params.get_or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(params) = params else {
        return;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        inject_into_meta(cx, meta);
    }
}

/// The trace-context members of a message's `params._meta`, for HTTP header fields (the
/// client's HTTP transport repeats them there, so an HTTP-level proxy or collector sees the
/// same trace).
pub fn meta_fields(params: Option<&Value>) -> impl Iterator<Item = (&'static str, &str)> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    CONTEXT_KEYS
        .into_iter()
        .filter_map(move |k| Some((k, meta?.get(k)?.as_str()?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    use serde_json::json;

    const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn meta(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_valid_traceparent_in_meta_is_the_remote_parent() {
        let cx = extract_from_meta(&meta(json!({
            "traceparent": PARENT, "tracestate": "rojo=00f067aa0ba902b7"
        })))
        .expect("valid");
        let span = cx.span();
        let sc = span.span_context();
        assert_eq!(
            sc.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(sc.span_id().to_string(), "00f067aa0ba902b7");
        assert!(sc.is_remote() && sc.is_sampled());
        assert_eq!(sc.trace_state().get("rojo"), Some("00f067aa0ba902b7"));
    }

    #[test]
    fn malformed_traceparents_are_ignored() {
        for bad in [
            json!("garbage"),
            json!(""),
            json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"),
            json!("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
            json!("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"),
            json!("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            json!("00-4bf92f3577b34da6a3ce929d0e0e473Z-00f067aa0ba902b7-01"),
            json!(42),
            json!({"nested": PARENT}),
        ] {
            assert!(
                extract_from_meta(&meta(json!({ "traceparent": bad }))).is_none(),
                "{bad} was accepted"
            );
        }
        assert!(extract_from_meta(&meta(json!({}))).is_none());
    }

    #[test]
    fn headers_are_read_case_insensitively() {
        let headers = vec![("TraceParent".to_string(), PARENT.to_string())];
        assert!(extract_from_headers(&headers).is_some());
        let bad = vec![("traceparent".to_string(), "00-xyz".to_string())];
        assert!(extract_from_headers(&bad).is_none());
    }

    #[test]
    fn header_lookup_reads_only_the_context_fields_and_ignores_malformed_ones() {
        let asked = std::cell::RefCell::new(Vec::new());
        let fields = |tp: &'static str| {
            let asked = &asked;
            move |name: &str| {
                asked.borrow_mut().push(name.to_string());
                match name {
                    "traceparent" => Some(tp.to_string()),
                    "tracestate" => Some("rojo=00f067aa0ba902b7".to_string()),
                    _ => None,
                }
            }
        };
        let cx = extract_from_header_lookup(fields(PARENT)).expect("a valid traceparent");
        let sc = cx.span().span_context().clone();
        assert_eq!(sc.span_id().to_string(), "00f067aa0ba902b7");
        assert_eq!(sc.trace_state().get("rojo"), Some("00f067aa0ba902b7"));
        assert_eq!(*asked.borrow(), ["traceparent", "tracestate", "baggage"]);
        assert!(extract_from_header_lookup(fields("00-xyz")).is_none());
        asked.borrow_mut().clear();
        assert!(extract_from_header_lookup(|n| {
            asked.borrow_mut().push(n.to_string());
            None
        })
        .is_none());
        assert_eq!(
            *asked.borrow(),
            ["traceparent"],
            "nothing more is read without one"
        );
    }

    #[test]
    fn injection_writes_unprefixed_keys_into_params_meta() {
        let sc = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        );
        let cx = Context::new().with_remote_span_context(sc);
        let mut params = Some(json!({"name": "echo", "_meta": {"progressToken": 1}}));
        inject_into_params(&cx, &mut params);
        let p = params.unwrap();
        assert_eq!(p["_meta"]["traceparent"], PARENT);
        assert_eq!(p["_meta"]["progressToken"], 1);
        let fields: Vec<_> = meta_fields(Some(&p)).collect();
        assert_eq!(fields, vec![("traceparent", PARENT)]);
        let mut none = None;
        inject_into_params(&cx, &mut none);
        assert_eq!(none.unwrap()["_meta"]["traceparent"], PARENT);
    }
}
