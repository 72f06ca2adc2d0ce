//! The restricted JSON Schema subset of form-mode elicitation (`elicitation/create`).
//!
//! A server asking the user for input sends a `requestedSchema` that MCP 2025-11-25 limits to a
//! flat object whose properties are primitives: strings (with length limits and the `email`,
//! `uri`, `date` and `date-time` formats), numbers and integers (with a range), booleans, and
//! single- or multi-select enums in their titled, untitled and legacy (`enumNames`) forms.
//! Clients must be able to render such a schema as a form, so anything nested is refused here
//! before it reaches a user interface, and the content a client returns with `accept` is
//! checked against the schema before a server acts on it.
//!
//! Keywords outside the subset that carry no subschema (`$comment`, `examples`, vendor
//! extensions) are tolerated and ignored; keywords that nest schemas are rejected with the
//! JSON pointer of the offending property.

use super::{json_type_name, validation_error, ValidationIssue};
use crate::error::McpError;
use serde_json::{Map, Number, Value};

mod formats;
use formats::{is_date, is_date_time, is_email, is_uri};

/// Checks that `schema` is a valid form-mode `requestedSchema` (MCP 2025-11-25).
///
/// Fails with -32602 and a message naming the offending location, e.g.
/// `Invalid requestedSchema: /properties/address: nested objects are not supported`.
pub fn check_requested_schema(schema: &Value) -> Result<(), McpError> {
    parse_schema(schema).map(|_| ())
}

/// Checks the `content` of an accepted elicitation against the `requestedSchema` it answers.
///
/// The schema itself is checked first (see [`check_requested_schema`]). Content failures are
/// reported as -32602 with `data: {"errors": [...]}`, one entry per offending field.
pub fn validate_content(schema: &Value, content: &Map<String, Value>) -> Result<(), McpError> {
    let form = parse_schema(schema)?;
    let mut issues = Vec::new();
    for name in &form.required {
        if !content.contains_key(name) {
            issues.push(ValidationIssue {
                path: String::new(),
                schema_path: "/required".to_string(),
                message: format!("\"{name}\" is a required property"),
            });
        }
    }
    for (name, field) in &form.fields {
        if let Some(value) = content.get(name) {
            field.check(
                value,
                &pointer(&["properties", name]),
                &pointer(&[name]),
                &mut issues,
            );
        }
    }
    if !form.allow_additional {
        for name in content.keys() {
            if !form.fields.iter().any(|(n, _)| n == name) {
                issues.push(ValidationIssue {
                    path: pointer(&[name]),
                    schema_path: "/additionalProperties".to_string(),
                    message: format!("\"{name}\" is not a property of the requested schema"),
                });
            }
        }
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(validation_error("elicitation content", &issues))
    }
}

/// A requested schema that passed the subset rules.
struct Form {
    fields: Vec<(String, Field)>,
    required: Vec<String>,
    allow_additional: bool,
}

/// One property of a requested schema.
enum Field {
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<Format>,
        pattern: Option<Box<super::CompiledSchema>>,
    },
    Number {
        integer: bool,
        minimum: Option<Number>,
        maximum: Option<Number>,
    },
    Boolean,
    Single {
        options: Vec<String>,
    },
    Multi {
        options: Vec<String>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
}

#[derive(Clone, Copy)]
enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }

    fn accepts(self, s: &str) -> bool {
        match self {
            Format::Email => is_email(s),
            Format::Uri => is_uri(s),
            Format::Date => is_date(s),
            Format::DateTime => is_date_time(s),
        }
    }
}

/// Keywords that nest subschemas; none may appear on a property (except the enum forms).
const NESTING_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$defs",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];

fn schema_error(at: &str, detail: impl std::fmt::Display) -> McpError {
    if at.is_empty() {
        McpError::invalid_params(format!("Invalid requestedSchema: {detail}"))
    } else {
        McpError::invalid_params(format!("Invalid requestedSchema: {at}: {detail}"))
    }
}

/// A JSON pointer built from unescaped segments.
fn pointer(segments: &[&str]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        out.push_str(&s.replace('~', "~0").replace('/', "~1"));
    }
    out
}

