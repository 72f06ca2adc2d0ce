//! Features the client offers to the server: roots (`roots/list`) and sampling
//! (`sampling/createMessage`) here; elicitation (`elicitation/create`, form and URL modes) in
//! the submodule `elicitation`, re-exported so every type keeps its path.

use serde::{Deserialize, Serialize};

use super::content::SamplingContent;
use super::meta::{JsonObject, Meta, Role};
use super::tasks::TaskMetadata;
use super::tools::Tool;

mod elicitation;
pub use elicitation::*;

// ---------------------------------------------------------------------------------------------
// Roots

/// A directory or file the server may operate on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI (`file://` for now).
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Root {
    /// A root with a URI.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::Root;
    ///
    /// let root = Root::new("file:///home/ada/project");
    /// assert_eq!(serde_json::to_value(&root).unwrap()["uri"], "file:///home/ada/project");
    /// ```
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// The answer to `roots/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

// ---------------------------------------------------------------------------------------------
// Sampling

/// A hint for model selection (a name or name substring such as `"claude-3-5-sonnet"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelHint {
    /// A model name or substring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server's preferences for which model the client picks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Hints in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Which MCP servers' context to include in a sampling prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum IncludeContext {
    /// No context.
    None,
    /// Context from the requesting server.
    ThisServer,
    /// Context from every connected server.
    AllServers,
}

/// How the model may use the tools offered in a sampling request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// Tool selection behaviour for a sampling request (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolChoice {
    /// The mode; absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A message sent to or received from an LLM through sampling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// One block, or (2025-11-25+) an array of blocks.
    pub content: SamplingContent,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SamplingMessage {
    /// A message with the given role and content.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        SamplingMessage {
            role,
            content: content.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// A user message with one text block.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::{CreateMessageRequestParams, SamplingMessage};
    ///
    /// let request = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Write a haiku.")], 200)
    ///     .with_system_prompt("You are a poet.")
    ///     .with_temperature(0.7);
    /// let wire = serde_json::to_value(&request).unwrap();
    /// assert_eq!(wire["maxTokens"], 200);
    /// assert_eq!(wire["messages"][0]["content"]["text"], "Write a haiku.");
    /// ```
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, SamplingContent::text(text))
    }
}

/// Parameters of `sampling/createMessage`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which servers' context to include (soft-deprecated in 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Maximum number of tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (2025-11-25+; needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use `tools` (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
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

impl CreateMessageRequestParams {
    /// A request to sample at most `max_tokens` tokens continuing `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages,
            max_tokens,
            ..Default::default()
        }
    }

    /// Sets `system_prompt`.
    pub fn with_system_prompt(mut self, system_prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(system_prompt.into());
        self
    }

    /// Sets `temperature`.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets `model_preferences`.
    pub fn with_model_preferences(mut self, model_preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(model_preferences);
        self
    }

    /// Sets `tools`.
    pub fn with_tools(mut self, tools: Vec<Tool>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Sets `tool_choice`.
    pub fn with_tool_choice(mut self, tool_choice: ToolChoice) -> Self {
        self.tool_choice = Some(tool_choice);
        self
    }
}

/// The answer to `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Normally `assistant`.
    pub role: Role,
    /// One block, or (2025-11-25+) an array of blocks (e.g. several tool uses).
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or another
    /// provider-specific string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateMessageResult {
    /// An `assistant` answer with this content, produced by `model`.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::{CreateMessageResult, Role, SamplingContent};
    ///
    /// let answer = CreateMessageResult::new(SamplingContent::text("Autumn moonlight..."), "poet-1")
    ///     .with_stop_reason("endTurn");
    /// assert_eq!(answer.role, Role::Assistant);
    /// assert_eq!(serde_json::to_value(&answer).unwrap()["stopReason"], "endTurn");
    /// ```
    pub fn new(content: impl Into<SamplingContent>, model: impl Into<String>) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets `stop_reason`.
    pub fn with_stop_reason(mut self, stop_reason: impl Into<String>) -> Self {
        self.stop_reason = Some(stop_reason.into());
        self
    }
}
