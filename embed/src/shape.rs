//! Result shaping: what a foreign handler returned (a string, a content block, a list, any JSON
//! value, or the full MCP result) turned into the MCP result shape.
//!
//! Handlers in Python, JavaScript and Swift may answer with plain values; these rules say once, for
//! all three bindings, what each value means. A full result passes through unchanged, so
//! handlers that build their own result lose nothing.

use ferromcp::protocol::{CallToolResult, ContentBlock};
use ferromcp::McpError;
use serde_json::{json, Map, Value};

/// The content block types of a tool result or a prompt message.
const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

fn is_content_block(v: &Value) -> bool {
    v.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| CONTENT_TYPES.contains(&t))
}

fn text_block(text: String) -> Value {
    json!({ "type": "text", "text": text })
}

/// Whether `v` is already a `CallToolResult` (an object whose `content` is a list).
fn is_call_tool_result(v: &Value) -> bool {
    v.get("content").is_some_and(Value::is_array)
}

/// A `CallToolResult` from a tool handler's answer.
///
/// - a `CallToolResult` (an object with a `content` list) passes through;
/// - with `structured` (the tool declares an `outputSchema`), any other value becomes
///   `structuredContent`, with its JSON text as the content (as the spec recommends for clients
///   that do not read structured content);
/// - a string is one text block; a content block (`{"type": "text" | "image" | "audio" |
///   "resource" | "resource_link", ...}`) is the content; a list of content blocks is the content;
/// - `null` is an empty content list; any other value is one text block with its JSON text.
pub fn tool_result(value: Value, structured: bool) -> Value {
    if is_call_tool_result(&value) {
        return value;
    }
    if structured && !value.is_null() {
        let text = value.to_string();
        return json!({ "content": [text_block(text)], "structuredContent": value });
    }
    let content = match value {
        Value::Null => Vec::new(),
        Value::String(s) => vec![text_block(s)],
        v if is_content_block(&v) => vec![v],
        Value::Array(items) if !items.is_empty() && items.iter().all(is_content_block) => items,
        other => vec![text_block(other.to_string())],
    };
    json!({ "content": content })
}

/// The `CallToolResult` of a tool whose `outputSchema` wraps its return value as
/// `{"result": ...}` (the official Python SDK's convention for a function returning a string,
/// a number, a list, ...), from that return value: `structuredContent` is
/// `{"result": value}` and the content is the value as text (a string as it is, any other
/// value its compact JSON text, no content for `null`).
///
/// Built directly, with no `Value` round trip: a binding hands over the bare return value and
/// creates no result objects of its own (see [`super::EmbeddedServer::add_tool_wrapping`]).
pub fn wrapped_tool_result(value: Value) -> CallToolResult {
    let content = match &value {
        Value::Null => Vec::new(),
        Value::String(s) => vec![ContentBlock::text(s.clone())],
        other => vec![ContentBlock::text(other.to_string())],
    };
    let mut structured = Map::with_capacity(1);
    structured.insert("result".to_string(), value);
    CallToolResult::new(content).with_structured_content(Value::Object(structured))
}

/// The `isError` result a tool answers for `error` (see [`super::is_tool_signal`] for
/// the errors that stay JSON-RPC errors): its message, followed by `data.reason` when the
/// engine gave one that the message does not already hold.
pub fn tool_error(error: &McpError) -> Value {
    let reason = error
        .data
        .as_ref()
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
        .filter(|r| !error.message.contains(r));
    let text = match reason {
        Some(r) => format!("{} ({r})", error.message),
        None => error.message.clone(),
    };
    json!({ "content": [text_block(text)], "isError": true })
}

/// `data.reason` of [`answer_not_json`].
const NOT_JSON: &str = "answerNotJson";

/// The error for a handler answer that has no JSON form (a JavaScript `BigInt`, a Python
/// `set`, a cycle, ...): an internal error (-32603) whose message says what and where, with
/// `data.reason` `"answerNotJson"`. It is answered as that JSON-RPC error by every kind of
/// handler, a tool's included (not an `isError` result): like a malformed result, it is the
/// server's bug, not a tool execution error the model could act on. A binding that fails to
/// convert an answer makes this error, so all of them report it alike.
pub fn answer_not_json(detail: impl std::fmt::Display) -> McpError {
    McpError::internal(format!(
        "handler returned a value that is not JSON: {detail}"
    ))
    .with_data(json!({ "reason": NOT_JSON }))
}

