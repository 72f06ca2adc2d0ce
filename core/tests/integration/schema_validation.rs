//! Tests for `ferromcp::schema`: tool input/output validation with exact error locations, the
//! compiled-schema cache, and the elicitation requested-schema subset and content checks.

use ferromcp::codes;
use ferromcp::schema::elicitation::{check_requested_schema, validate_content};
use ferromcp::schema::{validation_error, CompiledSchema, SchemaCache, ValidationIssue};
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn compile(schema: Value) -> CompiledSchema {
    CompiledSchema::compile(&schema).unwrap_or_else(|e| panic!("{schema} did not compile: {e}"))
}

fn paths(issues: &[ValidationIssue]) -> Vec<&str> {
    issues.iter().map(|i| i.path.as_str()).collect()
}

#[test]
fn valid_instances_pass() {
    let schema = compile(json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"]
    }));
    assert!(schema.validate(&json!({"city": "Paris"})).is_ok());
    assert!(schema
        .validate(&json!({"city": "Paris", "days": 3}))
        .is_ok());
    assert!(schema.is_valid(&json!({"city": "Paris", "extra": true})));
    assert_eq!(
        schema.dialect(),
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn invalid_instances_report_exact_paths() {
    let schema = compile(json!({
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"]
                }
            }
        },
        "required": ["a"]
    }));
    let issues = schema
        .validate(&json!({"a": 5, "items": [{"name": "x"}, {"name": "y"}, {"name": 3}, {}]}))
        .unwrap_err();
    let mut found = paths(&issues);
    found.sort_unstable();
    assert_eq!(found, vec!["/a", "/items/2/name", "/items/3"]);
    let a = issues.iter().find(|i| i.path == "/a").unwrap();
    assert_eq!(a.message, "5 is not of type \"string\"");
    assert_eq!(a.schema_path, "/properties/a/type");
    let missing = issues.iter().find(|i| i.path == "/items/3").unwrap();
    assert_eq!(missing.message, "\"name\" is a required property");

    let root = schema.validate(&json!({})).unwrap_err();
    assert_eq!(paths(&root), vec![""]);
    assert_eq!(root[0].schema_path, "/required");
}

#[test]
fn pointer_escapes_in_paths() {
    let schema =
        compile(json!({"properties": {"a/b": {"type": "string"}, "c~d": {"type": "string"}}}));
    let issues = schema.validate(&json!({"a/b": 1, "c~d": 2})).unwrap_err();
    let mut found = paths(&issues);
    found.sort_unstable();
    assert_eq!(found, vec!["/a~1b", "/c~0d"]);
}

#[test]
fn defs_and_local_refs() {
    let schema = compile(json!({
        "$defs": {
            "item": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            "node": {
                "type": "object",
                "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}
            }
        },
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
            "tree": {"$ref": "#/$defs/node"}
        }
    }));
    assert!(schema.is_valid(
        &json!({"items": [{"name": "a"}], "tree": {"value": 1, "children": [{"value": 2}]}})
    ));
    let issues = schema
        .validate(&json!({"items": [{"name": "a"}, {"name": "b"}, {"name": 1}]}))
        .unwrap_err();
    assert_eq!(paths(&issues), vec!["/items/2/name"]);
    assert_eq!(issues[0].schema_path, "/$defs/item/properties/name/type");
    let issues = schema
        .validate(&json!({"tree": {"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]}}))
        .unwrap_err();
    assert_eq!(paths(&issues), vec!["/tree/children/0/children/0/value"]);
}

#[test]
fn draft_2020_12_keywords() {
    let tuple = compile(json!({
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "items": false
    }));
    assert!(tuple.is_valid(&json!(["a", 1])));
    assert_eq!(
        paths(&tuple.validate(&json!(["a", "b"])).unwrap_err()),
        vec!["/1"]
    );
    assert!(!tuple.is_valid(&json!(["a", 1, true])));

    let closed = compile(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"b": {"type": "integer"}}}],
        "unevaluatedProperties": false
    }));
    assert!(closed.is_valid(&json!({"a": "x", "b": 1})));
    let issues = closed
        .validate(&json!({"a": "x", "b": 1, "c": 2}))
        .unwrap_err();
    assert_eq!(issues.len(), 1);
    assert!(issues[0].message.contains("'c'"), "{}", issues[0].message);

    let dependent = compile(json!({"dependentRequired": {"card": ["cvv"]}}));
    assert!(!dependent.is_valid(&json!({"card": "1"})));
    assert!(dependent.is_valid(&json!({"card": "1", "cvv": "2"})));
}