fn parse_schema(schema: &Value) -> Result<Form, McpError> {
    let Value::Object(top) = schema else {
        return Err(schema_error(
            "",
            format!("must be an object, not {}", json_type_name(schema)),
        ));
    };
    match top.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(schema_error(
                "/type",
                format!("must be \"object\", not {other}"),
            ))
        }
        None => return Err(schema_error("", "missing `type: \"object\"`")),
    }
    if let Some(dialect) = top.get("$schema") {
        if !dialect.is_string() {
            return Err(schema_error("/$schema", "must be a string"));
        }
    }
    let allow_additional = match top.get("additionalProperties") {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Bool(false)) => false,
        Some(_) => {
            return Err(schema_error(
                "/additionalProperties",
                "only `true` or `false` is supported",
            ))
        }
    };
    for key in NESTING_KEYWORDS {
        if *key != "properties" && *key != "additionalProperties" && top.contains_key(*key) {
            return Err(schema_error(
                &pointer(&[key]),
                format!("`{key}` is not supported in elicitation schemas"),
            ));
        }
    }
    let properties = match top.get("properties") {
        Some(Value::Object(p)) => p,
        Some(other) => {
            return Err(schema_error(
                "/properties",
                format!("must be an object, not {}", json_type_name(other)),
            ))
        }
        None => return Err(schema_error("", "missing `properties`")),
    };
    let mut fields = Vec::with_capacity(properties.len());
    for (name, property) in properties {
        let at = pointer(&["properties", name]);
        fields.push((name.clone(), parse_field(property, &at)?));
    }
    let mut required = Vec::new();
    match top.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            for (i, name) in names.iter().enumerate() {
                let at = format!("/required/{i}");
                let Value::String(name) = name else {
                    return Err(schema_error(&at, "must be a string"));
                };
                if !properties.contains_key(name) {
                    return Err(schema_error(
                        &at,
                        format!("\"{name}\" is not one of the schema's properties"),
                    ));
                }
                if !required.contains(name) {
                    required.push(name.clone());
                }
            }
        }
        Some(other) => {
            return Err(schema_error(
                "/required",
                format!(
                    "must be an array of property names, not {}",
                    json_type_name(other)
                ),
            ))
        }
    }
    Ok(Form {
        fields,
        required,
        allow_additional,
    })
}

fn parse_field(property: &Value, at: &str) -> Result<Field, McpError> {
    let Value::Object(p) = property else {
        return Err(schema_error(
            at,
            format!(
                "a property schema must be an object, not {}",
                json_type_name(property)
            ),
        ));
    };
    for key in ["title", "description"] {
        if let Some(v) = p.get(key) {
            if !v.is_string() {
                return Err(schema_error(&format!("{at}/{key}"), "must be a string"));
            }
        }
    }
    let kind = match p.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(_)) => {
            return Err(schema_error(
                &format!("{at}/type"),
                "a list of types is not supported; use a single primitive type",
            ))
        }
        Some(other) => {
            return Err(schema_error(
                &format!("{at}/type"),
                format!("must be a string, not {other}"),
            ))
        }
        None => {
            return Err(schema_error(
                at,
                "missing `type` (one of string, number, integer, boolean, array)",
            ))
        }
    };
    let allowed_nesting: &[&str] = match kind {
        "string" => &["oneOf"],
        "array" => &["items"],
        _ => &[],
    };
    if kind == "object" || p.contains_key("properties") {
        return Err(schema_error(
            at,
            "nested objects are not supported in elicitation schemas",
        ));
    }
    for key in NESTING_KEYWORDS {
        if p.contains_key(*key) && !allowed_nesting.contains(key) {
            return Err(schema_error(
                &format!("{at}/{key}"),
                format!("`{key}` is not supported in elicitation schemas"),
            ));
        }
    }
    match kind {
        "string" => parse_string(p, at),
        "number" | "integer" => parse_number(p, at, kind == "integer"),
        "boolean" => {
            if let Some(d) = p.get("default") {
                if !d.is_boolean() {
                    return Err(schema_error(&format!("{at}/default"), "must be a boolean"));
                }
            }
            Ok(Field::Boolean)
        }
        "array" => parse_multi(p, at),
        other => Err(schema_error(
            &format!("{at}/type"),
            format!(
                "type \"{other}\" is not supported (use string, number, integer, boolean, or an \
                 array for multi-select enums)"
            ),
        )),
    }
}

