//! Proves the protocol types emit what the official schemas accept and decode what real peers
//! send: every type is built in a full and a minimal form, validated against the 2025-11-25
//! definition of the same name (and older revisions where the shape existed), decoded back and
//! compared; unknown fields survive at every level; and every example message of the spec
//! documents and examples folder decodes and re-encodes unchanged.

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;

use common::spec_schema::{assert_invalid, assert_valid, definitions, has_definition, is_valid};
use ferromcp::jsonrpc::RequestId;
use ferromcp::protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

const LATEST: &str = "2025-11-25";
const OLDER: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];

/// JSON equality where numbers compare by value (`1` == `1.0`): the wire meaning, not the
/// serde_json representation.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn assert_json_eq(actual: &Value, expected: &Value, what: &str) {
    assert!(
        json_eq(actual, expected),
        "{what}: JSON differs\nexpected: {}\nactual:   {}",
        serde_json::to_string_pretty(expected).unwrap(),
        serde_json::to_string_pretty(actual).unwrap()
    );
}

/// Serializes `value`, validates it as `definition` of the latest revision, decodes it back
/// and checks both the Rust value and the JSON survive. Returns the JSON.
fn check<T>(definition: &str, value: &T) -> Value
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let json = serde_json::to_value(value).expect("serialize");
    assert_valid(LATEST, definition, &json);
    let back: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{definition}: cannot decode own output {json}: {e}"));
    assert_eq!(&back, value, "{definition}: round trip changed the value");
    assert_json_eq(&serde_json::to_value(&back).unwrap(), &json, definition);
    json
}

/// Decodes `json` as `T`, re-encodes and requires the same JSON.
fn decode_roundtrip<T>(what: &str, json: &Value) -> T
where
    T: Serialize + DeserializeOwned,
{
    let t: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{what}: cannot decode {json}: {e}"));
    assert_json_eq(&serde_json::to_value(&t).unwrap(), json, what);
    t
}

fn meta() -> Meta {
    let mut m = Meta::new();
    m.insert("io.example/trace".into(), json!("abc"));
    m
}

fn request_meta() -> Meta {
    with_progress_token(Some(meta()), ProgressToken::from("progress-1"))
}

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Full values

fn full_annotations() -> Annotations {
    {
        let mut lit = Annotations::default();
        lit.audience = Some(vec![Role::User, Role::Assistant]);
        lit.priority = Some(0.8);
        lit.last_modified = Some("2025-01-12T15:00:58Z".into());
        lit
    }
}

fn full_icon() -> Icon {
    {
        let mut lit = Icon::default();
        lit.src = "https://example.com/icon-48.png".into();
        lit.mime_type = Some("image/png".into());
        lit.sizes = Some(vec!["48x48".into(), "96x96".into()]);
        lit.theme = Some(IconTheme::Dark);
        lit
    }
}

