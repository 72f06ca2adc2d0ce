//! JSON Schema validation of tool input and output, compiled once and cached.
//!
//! MCP tools describe their arguments (`inputSchema`) and structured results (`outputSchema`)
//! with JSON Schema; the dialect is 2020-12 unless the schema names another one in `$schema`.
//! Servers validate incoming arguments and clients validate structured results on every call, so
//! a schema is compiled once into a [`CompiledSchema`] and shared through a [`SchemaCache`].
//!
//! References are resolved only inside the schema document itself: the engine never fetches a
//! remote `$ref` (that would let a peer make us issue network or file requests), so a schema
//! that needs one fails to compile with a message naming the reference.
//!
//! Every schema, generated or supplied raw, is checked against its dialect's meta-schema when it
//! is compiled. That check runs code generated at build time (jsonschema's `macros` feature), so
//! it costs microseconds instead of the milliseconds of building a meta-schema validator at run
//! time, which used to dominate a server's cold start.
//!
//! Form-mode elicitation uses a much smaller, flat subset of JSON Schema; its rules live in
//! [`elicitation`].

pub mod elicitation;

use crate::error::McpError;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// At most this many issues are reported by [`CompiledSchema::validate`]; a hostile instance
/// could otherwise produce an error per array element.
pub const MAX_ISSUES: usize = 64;

/// One reason an instance failed validation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ValidationIssue {
    /// JSON pointer into the instance where the failure is (`""` for the instance itself).
    pub path: String,
    /// JSON pointer to the failing keyword within the schema document (after following any
    /// `$ref`, e.g. `/$defs/item/properties/name/type`).
    pub schema_path: String,
    /// Human-readable description, e.g. `5 is not of type "string"`.
    pub message: String,
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// A JSON Schema compiled for repeated validation.
///
/// The dialect is taken from `$schema` when it names draft-04, draft-06, draft-07, 2019-09 or
/// 2020-12, and is 2020-12 when `$schema` is absent. Formats follow the dialect's defaults (in
/// 2019-09 and 2020-12 `format` is an annotation, not an assertion).
pub struct CompiledSchema {
    validator: jsonschema::Validator,
    /// The schema is exactly a `{"result": string}` wrapper (see [`is_string_result_wrapper`]):
    /// an object whose only member is a string `result` conforms without running the validator.
    string_result: bool,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("draft", &self.validator.draft())
            .finish()
    }
}

impl CompiledSchema {
    /// Compiles `schema` (an object or a boolean schema).
    ///
    /// Fails with -32602 (invalid params) if the value is not a schema, violates its dialect's
    /// meta-schema, names an unknown `$schema`, or needs a reference outside the document.
    ///
    /// ```
    /// use ferromcp_protocol::schema::CompiledSchema;
    /// use serde_json::json;
    ///
    /// let schema = CompiledSchema::compile(&json!({
    ///     "type": "object",
    ///     "properties": { "city": { "type": "string" } },
    ///     "required": ["city"]
    /// }))
    /// .unwrap();
    /// assert!(schema.is_valid(&json!({ "city": "Paris" })));
    /// let issues = schema.validate(&json!({ "city": 7 })).unwrap_err();
    /// assert_eq!(issues.len(), 1);
    /// assert_eq!(issues[0].path, "/city");
    ///
    /// // Not a schema: -32602.
    /// assert_eq!(CompiledSchema::compile(&json!(42)).unwrap_err().code, -32602);
    /// ```
    pub fn compile(schema: &Value) -> Result<CompiledSchema, McpError> {
        match schema {
            Value::Object(map) => {
                if let Some(dialect) = map.get("$schema") {
                    check_dialect(dialect)?;
                }
            }
            Value::Bool(_) => {}
            other => {
                return Err(McpError::invalid_params(format!(
                    "Invalid JSON Schema: a schema must be an object or a boolean, not {}",
                    json_type_name(other)
                )))
            }
        }
        let validator = jsonschema::options()
            .offline()
            .build(schema)
            .map_err(|e| compile_error(&e))?;
        Ok(CompiledSchema {
            validator,
            string_result: is_string_result_wrapper(schema),
        })
    }

    /// Whether `instance` is `{"result": <string>}` under a schema that is exactly such a
    /// wrapper: such an instance provably conforms (every constraint of the schema is met).
    fn is_wrapped_string(&self, instance: &Value) -> bool {
        self.string_result
            && matches!(instance, Value::Object(m)
                if m.len() == 1
                    // The one member, without hashing its key for a lookup.
                    && matches!(m.iter().next(), Some((k, Value::String(_))) if k == "result"))
    }