#[test]
fn draft_07_is_honoured() {
    let schema = compile(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "items": [{"type": "string"}],
        "additionalItems": false,
        "definitions": {"n": {"type": "integer"}},
        "properties": {}
    }));
    assert_eq!(schema.dialect(), "http://json-schema.org/draft-07/schema#");
    assert!(schema.is_valid(&json!(["a"])));
    // Tuple `items` with `additionalItems: false` only exists in draft-07 and earlier.
    assert!(!schema.is_valid(&json!(["a", 1])));

    let refs = compile(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"n": {"type": "integer"}},
        "properties": {"n": {"$ref": "#/definitions/n"}}
    }));
    assert_eq!(
        paths(&refs.validate(&json!({"n": "x"})).unwrap_err()),
        vec!["/n"]
    );

    let d2019 = compile(
        json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "string"}),
    );
    assert_eq!(
        d2019.dialect(),
        "https://json-schema.org/draft/2019-09/schema"
    );
}

#[test]
fn remote_refs_and_invalid_schemas_are_rejected() {
    let err =
        CompiledSchema::compile(&json!({"$ref": "https://example.com/schema.json"})).unwrap_err();
    assert_eq!(err.code, codes::INVALID_PARAMS);
    assert!(
        err.message.contains("https://example.com/schema.json"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("remote references are never fetched"),
        "{}",
        err.message
    );

    let err = CompiledSchema::compile(&json!({"properties": {"a": {"$ref": "other.json#/x"}}}))
        .unwrap_err();
    assert!(err.message.contains("other.json"), "{}", err.message);

    let err = CompiledSchema::compile(&json!({"$ref": "#/$defs/missing"})).unwrap_err();
    assert!(err.message.contains("/$defs/missing"), "{}", err.message);

    let err = CompiledSchema::compile(&json!({"type": "strin"})).unwrap_err();
    assert_eq!(err.code, codes::INVALID_PARAMS);
    assert!(
        err.message.starts_with("Invalid JSON Schema"),
        "{}",
        err.message
    );

    let err =
        CompiledSchema::compile(&json!({"$schema": "https://example.com/my-dialect"})).unwrap_err();
    assert!(
        err.message.contains("unsupported dialect"),
        "{}",
        err.message
    );

    for not_a_schema in [json!(null), json!(3), json!("object"), json!([])] {
        let err = CompiledSchema::compile(&not_a_schema).unwrap_err();
        assert!(
            err.message.contains("must be an object or a boolean"),
            "{}",
            err.message
        );
    }
    assert!(compile(json!(true)).is_valid(&json!(1)));
    assert!(!compile(json!(false)).is_valid(&json!(1)));
}

#[test]
fn validation_error_shape() {
    let schema = compile(json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}));
    let issues = schema.validate(&json!({"a": 5})).unwrap_err();
    let err = validation_error("arguments for tool \"x\"", &issues);
    assert_eq!(err.code, -32602);
    assert_eq!(
        err.message,
        "Invalid arguments for tool \"x\": /a: 5 is not of type \"string\""
    );
    assert_eq!(
        err.data,
        Some(
            json!({"errors": [{"path": "/a", "message": "5 is not of type \"string\"", "schemaPath": "/properties/a/type"}]})
        )
    );

    let issues = compile(json!({"required": ["a", "b"]}))
        .validate(&json!({}))
        .unwrap_err();
    let err = validation_error("structured content of tool \"y\"", &issues);
    assert_eq!(
        err.message,
        "Invalid structured content of tool \"y\": \"a\" is a required property (and 1 more)"
    );
    assert_eq!(err.data.unwrap()["errors"].as_array().unwrap().len(), 2);
}

#[test]
fn issue_count_is_capped() {
    let schema = compile(json!({"type": "array", "items": {"type": "string"}}));
    let many: Vec<Value> = (0..1000).map(Value::from).collect();
    let issues = schema.validate(&Value::from(many)).unwrap_err();
    assert_eq!(issues.len(), ferromcp::schema::MAX_ISSUES);
}

