//! `tools/call` on the wire: its params read straight from the frame ([`ToolCallParams`]), and
//! its answer written without a detour through a generic JSON value where the shape allows
//! ([`write_tool_response`], [`tool_result_value`]). Kept apart from the dispatch of the other
//! methods because this is the hot path every tool call takes. It sits in the session layer,
//! which reads the params and writes the answer for every transport; the server produces the
//! [`ToolOutput`] ([`super::ToolLane`]).
//!
//! The answer written here is the typed lane's twin of serializing the generic path's
//! response; `core/tests/integration/tool_lane_parity.rs` pins the two byte for byte and
//! `session/core/tool_lane.rs` gives the timed figures that keep the lane.

use super::SharedMeta;
use crate::jsonrpc::{Message, RequestId, Str};
use crate::protocol::{CallToolResult, ContentBlock};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

pub(crate) fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("protocol types always serialize")
}

/// The JSON form of a tool result, equal to `to_value(&result)`.
///
/// The common shapes (plain text blocks, structured content, the error flag) are assembled by
/// moving their strings and values in, instead of serializing them into a copy; anything else
/// (metadata, annotations, extra fields, other block types) goes through the serializer.
pub(crate) fn tool_result_value(result: CallToolResult) -> Value {
    if result.meta.is_some() || !result.extra.is_empty() {
        return to_value(&result);
    }
    let CallToolResult {
        content,
        structured_content,
        is_error,
        ..
    } = result;
    let mut map = Map::new();
    // Pushed one by one: collecting in place would reuse the (larger) blocks' buffer and then
    // shrink it.
    let mut values = Vec::with_capacity(content.len());
    for block in content {
        values.push(content_value(block));
    }
    map.insert("content".into(), Value::Array(values));
    if let Some(sc) = structured_content {
        map.insert("structuredContent".into(), sc);
    }
    if let Some(e) = is_error {
        map.insert("isError".into(), Value::Bool(e));
    }
    Value::Object(map)
}

/// One content block as JSON, equal to `to_value(&block)`; plain text is moved, not copied.
fn content_value(block: ContentBlock) -> Value {
    match block {
        ContentBlock::Text(t)
            if t.annotations.is_none() && t.meta.is_none() && t.extra.is_empty() =>
        {
            let mut map = Map::new();
            map.insert("type".into(), Value::String("text".into()));
            map.insert("text".into(), Value::String(t.text));
            Value::Object(map)
        }
        other => to_value(&other),
    }
}

/// What `tools/call` produced: the tool's result, or a result that is JSON already.
pub(crate) enum ToolOutput {
    /// The tool ran; its result is not yet JSON.
    Result(CallToolResult),
    /// A result already JSON: the `CreateTaskResult` of a task-augmented call, or what a
    /// server's middleware chain answered as JSON (a layer answered itself or changed the
    /// result as JSON, or the call was made JSON on its way).
    Json(Value),
}

impl ToolOutput {
    /// The `result` member of the response.
    pub(crate) fn into_value(self) -> Value {
        match self {
            ToolOutput::Result(r) => tool_result_value(r),
            ToolOutput::Json(v) => v,
        }
    }
}

/// The members of a lane call's params that the call itself does not take (the per-request
/// era reads them for its multi round-trip round first): handed on so that a middleware chain
/// sees them in the params it gets, as sent.
#[derive(Default)]
pub(crate) struct LaneExtra {
    /// `inputResponses`, as given.
    pub input_responses: Option<Value>,
    /// `requestState`, as given.
    pub request_state: Option<Value>,
}

/// `tools/call` params read straight from the frame (see [`crate::jsonrpc::parse_request_as`]):
/// the members the call uses, every other one skipped. Params this type rejects (not an object,
/// no `name` string, a member given twice) are read as a [`Value`] instead and answered by
/// the server's dispatch, so every malformed call gets the answer it always got.
pub(crate) struct ToolCallParams<'a> {
    /// `name`.
    pub name: Cow<'a, str>,
    /// `arguments`, as given.
    pub arguments: Option<Value>,
    /// `task`, as given.
    pub task: Option<Value>,
    /// `_meta`, as given: read by its text and shared with every request that sends the same
    /// (see [`crate::session::SharedMeta`]).
    pub meta: Option<Arc<SharedMeta>>,
    /// `inputResponses`, as given (per-request era: the answers of a multi round-trip retry;
    /// the handshake era ignores it, as it ignores any other member).
    pub input_responses: Option<Value>,
    /// `requestState`, as given (per-request era, like `input_responses`).
    pub request_state: Option<Value>,
}

