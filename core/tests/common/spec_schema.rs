//! Validation of JSON values against the official MCP `schema.json` of any revision.
//!
//! The schemas live in `shared/spec/schema/<revision>/schema.json`, beside the repository.
//! Each (revision, definition) pair is compiled once and cached. Older revisions are draft-07
//! with `definitions`; 2025-11-25 and later are 2020-12 with `$defs`; both are handled.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

/// Directory holding one sub-directory per revision.
pub fn schema_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/schema")
}

fn documents() -> &'static Mutex<HashMap<String, Arc<Value>>> {
    static DOCS: OnceLock<Mutex<HashMap<String, Arc<Value>>>> = OnceLock::new();
    DOCS.get_or_init(Default::default)
}

/// Compiled validators by (revision, definition).
type ValidatorCache = Mutex<HashMap<(String, String), Arc<jsonschema::Validator>>>;

fn validators() -> &'static ValidatorCache {
    static VALIDATORS: OnceLock<ValidatorCache> = OnceLock::new();
    VALIDATORS.get_or_init(Default::default)
}

/// The parsed `schema.json` of a revision (cached).
pub fn document(revision: &str) -> Arc<Value> {
    let mut docs = documents().lock().unwrap_or_else(|e| e.into_inner());
    docs.entry(revision.to_owned())
        .or_insert_with(|| {
            let path = schema_root().join(revision).join("schema.json");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            Arc::new(
                serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display())),
            )
        })
        .clone()
}

/// `"$defs"` or `"definitions"`, whichever the revision's schema uses.
fn defs_key(doc: &Value) -> &'static str {
    if doc.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    }
}

/// Every definition name in a revision's schema, sorted.
pub fn definitions(revision: &str) -> Vec<String> {
    let doc = document(revision);
    let mut names: Vec<String> = doc[defs_key(&doc)]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// Whether a revision's schema has the given definition.
pub fn has_definition(revision: &str, definition: &str) -> bool {
    let doc = document(revision);
    doc[defs_key(&doc)].get(definition).is_some()
}

/// The compiled validator for one definition of one revision (cached).
pub fn validator(revision: &str, definition: &str) -> Arc<jsonschema::Validator> {
    let key = (revision.to_owned(), definition.to_owned());
    if let Some(v) = validators()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
    {
        return v.clone();
    }
    let doc = document(revision);
    let defs = defs_key(&doc);
    assert!(
        doc[defs].get(definition).is_some(),
        "revision {revision} has no definition {definition:?}"
    );
    // The whole document, with a root `$ref` to the definition: every internal reference
    // keeps resolving against the same document.
    let mut root = (*doc).clone();
    root.as_object_mut()
        .expect("schema root is an object")
        .insert(
            "$ref".into(),
            Value::String(format!("#/{defs}/{definition}")),
        );
    let compiled = jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("cannot compile {revision}#{definition}: {e}"));
    let compiled = Arc::new(compiled);
    validators()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, compiled.clone());
    compiled
}

/// The validation errors of `value` against a definition, one line each (empty when valid).
pub fn errors(revision: &str, definition: &str, value: &Value) -> Vec<String> {
    validator(revision, definition)
        .iter_errors(value)
        .map(|e| format!("at {:?}: {e}", e.instance_path().to_string()))
        .collect()
}

/// Whether `value` is valid against a definition.
pub fn is_valid(revision: &str, definition: &str, value: &Value) -> bool {
    validator(revision, definition).is_valid(value)
}

/// Panics, listing every validation error, unless `value` is valid against the definition.
pub fn assert_valid(revision: &str, definition: &str, value: &Value) {
    let errs = errors(revision, definition, value);
    if !errs.is_empty() {
        panic!(
            "value is not a valid {revision} {definition}:\n  {}\nvalue: {}",
            errs.join("\n  "),
            serde_json::to_string_pretty(value).unwrap_or_default()
        );
    }
}

/// Panics unless `value` is invalid against the definition (for negative tests).
pub fn assert_invalid(revision: &str, definition: &str, value: &Value) {
    assert!(
        !is_valid(revision, definition, value),
        "value unexpectedly valid as {revision} {definition}: {value}"
    );
}
