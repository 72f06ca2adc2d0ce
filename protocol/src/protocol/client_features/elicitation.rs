//! Elicitation (`elicitation/create`): the server asks the user, through the client, for data
//! described by a flat schema (form mode) or sends them to a URL (URL mode, 2025-11-25+). The
//! largest of the client features, and the one with hand-written serde (the params' mode and
//! the primitive schemas are told apart by their fields), so it has a file of its own.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::meta::{wire_tag, JsonObject, Meta};
use crate::protocol::tasks::TaskMetadata;

wire_tag!(
    /// The `"mode": "form"` marker of [`ElicitRequestFormParams`].
    FormMode = "form"
);
wire_tag!(
    /// The `"mode": "url"` marker of [`ElicitRequestURLParams`].
    UrlMode = "url"
);
wire_tag!(
    /// The `"type": "object"` marker of [`ElicitationSchema`].
    ObjectType = "object"
);
wire_tag!(
    /// The `"type": "string"` marker of string and single-select enum schemas.
    StringType = "string"
);
wire_tag!(
    /// The `"type": "boolean"` marker of [`BooleanSchema`].
    BooleanType = "boolean"
);
wire_tag!(
    /// The `"type": "array"` marker of multi-select enum schemas.
    ArrayType = "array"
);

/// Parameters of a form-mode `elicitation/create`: ask the user for data described by a flat
/// schema. `mode` is optional (absent before 2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// `Some(FormMode)` when the sender wrote `"mode": "form"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What is being asked, shown to the user.
    pub message: String,
    /// The fields to collect.
    pub requested_schema: ElicitationSchema,
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

/// Parameters of a URL-mode `elicitation/create` (2025-11-25+): send the user to a URL for an
/// out-of-band interaction (sensitive data must not travel through the client).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestURLParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// Identifies this elicitation in `notifications/elicitation/complete`.
    pub elicitation_id: String,
    /// Asks for task-augmented execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Protocol metadata (e.g. `progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Parameters of `elicitation/create`: form mode (`mode` absent or `"form"`) or URL mode
/// (`mode: "url"`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode (2025-11-25+).
    Url(ElicitRequestURLParams),
}

impl ElicitRequestParams {
    /// The message shown to the user, whichever mode.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(p) => &p.message,
            ElicitRequestParams::Url(p) => &p.message,
        }
    }

    /// The requested task metadata, whichever mode.
    pub fn task(&self) -> Option<&TaskMetadata> {
        match self {
            ElicitRequestParams::Form(p) => p.task.as_ref(),
            ElicitRequestParams::Url(p) => p.task.as_ref(),
        }
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitRequestParams::Form(p) => p.serialize(s),
            ElicitRequestParams::Url(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let map = JsonObject::deserialize(d)?;
        let result = match map.get("mode") {
            Some(Value::String(m)) if m == "url" => {
                serde_json::from_value(Value::Object(map)).map(ElicitRequestParams::Url)
            }
            None => serde_json::from_value(Value::Object(map)).map(ElicitRequestParams::Form),
            Some(Value::String(m)) if m == "form" => {
                serde_json::from_value(Value::Object(map)).map(ElicitRequestParams::Form)
            }
            Some(other) => {
                return Err(D::Error::custom(format_args!(
                    "unknown elicitation mode {other}"
                )))
            }
        };
        result.map_err(D::Error::custom)
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(p)
    }
}

impl From<ElicitRequestURLParams> for ElicitRequestParams {
    fn from(p: ElicitRequestURLParams) -> Self {
        ElicitRequestParams::Url(p)
    }
}

/// The restricted JSON Schema of a form elicitation: an object with flat primitive properties.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationSchema {
    /// The `$schema` dialect URI, if given (2025-11-25+).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The fields, by name.
    pub properties: std::collections::BTreeMap<String, PrimitiveSchemaDefinition>,
    /// Names of the required fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Formats a [`StringSchema`] may require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StringFormat {
    /// `email`.
    Email,
    /// `uri`.
    Uri,
    /// `date`.
    Date,
    /// `date-time`.
    DateTime,
}

/// A free-text field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Required format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `"number"` or `"integer"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Integers only.
    Integer,
}

/// A numeric field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NumberSchema {
    /// `number` or `integer`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Maximum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A yes/no field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One option of a titled enum: a value and its label.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EnumOption {
    /// The value (wire name `const`).
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown for it.
    pub title: String,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl EnumOption {
    /// An option with a value and a label.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        EnumOption {
            value: value.into(),
            title: title.into(),
            extra: JsonObject::new(),
        }
    }
}

