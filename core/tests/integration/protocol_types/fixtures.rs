//! The full values of the protocol types: every optional field set, so a check sees each one.

use super::*;

pub(super) fn full_annotations() -> Annotations {
    {
        let mut lit = Annotations::default();
        lit.audience = Some(vec![Role::User, Role::Assistant]);
        lit.priority = Some(0.8);
        lit.last_modified = Some("2025-01-12T15:00:58Z".into());
        lit
    }
}

pub(super) fn full_icon() -> Icon {
    {
        let mut lit = Icon::default();
        lit.src = "https://example.com/icon-48.png".into();
        lit.mime_type = Some("image/png".into());
        lit.sizes = Some(vec!["48x48".into(), "96x96".into()]);
        lit.theme = Some(IconTheme::Dark);
        lit
    }
}

pub(super) fn full_text() -> TextContent {
    {
        let mut lit = TextContent::new("Hello, world");
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_image() -> ImageContent {
    {
        let mut lit = ImageContent::new("iVBORw0KGgo=", "image/png");
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_audio() -> AudioContent {
    {
        let mut lit = AudioContent::new("UklGRiQAAABXQVZF", "audio/wav");
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_resource_link() -> ResourceLink {
    {
        let mut lit = ResourceLink::new("file:///project/src/main.rs", "main.rs");
        lit.title = Some("Main".into());
        lit.description = Some("The entry point".into());
        lit.mime_type = Some("text/x-rust".into());
        lit.size = Some(1024);
        lit.annotations = Some(full_annotations());
        lit.icons = Some(vec![full_icon()]);
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_text_contents() -> TextResourceContents {
    {
        let mut lit = TextResourceContents::new("file:///notes.txt", "some notes");
        lit.mime_type = Some("text/plain".into());
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_blob_contents() -> BlobResourceContents {
    {
        let mut lit = BlobResourceContents::new("file:///data.bin", "AAEC");
        lit.mime_type = Some("application/octet-stream".into());
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_embedded() -> EmbeddedResource {
    {
        let mut lit = EmbeddedResource::new(full_text_contents());
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_tool_use() -> ToolUseContent {
    {
        let mut lit = ToolUseContent::default();
        lit.id = "toolu_01".into();
        lit.name = "get_weather".into();
        lit.input = obj(json!({"city": "Paris"}));
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_tool_result() -> ToolResultContent {
    {
        let mut lit = ToolResultContent::default();
        lit.tool_use_id = "toolu_01".into();
        lit.content = vec![ContentBlock::text("18°C, sunny")];
        lit.structured_content = Some(json!({"temperature": 18, "conditions": "sunny"}));
        lit.is_error = Some(false);
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_tool() -> Tool {
    {
        let mut lit = Tool::default();
        lit.name = "get_weather".into();
        lit.title = Some("Weather".into());
        lit.description = Some("Current weather for a city".into());
        lit.input_schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        });
        lit.output_schema = Some(json!({
            "type": "object",
            "properties": {"temperature": {"type": "number"}},
            "required": ["temperature"]
        }));
        lit.annotations = Some({
            let mut lit = ToolAnnotations::default();
            lit.title = Some("Weather lookup".into());
            lit.read_only_hint = Some(true);
            lit.destructive_hint = Some(false);
            lit.idempotent_hint = Some(true);
            lit.open_world_hint = Some(true);
            lit
        });
        lit.execution = Some({
            let mut lit = ToolExecution::default();
            lit.task_support = Some(TaskSupport::Optional);
            lit
        });
        lit.icons = Some(vec![full_icon()]);
        lit.meta = Some(meta());
        lit
    }
}

pub(super) fn full_task() -> Task {
    {
        let mut lit = Task::new("task-123", TaskStatus::Working, "2025-11-25T10:30:00Z");
        lit.status_message = Some("halfway".into());
        lit.ttl = Some(60_000);
        lit.poll_interval = Some(1_000);
        lit
    }
}

pub(super) fn full_implementation() -> Implementation {
    {
        let mut lit = Implementation::new("example-server", "1.2.3");
        lit.title = Some("Example Server".into());
        lit.description = Some("Does example things".into());
        lit.website_url = Some("https://example.com".into());
        lit.icons = Some(vec![full_icon()]);
        lit
    }
}

pub(super) fn full_client_capabilities() -> ClientCapabilities {
    {
        let mut lit = ClientCapabilities::default();
        lit.experimental = Some(obj(json!({"io.example/feature": {"on": true}})));
        lit.roots = Some({
            let mut lit = RootsCapability::default();
            lit.list_changed = Some(true);
            lit
        });
        lit.sampling = Some({
            let mut lit = SamplingCapability::default();
            lit.context = Some(JsonObject::new());
            lit.tools = Some(JsonObject::new());
            lit
        });
        lit.elicitation = Some({
            let mut lit = ElicitationCapability::default();
            lit.form = Some(JsonObject::new());
            lit.url = Some(JsonObject::new());
            lit
        });
        lit.tasks = Some({
            let mut lit = ClientTasksCapability::default();
            lit.list = Some(JsonObject::new());
            lit.cancel = Some(JsonObject::new());
            lit.requests = Some({
                let mut lit = ClientTaskRequests::default();
                lit.elicitation = Some({
                    let mut lit = ElicitationTaskRequests::default();
                    lit.create = Some(JsonObject::new());
                    lit
                });
                lit.sampling = Some({
                    let mut lit = SamplingTaskRequests::default();
                    lit.create_message = Some(JsonObject::new());
                    lit
                });
                lit
            });
            lit
        });
        lit
    }
}

pub(super) fn full_server_capabilities() -> ServerCapabilities {
    {
        let mut lit = ServerCapabilities::default();
        lit.experimental = Some(obj(json!({"io.example/feature": {}})));
        lit.logging = Some(JsonObject::new());
        lit.completions = Some(JsonObject::new());
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
        lit.tools = Some({
            let mut lit = ToolsCapability::default();
            lit.list_changed = Some(false);
            lit
        });
        lit.tasks = Some({
            let mut lit = ServerTasksCapability::default();
            lit.list = Some(JsonObject::new());
            lit.cancel = Some(JsonObject::new());
            lit.requests = Some({
                let mut lit = ServerTaskRequests::default();
                lit.tools = Some({
                    let mut lit = ToolsTaskRequests::default();
                    lit.call = Some(JsonObject::new());
                    lit
                });
                lit
            });
            lit
        });
        lit
    }
}

pub(super) fn full_elicitation_schema() -> ElicitationSchema {
    let mut properties = BTreeMap::new();
    properties.insert(
        "name".to_string(),
        PrimitiveSchemaDefinition::String({
            let mut lit = StringSchema::default();
            lit.title = Some("Name".into());
            lit.description = Some("Your name".into());
            lit.min_length = Some(1);
            lit.max_length = Some(100);
            lit.default = Some("Ada".into());
            lit
        }),
    );
    properties.insert(
        "email".to_string(),
        PrimitiveSchemaDefinition::String({
            let mut lit = StringSchema::default();
            lit.format = Some(StringFormat::Email);
            lit
        }),
    );
    properties.insert(
        "age".to_string(),
        PrimitiveSchemaDefinition::Number({
            let mut lit = NumberSchema::default();
            lit.kind = NumberType::Integer;
            lit.title = Some("Age".into());
            lit.description = Some("In years".into());
            lit.minimum = Some(0.0);
            lit.maximum = Some(150.0);
            lit.default = Some(30.0);
            lit
        }),
    );
    properties.insert(
        "subscribe".to_string(),
        PrimitiveSchemaDefinition::Boolean({
            let mut lit = BooleanSchema::default();
            lit.title = Some("Subscribe".into());
            lit.description = Some("Get the newsletter".into());
            lit.default = Some(false);
            lit
        }),
    );
    properties.insert(
        "color".to_string(),
        PrimitiveSchemaDefinition::UntitledSingleSelectEnum({
            let mut lit = UntitledSingleSelectEnumSchema::default();
            lit.title = Some("Color".into());
            lit.description = Some("Pick one".into());
            lit.values = vec!["red".into(), "green".into()];
            lit.default = Some("red".into());
            lit
        }),
    );
    properties.insert(
        "size".to_string(),
        PrimitiveSchemaDefinition::TitledSingleSelectEnum({
            let mut lit = TitledSingleSelectEnumSchema::default();
            lit.title = Some("Size".into());
            lit.description = Some("Pick a size".into());
            lit.one_of = vec![EnumOption::new("s", "Small"), EnumOption::new("l", "Large")];
            lit.default = Some("s".into());
            lit
        }),
    );
    properties.insert(
        "tags".to_string(),
        PrimitiveSchemaDefinition::UntitledMultiSelectEnum({
            let mut lit = UntitledMultiSelectEnumSchema::default();
            lit.title = Some("Tags".into());
            lit.description = Some("Pick some".into());
            lit.min_items = Some(1);
            lit.max_items = Some(2);
            lit.items = {
                let mut lit = UntitledEnumItems::default();
                lit.values = vec!["a".into(), "b".into(), "c".into()];
                lit
            };
            lit.default = Some(vec!["a".into()]);
            lit
        }),
    );
    properties.insert(
        "toppings".to_string(),
        PrimitiveSchemaDefinition::TitledMultiSelectEnum({
            let mut lit = TitledMultiSelectEnumSchema::default();
            lit.title = Some("Toppings".into());
            lit.description = Some("Pick toppings".into());
            lit.min_items = Some(0);
            lit.max_items = Some(3);
            lit.items = {
                let mut lit = TitledEnumItems::default();
                lit.any_of = vec![
                    EnumOption::new("ch", "Cheese"),
                    EnumOption::new("ol", "Olives"),
                ];
                lit
            };
            lit.default = Some(vec!["ch".into()]);
            lit
        }),
    );
    properties.insert(
        "legacy".to_string(),
        PrimitiveSchemaDefinition::LegacyTitledEnum({
            let mut lit = LegacyTitledEnumSchema::default();
            lit.title = Some("Legacy".into());
            lit.description = Some("Old style".into());
            lit.values = vec!["x".into(), "y".into()];
            lit.enum_names = Some(vec!["Ex".into(), "Why".into()]);
            lit.default = Some("x".into());
            lit
        }),
    );
    {
        let mut lit = ElicitationSchema::default();
        lit.schema = Some("https://json-schema.org/draft/2020-12/schema".into());
        lit.properties = properties;
        lit.required = Some(vec!["name".into()]);
        lit
    }
}

pub(super) fn full_form_params() -> ElicitRequestFormParams {
    {
        let mut lit = ElicitRequestFormParams::default();
        lit.mode = Some(FormMode);
        lit.message = "Please tell us about yourself".into();
        lit.requested_schema = full_elicitation_schema();
        lit.task = Some({
            let mut lit = TaskMetadata::default();
            lit.ttl = Some(60_000);
            lit
        });
        lit.meta = Some(request_meta());
        lit
    }
}

pub(super) fn full_url_params() -> ElicitRequestURLParams {
    {
        let mut lit = ElicitRequestURLParams::default();
        lit.message = "Please authorize access".into();
        lit.url = "https://example.com/oauth/authorize?state=xyz".into();
        lit.elicitation_id = "elicit-42".into();
        lit.task = Some(TaskMetadata::default());
        lit.meta = Some(request_meta());
        lit
    }
}

pub(super) fn full_create_message_params() -> CreateMessageRequestParams {
    {
        let mut lit = CreateMessageRequestParams::default();
        lit.messages = vec![
            SamplingMessage::user_text("What's the weather in Paris?"),
            {
                let mut lit = SamplingMessage::new(
                    Role::Assistant,
                    SamplingContent::Multiple(vec![
                        SamplingMessageContentBlock::text("Let me check."),
                        SamplingMessageContentBlock::ToolUse(full_tool_use()),
                    ]),
                );
                lit.meta = Some(meta());
                lit
            },
            SamplingMessage::new(
                Role::User,
                vec![SamplingMessageContentBlock::ToolResult(full_tool_result())],
            ),
            SamplingMessage::new(Role::User, SamplingMessageContentBlock::Image(full_image())),
            SamplingMessage::new(Role::User, SamplingMessageContentBlock::Audio(full_audio())),
        ];
        lit.model_preferences = Some({
            let mut lit = ModelPreferences::default();
            lit.hints = Some(vec![{
                let mut lit = ModelHint::default();
                lit.name = Some("claude-3-5-sonnet".into());
                lit
            }]);
            lit.cost_priority = Some(0.3);
            lit.speed_priority = Some(0.5);
            lit.intelligence_priority = Some(0.9);
            lit
        });
        lit.system_prompt = Some("You are a helpful assistant.".into());
        lit.include_context = Some(IncludeContext::ThisServer);
        lit.temperature = Some(0.7);
        lit.max_tokens = 100;
        lit.stop_sequences = Some(vec!["\n\nHuman:".into()]);
        lit.metadata = Some(obj(json!({"provider": {"x": 1}})));
        lit.tools = Some(vec![full_tool()]);
        lit.tool_choice = Some({
            let mut lit = ToolChoice::default();
            lit.mode = Some(ToolChoiceMode::Auto);
            lit
        });
        lit.task = Some({
            let mut lit = TaskMetadata::default();
            lit.ttl = Some(5_000);
            lit
        });
        lit.meta = Some(request_meta());
        lit
    }
}
