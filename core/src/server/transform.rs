//! Tool transforms: a new tool made from an existing one, with another name, title or
//! description, arguments renamed, described again, hidden behind a fixed value, given a
//! default or constrained further, and its output reshaped.
//!
//! The new tool is an ordinary tool of the server: the engine validates the arguments a client
//! sends against the new input schema (so a constraint added here is enforced before the
//! original handler runs), maps them back to the original's arguments, checks those against
//! the original's input schema, calls the original handler, and, when the output is reshaped,
//! validates the new `structuredContent` against the new output schema. The original tool stays
//! registered unless you remove it (`Server::remove_tool`); the transform keeps its handler.

use super::handlers::ToolFn;
use super::Server;
use crate::protocol::{CallToolResult, ContentBlock, Tool};
use crate::schema::{CompiledSchema, SchemaCache};
use crate::McpError;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Reshapes a tool's structured output (see [`ToolTransform::reshape_output`]).
pub type OutputFn = Arc<dyn Fn(Value) -> Result<Value, McpError> + Send + Sync>;

/// Marks a constraint that was not a JSON object (refused when the transform is applied).
const NOT_AN_OBJECT: &str = "\u{0}not-an-object";

/// What happens to one argument of the original tool.
#[derive(Clone, Debug, Default)]
struct ArgChange {
    rename: Option<String>,
    description: Option<String>,
    /// Hidden from the new tool's schema; always this value.
    hidden: Option<Value>,
    /// Optional in the new tool, with this value when left out.
    default: Option<Value>,
    /// Keywords merged into the argument's schema (`enum`, `maximum`, `pattern`, ...).
    constraint: Option<Map<String, Value>>,
}

/// How to make a new tool from an existing one.
///
/// ```
/// use ferromcp::server::transform::ToolTransform;
/// use serde_json::json;
///
/// let t = ToolTransform::new("find_docs")
///     .description("Search the documentation.")
///     .rename_arg("q", "query")
///     .hide_arg("index", json!("docs"))
///     .default_arg("limit", json!(5))
///     .constrain_arg("limit", json!({ "maximum": 20 }));
/// # let _ = t;
/// ```
#[derive(Clone)]
pub struct ToolTransform {
    name: String,
    title: Option<String>,
    description: Option<String>,
    args: Vec<(String, ArgChange)>,
    output: Option<(Option<Value>, OutputFn)>,
}

impl std::fmt::Debug for ToolTransform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolTransform")
            .field("name", &self.name)
            .field("args", &self.args)
            .field("reshapes_output", &self.output.is_some())
            .finish_non_exhaustive()
    }
}

/// A [`ToolTransform`]'s JSON form, as the bindings pass it:
/// `{"name": "find", "description": "...", "arguments": {"q": {"name": "query"}, "index":
/// {"hide": true, "default": "docs"}, "limit": {"default": 5, "constraints": {"maximum": 20}}}}`.
/// The output is reshaped by a function, which has no JSON form (see
/// [`ToolTransform::reshape_output`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolTransformConfig {
    /// The new tool's name.
    pub name: String,
    /// Its title.
    #[serde(default)]
    pub title: Option<String>,
    /// Its description.
    #[serde(default)]
    pub description: Option<String>,
    /// Changes per argument of the original, by its name there.
    #[serde(default)]
    pub arguments: std::collections::BTreeMap<String, ArgTransformConfig>,
}

/// What a [`ToolTransformConfig`] changes of one argument.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ArgTransformConfig {
    /// Its name in the new tool.
    #[serde(default)]
    pub name: Option<String>,
    /// Its description in the new tool.
    #[serde(default)]
    pub description: Option<String>,
    /// Hidden, always `default`.
    #[serde(default)]
    pub hide: bool,
    /// The value when left out (with `hide`: always).
    #[serde(default)]
    pub default: Option<Value>,
    /// Schema keywords merged into the argument's schema.
    #[serde(default)]
    pub constraints: Option<Value>,
}