fn full_text() -> TextContent {
    {
        let mut lit = TextContent::new("Hello, world");
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

fn full_image() -> ImageContent {
    {
        let mut lit = ImageContent::new("iVBORw0KGgo=", "image/png");
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

fn full_audio() -> AudioContent {
    {
        let mut lit = AudioContent::new("UklGRiQAAABXQVZF", "audio/wav");
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

fn full_resource_link() -> ResourceLink {
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

fn full_text_contents() -> TextResourceContents {
    {
        let mut lit = TextResourceContents::new("file:///notes.txt", "some notes");
        lit.mime_type = Some("text/plain".into());
        lit.meta = Some(meta());
        lit
    }
}

fn full_blob_contents() -> BlobResourceContents {
    {
        let mut lit = BlobResourceContents::new("file:///data.bin", "AAEC");
        lit.mime_type = Some("application/octet-stream".into());
        lit.meta = Some(meta());
        lit
    }
}

fn full_embedded() -> EmbeddedResource {
    {
        let mut lit = EmbeddedResource::new(full_text_contents());
        lit.annotations = Some(full_annotations());
        lit.meta = Some(meta());
        lit
    }
}

fn full_tool_use() -> ToolUseContent {
    {
        let mut lit = ToolUseContent::default();
        lit.id = "toolu_01".into();
        lit.name = "get_weather".into();
        lit.input = obj(json!({"city": "Paris"}));
        lit.meta = Some(meta());
        lit
    }
}

fn full_tool_result() -> ToolResultContent {
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

fn full_tool() -> Tool {
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

fn full_task() -> Task {
    {
        let mut lit = Task::new("task-123", TaskStatus::Working, "2025-11-25T10:30:00Z");
        lit.status_message = Some("halfway".into());
        lit.ttl = Some(60_000);
        lit.poll_interval = Some(1_000);
        lit
    }
}

fn full_implementation() -> Implementation {
    {
        let mut lit = Implementation::new("example-server", "1.2.3");
        lit.title = Some("Example Server".into());
        lit.description = Some("Does example things".into());
        lit.website_url = Some("https://example.com".into());
        lit.icons = Some(vec![full_icon()]);
        lit
    }
}

fn full_client_capabilities() -> ClientCapabilities {
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

fn full_server_capabilities() -> ServerCapabilities {
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

fn full_elicitation_schema() -> ElicitationSchema {
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

fn full_form_params() -> ElicitRequestFormParams {
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

fn full_url_params() -> ElicitRequestURLParams {
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

fn full_create_message_params() -> CreateMessageRequestParams {
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

// ---------------------------------------------------------------------------------------------
// Per-type tests: full and minimal forms against the 2025-11-25 schema

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

#[test]
fn lifecycle_types() {
    check("Implementation", &full_implementation());
    check("Implementation", &Implementation::new("c", "0.1"));
    check("ClientCapabilities", &full_client_capabilities());
    check("ClientCapabilities", &ClientCapabilities::default());
    check("ServerCapabilities", &full_server_capabilities());
    check("ServerCapabilities", &ServerCapabilities::default());
    check("InitializeRequestParams", &{
        let mut lit = InitializeRequestParams::default();
        lit.protocol_version = ProtocolVersion::LATEST.to_string();
        lit.capabilities = full_client_capabilities();
        lit.client_info = full_implementation();
        lit.meta = Some(request_meta());
        lit
    });
    check("InitializeRequestParams", &{
        let mut lit = InitializeRequestParams::default();
        lit.protocol_version = "2024-11-05".into();
        lit.client_info = Implementation::new("c", "1");
        lit
    });
    check("InitializeResult", &{
        let mut lit = InitializeResult::default();
        lit.protocol_version = "2025-11-25".into();
        lit.capabilities = full_server_capabilities();
        lit.server_info = full_implementation();
        lit.instructions = Some("Use the weather tool for forecasts.".into());
        lit.meta = Some(meta());
        lit
    });
    check("InitializeResult", &{
        let mut lit = InitializeResult::default();
        lit.protocol_version = "2025-11-25".into();
        lit.server_info = Implementation::new("s", "1");
        lit
    });

    // An empty elicitation capability means form mode only.
    let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    let e = caps.elicitation.unwrap();
    assert!(e.supports_form() && !e.supports_url());
    let e: ElicitationCapability = serde_json::from_value(json!({"url": {}})).unwrap();
    assert!(!e.supports_form() && e.supports_url());
}

#[test]
fn roots_and_sampling_types() {
    let root = {
        let mut lit = Root::new("file:///home/user/project");
        lit.name = Some("My project".into());
        lit.meta = Some(meta());
        lit
    };
    check("Root", &root);
    check("Root", &Root::new("file:///"));
    check("ListRootsResult", &{
        let mut lit = ListRootsResult::default();
        lit.roots = vec![root];
        lit.meta = Some(meta());
        lit
    });
    check("ListRootsResult", &ListRootsResult::default());

    let params = full_create_message_params();
    check("CreateMessageRequestParams", &params);
    for m in &params.messages {
        check("SamplingMessage", m);
    }
    check(
        "ModelPreferences",
        params.model_preferences.as_ref().unwrap(),
    );
    check("ModelPreferences", &ModelPreferences::default());
    check("ModelHint", &ModelHint::default());
    for mode in [
        ToolChoiceMode::Auto,
        ToolChoiceMode::None,
        ToolChoiceMode::Required,
    ] {
        check("ToolChoice", &{
            let mut lit = ToolChoice::default();
            lit.mode = Some(mode);
            lit
        });
    }
    let minimal = {
        let mut lit = CreateMessageRequestParams::default();
        lit.messages = vec![SamplingMessage::user_text("hi")];
        lit.max_tokens = 10;
        lit
    };
    let json = check("CreateMessageRequestParams", &minimal);
    assert_eq!(
        json,
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10})
    );
    for ctx in [
        IncludeContext::None,
        IncludeContext::ThisServer,
        IncludeContext::AllServers,
    ] {
        let p = {
            let mut lit = minimal.clone();
            lit.include_context = Some(ctx);
            lit
        };
        check("CreateMessageRequestParams", &p);
    }

    check("CreateMessageResult", &{
        let mut lit = CreateMessageResult::new(
            SamplingContent::Multiple(vec![
                SamplingMessageContentBlock::text("Checking"),
                SamplingMessageContentBlock::ToolUse(full_tool_use()),
            ]),
            "claude-3-sonnet-20240307",
        );
        lit.role = Role::Assistant;
        lit.stop_reason = Some("toolUse".into());
        lit.meta = Some(meta());
        lit
    });
    let single = {
        let mut lit = CreateMessageResult::new(SamplingContent::text("It is sunny."), "m");
        lit.role = Role::Assistant;
        lit
    };
    let json = check("CreateMessageResult", &single);
    assert!(json["content"].is_object());
    let err = serde_json::from_value::<SamplingContent>(json!([{"type": "video"}]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("video"), "{err}");
    assert_eq!(single.content.blocks().len(), 1);
    assert_eq!(single.content.blocks()[0].as_text(), Some("It is sunny."));
}

#[test]
fn elicitation_types() {
    let form = full_form_params();
    check("ElicitRequestFormParams", &form);
    check(
        "ElicitRequestParams",
        &ElicitRequestParams::Form(form.clone()),
    );
    for (name, field) in &form.requested_schema.properties {
        let def = match field {
            PrimitiveSchemaDefinition::String(_) => "StringSchema",
            PrimitiveSchemaDefinition::Number(_) => "NumberSchema",
            PrimitiveSchemaDefinition::Boolean(_) => "BooleanSchema",
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(_) => {
                "UntitledSingleSelectEnumSchema"
            }
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(_) => "TitledSingleSelectEnumSchema",
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(_) => {
                "UntitledMultiSelectEnumSchema"
            }
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(_) => "TitledMultiSelectEnumSchema",
            PrimitiveSchemaDefinition::LegacyTitledEnum(_) => "LegacyTitledEnumSchema",
            other => panic!("a field type this test does not know: {other:?}"),
        };
        let json = check("PrimitiveSchemaDefinition", field);
        assert_valid(LATEST, def, &json);
        // Decoding picks the same variant.
        let back: PrimitiveSchemaDefinition = serde_json::from_value(json).unwrap();
        assert_eq!(&back, field, "{name}");
    }
    assert_eq!(form.requested_schema.properties.len(), 9);

    // Minimal form: no mode (the 2025-06-18 shape), a single string field.
    let mut properties = BTreeMap::new();
    properties.insert(
        "name".to_string(),
        PrimitiveSchemaDefinition::String(StringSchema::default()),
    );
    let minimal = {
        let mut lit = ElicitRequestFormParams::default();
        lit.message = "Name?".into();
        lit.requested_schema = {
            let mut lit = ElicitationSchema::default();
            lit.properties = properties;
            lit
        };
        lit
    };
    let json = check("ElicitRequestFormParams", &minimal);
    assert!(json.get("mode").is_none());
    assert_valid(
        "2025-06-18",
        "ElicitRequest",
        &json!({
            "jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": json
        }),
    );
    let decoded: ElicitRequestParams = serde_json::from_value(json.clone()).unwrap();
    assert!(matches!(decoded, ElicitRequestParams::Form(_)));

    let url = full_url_params();
    let json = check("ElicitRequestURLParams", &url);
    assert_eq!(json["mode"], "url");
    check(
        "ElicitRequestParams",
        &ElicitRequestParams::Url(url.clone()),
    );
    let decoded: ElicitRequestParams = serde_json::from_value(json).unwrap();
    assert!(matches!(decoded, ElicitRequestParams::Url(_)));
    assert_eq!(decoded.message(), "Please authorize access");
    let minimal_url = {
        let mut lit = ElicitRequestURLParams::default();
        lit.message = "m".into();
        lit.url = "https://example.com/".into();
        lit.elicitation_id = "e".into();
        lit
    };
    check("ElicitRequestURLParams", &minimal_url);
    assert!(serde_json::from_value::<ElicitRequestParams>(json!({
        "mode": "telepathy", "message": "m"
    }))
    .is_err());
    // A URL-mode request without its URL is rejected, not silently read as a form.
    assert!(serde_json::from_value::<ElicitRequestParams>(json!({
        "mode": "url", "message": "m", "elicitationId": "e"
    }))
    .is_err());

    let accepted = {
        let mut lit = ElicitResult::accept(obj(json!({
            "name": "Ada", "age": 36, "subscribe": true, "tags": ["a", "b"]
        })));
        lit.meta = Some(meta());
        lit
    };
    check("ElicitResult", &accepted);
    for action in [
        ElicitAction::Accept,
        ElicitAction::Decline,
        ElicitAction::Cancel,
    ] {
        check("ElicitResult", &ElicitResult::new(action));
    }

    let data = {
        let mut lit = URLElicitationRequiredErrorData::default();
        lit.elicitations = vec![url];
        lit
    };
    assert_valid(
        LATEST,
        "URLElicitationRequiredError",
        &json!({
            "jsonrpc": "2.0",
            "id": 3,
            "error": {
                "code": ferromcp::codes::URL_ELICITATION_REQUIRED,
                "message": "Authorization required",
                "data": serde_json::to_value(&data).unwrap()
            }
        }),
    );
}

#[test]
fn task_types() {
    let task = full_task();
    let json = check("Task", &task);
    assert_eq!(json["status"], "working");
    assert!(json["ttl"].is_u64());
    // Unlimited retention is an explicit null: `ttl` is required.
    let unlimited = Task::new("t", TaskStatus::Completed, "2025-11-25T10:30:00Z");
    let json = check("Task", &unlimited);
    assert_eq!(json.get("ttl"), Some(&Value::Null));
    let mut without_ttl = json.clone();
    without_ttl.as_object_mut().unwrap().remove("ttl");
    assert_invalid(LATEST, "Task", &without_ttl);

    let statuses = [
        (TaskStatus::Working, "working", false),
        (TaskStatus::InputRequired, "input_required", false),
        (TaskStatus::Completed, "completed", true),
        (TaskStatus::Failed, "failed", true),
        (TaskStatus::Cancelled, "cancelled", true),
    ];
    for (status, wire, terminal) in statuses {
        assert_eq!(check("TaskStatus", &status), json!(wire));
        assert_eq!(status.is_terminal(), terminal);
    }

    check("TaskMetadata", &{
        let mut lit = TaskMetadata::default();
        lit.ttl = Some(1000);
        lit
    });
    check("TaskMetadata", &TaskMetadata::default());
    check("CreateTaskResult", &{
        let mut lit = CreateTaskResult::new(task.clone());
        lit.meta = Some(meta());
        lit
    });
    check(
        "CreateTaskResult",
        &CreateTaskResult::new(unlimited.clone()),
    );
    let with_meta = {
        let mut lit = TaskWithMeta::new(task.clone());
        lit.meta = Some(meta());
        lit
    };
    for def in [
        "GetTaskResult",
        "CancelTaskResult",
        "TaskStatusNotificationParams",
    ] {
        check(def, &with_meta);
        check(def, &TaskWithMeta::from(unlimited.clone()));
    }
    let json = serde_json::to_value(&with_meta).unwrap();
    assert_eq!(json["taskId"], "task-123");
    assert!(json["_meta"].is_object());

    // tasks/get, tasks/result, tasks/cancel params (inline in the schema).
    let params = serde_json::to_value(TaskIdParams::new("task-123")).unwrap();
    for (def, method) in [
        ("GetTaskRequest", methods::TASKS_GET),
        ("GetTaskPayloadRequest", methods::TASKS_RESULT),
        ("CancelTaskRequest", methods::TASKS_CANCEL),
    ] {
        assert_valid(
            LATEST,
            def,
            &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        );
    }
    assert_valid(
        LATEST,
        "ListTasksRequest",
        &json!({"jsonrpc": "2.0", "id": 1, "method": methods::TASKS_LIST,
                "params": serde_json::to_value(PaginatedRequestParams::with_cursor("c")).unwrap()}),
    );

    check("ListTasksResult", &{
        let mut lit = ListTasksResult::default();
        lit.tasks = vec![task, unlimited];
        lit.next_cursor = Some("n".into());
        lit.meta = Some(meta());
        lit
    });
    check("ListTasksResult", &ListTasksResult::default());

    // tasks/result carries the original result type.
    let original = CallToolResult::structured(json!({"ok": true}));
    let payload = GetTaskPayloadResult::from_result(&original).unwrap();
    check("GetTaskPayloadResult", &payload);
    assert_valid(
        LATEST,
        "CallToolResult",
        &serde_json::to_value(&payload).unwrap(),
    );
    assert_eq!(payload.parse::<CallToolResult>().unwrap(), original);

    // Related-task metadata in _meta.
    let mut m = Meta::new();
    m.insert(RELATED_TASK_META_KEY.into(), json!({"taskId": "task-123"}));
    assert_eq!(related_task(Some(&m)).unwrap().task_id, "task-123");
}

#[test]
fn notification_types() {
    check("CancelledNotificationParams", &{
        let mut lit = CancelledNotificationParams::new(
            RequestId::from(123),
            Some("User requested cancellation".into()),
        );
        lit.meta = Some(meta());
        lit
    });
    check(
        "CancelledNotificationParams",
        &CancelledNotificationParams::default(),
    );
    // requestId is required before 2025-11-25; we always send it when we have one.
    let p = serde_json::to_value(CancelledNotificationParams::new(
        RequestId::from("r1"),
        None,
    ))
    .unwrap();
    for rev in OLDER {
        assert_valid(
            rev,
            "CancelledNotification",
            &json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_CANCELLED, "params": p}),
        );
    }

    check("ProgressNotificationParams", &{
        let mut lit =
            ProgressNotificationParams::new(ProgressToken::from("abc123"), 50.0, Some(100.0));
        lit.message = Some("Reticulating splines".into());
        lit.meta = Some(meta());
        lit
    });
    let p = check(
        "ProgressNotificationParams",
        &ProgressNotificationParams::new(ProgressToken::from(7), 0.5, None),
    );
    assert_eq!(p, json!({"progressToken": 7, "progress": 0.5}));

    // The params of notifications/elicitation/complete have no definition of their own.
    let done = {
        let mut lit = ElicitationCompleteNotificationParams::default();
        lit.elicitation_id = "elicit-42".into();
        lit.meta = Some(meta());
        lit
    };
    let params = serde_json::to_value(&done).unwrap();
    assert_valid(
        LATEST,
        "ElicitationCompleteNotification",
        &json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_ELICITATION_COMPLETE,
                "params": params}),
    );
    assert_eq!(
        serde_json::from_value::<ElicitationCompleteNotificationParams>(params).unwrap(),
        done
    );
}

#[test]
fn method_names_match_the_schema() {
    // Every request/notification definition's `method` const is one of ours, and vice versa.
    let doc = common::spec_schema::document(LATEST);
    let defs = doc["$defs"].as_object().unwrap();
    let mut schema_methods: Vec<String> = defs
        .values()
        .filter_map(|d| d.pointer("/properties/method/const"))
        .filter_map(|m| m.as_str().map(str::to_owned))
        .collect();
    schema_methods.sort();
    schema_methods.dedup();
    let mut ours: Vec<String> = methods::ALL_REQUESTS
        .iter()
        .chain(methods::ALL_NOTIFICATIONS)
        .map(|m| m.to_string())
        .collect();
    ours.sort();
    let before = ours.len();
    ours.dedup();
    assert_eq!(before, ours.len(), "duplicate method constant");
    assert_eq!(ours, schema_methods);
}

// ---------------------------------------------------------------------------------------------
// Unknown fields survive at every level

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

// ---------------------------------------------------------------------------------------------
// Older revisions

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

// ---------------------------------------------------------------------------------------------
// Real data: every example of the spec decodes and re-encodes unchanged

type Codec = fn(&Value) -> Result<Value, String>;

macro_rules! registry {
    ($($def:literal => $ty:ty),* $(,)?) => {
        /// Definition name → decode-then-encode through our type of that name.
        fn registry() -> Vec<(&'static str, Codec)> {
            vec![$(($def, (|v: &Value| {
                let t: $ty = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
                serde_json::to_value(&t).map_err(|e| e.to_string())
            }) as Codec)),*]
        }
    };
}

registry! {
    "Annotations" => Annotations,
    "AudioContent" => AudioContent,
    "BlobResourceContents" => BlobResourceContents,
    "BooleanSchema" => BooleanSchema,
    "CallToolRequestParams" => CallToolRequestParams,
    "CallToolResult" => CallToolResult,
    "CancelTaskResult" => CancelTaskResult,
    "CancelledNotificationParams" => CancelledNotificationParams,
    "ClientCapabilities" => ClientCapabilities,
    "CompleteRequestParams" => CompleteRequestParams,
    "CompleteResult" => CompleteResult,
    "ContentBlock" => ContentBlock,
    "CreateMessageRequestParams" => CreateMessageRequestParams,
    "CreateMessageResult" => CreateMessageResult,
    "CreateTaskResult" => CreateTaskResult,
    "ElicitRequestFormParams" => ElicitRequestFormParams,
    "ElicitRequestParams" => ElicitRequestParams,
    "ElicitRequestURLParams" => ElicitRequestURLParams,
    "ElicitResult" => ElicitResult,
    "EmbeddedResource" => EmbeddedResource,
    "EmptyResult" => EmptyResult,
    "GetPromptRequestParams" => GetPromptRequestParams,
    "GetPromptResult" => GetPromptResult,
    "GetTaskPayloadResult" => GetTaskPayloadResult,
    "GetTaskResult" => GetTaskResult,
    "Icon" => Icon,
    "ImageContent" => ImageContent,
    "Implementation" => Implementation,
    "InitializeRequestParams" => InitializeRequestParams,
    "InitializeResult" => InitializeResult,
    "LegacyTitledEnumSchema" => LegacyTitledEnumSchema,
    "ListPromptsResult" => ListPromptsResult,
    "ListResourceTemplatesResult" => ListResourceTemplatesResult,
    "ListResourcesResult" => ListResourcesResult,
    "ListRootsResult" => ListRootsResult,
    "ListTasksResult" => ListTasksResult,
    "ListToolsResult" => ListToolsResult,
    "LoggingLevel" => LoggingLevel,
    "LoggingMessageNotificationParams" => LoggingMessageNotificationParams,
    "ModelHint" => ModelHint,
    "ModelPreferences" => ModelPreferences,
    "NotificationParams" => NotificationParams,
    "NumberSchema" => NumberSchema,
    "PaginatedRequestParams" => PaginatedRequestParams,
    "PrimitiveSchemaDefinition" => PrimitiveSchemaDefinition,
    "ProgressNotificationParams" => ProgressNotificationParams,
    "ProgressToken" => ProgressToken,
    "Prompt" => Prompt,
    "PromptArgument" => PromptArgument,
    "PromptMessage" => PromptMessage,
    "PromptReference" => PromptReference,
    "ReadResourceRequestParams" => ReadResourceRequestParams,
    "ReadResourceResult" => ReadResourceResult,
    "RelatedTaskMetadata" => RelatedTaskMetadata,
    "RequestParams" => RequestParams,
    "Resource" => Resource,
    "ResourceLink" => ResourceLink,
    "ResourceRequestParams" => ResourceRequestParams,
    "ResourceTemplate" => ResourceTemplate,
    "ResourceTemplateReference" => ResourceTemplateReference,
    "ResourceUpdatedNotificationParams" => ResourceUpdatedNotificationParams,
    "Result" => EmptyResult,
    "Role" => Role,
    "Root" => Root,
    "SamplingMessage" => SamplingMessage,
    "SamplingMessageContentBlock" => SamplingMessageContentBlock,
    "ServerCapabilities" => ServerCapabilities,
    "SetLevelRequestParams" => SetLevelRequestParams,
    "StringSchema" => StringSchema,
    "SubscribeRequestParams" => SubscribeRequestParams,
    "Task" => Task,
    "TaskMetadata" => TaskMetadata,
    "TaskStatus" => TaskStatus,
    "TaskStatusNotificationParams" => TaskStatusNotificationParams,
    "TextContent" => TextContent,
    "TextResourceContents" => TextResourceContents,
    "TitledMultiSelectEnumSchema" => TitledMultiSelectEnumSchema,
    "TitledSingleSelectEnumSchema" => TitledSingleSelectEnumSchema,
    "Tool" => Tool,
    "ToolAnnotations" => ToolAnnotations,
    "ToolChoice" => ToolChoice,
    "ToolExecution" => ToolExecution,
    "ToolResultContent" => ToolResultContent,
    "ToolUseContent" => ToolUseContent,
    "UnsubscribeRequestParams" => UnsubscribeRequestParams,
    "UntitledMultiSelectEnumSchema" => UntitledMultiSelectEnumSchema,
    "UntitledSingleSelectEnumSchema" => UntitledSingleSelectEnumSchema,
}

#[test]
fn registry_covers_the_schema() {
    let ours: Vec<&str> = registry().iter().map(|(d, _)| *d).collect();
    for d in &ours {
        assert!(
            has_definition(LATEST, d),
            "{d} is not a 2025-11-25 definition"
        );
    }
    // Definitions deliberately without a same-named Rust type: JSON-RPC envelopes (typed
    // elsewhere), request/notification wrappers (`<X>Request` = envelope + `<X>RequestParams`),
    // unions of those, mixins, and aliases of primitives.
    let uncovered: Vec<String> = definitions(LATEST)
        .into_iter()
        .filter(|d| !ours.contains(&d.as_str()))
        .filter(|d| {
            !(d.ends_with("Request")
                || d.ends_with("Notification")
                || d.starts_with("JSONRPC")
                || d.ends_with("Error"))
        })
        .collect();
    assert_eq!(
        uncovered,
        vec![
            "BaseMetadata", // mixin: name + title
            "ClientResult", // union of results
            "Cursor",       // = String (`Cursor` alias)
            "EnumSchema",   // union, covered by PrimitiveSchemaDefinition
            "Icons",        // mixin: icons
            "MultiSelectEnumSchema",
            "PaginatedResult",  // mixin: nextCursor
            "RequestId",        // crate::jsonrpc::RequestId
            "ResourceContents", // base of Text/Blob; our enum of those two
            "ServerResult",
            "SingleSelectEnumSchema",
            "TaskAugmentedRequestParams", // mixin: task
        ]
    );
}

/// Every object (and scalar at known spots) in a JSON tree, depth first.
fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(v);
    match v {
        Value::Object(m) => m.values().for_each(|c| walk(c, out)),
        Value::Array(a) => a.iter().for_each(|c| walk(c, out)),
        _ => {}
    }
}

/// For every value and every definition it is valid against, our type of that name must
/// decode it and re-encode exactly the same JSON. Returns how many (value, type) pairs passed.
fn roundtrip_corpus(source: &str, roots: &[Value]) -> usize {
    let registry = registry();
    let mut checked = 0;
    let mut failures = Vec::new();
    for root in roots {
        let mut values = Vec::new();
        walk(root, &mut values);
        for v in values {
            if !(v.is_object() || v.is_string() || v.is_number()) {
                continue;
            }
            for (def, codec) in &registry {
                if !v.is_object() && !matches!(*def, "LoggingLevel" | "Role" | "TaskStatus") {
                    continue;
                }
                if !is_valid(LATEST, def, v) {
                    continue;
                }
                match codec(v) {
                    Ok(out) if json_eq(&out, v) => checked += 1,
                    Ok(out) => failures.push(format!("{source}: {def} changed {v} into {out}")),
                    Err(e) => failures.push(format!("{source}: {def} cannot decode {v}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn spec_examples_folder_roundtrips() {
    // The 2026-07-28 examples, one folder per definition. Only those valid against the
    // 2025-11-25 definition of the same name count (the shape may have moved since).
    let dir = common::spec_schema::schema_root().join("2026-07-28/examples");
    let mut roots = Vec::new();
    let mut direct = 0;
    for entry in std::fs::read_dir(&dir).expect("examples folder") {
        let entry = entry.unwrap();
        let def = entry.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(entry.path()).unwrap() {
            let path = file.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if has_definition(LATEST, &def) && is_valid(LATEST, &def, &value) {
                if let Some((_, codec)) = registry().into_iter().find(|(d, _)| *d == def) {
                    let out = codec(&value).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    assert_json_eq(&out, &value, &path.display().to_string());
                    direct += 1;
                }
            }
            roots.push(value);
        }
    }
    assert!(
        direct >= 20,
        "only {direct} examples matched a type directly"
    );
    let pairs = roundtrip_corpus("examples", &roots);
    eprintln!("examples: {direct} direct, {pairs} (value, type) pairs");
    assert!(pairs > 100, "only {pairs} (value, type) pairs checked");
}

/// The ```json blocks of the 2025-11-25 specification pages that parse as JSON.
fn doc_examples() -> Vec<(String, Value)> {
    let root = common::spec_schema::schema_root().join("../docs/2025-11-25");
    let mut files = Vec::new();
    collect_mdx(&root, &mut files);
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut block: Option<String> = None;
        for line in text.lines() {
            let trimmed = line.trim_start();
            match &mut block {
                None if trimmed.starts_with("```json") => block = Some(String::new()),
                Some(b) if trimmed.starts_with("```") => {
                    if let Ok(v) = serde_json::from_str::<Value>(b) {
                        out.push((file.display().to_string(), v));
                    }
                    block = None;
                }
                Some(b) => {
                    b.push_str(line);
                    b.push('\n');
                }
                None => {}
            }
        }
    }
    out
}

fn collect_mdx(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_mdx(&path, out);
        } else if path.extension().is_some_and(|e| e == "mdx") {
            out.push(path);
        }
    }
}

/// Params type of a method: decode, re-encode and compare.
fn params_roundtrip(method: &str, params: &Value) -> Option<Result<Value, String>> {
    fn rt<T: Serialize + DeserializeOwned>(v: &Value) -> Result<Value, String> {
        let t: T = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        serde_json::to_value(&t).map_err(|e| e.to_string())
    }
    Some(match method {
        methods::INITIALIZE => rt::<InitializeRequestParams>(params),
        methods::PING | methods::ROOTS_LIST => rt::<RequestParams>(params),
        methods::TOOLS_LIST
        | methods::RESOURCES_LIST
        | methods::RESOURCES_TEMPLATES_LIST
        | methods::PROMPTS_LIST
        | methods::TASKS_LIST => rt::<PaginatedRequestParams>(params),
        methods::TOOLS_CALL => rt::<CallToolRequestParams>(params),
        methods::RESOURCES_READ | methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
            rt::<ResourceRequestParams>(params)
        }
        methods::PROMPTS_GET => rt::<GetPromptRequestParams>(params),
        methods::COMPLETION_COMPLETE => rt::<CompleteRequestParams>(params),
        methods::LOGGING_SET_LEVEL => rt::<SetLevelRequestParams>(params),
        methods::SAMPLING_CREATE_MESSAGE => rt::<CreateMessageRequestParams>(params),
        methods::ELICITATION_CREATE => rt::<ElicitRequestParams>(params),
        methods::TASKS_GET | methods::TASKS_RESULT | methods::TASKS_CANCEL => {
            rt::<TaskIdParams>(params)
        }
        methods::NOTIFICATIONS_INITIALIZED
        | methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED
        | methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED
        | methods::NOTIFICATIONS_TOOLS_LIST_CHANGED
        | methods::NOTIFICATIONS_ROOTS_LIST_CHANGED => rt::<NotificationParams>(params),
        methods::NOTIFICATIONS_CANCELLED => rt::<CancelledNotificationParams>(params),
        methods::NOTIFICATIONS_PROGRESS => rt::<ProgressNotificationParams>(params),
        methods::NOTIFICATIONS_MESSAGE => rt::<LoggingMessageNotificationParams>(params),
        methods::NOTIFICATIONS_RESOURCES_UPDATED => rt::<ResourceUpdatedNotificationParams>(params),
        methods::NOTIFICATIONS_TASKS_STATUS => rt::<TaskStatusNotificationParams>(params),
        methods::NOTIFICATIONS_ELICITATION_COMPLETE => {
            rt::<ElicitationCompleteNotificationParams>(params)
        }
        _ => return None,
    })
}

#[test]
fn spec_document_examples_roundtrip() {
    let examples = doc_examples();
    assert!(
        examples.len() > 50,
        "only {} JSON examples found",
        examples.len()
    );
    let mut by_method = 0;
    let mut failures = Vec::new();
    for (file, value) in &examples {
        let (Some(method), Some(params)) = (
            value.get("method").and_then(Value::as_str),
            value.get("params"),
        ) else {
            continue;
        };
        match params_roundtrip(method, params) {
            Some(Ok(out)) if json_eq(&out, params) => by_method += 1,
            Some(Ok(out)) => failures.push(format!("{file}: {method} changed {params} into {out}")),
            Some(Err(e)) => failures.push(format!("{file}: {method} cannot decode {params}: {e}")),
            // Placeholders such as "some_method" in the generic pages.
            None => assert!(!method.contains('/'), "{file}: no params type for {method}"),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        by_method > 20,
        "only {by_method} request/notification examples"
    );
    let roots: Vec<Value> = examples.into_iter().map(|(_, v)| v).collect();
    let pairs = roundtrip_corpus("docs", &roots);
    eprintln!("docs: {by_method} messages by method, {pairs} (value, type) pairs");
    assert!(pairs > 100, "only {pairs} (value, type) pairs checked");
}
