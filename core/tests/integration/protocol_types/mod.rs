//! Proves the protocol types emit what the official schemas accept and decode what real peers
//! send: every type is built in a full and a minimal form, validated against the 2025-11-25
//! definition of the same name (and older revisions where the shape existed), decoded back and
//! compared; unknown fields survive at every level; and every example message of the spec
//! documents and examples folder decodes and re-encodes unchanged.
//!
//! One module a kind of check: the full values every check builds (`fixtures`), the per-type
//! checks against the 2025-11-25 schema (`content_and_features`, `lifecycle_and_requests`),
//! unknown fields (`unknown_fields`), older revisions (`older_revisions`) and the spec's own
//! examples (`spec_examples`); the helpers they share are here.

mod content_and_features;
mod fixtures;
mod lifecycle_and_requests;
mod older_revisions;
mod spec_examples;
mod unknown_fields;

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;

use common::spec_schema::{assert_invalid, assert_valid, definitions, has_definition, is_valid};
use ferromcp::jsonrpc::RequestId;
use ferromcp::protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use fixtures::*;

const LATEST: &str = "2025-11-25";
const OLDER: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];

/// JSON equality where numbers compare by value (`1` == `1.0`): the wire meaning, not the
/// serde_json representation.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn assert_json_eq(actual: &Value, expected: &Value, what: &str) {
    assert!(
        json_eq(actual, expected),
        "{what}: JSON differs\nexpected: {}\nactual:   {}",
        serde_json::to_string_pretty(expected).unwrap(),
        serde_json::to_string_pretty(actual).unwrap()
    );
}

/// Serializes `value`, validates it as `definition` of the latest revision, decodes it back
/// and checks both the Rust value and the JSON survive. Returns the JSON.
fn check<T>(definition: &str, value: &T) -> Value
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let json = serde_json::to_value(value).expect("serialize");
    assert_valid(LATEST, definition, &json);
    let back: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{definition}: cannot decode own output {json}: {e}"));
    assert_eq!(&back, value, "{definition}: round trip changed the value");
    assert_json_eq(&serde_json::to_value(&back).unwrap(), &json, definition);
    json
}

/// Decodes `json` as `T`, re-encodes and requires the same JSON.
fn decode_roundtrip<T>(what: &str, json: &Value) -> T
where
    T: Serialize + DeserializeOwned,
{
    let t: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{what}: cannot decode {json}: {e}"));
    assert_json_eq(&serde_json::to_value(&t).unwrap(), json, what);
    t
}

fn meta() -> Meta {
    let mut m = Meta::new();
    m.insert("io.example/trace".into(), json!("abc"));
    m
}

fn request_meta() -> Meta {
    with_progress_token(Some(meta()), ProgressToken::from("progress-1"))
}

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}
