//! Conversions between JavaScript values and the engine's JSON values.
//!
//! Values cross as `serde_json::Value` (napi's `serde-json` feature converts them to and from
//! plain JavaScript objects). This module holds the few shapes that need more than that.

use ferromcp::McpError;
use ferromcp_embed::shape::answer_not_json;
use napi::bindgen_prelude::{FromNapiValue, TypeName};
use napi::{sys, ValueType};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::ptr;

/// A handler's envelope (`{ok, value}` / `{ok: false, error}`, see [`from_envelope`]) read
/// from JavaScript, or the error its answer makes: never a failed conversion. Read as napi's
/// `serde_json::Value` conversion reads values (the same limits: 128 levels, a million nodes;
/// `undefined` properties left out), except that a `BigInt` is refused as `JSON.stringify`
/// refuses it, where napi would make it a number (or a string): an answer of `10n` must not
/// silently become `10`. Whatever is not JSON (a `BigInt`, a function, a symbol, a cycle) makes
/// [`answer_not_json`], naming what and where.
pub struct Envelope(pub Result<Value, McpError>);

impl TypeName for Envelope {
    fn type_name() -> &'static str {
        "any"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for Envelope {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        let mut budget = MAX_NODES;
        Ok(Envelope(
            unsafe { read_strict(env, value, MAX_DEPTH, &mut budget, Some(".value")) }
                .and_then(from_envelope),
        ))
    }
}

/// A handler's answer value itself (what [`Envelope`]'s `value` holds), read with the same
/// rules: the facade hands a resolved promise's value over as it is, without building an
/// envelope object around it for the native side to walk.
pub struct Answer(pub Result<Value, McpError>);

impl TypeName for Answer {
    fn type_name() -> &'static str {
        "any"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for Answer {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // As the envelope's `value` is read: one level below it, after the envelope and its `ok`.
        let mut budget = MAX_NODES - 2;
        Ok(Answer(unsafe {
            read_strict(env, value, MAX_DEPTH - 1, &mut budget, None)
        }))
    }
}

/// `value` as JSON by [`strict_json`] (`depth` levels, `budget` values), or [`answer_not_json`]
/// naming what and where; `skip`: a leading path segment left out of that name (the
/// envelope's `.value`).
unsafe fn read_strict(
    env: sys::napi_env,
    value: sys::napi_value,
    depth: u32,
    budget: &mut usize,
    skip: Option<&str>,
) -> Result<Value, McpError> {
    match unsafe { strict_json(env, value, depth, budget) } {
        Ok(v) => Ok(v),
        Err(NotJson { what, mut path }) => {
            // The path from the answer (`value.x.y`) or the error (`error.data.x`).
            path.reverse();
            if skip.is_some() && path.first().map(String::as_str) == skip {
                path.remove(0);
            }
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", path.concat().trim_start_matches('.'))
            };
            Err(answer_not_json(format!("{what}{at}")))
        }
    }
}

/// napi's limits for `serde_json::Value` (nesting depth, values per conversion).
const MAX_DEPTH: u32 = 128;
const MAX_NODES: usize = 1_000_000;

/// Why a value is not JSON, and where: path segments (`.key`, `[3]`) innermost first.
struct NotJson {
    what: String,
    path: Vec<String>,
}

impl NotJson {
    fn new(what: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            path: Vec::new(),
        }
    }

    fn within(mut self, segment: String) -> Self {
        self.path.push(segment);
        self
    }
}

fn napi_err(e: napi::Error) -> NotJson {
    NotJson::new(e.reason.clone())
}