/// The `_meta` member of [`ToolCallParams`].
struct MetaMember(Arc<SharedMeta>);

impl<'de> Deserialize<'de> for MetaMember {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let meta = super::shared_meta::deserialize(d)?;
        // A `_meta` of the wrong shape is refused by the session's check of every request
        // (`check_request_meta`, -32602): the lane leaves such a call to the full parser.
        let wrong_shape = !meta.value().is_object()
            || (meta.names_progress() && crate::protocol::check_meta(meta.value()).is_err());
        if wrong_shape {
            return Err(de::Error::custom("_meta of the wrong shape"));
        }
        Ok(MetaMember(meta))
    }
}

impl<'de> Deserialize<'de> for ToolCallParams<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        enum Key {
            Name,
            Arguments,
            Task,
            Meta,
            InputResponses,
            RequestState,
            Other,
        }
        impl<'de> Deserialize<'de> for Key {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct KeyVisitor;
                impl Visitor<'_> for KeyVisitor {
                    type Value = Key;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                        Ok(match v {
                            "name" => Key::Name,
                            "arguments" => Key::Arguments,
                            "task" => Key::Task,
                            "_meta" => Key::Meta,
                            "inputResponses" => Key::InputResponses,
                            "requestState" => Key::RequestState,
                            _ => Key::Other,
                        })
                    }
                }
                d.deserialize_identifier(KeyVisitor)
            }
        }
        struct ParamsVisitor;
        impl<'de> Visitor<'de> for ParamsVisitor {
            type Value = ToolCallParams<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tools/call params")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                fn set<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
                    map: &mut A,
                    slot: &mut Option<T>,
                ) -> Result<(), A::Error> {
                    if slot.is_some() {
                        return Err(de::Error::custom("duplicate member"));
                    }
                    *slot = Some(map.next_value()?);
                    Ok(())
                }
                let mut name: Option<Str<'de>> = None;
                let (mut arguments, mut task, mut meta) = (None, None, None);
                let (mut input_responses, mut request_state) = (None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Name => set(&mut map, &mut name)?,
                        Key::Arguments => set(&mut map, &mut arguments)?,
                        Key::Task => set(&mut map, &mut task)?,
                        Key::Meta => set(&mut map, &mut meta)?,
                        Key::InputResponses => set(&mut map, &mut input_responses)?,
                        Key::RequestState => set(&mut map, &mut request_state)?,
                        Key::Other => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                let name = name.ok_or_else(|| de::Error::missing_field("name"))?.0;
                Ok(ToolCallParams {
                    name,
                    arguments,
                    task,
                    meta: meta.map(|m: MetaMember| m.0),
                    input_responses,
                    request_state,
                })
            }
        }
        // A map only: a struct could also be read from an array.
        d.deserialize_map(ParamsVisitor)
    }
}

/// Room enough for [`write_tool_response`]'s text of `result` in the usual case (plain text
/// blocks, few characters to escape), so that writing it does not grow the buffer step by step.
fn tool_response_size_hint(result: &CallToolResult) -> usize {
    let text: usize = result
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => t.text.len() + 32,
            _ => 256,
        })
        .sum();
    96 + text + text / 8
}

/// Writes the response to `tools/call` request `id` with `result`, as one line without its
/// newline: the same bytes as serializing [`Message::response`] of `tool_result_value(result)`,
/// but the common shapes go straight from `result` to text instead of through a [`Value`]: the
/// fixed parts are written as they are, and only the id, the text and the values go through the
/// serializer.
pub(crate) fn write_tool_response(out: &mut Vec<u8>, id: &RequestId, result: CallToolResult) {
    write_response(out, id, result, None);
}