#[test]
fn cache_compiles_once() {
    let cache = SchemaCache::new();
    let a = cache
        .get_or_compile(&json!({"type": "object", "properties": {"x": {"type": "string"}}}))
        .unwrap();
    // Same schema, different key order: same compilation.
    let b = cache
        .get_or_compile(&json!({"properties": {"x": {"type": "string"}}, "type": "object"}))
        .unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let c = cache.get_or_compile(&json!({"type": "string"})).unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    assert_eq!(cache.len(), 2);
    assert!(cache
        .get_or_compile(&json!({"$ref": "https://example.com/x"}))
        .is_err());
    assert_eq!(cache.len(), 2);
    cache.clear();
    assert!(cache.is_empty());
}

#[test]
fn cache_is_bounded_and_evicts_least_recent() {
    let cache = SchemaCache::with_capacity(3);
    let first = cache.get_or_compile(&json!({"minimum": 0})).unwrap();
    let second = cache.get_or_compile(&json!({"minimum": 1})).unwrap();
    cache.get_or_compile(&json!({"minimum": 2})).unwrap();
    // Touch the first so the second becomes the least recently used.
    assert!(Arc::ptr_eq(
        &first,
        &cache.get_or_compile(&json!({"minimum": 0})).unwrap()
    ));
    cache.get_or_compile(&json!({"minimum": 3})).unwrap();
    assert_eq!(cache.len(), 3);
    assert!(Arc::ptr_eq(
        &first,
        &cache.get_or_compile(&json!({"minimum": 0})).unwrap()
    ));
    assert_eq!(cache.len(), 3);
    // The second was evicted, so asking again compiles afresh.
    let again = cache.get_or_compile(&json!({"minimum": 1})).unwrap();
    assert!(!Arc::ptr_eq(&second, &again));
    assert_eq!(cache.len(), 3);
}

#[test]
fn cache_is_shared_across_threads() {
    let cache = Arc::new(SchemaCache::new());
    let schema = json!({"type": "object", "required": ["id"]});
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let cache = cache.clone();
            let schema = schema.clone();
            std::thread::spawn(move || cache.get_or_compile(&schema).unwrap())
        })
        .collect();
    let compiled: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(compiled.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1])));
    assert_eq!(cache.len(), 1);
}

// --- elicitation -------------------------------------------------------------------------

fn form(properties: Value, required: Value) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn accepts(schema: Value) {
    check_requested_schema(&schema).unwrap_or_else(|e| panic!("{schema} rejected: {e}"));
}

fn rejects(schema: Value, expected: &str) {
    let err = check_requested_schema(&schema).expect_err(&schema.to_string());
    assert_eq!(err.code, codes::INVALID_PARAMS);
    assert!(
        err.message.contains(expected),
        "{schema}: expected {expected:?} in {:?}",
        err.message
    );
}

#[test]
fn elicitation_accepts_every_primitive_form() {
    accepts(form(
        json!({
            "name": {"type": "string", "title": "Name", "description": "Full name", "minLength": 1, "maxLength": 50, "default": "Ann"},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "born": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "code": {"type": "string", "pattern": "^[A-Z]+$"},
            "age": {"type": "number", "minimum": 0, "maximum": 150.5, "default": 30},
            "count": {"type": "integer", "minimum": 1, "default": 2},
            "ok": {"type": "boolean", "default": false},
            "color": {"type": "string", "enum": ["Red", "Green"], "default": "Red"},
            "legacy": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
            "titled": {"type": "string", "oneOf": [{"const": "#F00", "title": "Red"}, {"const": "#0F0", "title": "Green"}], "default": "#F00"},
            "multi": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["a", "b", "c"]}, "default": ["a"]},
            "multiTitled": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}, "default": ["a", "b"]}
        }),
        json!(["name", "email"]),
    ));
    accepts(json!({"type": "object", "properties": {}}));
    accepts(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Contact",
        "properties": {"n": {"type": "string", "$comment": "vendor notes are ignored", "x-widget": "text"}}
    }));
}

