//! Real data: every example of the spec (its examples folder and its documents) decodes and
//! re-encodes unchanged, and the type registry covers every definition of the schema.

use super::*;

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
