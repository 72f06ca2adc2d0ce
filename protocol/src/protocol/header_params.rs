//! Tool parameters mirrored into HTTP headers (`x-mcp-header`, 2026-07-28): which arguments of
//! a tool travel as `Mcp-Param-{Name}` headers, read once from its input schema when the tool
//! is registered. A client checks the same annotations strictly ([`checked_header_params`]):
//! it must leave out tools whose annotations break the spec's rules, and mirror the others.

use serde_json::Value;

/// One `x-mcp-header` annotation: the header's name part and the property path it mirrors.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderParam {
    /// `{Name}` of `Mcp-Param-{Name}`.
    pub name: String,
    /// The chain of `properties` keys leading to the annotated property.
    pub path: Vec<String>,
}

/// The `x-mcp-header` annotations of an input schema: on properties reached through chains of
/// `properties` keys from the root (an annotation anywhere else is not one). Depth is bounded.
pub fn header_params(schema: &Value) -> Vec<HeaderParam> {
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<HeaderParam>) {
        if path.len() > 16 {
            return;
        }
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (key, prop) in props {
            path.push(key.clone());
            if let Some(name) = prop.get("x-mcp-header").and_then(Value::as_str) {
                out.push(HeaderParam {
                    name: name.to_string(),
                    path: path.clone(),
                });
            }
            walk(prop, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// The `x-mcp-header` annotations of a tool's input schema as a client must judge them
/// (2026-07-28 Streamable HTTP): every annotation must sit on a property reached from the root
/// through `properties` keys only, name a non-empty HTTP token, be case-insensitively unique, and
/// annotate a `string`, `integer` or `boolean` property. `Err` names the first rule broken (the
/// client then leaves the tool out of `tools/list`).
pub fn checked_header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    /// Counts every `x-mcp-header` keyword anywhere in the schema (property names in a
    /// `properties` map are not keywords). Depth is bounded; deeper parts are refused.
    fn count_all(schema: &Value, depth: usize) -> Result<usize, String> {
        if depth > 64 {
            return Err("the input schema is nested too deeply to check".into());
        }
        let mut n = 0;
        match schema {
            Value::Object(m) => {
                for (k, v) in m {
                    if k == "x-mcp-header" {
                        n += 1;
                    } else if k == "properties" {
                        if let Some(props) = v.as_object() {
                            for p in props.values() {
                                n += count_all(p, depth + 1)?;
                            }
                        }
                    } else {
                        n += count_all(v, depth + 1)?;
                    }
                }
            }
            Value::Array(a) => {
                for v in a {
                    n += count_all(v, depth + 1)?;
                }
            }
            _ => {}
        }
        Ok(n)
    }
    fn is_tchar(c: char) -> bool {
        c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
    }
    let mut out = Vec::new();
    fn walk(
        schema: &Value,
        path: &mut Vec<String>,
        out: &mut Vec<HeaderParam>,
    ) -> Result<(), String> {
        if path.len() > 16 {
            return Ok(());
        }
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return Ok(());
        };
        for (key, prop) in props {
            path.push(key.clone());
            if let Some(raw) = prop.get("x-mcp-header") {
                let at = path.join(".");
                let Some(name) = raw.as_str() else {
                    return Err(format!("x-mcp-header on {at:?} is not a string"));
                };
                if name.is_empty() {
                    return Err(format!("x-mcp-header on {at:?} is empty"));
                }
                if !name.chars().all(is_tchar) {
                    return Err(format!(
                        "x-mcp-header {name:?} on {at:?} is not an HTTP token"
                    ));
                }
                match prop.get("type").and_then(Value::as_str) {
                    Some("string" | "integer" | "boolean") => {}
                    t => {
                        return Err(format!(
                            "x-mcp-header {name:?} on {at:?} annotates type {}, not string, integer or boolean",
                            t.map_or_else(|| "(none or several)".to_string(), |t| format!("{t:?}"))
                        ))
                    }
                }
                out.push(HeaderParam {
                    name: name.to_string(),
                    path: path.clone(),
                });
            }
            walk(prop, path, out)?;
            path.pop();
        }
        Ok(())
    }
    walk(schema, &mut Vec::new(), &mut out)?;
    if count_all(schema, 0)? != out.len() {
        return Err(
            "an x-mcp-header annotation is not on a property reached through properties keys only"
                .into(),
        );
    }
    let mut seen = std::collections::HashSet::new();
    for p in &out {
        if !seen.insert(p.name.to_ascii_lowercase()) {
            return Err(format!(
                "x-mcp-header {:?} is used twice (names are case-insensitive)",
                p.name
            ));
        }
    }
    Ok(out)
}

impl HeaderParam {
    /// The header value a client sends for `value` (string as is, integer in decimal, boolean
    /// as `true`/`false`; the `=?base64?...?=` form when it is not plain visible ASCII with no
    /// leading or trailing space, or looks like that form). `None` for other JSON types.
    pub fn header_value(value: &Value) -> Option<String> {
        let plain = match value {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
            _ => return None,
        };
        Some(encode_header_value(&plain))
    }

    /// The argument this parameter mirrors, if the call has one (`null` counts as none).
    pub fn value_in<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        let mut v = arguments?;
        for key in &self.path {
            v = v.get(key)?;
        }
        (!v.is_null()).then_some(v)
    }
}

