//! Per-type checks against the 2025-11-25 schema: common types, content, resources, tools,
//! prompts, completion and logging, each in a full and a minimal form.

use super::*;

#[test]
fn common_types() {
    check("Annotations", &full_annotations());
    check("Annotations", &Annotations::default());
    check("Icon", &full_icon());
    check("Icon", &Icon::new("data:image/png;base64,iVBORw0KGgo="));
    check("Role", &Role::User);
    check("Role", &Role::Assistant);
    check("RequestParams", &{
        let mut lit = RequestParams::default();
        lit.meta = Some(request_meta());
        lit
    });
    check("RequestParams", &RequestParams::default());
    check("NotificationParams", &{
        let mut lit = NotificationParams::default();
        lit.meta = Some(meta());
        lit
    });
    check("EmptyResult", &EmptyResult::default());
    check("Result", &{
        let mut lit = EmptyResult::default();
        lit.meta = Some(meta());
        lit
    });
    check("PaginatedRequestParams", &{
        let mut lit = PaginatedRequestParams::with_cursor("page-2");
        lit.meta = Some(request_meta());
        lit
    });
    check("PaginatedRequestParams", &PaginatedRequestParams::default());
    check("RelatedTaskMetadata", &{
        let mut lit = RelatedTaskMetadata::default();
        lit.task_id = "t1".into();
        lit
    });
    for token in [ProgressToken::from("abc"), ProgressToken::from(7)] {
        check("ProgressToken", &token);
    }
}

