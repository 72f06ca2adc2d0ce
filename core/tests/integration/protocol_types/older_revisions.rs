//! Older revisions (2024-11-05, 2025-03-26, 2025-06-18) accept what we emit for them, and
//! their real messages decode.

use super::*;

#[test]
fn older_revisions_accept_what_we_emit_for_them() {
    // Shapes that exist unchanged (or as subsets) in every revision.
    let tool = serde_json::to_value(
        Tool::new("echo")
            .with_description("Echoes")
            .with_input_schema(json!({"type": "object", "properties": {"s": {"type": "string"}}})),
    )
    .unwrap();
    let text = serde_json::to_value(CallToolResult::text("ok")).unwrap();
    let err = serde_json::to_value(CallToolResult::error_text("bad")).unwrap();
    let implementation = serde_json::to_value(Implementation::new("c", "1")).unwrap();
    let resource = serde_json::to_value({
        let mut lit = Resource::new("file:///a", "a");
        lit.description = Some("d".into());
        lit.mime_type = Some("text/plain".into());
        lit
    })
    .unwrap();
    let template = serde_json::to_value(ResourceTemplate::new("file:///{path}", "files")).unwrap();
    let prompt = serde_json::to_value({
        let mut lit = Prompt::new("p");
        lit.description = Some("d".into());
        lit.arguments = Some(vec![{
            let mut lit = PromptArgument::default();
            lit.name = "x".into();
            lit.required = Some(true);
            lit
        }]);
        lit
    })
    .unwrap();
    let root = serde_json::to_value(Root::new("file:///home")).unwrap();
    let server_caps = serde_json::to_value({
        let mut lit = ServerCapabilities::default();
        lit.logging = Some(JsonObject::new());
        lit.prompts = Some({
            let mut lit = PromptsCapability::default();
            lit.list_changed = Some(true);
            lit
        });
        lit.resources = Some({
            let mut lit = ResourcesCapability::default();
            lit.subscribe = Some(true);
            lit.list_changed = Some(true);
            lit
        });
        lit.tools = Some(ToolsCapability::default());
        lit
    })
    .unwrap();
    let client_caps = serde_json::to_value({
        let mut lit = ClientCapabilities::default();
        lit.roots = Some({
            let mut lit = RootsCapability::default();
            lit.list_changed = Some(true);
            lit
        });
        lit.sampling = Some(SamplingCapability::default());
        lit
    })
    .unwrap();
    let create_result = serde_json::to_value({
        let mut lit = CreateMessageResult::new(SamplingContent::text("hi"), "m");
        lit.role = Role::Assistant;
        lit.stop_reason = Some("endTurn".into());
        lit
    })
    .unwrap();
    let sampling_message = serde_json::to_value(SamplingMessage::user_text("hi")).unwrap();
    let log = serde_json::to_value(LoggingMessageNotificationParams::new(
        LoggingLevel::Notice,
        "x",
    ))
    .unwrap();
    let completion = serde_json::to_value(CompleteResult::new(vec!["a".into()])).unwrap();
    let text_block = serde_json::to_value(TextContent::new("t")).unwrap();
    let image_block = serde_json::to_value(ImageContent::new("AA==", "image/png")).unwrap();
    let embedded = serde_json::to_value(EmbeddedResource::new(TextResourceContents::new(
        "file:///a",
        "t",
    )))
    .unwrap();
    let prompt_message = serde_json::to_value(PromptMessage::user_text("hi")).unwrap();

    for rev in OLDER.iter().copied().chain([LATEST]) {
        assert_valid(rev, "Tool", &tool);
        assert_valid(rev, "CallToolResult", &text);
        assert_valid(rev, "CallToolResult", &err);
        assert_valid(rev, "Implementation", &implementation);
        assert_valid(rev, "Resource", &resource);
        assert_valid(rev, "ResourceTemplate", &template);
        assert_valid(rev, "Prompt", &prompt);
        assert_valid(rev, "Root", &root);
        assert_valid(rev, "ServerCapabilities", &server_caps);
        assert_valid(rev, "ClientCapabilities", &client_caps);
        assert_valid(rev, "CreateMessageResult", &create_result);
        assert_valid(rev, "SamplingMessage", &sampling_message);
        assert_valid(rev, "CompleteResult", &completion);
        assert_valid(rev, "TextContent", &text_block);
        assert_valid(rev, "ImageContent", &image_block);
        assert_valid(rev, "EmbeddedResource", &embedded);
        assert_valid(rev, "PromptMessage", &prompt_message);
        assert_valid(
            rev,
            "LoggingMessageNotification",
            &json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_MESSAGE, "params": log}),
        );
    }

    // 2025-03-26+: audio and tool annotations.
    let annotated = serde_json::to_value({
        let mut lit = Tool::new("t");
        lit.annotations = Some({
            let mut lit = ToolAnnotations::default();
            lit.read_only_hint = Some(true);
            lit
        });
        lit
    })
    .unwrap();
    let audio = serde_json::to_value(AudioContent::new("AA==", "audio/wav")).unwrap();
    for rev in ["2025-03-26", "2025-06-18"] {
        assert_valid(rev, "Tool", &annotated);
        assert_valid(rev, "AudioContent", &audio);
    }
    assert_invalid("2024-11-05", "CallToolResult", &json!({"content": [audio]}));

    // 2025-06-18: structured output, resource links, titles, elicitation.
    let structured = serde_json::to_value(CallToolResult::structured(json!({"n": 1}))).unwrap();
    assert_valid("2025-06-18", "CallToolResult", &structured);
    let link = serde_json::to_value(ContentBlock::resource_link("file:///a", "a")).unwrap();
    assert_valid("2025-06-18", "ContentBlock", &link);
    let elicit_result = serde_json::to_value(ElicitResult::accept(obj(json!({"a": "b"})))).unwrap();
    assert_valid("2025-06-18", "ElicitResult", &elicit_result);

    // 2024-11-05 called the resource-template reference `ResourceReference`.
    let complete = serde_json::to_value(CompleteRequestParams::new(
        ResourceTemplateReference::new("file:///{path}"),
        "path",
        "sr",
    ))
    .unwrap();
    for rev in OLDER {
        assert_valid(
            rev,
            "CompleteRequest",
            &json!({"jsonrpc": "2.0", "id": 1, "method": methods::COMPLETION_COMPLETE,
                    "params": complete}),
        );
    }
}

