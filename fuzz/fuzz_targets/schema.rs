//! Tool and elicitation schemas (`ferromcp::schema`): compiling any JSON as a schema and
//! validating any value against it never panics, and the answers agree with each other.
#![no_main]

use ferromcp::schema::{elicitation, CompiledSchema, SchemaCache};
use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // A JSON array `[schema, value]`, or any JSON as both schema and value.
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (schema, value) = match &input {
        Value::Array(pair) if pair.len() == 2 => (&pair[0], &pair[1]),
        other => (other, other),
    };
    let compiled = CompiledSchema::compile(schema);
    if let Ok(c) = &compiled {
        let _ = c.dialect();
        let valid = c.is_valid(value);
        let issues = c.validate(value);
        assert_eq!(valid, issues.is_ok(), "is_valid and validate disagree");
        if let Err(issues) = issues {
            assert!(!issues.is_empty() && issues.len() <= ferromcp::schema::MAX_ISSUES);
        }
    }
    let cache = SchemaCache::with_capacity(2);
    assert_eq!(cache.get_or_compile(schema).is_ok(), compiled.is_ok());

    let form = elicitation::check_requested_schema(schema);
    if let Value::Object(content) = value {
        let checked = elicitation::validate_content(schema, content);
        if form.is_err() {
            assert!(checked.is_err(), "content accepted against a refused form");
        }
    }
});