fn parse_string(p: &Map<String, Value>, at: &str) -> Result<Field, McpError> {
    if let Some(d) = p.get("default") {
        if !d.is_string() {
            return Err(schema_error(&format!("{at}/default"), "must be a string"));
        }
    }
    let has_enum = p.contains_key("enum");
    let has_one_of = p.contains_key("oneOf");
    if has_enum && has_one_of {
        return Err(schema_error(at, "use either `enum` or `oneOf`, not both"));
    }
    if has_enum {
        let options = string_list(p.get("enum"), &format!("{at}/enum"), true)?;
        if let Some(names) = p.get("enumNames") {
            let names = string_list(Some(names), &format!("{at}/enumNames"), false)?;
            if names.len() != options.len() {
                return Err(schema_error(
                    &format!("{at}/enumNames"),
                    format!(
                        "has {} names for {} enum values",
                        names.len(),
                        options.len()
                    ),
                ));
            }
        }
        return Ok(Field::Single { options });
    }
    if p.contains_key("enumNames") {
        return Err(schema_error(
            &format!("{at}/enumNames"),
            "`enumNames` requires `enum`",
        ));
    }
    if has_one_of {
        let options = titled_options(p.get("oneOf"), &format!("{at}/oneOf"))?;
        return Ok(Field::Single { options });
    }
    let min_length = count(p.get("minLength"), &format!("{at}/minLength"))?;
    let max_length = count(p.get("maxLength"), &format!("{at}/maxLength"))?;
    if let (Some(lo), Some(hi)) = (min_length, max_length) {
        if lo > hi {
            return Err(schema_error(at, "`minLength` is greater than `maxLength`"));
        }
    }
    let format = match p.get("format") {
        None => None,
        Some(Value::String(f)) => Some(match f.as_str() {
            "email" => Format::Email,
            "uri" => Format::Uri,
            "date" => Format::Date,
            "date-time" => Format::DateTime,
            other => {
                return Err(schema_error(
                    &format!("{at}/format"),
                    format!(
                        "format \"{other}\" is not supported (use email, uri, date or date-time)"
                    ),
                ))
            }
        }),
        Some(_) => return Err(schema_error(&format!("{at}/format"), "must be a string")),
    };
    let pattern = match p.get("pattern") {
        None => None,
        Some(Value::String(re)) => {
            let compiled = super::CompiledSchema::compile(&serde_json::json!({
                "type": "string",
                "pattern": re,
            }))
            .map_err(|_| {
                schema_error(
                    &format!("{at}/pattern"),
                    "is not a valid regular expression",
                )
            })?;
            Some(Box::new(compiled))
        }
        Some(_) => return Err(schema_error(&format!("{at}/pattern"), "must be a string")),
    };
    Ok(Field::Text {
        min_length,
        max_length,
        format,
        pattern,
    })
}

fn parse_number(p: &Map<String, Value>, at: &str, integer: bool) -> Result<Field, McpError> {
    let number = |key: &str| -> Result<Option<Number>, McpError> {
        match p.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(n.clone())),
            Some(_) => Err(schema_error(&format!("{at}/{key}"), "must be a number")),
        }
    };
    let minimum = number("minimum")?;
    let maximum = number("maximum")?;
    if let (Some(lo), Some(hi)) = (&minimum, &maximum) {
        if as_f64(lo) > as_f64(hi) {
            return Err(schema_error(at, "`minimum` is greater than `maximum`"));
        }
    }
    if let Some(d) = p.get("default") {
        let ok = match d {
            Value::Number(n) => !integer || is_integer(n),
            _ => false,
        };
        if !ok {
            let want = if integer { "an integer" } else { "a number" };
            return Err(schema_error(
                &format!("{at}/default"),
                format!("must be {want}"),
            ));
        }
    }
    Ok(Field::Number {
        integer,
        minimum,
        maximum,
    })
}