/// Single choice among plain values (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Single choice among labelled values (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<EnumOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TitledEnumItems {
    /// The options (wire name `anyOf`).
    #[serde(rename = "anyOf")]
    pub any_of: Vec<EnumOption>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Multiple choice among plain values (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// Default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Multiple choice among labelled values (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledEnumItems,
    /// Default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The 2025-06-18 enum form, with labels in a parallel non-standard `enumNames` array;
/// deprecated in 2025-11-25 in favour of [`TitledSingleSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Labels, parallel to `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One field of an elicitation form. Decoded by looking at `type` and at which of
/// `oneOf` / `enum` / `enumNames` / `items.anyOf` are present.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// Free text.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// Single choice, plain values.
    UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema),
    /// Single choice, labelled values.
    TitledSingleSelectEnum(TitledSingleSelectEnumSchema),
    /// Multiple choice, plain values.
    UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema),
    /// Multiple choice, labelled values.
    TitledMultiSelectEnum(TitledMultiSelectEnumSchema),
    /// Single choice with the legacy `enumNames` labels.
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl Serialize for PrimitiveSchemaDefinition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PrimitiveSchemaDefinition::String(v) => v.serialize(s),
            PrimitiveSchemaDefinition::Number(v) => v.serialize(s),
            PrimitiveSchemaDefinition::Boolean(v) => v.serialize(s),
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(v) => v.serialize(s),
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(v) => v.serialize(s),
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(v) => v.serialize(s),
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(v) => v.serialize(s),
            PrimitiveSchemaDefinition::LegacyTitledEnum(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        use PrimitiveSchemaDefinition as P;
        let map = JsonObject::deserialize(d)?;
        let kind = map.get("type").and_then(Value::as_str).unwrap_or_default();
        let has = |k: &str| map.contains_key(k);
        let titled_items = map
            .get("items")
            .and_then(Value::as_object)
            .is_some_and(|i| i.contains_key("anyOf"));
        let value = Value::Object(map.clone());
        let r = match kind {
            "string" if has("oneOf") => {
                serde_json::from_value(value).map(P::TitledSingleSelectEnum)
            }
            "string" if has("enum") && has("enumNames") => {
                serde_json::from_value(value).map(P::LegacyTitledEnum)
            }
            "string" if has("enum") => {
                serde_json::from_value(value).map(P::UntitledSingleSelectEnum)
            }
            "string" => serde_json::from_value(value).map(P::String),
            "number" | "integer" => serde_json::from_value(value).map(P::Number),
            "boolean" => serde_json::from_value(value).map(P::Boolean),
            "array" if titled_items => serde_json::from_value(value).map(P::TitledMultiSelectEnum),
            "array" => serde_json::from_value(value).map(P::UntitledMultiSelectEnum),
            other => {
                return Err(D::Error::custom(format_args!(
                    "unsupported elicitation field type {other:?}"
                )))
            }
        };
        r.map_err(D::Error::custom)
    }
}

/// The user's response to an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitAction {
    /// The user submitted the form / agreed to open the URL.
    Accept,
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// The answer to `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, `accept` only): strings, numbers, booleans or arrays
    /// of strings, by field name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ElicitResult {
    /// A result with the given action and no content.
    pub fn new(action: ElicitAction) -> Self {
        ElicitResult {
            action,
            content: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// An `accept` with the submitted values.
    ///
    /// ```
    /// use ferromcp_protocol::protocol::{ElicitAction, ElicitResult};
    /// use serde_json::json;
    ///
    /// let serde_json::Value::Object(content) = json!({ "name": "Ada", "subscribe": true }) else {
    ///     unreachable!()
    /// };
    /// let result = ElicitResult::accept(content);
    /// assert_eq!(result.action, ElicitAction::Accept);
    /// assert_eq!(serde_json::to_value(&result).unwrap()["content"]["name"], "Ada");
    /// assert_eq!(ElicitResult::new(ElicitAction::Decline).content, None);
    /// ```
    pub fn accept(content: JsonObject) -> Self {
        ElicitResult {
            content: Some(content),
            ..Self::new(ElicitAction::Accept)
        }
    }
}

/// The `data` of a `URLElicitationRequiredError`
/// ([`crate::codes::URL_ELICITATION_REQUIRED`], 2025-11-25+): the URL
/// elicitations the user must complete before the request can succeed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct URLElicitationRequiredErrorData {
    /// The elicitations to complete.
    pub elicitations: Vec<ElicitRequestURLParams>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}
