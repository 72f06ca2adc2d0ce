//! Argument autocompletion (`completion/complete`) for prompt arguments and resource template
//! variables.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meta::{tagged_union, wire_tag, JsonObject, Meta};

wire_tag!(
    /// The `"type": "ref/prompt"` tag of [`PromptReference`].
    PromptReferenceType = "ref/prompt"
);
wire_tag!(
    /// The `"type": "ref/resource"` tag of [`ResourceTemplateReference`].
    ResourceTemplateReferenceType = "ref/resource"
);

/// Identifies a prompt whose argument is being completed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptReference {
    /// Always `"ref/prompt"`.
    #[serde(rename = "type", default)]
    pub kind: PromptReferenceType,
    /// The prompt's name.
    pub name: String,
    /// Display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PromptReference {
    /// A reference to the named prompt.
    pub fn new(name: impl Into<String>) -> Self {
        PromptReference {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// Identifies a resource template whose variable is being completed (called
/// `ResourceReference` before 2025-06-18; same wire shape).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceTemplateReference {
    /// Always `"ref/resource"`.
    #[serde(rename = "type", default)]
    pub kind: ResourceTemplateReferenceType,
    /// The URI template (or URI).
    pub uri: String,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResourceTemplateReference {
    /// A reference to the given URI template.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceTemplateReference {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// What is being completed: a prompt or a resource template, tagged by `"type"`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reference {
    /// `"type": "ref/prompt"`.
    Prompt(PromptReference),
    /// `"type": "ref/resource"`.
    Resource(ResourceTemplateReference),
}

tagged_union!(Reference, "type", {
    Prompt(PromptReference) = "ref/prompt",
    Resource(ResourceTemplateReference) = "ref/resource",
});

/// The argument being completed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteArgument {
    /// The argument's name.
    pub name: String,
    /// What the user has typed so far.
    pub value: String,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Extra context for a completion (2025-06-18+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteContext {
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Parameters of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// What is being completed (wire name `ref`).
    #[serde(rename = "ref")]
    pub ref_: Reference,
    /// The argument and its partial value.
    pub argument: CompleteArgument,
    /// Already-resolved arguments (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompleteContext>,
    /// Protocol metadata (e.g. `progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CompleteRequestParams {
    /// Completion of argument `name` (typed so far: `value`) of the given reference.
    pub fn new(
        ref_: impl Into<Reference>,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteRequestParams {
            ref_: ref_.into(),
            argument: CompleteArgument {
                name: name.into(),
                value: value.into(),
                extra: JsonObject::new(),
            },
            context: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The completion values offered.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// Suggested values (at most 100).
    pub values: Vec<String>,
    /// Total number of matches, which may exceed the values sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more matches exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Completion {
    /// Sets `total`.
    pub fn with_total(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Sets `has_more`.
    pub fn with_has_more(mut self, has_more: bool) -> Self {
        self.has_more = Some(has_more);
        self
    }
}

/// The answer to `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteResult {
    /// The values.
    pub completion: Completion,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CompleteResult {
    /// A result offering `values` (truncated to the 100 the spec allows; `total` and `hasMore`
    /// are set when truncation happened).
    ///
    /// ```
    /// use ferromcp_protocol::protocol::CompleteResult;
    ///
    /// let few = CompleteResult::new(vec!["python".into(), "pytorch".into()]);
    /// assert_eq!((few.completion.values.len(), few.completion.has_more), (2, None));
    ///
    /// let many = CompleteResult::new((0..150).map(|i| format!("item-{i}")).collect());
    /// assert_eq!(many.completion.values.len(), 100);
    /// assert_eq!((many.completion.total, many.completion.has_more), (Some(150), Some(true)));
    /// ```
    pub fn new(mut values: Vec<String>) -> Self {
        const MAX: usize = 100;
        let total = values.len();
        let truncated = total > MAX;
        values.truncate(MAX);
        CompleteResult {
            completion: Completion {
                values,
                total: truncated.then_some(total as u64),
                has_more: truncated.then_some(true),
                extra: JsonObject::new(),
            },
            meta: None,
            extra: JsonObject::new(),
        }
    }
}