#[test]
fn older_revision_messages_decode() {
    // 2024-11-05 initialize from a real client, with the old-style free-form sampling object.
    let init = json!({
        "protocolVersion": "2024-11-05",
        "capabilities": {"roots": {"listChanged": true}, "sampling": {}},
        "clientInfo": {"name": "ExampleClient", "version": "1.0.0"}
    });
    assert_valid(
        "2024-11-05",
        "InitializeRequest",
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}),
    );
    let p: InitializeRequestParams = decode_roundtrip("InitializeRequestParams", &init);
    assert_eq!(
        ProtocolVersion::parse(&p.protocol_version),
        Some(ProtocolVersion::V2024_11_05)
    );
    // An unknown future revision still decodes (the server answers with one it speaks).
    let future: InitializeRequestParams = serde_json::from_value(json!({
        "protocolVersion": "2099-01-01", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}
    }))
    .unwrap();
    assert_eq!(ProtocolVersion::parse(&future.protocol_version), None);

    // 2025-06-18 elicitation request (no mode) with a legacy enumNames field.
    let elicit = json!({
        "message": "Please provide your GitHub username",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "level": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
                "ok": {"type": "boolean", "default": true}
            },
            "required": ["name"]
        }
    });
    assert_valid(
        "2025-06-18",
        "ElicitRequest",
        &json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": elicit}),
    );
    let p: ElicitRequestParams = decode_roundtrip("ElicitRequestParams", &elicit);
    match p {
        ElicitRequestParams::Form(f) => assert!(matches!(
            f.requested_schema.properties["level"],
            PrimitiveSchemaDefinition::LegacyTitledEnum(_)
        )),
        other => panic!("expected form mode, got {other:?}"),
    }
    // 2025-06-18 elicitation results may carry numbers.
    decode_roundtrip::<ElicitResult>(
        "ElicitResult",
        &json!({"action": "accept", "content": {"age": 3.5}}),
    );

    // 2024-11-05 Annotated-style text content and a sampling result with single content.
    decode_roundtrip::<CreateMessageResult>(
        "CreateMessageResult",
        &json!({"role": "assistant", "content": {"type": "text", "text": "hi",
                "annotations": {"audience": ["user"], "priority": 1}},
                "model": "m", "stopReason": "endTurn"}),
    );
}
