//! Content blocks: what tools return, prompts contain and sampling exchanges.
//!
//! Every block struct carries its own `"type"` marker, so it serializes validly on its own;
//! [`ContentBlock`] and [`SamplingMessageContentBlock`] dispatch on that tag.
//!
//! ```
//! use ferromcp_protocol::protocol::{Annotations, ContentBlock, Role, TextContent};
//! use serde_json::json;
//!
//! let block = ContentBlock::Text(
//!     TextContent::new("hello")
//!         .with_annotations(Annotations::default().with_audience(vec![Role::User])),
//! );
//! assert_eq!(
//!     serde_json::to_value(&block).unwrap(),
//!     json!({ "type": "text", "text": "hello", "annotations": { "audience": ["user"] } })
//! );
//! let image = ContentBlock::image("aGVsbG8=", "image/png");
//! assert_eq!(image.as_text(), None);
//! let back: ContentBlock = serde_json::from_value(json!({ "type": "text", "text": "hi" })).unwrap();
//! assert_eq!(back.as_text(), Some("hi"));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::meta::{tagged_union, wire_tag, Annotations, Icon, JsonObject, Meta};
use super::resources::{BlobResourceContents, ResourceContents, TextResourceContents};

wire_tag!(
    /// The `"type": "text"` tag of [`TextContent`].
    TextType = "text"
);
wire_tag!(
    /// The `"type": "image"` tag of [`ImageContent`].
    ImageType = "image"
);
wire_tag!(
    /// The `"type": "audio"` tag of [`AudioContent`].
    AudioType = "audio"
);
wire_tag!(
    /// The `"type": "resource_link"` tag of [`ResourceLink`].
    ResourceLinkType = "resource_link"
);
wire_tag!(
    /// The `"type": "resource"` tag of [`EmbeddedResource`].
    EmbeddedResourceType = "resource"
);
wire_tag!(
    /// The `"type": "tool_use"` tag of [`ToolUseContent`].
    ToolUseType = "tool_use"
);
wire_tag!(
    /// The `"type": "tool_result"` tag of [`ToolResultContent`].
    ToolResultType = "tool_result"
);

/// Text provided to or from a model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// Always `"text"`.
    #[serde(rename = "type", default)]
    pub kind: TextType,
    /// The text.
    pub text: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TextContent {
    /// A plain text block.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            ..Default::default()
        }
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// An image provided to or from a model, base64-encoded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// Always `"image"`.
    #[serde(rename = "type", default)]
    pub kind: ImageType,
    /// Base64-encoded image data.
    pub data: String,
    /// The image's MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ImageContent {
    /// An image block from base64 data and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Default::default()
        }
    }
}

/// Audio provided to or from a model, base64-encoded (2025-03-26+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// Always `"audio"`.
    #[serde(rename = "type", default)]
    pub kind: AudioType,
    /// Base64-encoded audio data.
    pub data: String,
    /// The audio's MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl AudioContent {
    /// An audio block from base64 data and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Default::default()
        }
    }
}

/// A link to a resource the server can read, returned by a tool (2025-06-18+). Not necessarily
/// listed by `resources/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// Always `"resource_link"`.
    #[serde(rename = "type", default)]
    pub kind: ResourceLinkType,
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The resource's MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes of the raw content, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons to show with the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResourceLink {
    /// A link with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// The contents of a resource, embedded in a prompt or tool result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// Always `"resource"`.
    #[serde(rename = "type", default)]
    pub kind: EmbeddedResourceType,
    /// The text or blob contents.
    pub resource: ResourceContents,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl EmbeddedResource {
    /// Embeds the given contents.
    pub fn new(resource: impl Into<ResourceContents>) -> Self {
        EmbeddedResource {
            resource: resource.into(),
            ..Default::default()
        }
    }
}

/// Any content a prompt message or tool result can hold; the wire form is tagged by `"type"`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `"type": "text"`.
    Text(TextContent),
    /// `"type": "image"`.
    Image(ImageContent),
    /// `"type": "audio"` (2025-03-26+).
    Audio(AudioContent),
    /// `"type": "resource_link"` (2025-06-18+).
    ResourceLink(ResourceLink),
    /// `"type": "resource"`.
    Resource(EmbeddedResource),
}