    /// The JSON Schema dialect in use, as its meta-schema URI.
    pub fn dialect(&self) -> &'static str {
        match self.validator.draft() {
            jsonschema::Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
            jsonschema::Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
            jsonschema::Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
            jsonschema::Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            _ => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// Whether `instance` conforms, without collecting errors.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.is_wrapped_string(instance) || self.validator.is_valid(instance)
    }

    /// Checks `instance`, returning every issue found (at most [`MAX_ISSUES`]) on failure.
    ///
    /// The common, valid case takes the fast path and allocates nothing.
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<ValidationIssue>> {
        if self.is_wrapped_string(instance) || self.validator.is_valid(instance) {
            return Ok(());
        }
        let issues: Vec<ValidationIssue> = self
            .validator
            .iter_errors(instance)
            .take(MAX_ISSUES)
            .map(|e| ValidationIssue {
                path: e.instance_path().as_str().to_string(),
                schema_path: e.schema_path().as_str().to_string(),
                message: e.to_string(),
            })
            .collect();
        if issues.is_empty() {
            // `is_valid` and `iter_errors` disagreeing would be a bug in the validator; never
            // report success for an instance the fast path rejected.
            return Err(vec![ValidationIssue {
                path: String::new(),
                schema_path: String::new(),
                message: "instance does not match the schema".to_string(),
            }]);
        }
        Err(issues)
    }
}