/// Whether `e` is an [`answer_not_json`] error.
pub fn is_answer_not_json(e: &McpError) -> bool {
    e.code == ferromcp::error::codes::INTERNAL_ERROR
        && e.data
            .as_ref()
            .and_then(|d| d.get("reason"))
            .and_then(Value::as_str)
            == Some(NOT_JSON)
}

pub use ferromcp::schema::object_schema;

/// The `contents` list of a `resources/read` result from a resource handler's answer.
///
/// - an object with a `contents` list (a `ReadResourceResult`) gives that list;
/// - a list gives one item per element, anything else one item;
/// - an item that is an object is a `ResourceContents` (`text` or `blob`), completed with the
///   read `uri` and the registered `mime_type` where it has none (a `blob` without either is
///   `application/octet-stream`);
/// - a string is a text item; any other value is a text item holding its JSON text.
pub fn resource_contents(uri: &str, value: Value, mime_type: Option<&str>) -> Value {
    let items = match value {
        Value::Object(mut m) if m.get("contents").is_some_and(Value::is_array) => {
            match m.remove("contents") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            }
        }
        Value::Array(items) => items,
        other => vec![other],
    };
    let out = items
        .into_iter()
        .map(|item| {
            let mut m = match item {
                Value::Object(m) => m,
                Value::String(s) => Map::from_iter([("text".to_string(), Value::String(s))]),
                other => Map::from_iter([("text".to_string(), Value::String(other.to_string()))]),
            };
            if !m.contains_key("uri") {
                m.insert("uri".into(), Value::String(uri.to_string()));
            }
            if !m.contains_key("mimeType") {
                match mime_type {
                    Some(t) => {
                        m.insert("mimeType".into(), Value::String(t.to_string()));
                    }
                    None if m.contains_key("blob") => {
                        m.insert("mimeType".into(), "application/octet-stream".into());
                    }
                    None => {}
                }
            }
            Value::Object(m)
        })
        .collect();
    Value::Array(out)
}

/// A `GetPromptResult` from a prompt handler's answer.
///
/// - an object with a `messages` list passes through;
/// - a list gives one message per element, anything else one message;
/// - a string is a user message with that text; a content block is a user message with that
///   content; an object with a `role` is a `PromptMessage` as is.
pub fn prompt_result(value: Value) -> Value {
    if value.get("messages").is_some_and(Value::is_array) {
        return value;
    }
    let items = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    let messages: Vec<Value> = items
        .into_iter()
        .map(|item| match item {
            Value::String(s) => json!({ "role": "user", "content": text_block(s) }),
            v if v.get("role").is_some() => v,
            v if is_content_block(&v) => json!({ "role": "user", "content": v }),
            other => json!({ "role": "user", "content": text_block(other.to_string()) }),
        })
        .collect();
    json!({ "messages": messages })
}

/// The most values a `Completion` may carry (the spec's limit).
const MAX_COMPLETIONS: usize = 100;

