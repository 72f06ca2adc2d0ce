//! Tools: definitions (`tools/list`) and calls (`tools/call`) with their results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::ContentBlock;
use super::meta::{Cursor, Icon, JsonObject, Meta};
use super::tasks::TaskMetadata;

fn default_input_schema() -> Value {
    serde_json::json!({"type": "object"})
}

/// Definition of a tool the client can call.
///
/// ```
/// use ferromcp_protocol::protocol::{Tool, ToolAnnotations};
/// use serde_json::json;
///
/// let tool = Tool::new("get_weather")
///     .with_title("Weather")
///     .with_description("Current weather for a city")
///     .with_input_schema(json!({
///         "type": "object",
///         "properties": { "city": { "type": "string" } },
///         "required": ["city"]
///     }))
///     .with_annotations(ToolAnnotations::default().with_read_only_hint(true));
/// let wire = serde_json::to_value(&tool).unwrap();
/// assert_eq!(wire["name"], "get_weather");
/// assert_eq!(wire["inputSchema"]["required"][0], "city");
/// assert_eq!(wire["annotations"], json!({ "readOnlyHint": true }));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Programmatic name, unique within the server.
    pub name: String,
    /// Display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does; a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; an object schema (`{"type": "object"}` at least).
    #[serde(default = "default_input_schema")]
    pub input_schema: Value,
    /// JSON Schema of `structuredContent` in results (2025-06-18+); an object schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties such as task support (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons to show with the tool (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: String::new(),
            title: None,
            description: None,
            input_schema: default_input_schema(),
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

impl Tool {
    /// A tool with a name and the empty object input schema.
    pub fn new(name: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the input schema.
    pub fn with_input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the tool's task support (`execution.taskSupport`): whether calls may (or must) run
    /// as tasks (2025-11-25 tasks; the tasks extension of 2026-07-28).
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.execution
            .get_or_insert_with(Default::default)
            .task_support = Some(support);
        self
    }

    /// The tool's task support; `Forbidden` when not declared.
    pub fn task_support(&self) -> TaskSupport {
        self.execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or_default()
    }

    /// Sets `title`.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets `icons`.
    pub fn with_icons(mut self, icons: Vec<Icon>) -> Self {
        self.icons = Some(icons);
        self
    }

    /// Sets `meta`.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Hints about a tool's behaviour. Untrusted unless the server is trusted.
///
/// ```
/// use ferromcp_protocol::protocol::ToolAnnotations;
/// use serde_json::json;
///
/// let hints = ToolAnnotations::default()
///     .with_read_only_hint(false)
///     .with_destructive_hint(true)
///     .with_idempotent_hint(true);
/// assert_eq!(
///     serde_json::to_value(&hints).unwrap(),
///     json!({ "readOnlyHint": false, "destructiveHint": true, "idempotentHint": true })
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true; meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ToolAnnotations {
    /// Sets `title`.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets `read_only_hint`.
    pub fn with_read_only_hint(mut self, read_only_hint: bool) -> Self {
        self.read_only_hint = Some(read_only_hint);
        self
    }

    /// Sets `destructive_hint`.
    pub fn with_destructive_hint(mut self, destructive_hint: bool) -> Self {
        self.destructive_hint = Some(destructive_hint);
        self
    }

    /// Sets `idempotent_hint`.
    pub fn with_idempotent_hint(mut self, idempotent_hint: bool) -> Self {
        self.idempotent_hint = Some(idempotent_hint);
        self
    }

    /// Sets `open_world_hint`.
    pub fn with_open_world_hint(mut self, open_world_hint: bool) -> Self {
        self.open_world_hint = Some(open_world_hint);
        self
    }
}

/// Whether a tool can be run as a task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Must not be invoked as a task (the default).
    #[default]
    Forbidden,
    /// May be invoked either way.
    Optional,
    /// Must be invoked as a task.
    Required,
}

/// Execution-related properties of a tool (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether the tool supports task-augmented calls; absent means forbidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Parameters of `tools/call`.
///
/// ```
/// use ferromcp_protocol::protocol::CallToolRequestParams;
/// use serde_json::json;
///
/// let call = CallToolRequestParams::new("get_weather").with_arguments(json!({ "city": "Paris" }));
/// assert_eq!(
///     serde_json::to_value(&call).unwrap(),
///     json!({ "name": "get_weather", "arguments": { "city": "Paris" } })
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// The tool to call.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Asks for task-augmented execution (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Protocol metadata (e.g. `progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CallToolRequestParams {
    /// A call of `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        CallToolRequestParams {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Sets the arguments (must be a JSON object; anything else is ignored).
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        if let Value::Object(map) = arguments {
            self.arguments = Some(map);
        }
        self
    }
}

/// The answer to `tools/call`. Tool errors are reported here with `is_error: true`, not as
/// JSON-RPC errors, so the model can see them.
///
/// ```
/// use ferromcp_protocol::protocol::CallToolResult;
/// use serde_json::json;
///
/// let ok = CallToolResult::text("18 °C, cloudy");
/// assert!(!ok.is_error());
/// assert_eq!(ok.content[0].as_text(), Some("18 °C, cloudy"));
///
/// // A failure the model reads (and may retry), not a JSON-RPC error.
/// let failed = CallToolResult::error_text("unknown city");
/// assert!(failed.is_error());
///
/// // Structured output keeps a text copy for older clients.
/// let structured = CallToolResult::structured(json!({ "celsius": 18 }));
/// assert_eq!(structured.structured_content, Some(json!({ "celsius": 18 })));
/// assert_eq!(structured.content[0].as_text(), Some(r#"{"celsius":18}"#));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Unstructured result.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Structured result object, matching the tool's output schema (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call ended in an error (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CallToolResult {
    /// A successful result with the given content.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) with one text block explaining why.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..Self::text(text)
        }
    }

    /// A successful structured result; also carries the JSON text of `value` as a text block,
    /// for clients that predate structured output.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// Sets `structuredContent` and nothing else (no text copy: see [`Self::structured`] for
    /// the form clients that predate structured output can read).
    pub fn with_structured_content(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }

    /// Whether the result reports a tool error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

/// The answer to `tools/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// This page of tools.
    pub tools: Vec<Tool>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}