impl ToolTransform {
    /// The transform a [`ToolTransformConfig`] describes; refused for `hide` without a
    /// `default`.
    pub fn from_config(config: &ToolTransformConfig) -> Result<Self, McpError> {
        let mut t = Self::new(config.name.clone());
        t.title = config.title.clone();
        t.description = config.description.clone();
        for (arg, c) in &config.arguments {
            if c.hide {
                let Some(value) = &c.default else {
                    return Err(McpError::invalid_params(format!(
                        "transform {:?}: hidden argument {arg:?} needs a default (the value it always gets)",
                        config.name
                    )));
                };
                t = t.hide_arg(arg, value.clone());
                continue;
            }
            if let Some(n) = &c.name {
                t = t.rename_arg(arg, n.clone());
            }
            if let Some(d) = &c.description {
                t = t.describe_arg(arg, d.clone());
            }
            if let Some(d) = &c.default {
                t = t.default_arg(arg, d.clone());
            }
            if let Some(k) = &c.constraints {
                t = t.constrain_arg(arg, k.clone());
            }
        }
        Ok(t)
    }

    /// [`Self::from_config`] from JSON; unknown keys are refused.
    pub fn from_json(config: Value) -> Result<Self, McpError> {
        let c: ToolTransformConfig = serde_json::from_value(config)
            .map_err(|e| McpError::invalid_params(format!("tool transform: {e}")))?;
        Self::from_config(&c)
    }