#[test]
fn elicitation_rejects_nesting_with_property_path() {
    rejects(
        form(
            json!({"address": {"type": "object", "properties": {"street": {"type": "string"}}}}),
            json!([]),
        ),
        "/properties/address: nested objects are not supported",
    );
    rejects(
        form(
            json!({"people": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}}}}),
            json!([]),
        ),
        "/properties/people/items: arrays of objects are not supported",
    );
    rejects(
        form(
            json!({"tags": {"type": "array", "items": {"type": "string"}}}),
            json!([]),
        ),
        "/properties/tags/items: multi-select items need",
    );
    rejects(
        form(json!({"tags": {"type": "array"}}), json!([])),
        "/properties/tags: arrays are only supported as multi-select enums",
    );
    rejects(
        form(
            json!({"x": {"$ref": "#/$defs/x", "type": "string"}}),
            json!([]),
        ),
        "/properties/x/$ref: `$ref` is not supported",
    );
    rejects(
        form(
            json!({"x": {"type": "string", "anyOf": [{"const": "a"}]}}),
            json!([]),
        ),
        "/properties/x/anyOf",
    );
    rejects(
        form(json!({"a~b/c": {"type": "object"}}), json!([])),
        "/properties/a~0b~1c: nested objects",
    );
    rejects(
        json!({"type": "object", "properties": {}, "$defs": {"x": {}}}),
        "/$defs",
    );
}

#[test]
fn elicitation_rejects_malformed_schemas() {
    rejects(json!("object"), "must be an object");
    rejects(json!({"properties": {}}), "missing `type: \"object\"`");
    rejects(
        json!({"type": "array", "properties": {}}),
        "/type: must be \"object\"",
    );
    rejects(json!({"type": "object"}), "missing `properties`");
    rejects(
        form(json!({"a": {"type": "string"}}), json!(["b"])),
        "/required/0: \"b\" is not one of",
    );
    rejects(
        form(json!({"a": {"type": "string"}}), json!("a")),
        "/required: must be an array",
    );
    rejects(
        form(json!({"a": {}}), json!([])),
        "/properties/a: missing `type`",
    );
    rejects(
        form(json!({"a": {"type": ["string", "null"]}}), json!([])),
        "a list of types",
    );
    rejects(
        form(json!({"a": {"type": "null"}}), json!([])),
        "type \"null\" is not supported",
    );
    rejects(
        form(json!({"a": "string"}), json!([])),
        "a property schema must be an object",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "format": "uuid"}}),
            json!([]),
        ),
        "format \"uuid\"",
    );
    rejects(
        form(json!({"a": {"type": "string", "minLength": -1}}), json!([])),
        "/properties/a/minLength",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "minLength": 5, "maxLength": 2}}),
            json!([]),
        ),
        "greater than `maxLength`",
    );
    rejects(
        form(json!({"a": {"type": "string", "pattern": "("}}), json!([])),
        "/properties/a/pattern",
    );
    rejects(
        form(json!({"a": {"type": "string", "default": 3}}), json!([])),
        "/properties/a/default: must be a string",
    );
    rejects(
        form(json!({"a": {"type": "number", "minimum": "0"}}), json!([])),
        "/properties/a/minimum",
    );
    rejects(
        form(
            json!({"a": {"type": "number", "minimum": 5, "maximum": 1}}),
            json!([]),
        ),
        "greater than `maximum`",
    );
    rejects(
        form(json!({"a": {"type": "integer", "default": 1.5}}), json!([])),
        "must be an integer",
    );
    rejects(
        form(
            json!({"a": {"type": "boolean", "default": "yes"}}),
            json!([]),
        ),
        "must be a boolean",
    );
    rejects(
        form(json!({"a": {"type": "string", "enum": []}}), json!([])),
        "/properties/a/enum: must not be empty",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "enum": ["x", 1]}}),
            json!([]),
        ),
        "/properties/a/enum/1",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "enum": ["x"], "enumNames": ["X", "Y"]}}),
            json!([]),
        ),
        "2 names for 1 enum values",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "enumNames": ["X"]}}),
            json!([]),
        ),
        "`enumNames` requires `enum`",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "oneOf": [{"const": "x"}]}}),
            json!([]),
        ),
        "/properties/a/oneOf/0: needs a string `title`",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "oneOf": [{"title": "X"}]}}),
            json!([]),
        ),
        "needs a string `const`",
    );
    rejects(
        form(
            json!({"a": {"type": "string", "enum": ["x"], "oneOf": [{"const": "x", "title": "X"}]}}),
            json!([]),
        ),
        "either `enum` or `oneOf`",
    );
    rejects(
        form(
            json!({"a": {"type": "array", "items": {"type": "integer", "enum": [1]}}}),
            json!([]),
        ),
        "must be of type \"string\"",
    );
    rejects(
        form(
            json!({"a": {"type": "array", "items": {"enum": ["x"]}}}),
            json!([]),
        ),
        "missing `type: \"string\"`",
    );
    rejects(
        form(
            json!({"a": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "minItems": 3, "maxItems": 1}}),
            json!([]),
        ),
        "greater than `maxItems`",
    );
    rejects(
        form(
            json!({"a": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": "x"}}),
            json!([]),
        ),
        "/properties/a/default",
    );
    rejects(
        form(json!({"a": {"type": "string", "title": 1}}), json!([])),
        "/properties/a/title",
    );
}

fn content(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("content object")
}

fn contact_form() -> Value {
    form(
        json!({
            "name": {"type": "string", "minLength": 2, "maxLength": 5},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "born": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "code": {"type": "string", "pattern": "^[A-Z]+$"},
            "age": {"type": "number", "minimum": 18, "maximum": 99.5},
            "count": {"type": "integer"},
            "ok": {"type": "boolean"},
            "color": {"type": "string", "enum": ["Red", "Green"]},
            "legacy": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
            "titled": {"type": "string", "oneOf": [{"const": "#F00", "title": "Red"}]},
            "multi": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["a", "b", "c"]}},
            "multiTitled": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}
        }),
        json!(["name", "email"]),
    )
}

