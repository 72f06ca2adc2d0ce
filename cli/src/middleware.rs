//! `ferromcp proxy --middleware` and the `"middleware"` key of the `--config` file: the engine's
//! built-in layers by name and options, in the JSON form the bindings pass
//! (`[{"name": "rateLimit", "limit": 10, "windowMs": 1000}, {"name": "requestLog"}]`, read by
//! [`MiddlewareConfig`]; `openTelemetry` in a build with the `otel` feature), built before the
//! proxy starts so that a bad entry stops the command with a message naming it.

use ferromcp::server::middleware::{Middleware, MiddlewareConfig};
use serde_json::Value;
use std::sync::Arc;

/// The JSON an option's value holds: the text itself, or `@FILE`'s content.
pub fn json_argument(flag: &str, value: &str) -> Result<Value, String> {
    let (text, origin) = match value.strip_prefix('@') {
        Some(path) => (
            std::fs::read_to_string(path)
                .map_err(|e| format!("{flag}: cannot read {path}: {e}"))?,
            path.to_string(),
        ),
        None => (value.to_string(), flag.to_string()),
    };
    serde_json::from_str(&text).map_err(|e| format!("{origin}: not valid JSON: {e}"))
}

/// The layers a middleware list names, outermost first. `origin` starts each error message
/// (`--middleware`, or the config file's path); the message then names the entry
/// (`middleware[1]`), its `name` when it has one, and what is wrong with it.
pub fn layers(list: Value, origin: &str) -> Result<Vec<Arc<dyn Middleware>>, String> {
    let Value::Array(items) = list else {
        return Err(format!(
            "{origin}: middleware must be an array of {{\"name\": ..., options}}, not {}",
            kind(&list)
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let at = match item.get("name").and_then(Value::as_str) {
                Some(name) => format!("{origin}: middleware[{i}] ({name})"),
                None => format!("{origin}: middleware[{i}]"),
            };
            layer(item).map_err(|e| format!("{at}: {e}"))
        })
        .collect()
}

fn layer(item: Value) -> Result<Arc<dyn Middleware>, String> {
    if !item.is_object() {
        return Err(format!("must be an object, not {}", kind(&item)));
    }
    if item.get("name").is_none() {
        return Err("has no \"name\" (rateLimit, requestLog, maskErrors, responseCache, authorization, openTelemetry)".into());
    }
    if item.get("name").and_then(Value::as_str) == Some("openTelemetry") {
        return telemetry(&item);
    }
    let config: MiddlewareConfig = serde_json::from_value(item).map_err(|e| e.to_string())?;
    config.build().map_err(|e| e.message)
}

#[cfg(feature = "otel")]
fn telemetry(item: &Value) -> Result<Arc<dyn Middleware>, String> {
    let layer = ferromcp::telemetry::Telemetry::layer_from_json(item).map_err(|e| e.message)?;
    Ok(Arc::new(layer))
}

#[cfg(not(feature = "otel"))]
fn telemetry(_item: &Value) -> Result<Arc<dyn Middleware>, String> {
    Err("this ferromcp was built without OpenTelemetry (the otel feature)".into())
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        match layers(v, "--middleware") {
            Ok(_) => panic!("accepted"),
            Err(e) => e,
        }
    }

    #[test]
    fn layers_are_built_in_order_and_bad_entries_named() {
        let built = layers(
            json!([
                {"name": "requestLog"},
                {"name": "rateLimit", "limit": 2, "windowMs": 1000,
                 "tools": {"slow": {"limit": 1, "windowMs": 60000}}},
                {"name": "maskErrors"},
            ]),
            "--middleware",
        )
        .unwrap();
        assert_eq!(built.len(), 3);
        assert_eq!(
            err(json!({"name": "rateLimit"})),
            "--middleware: middleware must be an array of {\"name\": ..., options}, not an object"
        );
        assert_eq!(
            err(json!([{"name": "maskErrors"}, 3])),
            "--middleware: middleware[1]: must be an object, not a number"
        );
        let e = err(json!([{"limit": 1}]));
        assert!(
            e.starts_with("--middleware: middleware[0]: has no \"name\""),
            "{e}"
        );
        let e = err(json!([{"name": "maskErrors"}, {"name": "cache"}]));
        assert!(
            e.starts_with("--middleware: middleware[1] (cache): unknown variant `cache`"),
            "{e}"
        );
        let e = err(json!([{"name": "rateLimit", "limit": 1, "windowMs": 1, "windw": 3}]));
        assert!(
            e.starts_with("--middleware: middleware[0] (rateLimit): unknown field `windw`"),
            "{e}"
        );
        // Well formed, but out of range: refused by the layer itself.
        let e = err(json!([{"name": "requestLog", "level": "loud"}]));
        assert!(
            e.starts_with("--middleware: middleware[0] (requestLog): "),
            "{e}"
        );
        assert!(e.contains("loud"), "{e}");
    }

    #[test]
    fn an_argument_is_json_text_or_a_file() {
        assert_eq!(json_argument("--m", "[1]").unwrap(), json!([1]));
        let e = json_argument("--m", "[1").unwrap_err();
        assert!(e.starts_with("--m: not valid JSON: "), "{e}");
        let e = json_argument("--m", "@/nonexistent/m.json").unwrap_err();
        assert!(
            e.starts_with("--m: cannot read /nonexistent/m.json: "),
            "{e}"
        );
    }
}