/// A `Completion` from a completion handler's answer: a list of strings is the values; an
/// object with `completion` (a `CompleteResult`) gives that; any other object is the completion.
/// More than 100 values are cut to 100, with `total` (the full count, unless the handler gave
/// one) and `hasMore: true`.
pub fn completion(value: Value) -> Value {
    let mut c = match value {
        Value::Array(values) => json!({ "values": values }),
        Value::Object(mut m) if m.contains_key("completion") => {
            m.remove("completion").unwrap_or_default()
        }
        other => other,
    };
    if let Some(Value::Array(values)) = c.get_mut("values") {
        if values.len() > MAX_COMPLETIONS {
            let total = values.len();
            values.truncate(MAX_COMPLETIONS);
            if c.get("total").is_none() {
                c["total"] = json!(total);
            }
            c["hasMore"] = json!(true);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results() {
        assert_eq!(
            tool_result(json!("hi"), false),
            json!({"content": [{"type": "text", "text": "hi"}]})
        );
        let full = json!({"content": [], "isError": true});
        assert_eq!(tool_result(full.clone(), true), full);
        assert_eq!(
            tool_result(json!({"a": 1}), true),
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}})
        );
        assert_eq!(
            tool_result(
                json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
                false
            )["content"][0]["type"],
            "image"
        );
        assert_eq!(
            tool_result(json!([1, 2]), false),
            json!({"content": [{"type": "text", "text": "[1,2]"}]})
        );
        assert_eq!(tool_result(Value::Null, false), json!({"content": []}));
    }

    /// The wrapped result is what shaping its JSON form gives (same bytes on the wire).
    #[test]
    fn wrapped_tool_results() {
        let cases = [
            (
                json!("hi"),
                json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"result": "hi"}}),
            ),
            (
                json!(42),
                json!({"content": [{"type": "text", "text": "42"}], "structuredContent": {"result": 42}}),
            ),
            (
                json!(0.5),
                json!({"content": [{"type": "text", "text": "0.5"}], "structuredContent": {"result": 0.5}}),
            ),
            (
                json!(true),
                json!({"content": [{"type": "text", "text": "true"}], "structuredContent": {"result": true}}),
            ),
            (
                json!([1, "a\n"]),
                json!({"content": [{"type": "text", "text": "[1,\"a\\n\"]"}], "structuredContent": {"result": [1, "a\n"]}}),
            ),
            (
                Value::Null,
                json!({"content": [], "structuredContent": {"result": null}}),
            ),
        ];
        for (value, expected) in cases {
            let built = wrapped_tool_result(value.clone());
            assert_eq!(serde_json::to_value(&built).unwrap(), expected, "{value}");
            let shaped: CallToolResult = serde_json::from_value(expected).unwrap();
            assert_eq!(
                serde_json::to_string(&built).unwrap(),
                serde_json::to_string(&shaped).unwrap()
            );
        }
    }

    #[test]
    fn tool_errors() {
        let e = McpError::new(-32602, "bad input")
            .with_data(json!({"reason": "the client did not declare sampling"}));
        assert_eq!(
            tool_error(&e),
            json!({"content": [{"type": "text", "text": "bad input (the client did not declare sampling)"}], "isError": true})
        );
        let e = McpError::new(-32603, "boom: x").with_data(json!({"reason": "x"}));
        assert_eq!(tool_error(&e)["content"][0]["text"], "boom: x");
        assert_eq!(
            tool_error(&McpError::new(-32603, "plain"))["content"][0]["text"],
            "plain"
        );
    }

    #[test]
    fn tool_schemas_are_object_schemas() {
        for (given, expected) in [
            (json!({}), json!({"type": "object"})),
            (Value::Null, json!({"type": "object"})),
            (json!(true), json!({"type": "object"})),
            (
                json!({"properties": {"a": {"type": "string"}}}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            ),
            (
                json!({"type": "object", "required": []}),
                json!({"type": "object", "required": []}),
            ),
        ] {
            let mut s = given.clone();
            object_schema("inputSchema", &mut s).unwrap();
            assert_eq!(s, expected, "{given}");
        }
        for bad in [
            json!({"type": "string"}),
            json!({"type": ["object", "null"]}),
            json!(false),
            json!("x"),
        ] {
            let e = object_schema("tool t: outputSchema", &mut bad.clone()).unwrap_err();
            assert_eq!(e.code, ferromcp::error::codes::INVALID_PARAMS, "{bad}");
            assert!(
                e.message
                    .starts_with("tool t: outputSchema must be an object schema"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn resources() {
        assert_eq!(
            resource_contents("a://b", json!("x"), Some("text/plain")),
            json!([{"uri": "a://b", "text": "x", "mimeType": "text/plain"}])
        );
        assert_eq!(
            resource_contents("a://b", json!({"blob": "AA=="}), None),
            json!([{"uri": "a://b", "blob": "AA==", "mimeType": "application/octet-stream"}])
        );
        assert_eq!(
            resource_contents(
                "a://b",
                json!({"contents": [{"uri": "a://c", "text": "t"}]}),
                None
            ),
            json!([{"uri": "a://c", "text": "t"}])
        );
    }

    #[test]
    fn prompts_and_completions() {
        assert_eq!(
            prompt_result(json!("hello")),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]})
        );
        let m = json!({"role": "assistant", "content": {"type": "text", "text": "x"}});
        assert_eq!(prompt_result(json!([m.clone()])), json!({"messages": [m]}));
        assert_eq!(completion(json!(["a"])), json!({"values": ["a"]}));
        assert_eq!(
            completion(json!({"completion": {"values": []}})),
            json!({"values": []})
        );
        let many: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let c = completion(json!(many));
        assert_eq!(c["values"].as_array().unwrap().len(), 100);
        assert_eq!(
            (c["total"].clone(), c["hasMore"].clone()),
            (json!(150), json!(true))
        );
    }
}