tagged_union!(ContentBlock, "type", {
    Text(TextContent) = "text",
    Image(ImageContent) = "image",
    Audio(AudioContent) = "audio",
    ResourceLink(ResourceLink) = "resource_link",
    Resource(EmbeddedResource) = "resource",
});

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data and its MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 data and its MIME type.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink::new(uri, name))
    }

    /// An embedded resource with text contents.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::ContentBlock;
    ///
    /// let block = ContentBlock::embedded_text("file:///notes.txt", "remember the milk");
    /// let wire = serde_json::to_value(&block).unwrap();
    /// assert_eq!(wire["type"], "resource");
    /// assert_eq!(wire["resource"]["uri"], "file:///notes.txt");
    /// assert_eq!(wire["resource"]["text"], "remember the milk");
    /// ```
    pub fn embedded_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(TextResourceContents::new(uri, text)))
    }

    /// An embedded resource with base64 blob contents.
    pub fn embedded_blob(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(BlobResourceContents::new(uri, blob)))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The block's annotations, whatever its kind.
    pub fn annotations(&self) -> Option<&Annotations> {
        match self {
            ContentBlock::Text(c) => c.annotations.as_ref(),
            ContentBlock::Image(c) => c.annotations.as_ref(),
            ContentBlock::Audio(c) => c.annotations.as_ref(),
            ContentBlock::ResourceLink(c) => c.annotations.as_ref(),
            ContentBlock::Resource(c) => c.annotations.as_ref(),
        }
    }
}

/// A model's request to call a tool, inside a sampling message (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolUseContent {
    /// Always `"tool_use"`.
    #[serde(rename = "type", default)]
    pub kind: ToolUseType,
    /// Unique id of this tool use; the matching result refers to it.
    pub id: String,
    /// The tool to call.
    pub name: String,
    /// The arguments, matching the tool's input schema.
    #[serde(default)]
    pub input: JsonObject,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of a tool use, sent back to the model in a sampling message (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// Always `"tool_result"`.
    #[serde(rename = "type", default)]
    pub kind: ToolResultType,
    /// The `id` of the [`ToolUseContent`] this answers.
    pub tool_use_id: String,
    /// Unstructured result, like `CallToolResult.content`.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Structured result object, if the tool has an output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use ended in an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Content allowed in a sampling message: the media blocks plus tool use and tool results.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SamplingMessageContentBlock {
    /// `"type": "text"`.
    Text(TextContent),
    /// `"type": "image"`.
    Image(ImageContent),
    /// `"type": "audio"`.
    Audio(AudioContent),
    /// `"type": "tool_use"` (2025-11-25+).
    ToolUse(ToolUseContent),
    /// `"type": "tool_result"` (2025-11-25+).
    ToolResult(ToolResultContent),
}

tagged_union!(SamplingMessageContentBlock, "type", {
    Text(TextContent) = "text",
    Image(ImageContent) = "image",
    Audio(AudioContent) = "audio",
    ToolUse(ToolUseContent) = "tool_use",
    ToolResult(ToolResultContent) = "tool_result",
});

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingMessageContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The `content` of a sampling message or `sampling/createMessage` result: one block (the only
/// form before 2025-11-25) or an array of blocks (2025-11-25+).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SamplingContent {
    /// An array of blocks.
    Multiple(Vec<SamplingMessageContentBlock>),
    /// A single block.
    Single(SamplingMessageContentBlock),
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        // Dispatch on the JSON shape so a bad block reports its own error.
        match Value::deserialize(d)? {
            v @ Value::Array(_) => serde_json::from_value(v)
                .map(SamplingContent::Multiple)
                .map_err(D::Error::custom),
            v => serde_json::from_value(v)
                .map(SamplingContent::Single)
                .map_err(D::Error::custom),
        }
    }
}

impl SamplingContent {
    /// A single text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Single(SamplingMessageContentBlock::text(text))
    }

    /// The blocks as a slice, whichever form was used.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Multiple(v) => v,
            SamplingContent::Single(b) => std::slice::from_ref(b),
        }
    }

    /// The blocks as a vector, whichever form was used.
    pub fn into_blocks(self) -> Vec<SamplingMessageContentBlock> {
        match self {
            SamplingContent::Multiple(v) => v,
            SamplingContent::Single(b) => vec![b],
        }
    }
}

impl From<SamplingMessageContentBlock> for SamplingContent {
    fn from(b: SamplingMessageContentBlock) -> Self {
        SamplingContent::Single(b)
    }
}

impl From<Vec<SamplingMessageContentBlock>> for SamplingContent {
    fn from(v: Vec<SamplingMessageContentBlock>) -> Self {
        SamplingContent::Multiple(v)
    }
}