/// One JavaScript value as JSON (see [`Envelope`]).
unsafe fn strict_json(
    env: sys::napi_env,
    value: sys::napi_value,
    depth: u32,
    budget: &mut usize,
) -> Result<Value, NotJson> {
    if *budget == 0 {
        return Err(NotJson::new("more than a million values"));
    }
    *budget -= 1;
    let mut ty = 0;
    if unsafe { sys::napi_typeof(env, value, &mut ty) } != sys::Status::napi_ok {
        return Err(NotJson::new("a value whose type cannot be read"));
    }
    match ty {
        sys::ValueType::napi_bigint => Err(NotJson::new(
            "a BigInt (JSON.stringify throws a TypeError for it too; convert it with Number() or String())",
        )),
        sys::ValueType::napi_object => {
            if depth == 0 {
                return Err(NotJson::new(
                    "more than 128 levels of nesting (a cycle?)",
                ));
            }
            let mut is_array = false;
            unsafe { sys::napi_is_array(env, value, &mut is_array) };
            if is_array {
                let mut len = 0u32;
                unsafe { sys::napi_get_array_length(env, value, &mut len) };
                let mut out = Vec::with_capacity(len as usize);
                for i in 0..len {
                    let mut item = ptr::null_mut();
                    unsafe { sys::napi_get_element(env, value, i, &mut item) };
                    let v = unsafe { strict_json(env, item, depth - 1, budget) }
                        .map_err(|e| e.within(format!("[{i}]")))?;
                    out.push(v);
                }
                return Ok(Value::Array(out));
            }
            let mut names = ptr::null_mut();
            if unsafe { sys::napi_get_property_names(env, value, &mut names) }
                != sys::Status::napi_ok
            {
                return Err(NotJson::new("an object whose properties cannot be read"));
            }
            let mut len = 0u32;
            unsafe { sys::napi_get_array_length(env, names, &mut len) };
            let mut map = Map::new();
            for i in 0..len {
                let mut key = ptr::null_mut();
                unsafe { sys::napi_get_element(env, names, i, &mut key) };
                let name = unsafe { String::from_napi_value(env, key) }.map_err(napi_err)?;
                let mut item = ptr::null_mut();
                unsafe { sys::napi_get_property(env, value, key, &mut item) };
                let mut item_ty = 0;
                unsafe { sys::napi_typeof(env, item, &mut item_ty) };
                if item_ty == sys::ValueType::napi_undefined {
                    continue;
                }
                let v = unsafe { strict_json(env, item, depth - 1, budget) }
                    .map_err(|e| e.within(format!(".{name}")))?;
                map.insert(name, v);
            }
            Ok(Value::Object(map))
        }
        // Everything else as napi reads it (functions, symbols, undefined are refused there).
        _ => unsafe { Value::from_napi_value(env, value) }.map_err(napi_err),
    }
}

/// The envelope the facade resolves a handler call with: `{ok: true, value}` or
/// `{ok: false, error: {code, message, data, exception}}` (`exception`: the handler threw
/// something that is not an `McpError`).
pub fn from_envelope(v: Value) -> Result<Value, McpError> {
    let Value::Object(mut m) = v else {
        return Err(McpError::internal("handler call returned no envelope"));
    };
    if m.get("ok").and_then(Value::as_bool) == Some(true) {
        return Ok(m.remove("value").unwrap_or(Value::Null));
    }
    let err = m.remove("error").unwrap_or(Value::Null);
    let code = err
        .get("code")
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(ferromcp::error::codes::INTERNAL_ERROR);
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("handler failed")
        .to_string();
    // Anything thrown that is not an McpError (see `toErrorObject`).
    let mut e = if err.get("exception").and_then(Value::as_bool) == Some(true) {
        McpError::handler_exception(message)
    } else {
        McpError::new(code, message)
    };
    if let Some(data) = err.get("data").filter(|d| !d.is_null()) {
        e = e.with_data(data.clone());
    }
    Err(e)
}

/// An optional JSON value where JavaScript `undefined`/`null` mean "none".
pub fn opt(v: Option<Value>) -> Option<Value> {
    v.filter(|v| !v.is_null())
}

/// A string map (headers, environment) as ordered pairs.
pub fn pairs(map: Option<HashMap<String, String>>) -> Vec<(String, String)> {
    let mut v: Vec<_> = map.unwrap_or_default().into_iter().collect();
    v.sort();
    v
}
