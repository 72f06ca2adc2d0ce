//! Tool parameters mirrored into HTTP headers (`x-mcp-header`, 2026-07-28): which arguments of
//! a tool travel as `Mcp-Param-{Name}` headers, read once from its input schema when the tool
//! is registered.

use serde_json::Value;

/// One `x-mcp-header` annotation: the header's name part and the property path it mirrors.
#[derive(Clone, Debug, PartialEq, Eq)]
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

impl HeaderParam {
    /// The argument this parameter mirrors, if the call has one (`null` counts as none).
    pub fn value_in<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        let mut v = arguments?;
        for key in &self.path {
            v = v.get(key)?;
        }
        (!v.is_null()).then_some(v)
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
}