#[test]
fn elicitation_content_accepted() {
    let schema = contact_form();
    validate_content(
        &schema,
        &content(json!({"name": "Ann", "email": "ann@example.com"})),
    )
    .unwrap();
    validate_content(
        &schema,
        &content(json!({
            "name": "Ann", "email": "ann@example.com", "site": "https://example.com/x?y=1",
            "born": "2000-02-29", "at": "2024-05-01T10:00:00Z", "code": "ABC", "age": 18,
            "count": 3, "ok": true, "color": "Green", "legacy": "r", "titled": "#F00",
            "multi": ["a", "c"], "multiTitled": ["a"]
        })),
    )
    .unwrap();
    // Integers written as floats count, as in JSON Schema.
    validate_content(
        &schema,
        &content(json!({"name": "Ann", "email": "a@b.co", "count": 2.0})),
    )
    .unwrap();
}

fn content_issues(value: Value) -> Vec<(String, String)> {
    let err = validate_content(&contact_form(), &content(value)).expect_err("content should fail");
    assert_eq!(err.code, codes::INVALID_PARAMS);
    assert!(
        err.message.starts_with("Invalid elicitation content: "),
        "{}",
        err.message
    );
    err.data.unwrap()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn elicitation_content_rejected() {
    let base = |extra: Value| {
        let mut c = json!({"name": "Ann", "email": "ann@example.com"});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    let one = |extra: Value| {
        let issues = content_issues(base(extra.clone()));
        assert_eq!(issues.len(), 1, "{extra}: {issues:?}");
        issues.into_iter().next().unwrap()
    };

    let missing = content_issues(json!({"name": "Ann"}));
    assert_eq!(
        missing,
        vec![(
            String::new(),
            "\"email\" is a required property".to_string()
        )]
    );

    assert_eq!(one(json!({"name": 5})).0, "/name");
    assert!(one(json!({"name": "A"})).1.contains("shorter than 2"));
    assert!(one(json!({"name": "Annabel"})).1.contains("longer than 5"));
    // Length counts characters, not bytes.
    content_issues(base(json!({"name": "é"})));
    validate_content(&contact_form(), &content(base(json!({"name": "éé"})))).unwrap();
    assert!(one(json!({"email": "not-an-email"}))
        .1
        .contains("\"email\""));
    assert!(one(json!({"site": "no scheme"})).1.contains("\"uri\""));
    assert!(one(json!({"born": "2023-02-29"})).1.contains("\"date\""));
    assert!(one(json!({"at": "2024-05-01 10:00"}))
        .1
        .contains("\"date-time\""));
    assert!(one(json!({"code": "abc"})).1.contains("pattern"));
    assert!(one(json!({"age": 17}))
        .1
        .contains("less than the minimum of 18"));
    assert!(one(json!({"age": 100}))
        .1
        .contains("greater than the maximum of 99.5"));
    assert!(one(json!({"age": "20"}))
        .1
        .contains("not of type \"number\""));
    assert!(one(json!({"count": 1.5}))
        .1
        .contains("not of type \"integer\""));
    assert!(one(json!({"ok": "true"}))
        .1
        .contains("not of type \"boolean\""));
    assert_eq!(one(json!({"color": "Blue"})).0, "/color");
    assert_eq!(one(json!({"legacy": "Red"})).0, "/legacy");
    assert_eq!(one(json!({"titled": "Red"})).0, "/titled");
    assert!(one(json!({"multi": []})).1.contains("fewer than 1"));
    assert!(one(json!({"multi": ["a", "b", "c"]}))
        .1
        .contains("more than 2"));
    assert_eq!(one(json!({"multi": ["a", "z"]})).0, "/multi/1");
    assert_eq!(one(json!({"multiTitled": ["b"]})).0, "/multiTitled/0");
    assert!(one(json!({"multi": "a"}))
        .1
        .contains("not of type \"array\""));

    // Several problems are all reported.
    let issues = content_issues(json!({"name": 1, "email": "x", "age": 3}));
    let mut at: Vec<&str> = issues.iter().map(|(p, _)| p.as_str()).collect();
    at.sort_unstable();
    assert_eq!(at, vec!["/age", "/email", "/name"]);
}

#[test]
fn elicitation_content_extra_properties() {
    let open = form(json!({"a": {"type": "string"}}), json!([]));
    validate_content(&open, &content(json!({"a": "x", "b": 1}))).unwrap();
    let mut closed = open.clone();
    closed["additionalProperties"] = json!(false);
    let err = validate_content(&closed, &content(json!({"a": "x", "b": 1}))).unwrap_err();
    assert!(err.message.contains("/b"), "{}", err.message);
    // An invalid schema is reported as such, not as a content error.
    let err = validate_content(&json!({"type": "object"}), &content(json!({}))).unwrap_err();
    assert!(
        err.message.starts_with("Invalid requestedSchema"),
        "{}",
        err.message
    );
}

/// A `{"result": string}` wrapper schema (the Python binding's `-> str` outputSchema) answers
/// `{"result": "<text>"}` without the validator; everything else is still checked, and a schema
/// with any further constraint on `result` is never taken for the wrapper.
#[test]
fn string_result_wrapper_decides_exactly_as_the_validator() {
    let wrapper = json!({
        "properties": {"result": {"title": "Result", "type": "string"}},
        "required": ["result"],
        "title": "echoOutput",
        "type": "object"
    });
    let s = compile(wrapper.clone());
    assert!(s.validate(&json!({"result": "hi"})).is_ok());
    assert!(s.is_valid(&json!({"result": ""})));
    assert!(s.validate(&json!({"result": "hi", "extra": 1})).is_ok());
    let issues = s.validate(&json!({"result": 1})).unwrap_err();
    assert_eq!(paths(&issues), ["/result"]);
    assert!(!s.is_valid(&json!({})));
    assert!(!s.is_valid(&json!("hi")));
    // Further constraints on `result` or on the object: the validator decides.
    let mut tight = wrapper.clone();
    tight["properties"]["result"]["maxLength"] = json!(1);
    let tight = compile(tight);
    assert_eq!(
        paths(&tight.validate(&json!({"result": "hi"})).unwrap_err()),
        ["/result"]
    );
    let mut pattern = wrapper.clone();
    pattern["properties"]["result"]["pattern"] = json!("^x");
    assert!(!compile(pattern).is_valid(&json!({"result": "hi"})));
    let mut closed = wrapper.clone();
    closed["maxProperties"] = json!(0);
    assert!(!compile(closed).is_valid(&json!({"result": "hi"})));
    let mut enum_result = wrapper;
    enum_result["properties"]["result"]["enum"] = json!(["a"]);
    assert!(!compile(enum_result).is_valid(&json!({"result": "hi"})));
    let integer = compile(json!({
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"]
    }));
    assert!(!integer.is_valid(&json!({"result": "1"})));
}