/// The dialects this engine can validate, by their meta-schema URI (without a trailing `#`).
const KNOWN_DIALECTS: &[&str] = &[
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

fn check_dialect(dialect: &Value) -> Result<(), McpError> {
    let Some(uri) = dialect.as_str() else {
        return Err(McpError::invalid_params(
            "Invalid JSON Schema: `$schema` must be a string",
        ));
    };
    let bare = uri.strip_suffix('#').unwrap_or(uri);
    let bare = bare
        .strip_prefix("http://")
        .or_else(|| bare.strip_prefix("https://"))
        .unwrap_or(bare);
    let known = KNOWN_DIALECTS.iter().any(|k| {
        let k = k
            .strip_prefix("http://")
            .or_else(|| k.strip_prefix("https://"))
            .unwrap_or(k);
        k == bare
    });
    if known {
        Ok(())
    } else {
        Err(McpError::invalid_params(format!(
            "Invalid JSON Schema: unsupported dialect `$schema: {uri}` (supported: draft-04, \
             draft-06, draft-07, 2019-09, 2020-12)"
        )))
    }
}

/// Whether `schema` is exactly the `outputSchema` of a tool returning a string wrapped as
/// `{"result": ...}` (what the Python binding declares for `-> str`): `"type": "object"`,
/// `"properties": {"result": {"type": "string"}}`, `"required": ["result"]`, and besides these
/// only the annotations `title` and `description` (and a `$schema` already checked to name a
/// known dialect, in all of which these keywords mean the same). Any other keyword, or any
/// other value of these, makes it `false` and leaves validation to the validator.
fn is_string_result_wrapper(schema: &Value) -> bool {
    let annotation = |k: &str, v: &Value| matches!(k, "title" | "description") && v.is_string();
    let Value::Object(outer) = schema else {
        return false;
    };
    let inner_ok = |props: &Value| match props {
        Value::Object(p) if p.len() == 1 => match p.get("result") {
            Some(Value::Object(inner)) => {
                inner.get("type") == Some(&Value::String("string".into()))
                    && inner.iter().all(|(k, v)| k == "type" || annotation(k, v))
            }
            _ => false,
        },
        _ => false,
    };
    outer.get("type") == Some(&Value::String("object".into()))
        && outer.get("properties").is_some_and(inner_ok)
        && outer.get("required") == Some(&json!(["result"]))
        && outer.iter().all(|(k, v)| {
            matches!(k.as_str(), "type" | "properties" | "required" | "$schema") || annotation(k, v)
        })
}

fn compile_error(error: &jsonschema::ValidationError<'_>) -> McpError {
    let message = match error.kind() {
        jsonschema::error::ValidationErrorKind::Referencing(
            inner @ jsonschema::ReferencingError::Unretrievable { .. },
        ) => format!(
            "Invalid JSON Schema: unresolvable reference ({inner}); only references inside the \
             schema document are supported, remote references are never fetched"
        ),
        jsonschema::error::ValidationErrorKind::Referencing(inner) => {
            format!("Invalid JSON Schema: unresolvable reference ({inner})")
        }
        _ => {
            let at = error.instance_path().as_str();
            if at.is_empty() {
                format!("Invalid JSON Schema: {error}")
            } else {
                format!("Invalid JSON Schema at {at}: {error}")
            }
        }
    };
    McpError::invalid_params(message)
}

#[doc(hidden)]
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A tool's `inputSchema` or `outputSchema` (`what` names it in errors) made what the spec
/// requires, an object schema with `"type": "object"`, before it is listed: the official
/// TypeScript and Python clients reject a whole `tools/list` holding a tool whose schema lacks
/// it.
///
/// - an object without `type` (`{}`, `{"properties": ...}`, `{"anyOf": ...}`, `{"$ref": ...}`)
///   gets `"type": "object"` (tool arguments and structured content are objects anyway, so
///   this narrows nothing a call could send);
/// - `null` and `true` (the schemas accepting anything) become `{"type": "object"}`;
/// - a schema whose `type` is anything but `"object"`, and any other value (`false`, a string,
///   a list), is refused: no call of such a tool could ever be valid.
pub fn object_schema(what: &str, schema: &mut Value) -> Result<(), McpError> {
    match schema {
        Value::Null | Value::Bool(true) => {
            *schema = json!({ "type": "object" });
            Ok(())
        }
        Value::Object(m) => match m.get("type") {
            None => {
                m.insert("type".into(), Value::String("object".into()));
                Ok(())
            }
            Some(Value::String(t)) if t == "object" => Ok(()),
            Some(t) => Err(McpError::invalid_params(format!(
                "{what} must be an object schema (\"type\": \"object\"), not \"type\": {t}"
            ))),
        },
        other => Err(McpError::invalid_params(format!(
            "{what} must be an object schema (\"type\": \"object\"), not {other}"
        ))),
    }
}

/// Builds the -32602 error sent when an instance fails validation.
///
/// `what` names the instance, e.g. `arguments for tool "get_weather"`; the message carries the
/// first issue (`Invalid arguments for tool "x": /a: 5 is not of type "string"`) and `data`
/// lists them all as `{"errors": [{"path", "message", "schemaPath"}]}`.
pub fn validation_error(what: &str, issues: &[ValidationIssue]) -> McpError {
    let mut message = format!("Invalid {what}");
    if let Some(first) = issues.first() {
        message.push_str(": ");
        message.push_str(&first.to_string());
        if issues.len() > 1 {
            message.push_str(&format!(" (and {} more)", issues.len() - 1));
        }
    }
    McpError::invalid_params(message).with_data(json!({ "errors": issues }))
}

/// Default number of schemas a [`SchemaCache`] keeps.
pub const DEFAULT_CACHE_CAPACITY: usize = 1024;

struct CacheEntry {
    schema: Value,
    compiled: Arc<CompiledSchema>,
    last_used: AtomicU64,
}

/// A thread-safe, bounded cache of compiled schemas keyed by schema content.
///
/// Two schemas that are equal as JSON values (object key order does not matter) share one
/// compilation. When the cache is full the least recently used entry is evicted.
pub struct SchemaCache {
    entries: RwLock<HashMap<u64, Vec<CacheEntry>>>,
    capacity: usize,
    clock: AtomicU64,
}

impl fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaCache")
            .field("len", &self.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl Default for SchemaCache {
    fn default() -> Self {
        Self::new()
    }
}

impl SchemaCache {
    /// An empty cache holding up to [`DEFAULT_CACHE_CAPACITY`] schemas.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_CACHE_CAPACITY)
    }

    /// An empty cache holding up to `capacity` schemas (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: RwLock::new(HashMap::new()),
            capacity: capacity.max(1),
            clock: AtomicU64::new(0),
        }
    }

    /// Number of cached schemas.
    pub fn len(&self) -> usize {
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        entries.values().map(Vec::len).sum()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every cached schema.
    pub fn clear(&self) {
        let mut entries = self.entries.write().unwrap_or_else(|p| p.into_inner());
        entries.clear();
    }

    /// The compiled form of `schema`, compiling it on first use.
    ///
    /// Compilation errors are not cached; see [`CompiledSchema::compile`].
    ///
    /// ```
    /// use ferromcp_protocol::schema::SchemaCache;
    /// use serde_json::json;
    /// use std::sync::Arc;
    ///
    /// let cache = SchemaCache::new();
    /// let a = cache.get_or_compile(&json!({ "type": "string" })).unwrap();
    /// let b = cache.get_or_compile(&json!({ "type": "string" })).unwrap();
    /// assert!(Arc::ptr_eq(&a, &b)); // compiled once
    /// assert_eq!(cache.len(), 1);
    /// ```
    pub fn get_or_compile(&self, schema: &Value) -> Result<Arc<CompiledSchema>, McpError> {
        let key = content_hash(schema);
        let tick = self.clock.fetch_add(1, Ordering::Relaxed);
        {
            let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
            if let Some(found) = find(&entries, key, schema) {
                found.last_used.store(tick, Ordering::Relaxed);
                return Ok(found.compiled.clone());
            }
        }
        // Compile without holding the lock; if another thread won the race, keep its copy so
        // every caller sees the same `Arc`.
        let compiled = Arc::new(CompiledSchema::compile(schema)?);
        let mut entries = self.entries.write().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = find(&entries, key, schema) {
            found.last_used.store(tick, Ordering::Relaxed);
            return Ok(found.compiled.clone());
        }
        let total: usize = entries.values().map(Vec::len).sum();
        if total >= self.capacity {
            evict_least_recent(&mut entries);
        }
        entries.entry(key).or_default().push(CacheEntry {
            schema: schema.clone(),
            compiled: compiled.clone(),
            last_used: AtomicU64::new(tick),
        });
        Ok(compiled)
    }
}