    /// A transform making a tool called `name` (everything else as the original's until
    /// changed).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            args: Vec::new(),
            output: None,
        }
    }

    /// The new tool's description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// The new tool's title.
    pub fn title(mut self, text: impl Into<String>) -> Self {
        self.title = Some(text.into());
        self
    }

    fn arg(&mut self, original: &str) -> &mut ArgChange {
        let at = match self.args.iter().position(|(n, _)| n == original) {
            Some(at) => at,
            None => {
                self.args.push((original.to_string(), ArgChange::default()));
                self.args.len() - 1
            }
        };
        &mut self.args[at].1
    }

    /// The original's argument `original` is called `new_name` in the new tool.
    pub fn rename_arg(mut self, original: &str, new_name: impl Into<String>) -> Self {
        self.arg(original).rename = Some(new_name.into());
        self
    }

    /// The argument's description in the new tool (named as in the original).
    pub fn describe_arg(mut self, original: &str, text: impl Into<String>) -> Self {
        self.arg(original).description = Some(text.into());
        self
    }

    /// Hides the argument from the new tool: clients cannot see or set it, and the original
    /// always gets `value`. A client that sends it anyway is refused by the new schema when
    /// the original's schema forbids additional properties, else the value is replaced.
    pub fn hide_arg(mut self, original: &str, value: Value) -> Self {
        self.arg(original).hidden = Some(value);
        self
    }

    /// Makes the argument optional in the new tool, with `value` when left out (and as the
    /// schema's `default`).
    pub fn default_arg(mut self, original: &str, value: Value) -> Self {
        self.arg(original).default = Some(value);
        self
    }

    /// Merges JSON Schema keywords into the argument's schema (`{"enum": [...]}`,
    /// `{"maximum": 20}`, `{"pattern": "..."}`), replacing keywords of the same name: the new
    /// tool accepts only values that meet them (checked before the original runs).
    pub fn constrain_arg(mut self, original: &str, keywords: Value) -> Self {
        if let Value::Object(k) = keywords {
            self.arg(original)
                .constraint
                .get_or_insert_with(Map::new)
                .extend(k);
        } else {
            // Kept under a marker the build refuses with the reason.
            let mut bad = Map::new();
            bad.insert(NOT_AN_OBJECT.into(), keywords);
            self.arg(original).constraint = Some(bad);
        }
        self
    }

    /// Reshapes the output: `f` gets the original's structured output (its
    /// `structuredContent`, else its first text block read as JSON, else that text as a JSON
    /// string) and returns the new one, which the engine checks against `output_schema` when
    /// given (the new tool's `outputSchema`). The result's text content is the new value as
    /// JSON. Error results of the original pass through unchanged.
    pub fn reshape_output(
        mut self,
        output_schema: Option<Value>,
        f: impl Fn(Value) -> Result<Value, McpError> + Send + Sync + 'static,
    ) -> Self {
        self.output = Some((output_schema, Arc::new(f)));
        self
    }

    /// Makes the new tool and its handler from `original` and its handler (for a tool that is
    /// not registered on a server; [`Server::add_transformed_tool`] for one that is). Refused,
    /// with the reason, for an argument the original does not have, a renamed argument that
    /// clashes with another, a hidden required argument without a value, or a constraint that
    /// is not a JSON object or makes the schema invalid.
    pub fn apply(&self, original: &Tool, handler: ToolFn) -> Result<(Tool, ToolFn), McpError> {
        let original_input = SchemaCache::default().get_or_compile(&original.input_schema)?;
        self.apply_checked(original, handler, original_input)
    }

    fn apply_checked(
        &self,
        original: &Tool,
        handler: ToolFn,
        original_input: Arc<CompiledSchema>,
    ) -> Result<(Tool, ToolFn), McpError> {
        let refuse = |why: String| {
            McpError::invalid_params(format!(
                "transform of tool {:?} into {:?}: {why}",
                original.name, self.name
            ))
        };
        let mut schema = match &original.input_schema {
            Value::Object(m) => m.clone(),
            _ => {
                return Err(refuse(
                    "the original's input schema is not an object".into(),
                ))
            }
        };
        let mut properties = match schema.remove("properties") {
            Some(Value::Object(p)) => p,
            None => Map::new(),
            Some(_) => return Err(refuse("the original's properties are not an object".into())),
        };
        let mut required: Vec<String> = match schema.remove("required") {
            Some(Value::Array(r)) => r
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        // (new name, or None when hidden; original name; value when not given)
        let mut mapping: Vec<(Option<String>, String, Option<Value>)> = Vec::new();
        for (name, change) in &self.args {
            if properties.remove(name).is_none() {
                return Err(refuse(format!("the original has no argument {name:?}")));
            }
            let was_required = required.iter().any(|r| r == name);
            required.retain(|r| r != name);
            if let Some(value) = &change.hidden {
                mapping.push((None, name.clone(), Some(value.clone())));
                continue;
            }
            if change
                .constraint
                .as_ref()
                .is_some_and(|c| c.contains_key(NOT_AN_OBJECT))
            {
                return Err(refuse(format!(
                    "the constraint of {name:?} must be a JSON object of schema keywords"
                )));
            }
            let new_name = change.rename.clone().unwrap_or_else(|| name.clone());
            if was_required && change.default.is_none() {
                required.push(new_name.clone());
            }
            mapping.push((Some(new_name), name.clone(), change.default.clone()));
        }
        // `properties` now holds the arguments the transform leaves alone.
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        names.extend(mapping.iter().filter_map(|(n, _, _)| n.as_deref()));
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(refuse(format!(
                "two arguments of the new tool would be called {:?}",
                w[0]
            )));
        }
        // The properties in the original's order, changed ones in place, hidden ones left out.
        let mut new_properties = Map::new();
        if let Some(Value::Object(orig)) = original.input_schema.get("properties") {
            for (name, prop) in orig {
                match mapping.iter().find(|(_, o, _)| o == name) {
                    Some((Some(new_name), _, _)) => {
                        new_properties.insert(new_name.clone(), self.changed_property(name, prop));
                    }
                    Some((None, _, _)) => {}
                    None => {
                        new_properties.insert(name.clone(), prop.clone());
                    }
                }
            }
        }
        schema.insert("properties".into(), Value::Object(new_properties));
        if !required.is_empty() {
            schema.insert(
                "required".into(),
                Value::Array(required.into_iter().map(Value::String).collect()),
            );
        }
        let mut tool = original.clone();
        tool.name = self.name.clone();
        if let Some(t) = &self.title {
            tool.title = Some(t.clone());
        }
        if let Some(d) = &self.description {
            tool.description = Some(d.clone());
        }
        tool.input_schema = Value::Object(schema);
        // The new schema must compile (a constraint may have broken it).
        CompiledSchema::compile(&tool.input_schema)
            .map_err(|e| refuse(format!("the new input schema is invalid: {}", e.message)))?;
        let output = self.output.clone();
        if let Some((schema, _)) = &output {
            tool.output_schema = schema.clone();
        }
        let mapping = Arc::new(mapping);
        let source = original.name.clone();
        let handler: ToolFn = Arc::new(move |mut args: Map<String, Value>, ctx| {
            let mut mapped = Map::new();
            for (new_name, original_name, fill) in mapping.iter() {
                let given = new_name.as_ref().and_then(|n| args.remove(n));
                if let Some(v) = given.or_else(|| fill.clone()) {
                    mapped.insert(original_name.clone(), v);
                }
            }
            // Arguments the transform does not name pass through unchanged.
            for (k, v) in args {
                mapped.entry(k).or_insert(v);
            }
            let checked = original_input.validate(&Value::Object(mapped.clone()));
            let handler = handler.clone();
            let output = output.clone();
            let source = source.clone();
            Box::pin(async move {
                if let Err(issues) = checked {
                    return Err(crate::schema::validation_error(
                        &format!("arguments of tool {source:?} made by a transform"),
                        &issues,
                    ));
                }
                let result = handler(mapped, ctx).await?;
                match output {
                    Some((_, reshape)) if result.is_error != Some(true) => {
                        let value = reshape(structured_of(&result))?;
                        let text = serde_json::to_string(&value).expect("JSON values serialize");
                        let mut reshaped =
                            CallToolResult::text(text).with_structured_content(value);
                        reshaped.meta = result.meta;
                        Ok(reshaped)
                    }
                    _ => Ok(result),
                }
            })
        });
        Ok((tool, handler))
    }

    /// The original's property `name` with this transform's changes (not renamed here).
    fn changed_property(&self, name: &str, prop: &Value) -> Value {
        let Some((_, change)) = self.args.iter().find(|(n, _)| n == name) else {
            return prop.clone();
        };
        let mut prop = prop.clone();
        if let Some(c) = &change.constraint {
            match &mut prop {
                Value::Object(p) => p.extend(c.clone()),
                _ => prop = Value::Object(c.clone()),
            }
        }
        if let Value::Object(p) = &mut prop {
            if let Some(d) = &change.description {
                p.insert("description".into(), Value::String(d.clone()));
            }
            if let Some(d) = &change.default {
                p.insert("default".into(), d.clone());
            }
        }
        prop
    }
}