fn parse_multi(p: &Map<String, Value>, at: &str) -> Result<Field, McpError> {
    let items_at = format!("{at}/items");
    let items =
        match p.get("items") {
            Some(Value::Object(items)) => items,
            Some(_) => {
                return Err(schema_error(
                    &items_at,
                    "must be an object (tuple forms are not supported)",
                ))
            }
            None => return Err(schema_error(
                at,
                "arrays are only supported as multi-select enums: `items` with `enum` or `anyOf`",
            )),
        };
    match items.get("type") {
        None => {}
        Some(Value::String(t)) if t == "string" => {}
        Some(Value::String(t)) if t == "object" => {
            return Err(schema_error(
                &items_at,
                "arrays of objects are not supported in elicitation schemas",
            ))
        }
        Some(other) => {
            return Err(schema_error(
                &format!("{items_at}/type"),
                format!("multi-select items must be of type \"string\", not {other}"),
            ))
        }
    }
    if items.contains_key("properties") {
        return Err(schema_error(
            &items_at,
            "arrays of objects are not supported in elicitation schemas",
        ));
    }
    for key in NESTING_KEYWORDS {
        if *key != "anyOf" && items.contains_key(*key) {
            return Err(schema_error(
                &format!("{items_at}/{key}"),
                format!("`{key}` is not supported in elicitation schemas"),
            ));
        }
    }
    let options = match (items.get("enum"), items.get("anyOf")) {
        (Some(_), Some(_)) => {
            return Err(schema_error(
                &items_at,
                "use either `enum` or `anyOf`, not both",
            ))
        }
        (Some(values), None) => {
            if items.get("type").is_none() {
                return Err(schema_error(&items_at, "missing `type: \"string\"`"));
            }
            string_list(Some(values), &format!("{items_at}/enum"), true)?
        }
        (None, Some(choices)) => titled_options(Some(choices), &format!("{items_at}/anyOf"))?,
        (None, None) => {
            return Err(schema_error(
                &items_at,
                "multi-select items need `enum` or `anyOf` of `{const, title}`",
            ))
        }
    };
    let min_items = count(p.get("minItems"), &format!("{at}/minItems"))?;
    let max_items = count(p.get("maxItems"), &format!("{at}/maxItems"))?;
    if let (Some(lo), Some(hi)) = (min_items, max_items) {
        if lo > hi {
            return Err(schema_error(at, "`minItems` is greater than `maxItems`"));
        }
    }
    if let Some(d) = p.get("default") {
        string_list(Some(d), &format!("{at}/default"), false)?;
    }
    Ok(Field::Multi {
        options,
        min_items,
        max_items,
    })
}

/// An array of strings; `non_empty` demands at least one.
fn string_list(value: Option<&Value>, at: &str, non_empty: bool) -> Result<Vec<String>, McpError> {
    let Some(Value::Array(items)) = value else {
        return Err(schema_error(at, "must be an array of strings"));
    };
    if non_empty && items.is_empty() {
        return Err(schema_error(at, "must not be empty"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            _ => Err(schema_error(&format!("{at}/{i}"), "must be a string")),
        })
        .collect()
}

/// A non-empty array of `{ "const": string, "title": string }`.
fn titled_options(value: Option<&Value>, at: &str) -> Result<Vec<String>, McpError> {
    let Some(Value::Array(items)) = value else {
        return Err(schema_error(
            at,
            "must be an array of {const, title} objects",
        ));
    };
    if items.is_empty() {
        return Err(schema_error(at, "must not be empty"));
    }
    let mut options = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_at = format!("{at}/{i}");
        let Value::Object(o) = item else {
            return Err(schema_error(&item_at, "must be a {const, title} object"));
        };
        let Some(Value::String(value)) = o.get("const") else {
            return Err(schema_error(&item_at, "needs a string `const`"));
        };
        if !matches!(o.get("title"), Some(Value::String(_))) {
            return Err(schema_error(&item_at, "needs a string `title`"));
        }
        options.push(value.clone());
    }
    Ok(options)
}