fn find<'a>(
    entries: &'a HashMap<u64, Vec<CacheEntry>>,
    key: u64,
    schema: &Value,
) -> Option<&'a CacheEntry> {
    entries.get(&key)?.iter().find(|e| e.schema == *schema)
}

fn evict_least_recent(entries: &mut HashMap<u64, Vec<CacheEntry>>) {
    let oldest = entries
        .iter()
        .flat_map(|(k, bucket)| {
            bucket
                .iter()
                .enumerate()
                .map(move |(i, e)| (e.last_used.load(Ordering::Relaxed), *k, i))
        })
        .min();
    if let Some((_, key, index)) = oldest {
        if let Some(bucket) = entries.get_mut(&key) {
            bucket.swap_remove(index);
            if bucket.is_empty() {
                entries.remove(&key);
            }
        }
    }
}

/// A hash of `value` that ignores object key order, so equal schemas hash equally.
fn content_hash(value: &Value) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hash_value(value, &mut hasher);
    hasher.finish()
}

fn hash_value(value: &Value, state: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(state),
        Value::Bool(b) => {
            1u8.hash(state);
            b.hash(state);
        }
        Value::Number(n) => {
            2u8.hash(state);
            n.to_string().hash(state);
        }
        Value::String(s) => {
            3u8.hash(state);
            s.hash(state);
        }
        Value::Array(items) => {
            4u8.hash(state);
            items.len().hash(state);
            for item in items {
                hash_value(item, state);
            }
        }
        Value::Object(map) => {
            5u8.hash(state);
            map.len().hash(state);
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            for key in keys {
                key.hash(state);
                hash_value(&map[key], state);
            }
        }
    }
}

#[cfg(test)]
mod wrapper_tests {
    use super::*;

    #[test]
    fn only_the_plain_string_wrapper_is_recognized() {
        let python = json!({
            "properties": {"result": {"title": "Result", "type": "string"}},
            "required": ["result"],
            "title": "echoOutput",
            "type": "object"
        });
        assert!(is_string_result_wrapper(&python));
        assert!(CompiledSchema::compile(&python).unwrap().string_result);
        let mut draft7 = python.clone();
        draft7["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        assert!(is_string_result_wrapper(&draft7));
        for (pointer, value) in [
            ("/properties/result/minLength", json!(1)),
            ("/properties/result/format", json!("email")),
            ("/properties/extra", json!({"type": "string"})),
            ("/additionalProperties", json!(false)),
            ("/required", json!(["result", "other"])),
            ("/type", json!(["object", "null"])),
            ("/properties/result/type", json!("integer")),
            ("/title", json!(1)),
        ] {
            let mut s = python.clone();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            s.pointer_mut(parent).unwrap()[key] = value;
            assert!(!is_string_result_wrapper(&s), "{pointer}");
        }
    }
}