#[test]
fn content_types() {
    check("TextContent", &full_text());
    check("TextContent", &TextContent::new("hi"));
    check("ImageContent", &full_image());
    check("ImageContent", &ImageContent::new("AA==", "image/png"));
    check("AudioContent", &full_audio());
    check("AudioContent", &AudioContent::new("AA==", "audio/wav"));
    check("ResourceLink", &full_resource_link());
    check("ResourceLink", &ResourceLink::new("file:///a", "a"));
    check("EmbeddedResource", &full_embedded());
    check(
        "EmbeddedResource",
        &EmbeddedResource::new(BlobResourceContents::new("file:///b", "AA==")),
    );
    check("ToolUseContent", &full_tool_use());
    check("ToolUseContent", &{
        let mut lit = ToolUseContent::default();
        lit.id = "1".into();
        lit.name = "n".into();
        lit
    });
    check("ToolResultContent", &full_tool_result());
    check("ToolResultContent", &{
        let mut lit = ToolResultContent::default();
        lit.tool_use_id = "1".into();
        lit
    });

    let blocks = [
        ContentBlock::Text(full_text()),
        ContentBlock::Image(full_image()),
        ContentBlock::Audio(full_audio()),
        ContentBlock::ResourceLink(full_resource_link()),
        ContentBlock::Resource(full_embedded()),
        ContentBlock::text("plain"),
        ContentBlock::image("AA==", "image/jpeg"),
        ContentBlock::audio("AA==", "audio/mpeg"),
        ContentBlock::resource_link("https://example.com/x", "x"),
        ContentBlock::embedded_text("file:///t", "text"),
        ContentBlock::embedded_blob("file:///b", "AA=="),
    ];
    for b in &blocks {
        check("ContentBlock", b);
    }
    let sampling_blocks = [
        SamplingMessageContentBlock::Text(full_text()),
        SamplingMessageContentBlock::Image(full_image()),
        SamplingMessageContentBlock::Audio(full_audio()),
        SamplingMessageContentBlock::ToolUse(full_tool_use()),
        SamplingMessageContentBlock::ToolResult(full_tool_result()),
    ];
    for b in &sampling_blocks {
        check("SamplingMessageContentBlock", b);
    }

    // Wire tags.
    let tags: Vec<Value> = blocks[..5]
        .iter()
        .map(|b| serde_json::to_value(b).unwrap()["type"].clone())
        .collect();
    assert_eq!(
        tags,
        vec![
            json!("text"),
            json!("image"),
            json!("audio"),
            json!("resource_link"),
            json!("resource")
        ]
    );
    // A lone struct carries its own tag, exactly once.
    let text = serde_json::to_string(&TextContent::new("x")).unwrap();
    assert_eq!(text, r#"{"type":"text","text":"x"}"#);
    let block = serde_json::to_string(&ContentBlock::text("x")).unwrap();
    assert_eq!(block, text);
    assert_eq!(ContentBlock::text("x").as_text(), Some("x"));
}

#[test]
fn content_decoding_errors() {
    assert!(serde_json::from_value::<ContentBlock>(json!({"type": "video", "data": ""})).is_err());
    assert!(serde_json::from_value::<ContentBlock>(json!({"text": "no type"})).is_err());
    assert!(serde_json::from_value::<ContentBlock>(json!({"type": "text"})).is_err());
    // tool_use is sampling-only.
    assert!(
        serde_json::from_value::<ContentBlock>(serde_json::to_value(full_tool_use()).unwrap())
            .is_err()
    );
    // A struct refuses another struct's tag.
    assert!(serde_json::from_value::<TextContent>(json!({"type": "image", "text": "x"})).is_err());
}

#[test]
fn resource_types() {
    let resource = {
        let mut lit = Resource::new("file:///project/src/main.rs", "main.rs");
        lit.title = Some("Main".into());
        lit.description = Some("Entry point".into());
        lit.mime_type = Some("text/x-rust".into());
        lit.size = Some(2048);
        lit.annotations = Some(full_annotations());
        lit.icons = Some(vec![full_icon()]);
        lit.meta = Some(meta());
        lit
    };
    check("Resource", &resource);
    check("Resource", &Resource::new("file:///a", "a"));
    let template = {
        let mut lit = ResourceTemplate::new("file:///project/{path}", "project-files");
        lit.title = Some("Project files".into());
        lit.description = Some("Any file in the project".into());
        lit.mime_type = Some("text/plain".into());
        lit.annotations = Some(full_annotations());
        lit.icons = Some(vec![full_icon()]);
        lit.meta = Some(meta());
        lit
    };
    check("ResourceTemplate", &template);
    check(
        "ResourceTemplate",
        &ResourceTemplate::new("file:///{p}", "p"),
    );
    check("TextResourceContents", &full_text_contents());
    check(
        "TextResourceContents",
        &TextResourceContents::new("file:///a", ""),
    );
    check("BlobResourceContents", &full_blob_contents());
    check(
        "BlobResourceContents",
        &BlobResourceContents::new("file:///a", "AA=="),
    );
    check("ListResourcesResult", &{
        let mut lit = ListResourcesResult::default();
        lit.resources = vec![resource.clone()];
        lit.next_cursor = Some("next".into());
        lit.meta = Some(meta());
        lit
    });
    check("ListResourcesResult", &ListResourcesResult::default());
    check("ListResourceTemplatesResult", &{
        let mut lit = ListResourceTemplatesResult::default();
        lit.resource_templates = vec![template];
        lit.next_cursor = Some("next".into());
        lit.meta = Some(meta());
        lit
    });
    check(
        "ListResourceTemplatesResult",
        &ListResourceTemplatesResult::default(),
    );
    let params = {
        let mut lit = ResourceRequestParams::new("file:///project/src/main.rs");
        lit.meta = Some(request_meta());
        lit
    };
    for def in [
        "ResourceRequestParams",
        "ReadResourceRequestParams",
        "SubscribeRequestParams",
        "UnsubscribeRequestParams",
    ] {
        check(def, &params);
        check(def, &ResourceRequestParams::new("file:///x"));
    }
    check("ReadResourceResult", &{
        let mut lit = ReadResourceResult::default();
        lit.contents = vec![full_text_contents().into(), full_blob_contents().into()];
        lit.meta = Some(meta());
        lit
    });
    check("ReadResourceResult", &ReadResourceResult::default());
    check("ResourceUpdatedNotificationParams", &{
        let mut lit = ResourceUpdatedNotificationParams::default();
        lit.uri = "file:///x".into();
        lit.meta = Some(meta());
        lit
    });

    // Untagged contents: text vs blob.
    let c: ResourceContents =
        serde_json::from_value(json!({"uri": "file:///a", "blob": "AA=="})).unwrap();
    assert!(matches!(c, ResourceContents::Blob(_)));
    assert_eq!(c.uri(), "file:///a");
    let c: ResourceContents =
        serde_json::from_value(json!({"uri": "file:///a", "text": "t", "mimeType": "text/plain"}))
            .unwrap();
    assert!(matches!(c, ResourceContents::Text(_)));
    assert_eq!(c.mime_type(), Some("text/plain"));
    assert!(serde_json::from_value::<ResourceContents>(json!({"uri": "file:///a"})).is_err());
}

#[test]
fn tool_types() {
    let tool = full_tool();
    check("Tool", &tool);
    let minimal = Tool::new("ping");
    let json = check("Tool", &minimal);
    assert_eq!(
        json,
        json!({"name": "ping", "inputSchema": {"type": "object"}})
    );
    assert_eq!(tool.task_support(), TaskSupport::Optional);
    assert_eq!(minimal.task_support(), TaskSupport::Forbidden);
    // A tool without inputSchema (invalid, but seen in the wild) gets the empty object schema.
    let lenient: Tool = serde_json::from_value(json!({"name": "x"})).unwrap();
    assert_eq!(lenient.input_schema, json!({"type": "object"}));

    check("ToolAnnotations", &tool.annotations.clone().unwrap());
    check("ToolAnnotations", &ToolAnnotations::default());
    check("ToolExecution", &tool.execution.clone().unwrap());
    for support in [
        TaskSupport::Forbidden,
        TaskSupport::Optional,
        TaskSupport::Required,
    ] {
        let e = {
            let mut lit = ToolExecution::default();
            lit.task_support = Some(support);
            lit
        };
        check("ToolExecution", &e);
    }
    assert_eq!(
        serde_json::to_value(TaskSupport::Required).unwrap(),
        json!("required")
    );

    check("CallToolRequestParams", &{
        let mut lit =
            CallToolRequestParams::new("get_weather").with_arguments(json!({"city": "Paris"}));
        lit.task = Some({
            let mut lit = TaskMetadata::default();
            lit.ttl = Some(60_000);
            lit
        });
        lit.meta = Some(request_meta());
        lit
    });
    check("CallToolRequestParams", &CallToolRequestParams::new("ping"));

    let mut full_result = CallToolResult::new(vec![
        ContentBlock::Text(full_text()),
        ContentBlock::Image(full_image()),
        ContentBlock::Audio(full_audio()),
        ContentBlock::ResourceLink(full_resource_link()),
        ContentBlock::Resource(full_embedded()),
    ])
    .with_structured_content(json!({"temperature": 18}));
    full_result.is_error = Some(false);
    full_result.meta = Some(meta());
    check("CallToolResult", &full_result);
    check("CallToolResult", &CallToolResult::default());

    let t = check("CallToolResult", &CallToolResult::text("done"));
    assert_eq!(t, json!({"content": [{"type": "text", "text": "done"}]}));
    let e = check("CallToolResult", &CallToolResult::error_text("boom"));
    assert_eq!(
        e,
        json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
    );
    assert!(CallToolResult::error_text("boom").is_error());
    let s = check(
        "CallToolResult",
        &CallToolResult::structured(json!({"temperature": 22.5, "unit": "C"})),
    );
    assert_eq!(
        s["structuredContent"],
        json!({"temperature": 22.5, "unit": "C"})
    );
    let text = s["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        s["structuredContent"]
    );

    check("ListToolsResult", &{
        let mut lit = ListToolsResult::default();
        lit.tools = vec![tool, minimal];
        lit.next_cursor = Some("c".into());
        lit.meta = Some(meta());
        lit
    });
    check("ListToolsResult", &ListToolsResult::default());
}

#[test]
fn prompt_types() {
    let prompt = {
        let mut lit = Prompt::new("code_review");
        lit.title = Some("Code review".into());
        lit.description = Some("Reviews code".into());
        lit.arguments = Some(vec![{
            let mut lit = PromptArgument::default();
            lit.name = "code".into();
            lit.title = Some("Code".into());
            lit.description = Some("The code to review".into());
            lit.required = Some(true);
            lit
        }]);
        lit.icons = Some(vec![full_icon()]);
        lit.meta = Some(meta());
        lit
    };
    check("Prompt", &prompt);
    check("Prompt", &Prompt::new("p"));
    check("PromptArgument", &prompt.arguments.clone().unwrap()[0]);
    check("PromptArgument", &{
        let mut lit = PromptArgument::default();
        lit.name = "a".into();
        lit
    });
    check("ListPromptsResult", &{
        let mut lit = ListPromptsResult::default();
        lit.prompts = vec![prompt];
        lit.next_cursor = Some("n".into());
        lit.meta = Some(meta());
        lit
    });
    check("ListPromptsResult", &ListPromptsResult::default());
    let mut args = BTreeMap::new();
    args.insert("code".to_string(), "fn main() {}".to_string());
    check("GetPromptRequestParams", &{
        let mut lit = GetPromptRequestParams::new("code_review");
        lit.arguments = Some(args);
        lit.meta = Some(request_meta());
        lit
    });
    check("GetPromptRequestParams", &GetPromptRequestParams::new("p"));
    let messages = vec![
        PromptMessage::user_text("Please review"),
        PromptMessage::assistant_text("Sure"),
        PromptMessage::new(Role::User, ContentBlock::Image(full_image())),
        PromptMessage::new(Role::User, ContentBlock::Resource(full_embedded())),
        PromptMessage::new(Role::User, ContentBlock::ResourceLink(full_resource_link())),
    ];
    for m in &messages {
        check("PromptMessage", m);
    }
    check("GetPromptResult", &{
        let mut lit = GetPromptResult::default();
        lit.description = Some("A review".into());
        lit.messages = messages;
        lit.meta = Some(meta());
        lit
    });
    check("GetPromptResult", &GetPromptResult::default());
}

#[test]
fn completion_types() {
    let mut ctx = BTreeMap::new();
    ctx.insert("owner".to_string(), "modelcontextprotocol".to_string());
    let full = {
        let mut lit = CompleteRequestParams::new(
            {
                let mut lit = PromptReference::new("code_review");
                lit.title = Some("Code review".into());
                lit
            },
            "language",
            "py",
        );
        lit.context = Some({
            let mut lit = CompleteContext::default();
            lit.arguments = Some(ctx);
            lit
        });
        lit.meta = Some(request_meta());
        lit
    };
    let json = check("CompleteRequestParams", &full);
    assert_eq!(json["ref"]["type"], "ref/prompt");
    let minimal = CompleteRequestParams::new(
        ResourceTemplateReference::new("github://repos/{owner}/{repo}"),
        "repo",
        "",
    );
    let json = check("CompleteRequestParams", &minimal);
    assert_eq!(json["ref"]["type"], "ref/resource");
    check("PromptReference", &PromptReference::new("p"));
    check(
        "ResourceTemplateReference",
        &ResourceTemplateReference::new("file:///{path}"),
    );
    assert!(serde_json::from_value::<Reference>(json!({"type": "ref/tool", "name": "x"})).is_err());

    let result = CompleteResult::new(vec!["python".into(), "pytorch".into()]);
    let json = check("CompleteResult", &result);
    assert_eq!(
        json,
        json!({"completion": {"values": ["python", "pytorch"]}})
    );
    let many = CompleteResult::new((0..150).map(|i| i.to_string()).collect());
    let json = check("CompleteResult", &many);
    assert_eq!(json["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(json["completion"]["total"], 150);
    assert_eq!(json["completion"]["hasMore"], true);
    check("CompleteResult", &{
        let mut lit = result;
        lit.meta = Some(meta());
        lit
    });
}

#[test]
fn logging_types() {
    for level in LoggingLevel::ALL {
        check("LoggingLevel", &level);
        assert_eq!(level.as_str().parse::<LoggingLevel>().unwrap(), level);
        assert_eq!(
            serde_json::to_value(level).unwrap(),
            json!(level.to_string())
        );
    }
    assert!(LoggingLevel::Debug < LoggingLevel::Info);
    assert!(LoggingLevel::Info < LoggingLevel::Notice);
    assert!(LoggingLevel::Notice < LoggingLevel::Warning);
    assert!(LoggingLevel::Warning < LoggingLevel::Error);
    assert!(LoggingLevel::Error < LoggingLevel::Critical);
    assert!(LoggingLevel::Critical < LoggingLevel::Alert);
    assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
    let min = LoggingLevel::Warning;
    let passed: Vec<_> = LoggingLevel::ALL
        .into_iter()
        .filter(|l| *l >= min)
        .collect();
    assert_eq!(passed.len(), 5);
    assert!("verbose".parse::<LoggingLevel>().is_err());

    check("SetLevelRequestParams", &{
        let mut lit = SetLevelRequestParams::default();
        lit.level = LoggingLevel::Warning;
        lit.meta = Some(request_meta());
        lit
    });
    check("LoggingMessageNotificationParams", &{
        let mut lit = LoggingMessageNotificationParams::new(
            LoggingLevel::Error,
            json!({"error": "Connection failed", "details": {"host": "localhost"}}),
        );
        lit.logger = Some("database".into());
        lit.meta = Some(meta());
        lit
    });
    check(
        "LoggingMessageNotificationParams",
        &LoggingMessageNotificationParams::new(LoggingLevel::Info, "started"),
    );
    // `data` is required (any JSON, including null).
    assert!(
        serde_json::from_value::<LoggingMessageNotificationParams>(json!({"level": "info"}))
            .is_err()
    );
}
