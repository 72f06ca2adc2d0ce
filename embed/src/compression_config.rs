//! The `compression` key of the HTTP options in JSON form ([`super::HttpConfig`]), read apart
//! from the other keys because it takes three shapes: `false` (off: answers never encoded,
//! encoded request bodies refused with 415), `true` (the defaults), or an object
//! `{"codings": ["zstd", "br", "gzip"], "minSize": 1024, "level": "default", "streams": true}`
//! whose absent keys keep the defaults. See [`ferromcp::transport::http::CompressionOptions`].

use ferromcp::transport::http::{CompressionLevel, CompressionOptions, ContentCoding};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// The `compression` key, read: `None` is off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressionConfig(pub Option<CompressionOptions>);

impl CompressionConfig {
    /// Reads the key's value (see the module's documentation); the error names what is wrong.
    pub fn from_value(v: &Value) -> Result<Self, String> {
        let obj = match v {
            Value::Bool(false) => return Ok(Self(None)),
            Value::Bool(true) => return Ok(Self(Some(CompressionOptions::default()))),
            Value::Object(o) => o,
            other => {
                return Err(format!(
                    "compression must be true, false or an object, not {}",
                    ferromcp::schema::json_type_name(other)
                ))
            }
        };
        let mut o = CompressionOptions::default();
        for (key, value) in obj {
            match key.as_str() {
                "codings" => {
                    let list = value
                        .as_array()
                        .ok_or("compression.codings must be a list of coding names")?;
                    let mut codings = Vec::new();
                    for name in list {
                        let name = name
                            .as_str()
                            .ok_or("compression.codings must be a list of coding names")?;
                        let c = ContentCoding::from_name(name.as_bytes()).ok_or_else(|| {
                            format!("compression.codings: unknown coding {name:?} (gzip, br, zstd)")
                        })?;
                        if !codings.contains(&c) {
                            codings.push(c);
                        }
                    }
                    o.codings = codings;
                }
                "minSize" => {
                    o.min_size = value
                        .as_u64()
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or("compression.minSize must be a whole number of bytes")?;
                }
                "level" => {
                    o.level = match value.as_str() {
                        Some("fastest") => CompressionLevel::Fastest,
                        Some("default") => CompressionLevel::Default,
                        Some("smallest") => CompressionLevel::Smallest,
                        _ => return Err(
                            "compression.level must be \"fastest\", \"default\" or \"smallest\""
                                .into(),
                        ),
                    };
                }
                "streams" => {
                    o.streams = value
                        .as_bool()
                        .ok_or("compression.streams must be true or false")?;
                }
                other => {
                    return Err(format!(
                        "compression: unknown key {other:?} (codings, minSize, level, streams)"
                    ))
                }
            }
        }
        Ok(Self(Some(o)))
    }
}

impl<'de> Deserialize<'de> for CompressionConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Self::from_value(&v).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<Option<CompressionOptions>, String> {
        CompressionConfig::from_value(&v).map(|c| c.0)
    }

    #[test]
    fn true_false_and_an_object_are_read() {
        assert_eq!(read(json!(false)).unwrap(), None);
        assert_eq!(
            read(json!(true)).unwrap(),
            Some(CompressionOptions::default())
        );
        let o = read(json!({"codings": ["gzip", "br"], "minSize": 4096,
                            "level": "fastest", "streams": false}))
        .unwrap()
        .unwrap();
        assert_eq!(o.codings, vec![ContentCoding::Gzip, ContentCoding::Brotli]);
        assert_eq!(o.min_size, 4096);
        assert_eq!(o.level, CompressionLevel::Fastest);
        assert!(!o.streams);
        assert_eq!(
            read(json!({})).unwrap(),
            Some(CompressionOptions::default())
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_is_wrong() {
        for (v, says) in [
            (json!("gzip"), "true, false or an object"),
            (
                json!({"codings": ["deflate"]}),
                "unknown coding \"deflate\"",
            ),
            (json!({"codings": "gzip"}), "list of coding names"),
            (json!({"minSize": -1}), "whole number"),
            (json!({"level": 9}), "\"fastest\""),
            (json!({"streams": "yes"}), "true or false"),
            (json!({"threshold": 10}), "unknown key \"threshold\""),
        ] {
            let e = read(v.clone()).unwrap_err();
            assert!(e.contains(says), "{v}: {e}");
        }
    }

    #[test]
    fn the_key_reaches_the_http_server_options() {
        use crate::HttpConfig;
        let off = HttpConfig::from_json(json!({"compression": false})).unwrap();
        assert_eq!(off.options().compression, None);
        let absent = HttpConfig::from_json(json!({})).unwrap();
        assert_eq!(
            absent.options().compression,
            Some(CompressionOptions::default())
        );
        let some = HttpConfig::from_json(json!({"compression": {"minSize": 10}})).unwrap();
        assert_eq!(some.options().compression.unwrap().min_size, 10);
        let e = HttpConfig::from_json(json!({"compression": {"codings": ["lzma"]}})).unwrap_err();
        assert!(e.to_string().contains("unknown coding \"lzma\""), "{e}");
    }
}