/// `value` as a header value: as it is when it is visible ASCII or inner spaces, without
/// leading or trailing whitespace and not shaped like the sentinel; otherwise
/// `=?base64?{Base64 of its UTF-8}?=` (2026-07-28 Streamable HTTP, value encoding).
pub fn encode_header_value(value: &str) -> String {
    use base64::Engine as _;
    let visible = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    if visible && !padded && !sentinel {
        value.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value.as_bytes())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_annotations_on_property_chains_only() {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "opts": { "type": "object", "properties": {
                "tenant": { "type": "string", "x-mcp-header": "Tenant" } } },
            "list": { "type": "array", "items": { "x-mcp-header": "Nope" } },
        } });
        let mut found = header_params(&schema);
        found.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].name, "Region");
        assert_eq!(
            found[1].path,
            vec!["opts".to_string(), "tenant".to_string()]
        );
        let args = json!({ "opts": { "tenant": "t1" }, "region": null });
        assert_eq!(found[1].value_in(Some(&args)), Some(&json!("t1")));
        assert_eq!(found[0].value_in(Some(&args)), None);
    }

    #[test]
    fn a_client_refuses_misplaced_or_malformed_annotations() {
        let ok = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "n": { "type": "integer", "x-mcp-header": "N" } } });
        assert_eq!(checked_header_params(&ok).unwrap().len(), 2);
        let bad = [
            json!({ "properties": { "v": { "type": "string", "x-mcp-header": "" } } }),
            json!({ "properties": { "v": { "type": "object", "x-mcp-header": "V" } } }),
            json!({ "properties": { "v": { "type": "number", "x-mcp-header": "V" } } }),
            json!({ "properties": { "v": { "type": "null", "x-mcp-header": "V" } } }),
            json!({ "properties": { "v": { "type": "string", "x-mcp-header": "My V" } } }),
            json!({ "properties": { "v": { "type": "string", "x-mcp-header": "R\u{e9}gion" } } }),
            json!({ "properties": { "v": { "type": "string", "x-mcp-header": "a:b" } } }),
            json!({ "properties": {
                "a": { "type": "string", "x-mcp-header": "MyField" },
                "b": { "type": "string", "x-mcp-header": "myfield" } } }),
            json!({ "properties": { "l": { "type": "array",
                "items": { "type": "string", "x-mcp-header": "L" } } } }),
            json!({ "anyOf": [ { "properties": { "v": { "type": "string", "x-mcp-header": "V" } } } ] }),
        ];
        for schema in bad {
            assert!(checked_header_params(&schema).is_err(), "{schema}");
        }
        // A property named like the keyword is only a name.
        let named = json!({ "properties": { "x-mcp-header": { "type": "string" } } });
        assert_eq!(checked_header_params(&named).unwrap(), vec![]);
    }

    #[test]
    fn header_values_are_encoded_as_the_spec_shows() {
        let enc = |v: Value| HeaderParam::header_value(&v);
        assert_eq!(enc(json!("us-west1")).as_deref(), Some("us-west1"));
        assert_eq!(enc(json!("us west 1")).as_deref(), Some("us west 1"));
        assert_eq!(enc(json!(42)).as_deref(), Some("42"));
        assert_eq!(enc(json!(false)).as_deref(), Some("false"));
        assert_eq!(enc(json!(3.5)), None);
        assert_eq!(
            enc(json!("Hello, \u{4e16}\u{754c}")).as_deref(),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );
        assert_eq!(
            enc(json!(" padded ")).as_deref(),
            Some("=?base64?IHBhZGRlZCA=?=")
        );
        assert_eq!(
            enc(json!("line1\nline2")).as_deref(),
            Some("=?base64?bGluZTEKbGluZTI=?=")
        );
        assert_eq!(
            enc(json!("=?base64?literal?=")).as_deref(),
            Some("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
        );
        assert_eq!(
            enc(json!("\tindented")).as_deref(),
            Some("=?base64?CWluZGVudGVk?=")
        );
    }
}