/// [`write_tool_response`] for the per-request era (2026-07-28): the result also carries
/// `resultType: "complete"` and, in `_meta`, the server's identity (`server_info`, the JSON
/// text of [`super::ToolLane::server_info_json`]): the same bytes as serializing the response the
/// generic path builds ([`super::ToolLane::add_server_info`], then `resultType`).
pub(crate) fn write_per_request_tool_response(
    out: &mut Vec<u8>,
    id: &RequestId,
    result: CallToolResult,
    server_info: &str,
) {
    write_response(out, id, result, Some(server_info));
}

fn write_response(
    out: &mut Vec<u8>,
    id: &RequestId,
    result: CallToolResult,
    server_info: Option<&str>,
) {
    out.reserve(tool_response_size_hint(&result) + server_info.map_or(0, |s| s.len() + 96));
    if result.meta.is_some() || !result.extra.is_empty() || !maps_sort_keys() {
        let mut value = tool_result_value(result);
        if let Some(info) = server_info {
            let info: Value = serde_json::from_str(info).expect("server info is JSON");
            insert_server_info(&mut value, info);
            super::per_request::shape_result("tools/call", &mut value, super::CacheHint::UNCACHED);
        }
        let m = Message::response(id.clone(), value);
        serde_json::to_writer(out, &m).expect("messages always serialize");
        return;
    }
    fn json<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
        serde_json::to_writer(out, v).expect("JSON values always serialize");
    }
    // The members in the order a `Map` keeps them (sorted by key), as `Message`'s serializer
    // writes them (compact: no spaces).
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        RequestId::Number(n) => json(out, n),
        RequestId::String(s) => json(out, &**s),
    }
    out.extend_from_slice(b",\"result\":{");
    if let Some(info) = server_info {
        out.extend_from_slice(b"\"_meta\":{\"");
        out.extend_from_slice(crate::session::per_request::META_SERVER_INFO.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(info.as_bytes());
        out.extend_from_slice(b"},");
    }
    out.extend_from_slice(b"\"content\":[");
    for (i, block) in result.content.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match block {
            ContentBlock::Text(t)
                if t.annotations.is_none() && t.meta.is_none() && t.extra.is_empty() =>
            {
                out.extend_from_slice(b"{\"text\":");
                json(out, t.text.as_str());
                out.extend_from_slice(b",\"type\":\"text\"}");
            }
            other => json(out, &to_value(other)),
        }
    }
    out.push(b']');
    match result.is_error {
        Some(true) => out.extend_from_slice(b",\"isError\":true"),
        Some(false) => out.extend_from_slice(b",\"isError\":false"),
        None => {}
    }
    if server_info.is_some() {
        out.extend_from_slice(b",\"resultType\":\"complete\"");
    }
    if let Some(sc) = &result.structured_content {
        out.extend_from_slice(b",\"structuredContent\":");
        json(out, sc);
    }
    out.extend_from_slice(b"}}");
}

/// Puts the server's identity `info` in `result`'s `_meta` (per-request era: every result names
/// the server, SHOULD), unless the handler already named one there.
pub(crate) fn insert_server_info(result: &mut Value, info: Value) {
    if let Value::Object(map) = result {
        let meta = map.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.entry(crate::session::per_request::META_SERVER_INFO)
                .or_insert(info);
        }
    }
}

