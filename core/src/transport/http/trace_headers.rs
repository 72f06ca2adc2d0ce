//! W3C trace context repeated from a message's `params._meta` into the HTTP request's header
//! fields (`traceparent`, `tracestate`, `baggage`), so that HTTP-level proxies, load
//! balancers and collectors see the trace the MCP message belongs to. The message's `_meta`
//! stays the carrier the server reads first (SEP-414; the OpenTelemetry MCP conventions);
//! these header fields are the transport's copy. Plain JSON, no OpenTelemetry dependency: any
//! client that writes the keys gets them.

use serde_json::Value;

/// The trace-context members of a single JSON-RPC message's `params._meta` (none for a batch,
/// which has no one context).
pub(crate) fn trace_context_headers(body: &Value) -> impl Iterator<Item = (&'static str, &str)> {
    let meta = body
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    ["traceparent", "tracestate", "baggage"]
        .into_iter()
        .filter_map(move |k| Some((k, meta?.get(k)?.as_str()?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_meta_trace_context_becomes_header_fields() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "x", "_meta": {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "baggage": "k=v", "tracestate": 7}}});
        let h: Vec<_> = trace_context_headers(&body).collect();
        assert_eq!(
            h,
            vec![
                (
                    "traceparent",
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                ),
                ("baggage", "k=v")
            ]
        );
        assert_eq!(trace_context_headers(&json!([body])).count(), 0);
        assert_eq!(trace_context_headers(&json!({"method": "ping"})).count(), 0);
    }
}