/// A non-negative integer keyword such as `minLength`.
fn count(value: Option<&Value>, at: &str) -> Result<Option<u64>, McpError> {
    match value {
        None => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                Ok(Some(u))
            } else if let Some(f) = n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0) {
                Ok(Some(f as u64))
            } else {
                Err(schema_error(at, "must be a non-negative integer"))
            }
        }
        Some(_) => Err(schema_error(at, "must be a non-negative integer")),
    }
}

fn as_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Whether `a < b` for JSON numbers, exactly for integers.
fn less(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x < y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x < y;
    }
    as_f64(a) < as_f64(b)
}

impl Field {
    fn check(&self, value: &Value, schema_at: &str, at: &str, issues: &mut Vec<ValidationIssue>) {
        let mut fail = |keyword: &str, message: String| {
            issues.push(ValidationIssue {
                path: at.to_string(),
                schema_path: format!("{schema_at}/{keyword}"),
                message,
            })
        };
        match self {
            Field::Text {
                min_length,
                max_length,
                format,
                pattern,
            } => {
                let Value::String(s) = value else {
                    return fail("type", format!("{value} is not of type \"string\""));
                };
                let len = s.chars().count() as u64;
                if let Some(lo) = min_length.filter(|lo| len < *lo) {
                    fail(
                        "minLength",
                        format!("{value} is shorter than {lo} characters"),
                    );
                }
                if let Some(hi) = max_length.filter(|hi| len > *hi) {
                    fail(
                        "maxLength",
                        format!("{value} is longer than {hi} characters"),
                    );
                }
                if let Some(f) = format.filter(|f| !f.accepts(s)) {
                    fail("format", format!("{value} is not a \"{}\"", f.name()));
                }
                if let Some(p) = pattern {
                    if !p.is_valid(value) {
                        fail("pattern", format!("{value} does not match the pattern"));
                    }
                }
            }
            Field::Number {
                integer,
                minimum,
                maximum,
            } => {
                let Value::Number(n) = value else {
                    let want = if *integer { "integer" } else { "number" };
                    return fail("type", format!("{value} is not of type \"{want}\""));
                };
                if *integer && !is_integer(n) {
                    return fail("type", format!("{value} is not of type \"integer\""));
                }
                if let Some(lo) = minimum.as_ref().filter(|lo| less(n, lo)) {
                    fail(
                        "minimum",
                        format!("{value} is less than the minimum of {lo}"),
                    );
                }
                if let Some(hi) = maximum.as_ref().filter(|hi| less(hi, n)) {
                    fail(
                        "maximum",
                        format!("{value} is greater than the maximum of {hi}"),
                    );
                }
            }
            Field::Boolean => {
                if !value.is_boolean() {
                    fail("type", format!("{value} is not of type \"boolean\""));
                }
            }
            Field::Single { options } => match value {
                Value::String(s) if options.contains(s) => {}
                _ => fail(
                    "enum",
                    format!("{value} is not one of {}", Value::from(options.clone())),
                ),
            },
            Field::Multi {
                options,
                min_items,
                max_items,
            } => {
                let Value::Array(items) = value else {
                    return fail("type", format!("{value} is not of type \"array\""));
                };
                let n = items.len() as u64;
                if let Some(lo) = min_items.filter(|lo| n < *lo) {
                    fail("minItems", format!("{value} has fewer than {lo} items"));
                }
                if let Some(hi) = max_items.filter(|hi| n > *hi) {
                    fail("maxItems", format!("{value} has more than {hi} items"));
                }
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) if options.contains(s) => {}
                        _ => issues.push(ValidationIssue {
                            path: format!("{at}/{i}"),
                            schema_path: format!("{schema_at}/items"),
                            message: format!(
                                "{item} is not one of {}",
                                Value::from(options.clone())
                            ),
                        }),
                    }
                }
            }
        }
    }
}