/// Whether a JSON object ([`Map`]) keeps its keys sorted, as it does unless some crate in the
/// build turns on serde_json's `preserve_order` (then [`write_tool_response`] takes the slow way).
fn maps_sort_keys() -> bool {
    static SORTED: OnceLock<bool> = OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut m = Map::new();
        m.insert("b".into(), Value::Null);
        m.insert("a".into(), Value::Null);
        m.keys().next().map(String::as_str) == Some("a")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Annotations, TextContent};

    fn same(result: CallToolResult) {
        assert_eq!(tool_result_value(result.clone()), to_value(&result));
        for id in [RequestId::Number(7), RequestId::from("a\"b")] {
            let mut written = Vec::new();
            write_tool_response(&mut written, &id, result.clone());
            let message = Message::response(id.clone(), to_value(&result));
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&message).unwrap()
            );
            // Per-request era: what the generic path sends (serverInfo in `_meta`, then
            // `resultType`), byte for byte.
            let info = json!({ "name": "srv \"x\"", "version": "1.2" });
            let mut written = Vec::new();
            write_per_request_tool_response(&mut written, &id, result.clone(), &info.to_string());
            let mut value = to_value(&result);
            insert_server_info(&mut value, info);
            super::super::per_request::shape_result(
                "tools/call",
                &mut value,
                super::super::CacheHint::UNCACHED,
            );
            assert_eq!(value["resultType"], "complete");
            let info = &value["_meta"][super::super::per_request::META_SERVER_INFO];
            assert_eq!(info["name"], "srv \"x\"");
            let message = Message::response(id, value);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&message).unwrap()
            );
        }
    }

    #[test]
    fn tool_result_value_matches_the_serializer() {
        same(CallToolResult::default());
        same(CallToolResult::text("hello \"quoted\" \n text"));
        same(CallToolResult::error_text("it failed"));
        same(CallToolResult::structured(
            json!({ "a": [1, 2, { "b": null }] }),
        ));
        same(CallToolResult::new(vec![
            ContentBlock::text("one"),
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::text("two"),
        ]));
        let mut annotated = TextContent::new("annotated");
        annotated.annotations = Some(Annotations::default());
        same(CallToolResult::new(vec![ContentBlock::Text(annotated)]));
        let mut with_meta = TextContent::new("meta");
        with_meta.meta = Some(Map::from_iter([("k".to_string(), json!(1))]));
        with_meta.extra.insert("x-extra".into(), json!("kept"));
        same(CallToolResult::new(vec![ContentBlock::Text(with_meta)]));
        let mut result = CallToolResult::text("extra");
        result.extra.insert("x-result".into(), json!({ "n": 1 }));
        same(result);
        let mut result = CallToolResult::text("meta");
        result.meta = Some(Map::from_iter([("progressToken".to_string(), json!("t"))]));
        result.is_error = Some(false);
        same(result);
    }

    fn params(json: &str) -> Result<ToolCallParams<'_>, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn tool_call_params_take_what_the_call_uses() {
        let p = params(
            r#"{"arguments":{"text":"hi"},"name":"echo","x":[1,{"y":2}],"task":null,"_meta":{"progressToken":"t"}}"#,
        )
        .unwrap();
        assert!(matches!(p.name, Cow::Borrowed("echo")));
        assert_eq!(p.arguments, Some(json!({ "text": "hi" })));
        assert_eq!(p.task, Some(Value::Null));
        assert_eq!(
            p.meta.as_deref().map(SharedMeta::value),
            Some(&json!({ "progressToken": "t" }))
        );
        // Read by the scanner (by its text) and by serde_json alike.
        let frame = br#"{"name":"echo","_meta":{"k":[1,"x",{"y":null}]}}"#;
        let scanned =
            crate::jsonrpc::scan::read(frame, Some(crate::session::shared_meta::known_len), |d| {
                ToolCallParams::deserialize(d)
            })
            .unwrap_or_else(|_| panic!("the scanner reads this frame"));
        let parsed: ToolCallParams<'_> = serde_json::from_slice(frame).unwrap();
        let want = json!({ "k": [1, "x", { "y": null }] });
        assert_eq!(scanned.meta.as_deref().map(SharedMeta::value), Some(&want));
        assert_eq!(parsed.meta.as_deref().map(SharedMeta::value), Some(&want));
        let p =
            params(r#"{"name":"e","inputResponses":{"k":{"action":"accept"}},"requestState":"s"}"#)
                .unwrap();
        assert_eq!(
            p.input_responses,
            Some(json!({ "k": { "action": "accept" } }))
        );
        assert_eq!(p.request_state, Some(json!("s")));
        let p = params(r#"{"name":"a\u0062"}"#).unwrap();
        assert_eq!(p.name, "ab");
        assert_eq!((p.arguments, p.task), (None, None));
        assert!(p.meta.is_none());
        // Everything else is left to `dispatch`, which reads the params as a Value.
        for bad in [
            r#"{}"#,
            r#"{"name":null}"#,
            r#"{"name":1}"#,
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","arguments":{},"arguments":{}}"#,
            r#"{"name":"a","requestState":"x","requestState":"y"}"#,
            r#"["echo",{}]"#,
            r#"null"#,
        ] {
            assert!(params(bad).is_err(), "{bad}");
        }
    }
}
