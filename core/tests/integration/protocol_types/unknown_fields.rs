//! Unknown fields survive decoding and re-encoding at every level of a value.

use super::*;

#[test]
fn unknown_fields_are_preserved() {
    let vendor = json!({"nested": [1, 2]});
    let mut tool = serde_json::to_value(full_tool()).unwrap();
    tool["x-vendor"] = vendor.clone();
    tool["annotations"]["x-vendor"] = json!(1);
    tool["execution"]["x-vendor"] = json!(2);
    tool["icons"][0]["x-vendor"] = json!(3);
    tool["inputSchema"]["x-vendor"] = json!(4);
    let result = json!({
        "tools": [tool],
        "nextCursor": "n",
        "x-vendor": 5,
        "_meta": {"x-vendor": 6}
    });
    assert_valid(LATEST, "ListToolsResult", &result);
    let decoded: ListToolsResult = decode_roundtrip("ListToolsResult", &result);
    assert_eq!(decoded.extra["x-vendor"], json!(5));
    assert_eq!(decoded.tools[0].extra["x-vendor"], vendor);
    assert_eq!(
        decoded.tools[0].annotations.as_ref().unwrap().extra["x-vendor"],
        json!(1)
    );

    let call = json!({
        "content": [
            {"type": "text", "text": "hi", "x-vendor": 1,
             "annotations": {"audience": ["user"], "x-vendor": 2}},
            {"type": "resource", "x-vendor": 3,
             "resource": {"uri": "file:///a", "text": "t", "x-vendor": 4}},
            {"type": "resource_link", "uri": "file:///b", "name": "b", "x-vendor": 5},
            {"type": "image", "data": "AA==", "mimeType": "image/png", "x-vendor": 6},
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav", "x-vendor": 7}
        ],
        "isError": false,
        "x-vendor": 8
    });
    assert_valid(LATEST, "CallToolResult", &call);
    let decoded: CallToolResult = decode_roundtrip("CallToolResult", &call);
    match &decoded.content[0] {
        ContentBlock::Text(t) => {
            assert_eq!(t.extra["x-vendor"], json!(1));
            assert!(
                !t.extra.contains_key("type"),
                "the tag must not leak into extra"
            );
        }
        other => panic!("expected text, got {other:?}"),
    }

    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "roots": {"listChanged": true, "x-vendor": 1},
            "sampling": {"tools": {}, "x-vendor": 2},
            "elicitation": {"form": {"x-vendor": 3}},
            "tasks": {"requests": {"sampling": {"createMessage": {}, "x-vendor": 4}}},
            "x-vendor": 5
        },
        "clientInfo": {"name": "c", "version": "1", "x-vendor": 6},
        "x-vendor": 7
    });
    assert_valid(LATEST, "InitializeRequestParams", &init);
    decode_roundtrip::<InitializeRequestParams>("InitializeRequestParams", &init);

    let sampling = json!({
        "messages": [{"role": "user", "x-vendor": 1,
                      "content": [{"type": "tool_result", "toolUseId": "1", "x-vendor": 2,
                                   "content": [{"type": "text", "text": "r", "x-vendor": 3}]}]}],
        "maxTokens": 5,
        "modelPreferences": {"hints": [{"name": "m", "x-vendor": 4}], "x-vendor": 5},
        "toolChoice": {"mode": "required", "x-vendor": 6},
        "x-vendor": 7
    });
    assert_valid(LATEST, "CreateMessageRequestParams", &sampling);
    decode_roundtrip::<CreateMessageRequestParams>("CreateMessageRequestParams", &sampling);

    let task = json!({
        "taskId": "t", "status": "input_required", "createdAt": "2025-11-25T10:00:00Z",
        "lastUpdatedAt": "2025-11-25T10:00:01Z", "ttl": null, "x-vendor": 1,
        "_meta": {"x-vendor": 2}
    });
    assert_valid(LATEST, "GetTaskResult", &task);
    let decoded: GetTaskResult = decode_roundtrip("GetTaskResult", &task);
    assert_eq!(decoded.task.extra["x-vendor"], json!(1));
    assert!(decoded.meta.is_some());

    let elicit = json!({
        "message": "m",
        "requestedSchema": {
            "type": "object", "x-vendor": 1,
            "properties": {
                "a": {"type": "string", "x-vendor": 2},
                "b": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X", "x-vendor": 3}], "x-vendor": 4}},
                "c": {"type": "integer", "x-vendor": 5}
            }
        },
        "x-vendor": 6
    });
    assert_valid(LATEST, "ElicitRequestParams", &elicit);
    decode_roundtrip::<ElicitRequestParams>("ElicitRequestParams", &elicit);

    let complete = json!({
        "ref": {"type": "ref/prompt", "name": "p", "x-vendor": 1},
        "argument": {"name": "a", "value": "v", "x-vendor": 2},
        "context": {"arguments": {"k": "v"}, "x-vendor": 3},
        "x-vendor": 4
    });
    assert_valid(LATEST, "CompleteRequestParams", &complete);
    decode_roundtrip::<CompleteRequestParams>("CompleteRequestParams", &complete);
}