/// The structured output a reshape gets (see [`ToolTransform::reshape_output`]).
fn structured_of(result: &CallToolResult) -> Value {
    if let Some(v) = &result.structured_content {
        return v.clone();
    }
    let text = result.content.iter().find_map(|b| match b {
        ContentBlock::Text(t) => Some(t.text.as_str()),
        _ => None,
    });
    match text {
        Some(t) => serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string())),
        None => Value::Null,
    }
}

impl Server {
    /// Registers the tool `transform` makes from this server's tool `original` (which stays
    /// registered; remove it with [`Server::remove_tool`] to offer only the new one).
    ///
    /// ```
    /// use ferromcp::protocol::{CallToolResult, Tool};
    /// use ferromcp::server::{tool_fn, transform::ToolTransform, Server};
    /// use serde_json::json;
    ///
    /// let mut search = Tool::new("search");
    /// search.input_schema = json!({
    ///     "type": "object",
    ///     "properties": { "q": { "type": "string" }, "index": { "type": "string" } },
    ///     "required": ["q", "index"]
    /// });
    /// let server = Server::builder("demo", "1")
    ///     .tool_raw(search, tool_fn(|args, _| async move {
    ///         Ok(CallToolResult::text(format!("{} in {}", args["q"], args["index"])))
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// server
    ///     .add_transformed_tool(
    ///         "search",
    ///         ToolTransform::new("search_docs").rename_arg("q", "query").hide_arg("index", json!("docs")),
    ///     )
    ///     .unwrap();
    /// server.remove_tool("search");
    /// ```
    pub fn add_transformed_tool(
        &self,
        original: &str,
        transform: ToolTransform,
    ) -> Result<(), McpError> {
        let entry = self.inner.tools.read().unwrap().get(original);
        let Some(entry) = entry else {
            return Err(McpError::invalid_params(format!(
                "transform {:?}: this server has no tool {original:?}",
                transform.name
            )));
        };
        let (tool, handler) =
            transform.apply_checked(&entry.tool, entry.handler.clone(), entry.input.clone())?;
        self.add_tool(tool, handler)
    }
}
