//! Parsing `WWW-Authenticate` (RFC 9110 §11.6.1) for the `Bearer` challenge's parameters the
//! MCP authorization flow uses: `resource_metadata` (RFC 9728), `scope` and `error` (RFC 6750).

use std::collections::HashMap;

/// The parameters of a `Bearer` challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BearerChallenge {
    /// The Protected Resource Metadata URL (`resource_metadata`).
    pub resource_metadata: Option<String>,
    /// The scopes the operation needs (`scope`, space separated).
    pub scope: Option<String>,
    /// The error code (`invalid_token`, `insufficient_scope`, ...).
    pub error: Option<String>,
    /// The human-readable `error_description`.
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// Parses the values of every `WWW-Authenticate` header of an answer and returns the first
    /// `Bearer` challenge (scheme compared case-insensitively); `None` when there is none.
    pub fn parse<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        for value in headers {
            for (scheme, params) in parse_challenges(value) {
                if scheme.eq_ignore_ascii_case("bearer") {
                    let get = |k: &str| params.get(k).cloned();
                    return Some(Self {
                        resource_metadata: get("resource_metadata"),
                        scope: get("scope"),
                        error: get("error"),
                        error_description: get("error_description"),
                    });
                }
            }
        }
        None
    }

    /// The challenged scopes, split on spaces.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }

    /// Whether this is an `insufficient_scope` challenge.
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

pub(crate) fn split_scopes(s: Option<&str>) -> Vec<String> {
    s.unwrap_or("")
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Splits a header value into `(scheme, params)` challenges. Parameter names are lowercased;
/// token68 credentials and malformed pieces are skipped.
fn parse_challenges(value: &str) -> Vec<(String, HashMap<String, String>)> {
    let s = value.as_bytes();
    let mut i = 0;
    let mut out: Vec<(String, HashMap<String, String>)> = Vec::new();
    let is_tchar = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/".contains(&c);
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\t' || s[*i] == b',') {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= s.len() {
            break;
        }
        let start = i;
        while i < s.len() && is_tchar(s[i]) {
            i += 1;
        }
        if start == i {
            i += 1; // not a token character: skip it
            continue;
        }
        let token = &value[start..i];
        let mut j = i;
        while j < s.len() && (s[j] == b' ' || s[j] == b'\t') {
            j += 1;
        }
        if j < s.len() && s[j] == b'=' && !out.is_empty() {
            // `name = value` inside the current challenge
            j += 1;
            while j < s.len() && (s[j] == b' ' || s[j] == b'\t') {
                j += 1;
            }
            let (val, next) = if j < s.len() && s[j] == b'"' {
                let mut v = String::new();
                let mut k = j + 1;
                let bytes = value[k..].char_indices();
                let mut end = s.len();
                let mut escaped = false;
                for (off, c) in bytes {
                    if escaped {
                        v.push(c);
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        end = k + off + 1;
                        break;
                    } else {
                        v.push(c);
                    }
                }
                k = end;
                (v, k)
            } else {
                let vs = j;
                while j < s.len() && s[j] != b',' && s[j] != b' ' && s[j] != b'\t' {
                    j += 1;
                }
                (value[vs..j].to_string(), j)
            };
            let last = out.last_mut().expect("checked non-empty");
            last.1.entry(token.to_ascii_lowercase()).or_insert(val);
            i = next;
        } else if j < s.len() && s[j] == b'=' {
            // a parameter before any scheme: malformed, skip to the next comma
            while i < s.len() && s[i] != b',' {
                i += 1;
            }
        } else {
            // a new challenge's scheme; a token68 right after it is skipped by the loop
            out.push((token.to_string(), HashMap::new()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_and_bare_parameters() {
        let c = BearerChallenge::parse([
            r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \"write\"""#,
        ])
        .unwrap();
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scopes(), ["files:read", "files:write"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(c.error_description.as_deref(), Some(r#"needs "write""#));
        assert!(c.is_insufficient_scope());
        let c = BearerChallenge::parse(["bearer scope=read,error=invalid_token"]).unwrap();
        assert_eq!(c.scope.as_deref(), Some("read"));
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn finds_bearer_among_other_challenges() {
        let c =
            BearerChallenge::parse([r#"Basic realm="x", Bearer resource_metadata="http://a/b""#])
                .unwrap();
        assert_eq!(c.resource_metadata.as_deref(), Some("http://a/b"));
        assert_eq!(c.scope, None);
        let c = BearerChallenge::parse(["Basic realm=\"x\"", "Bearer"]).unwrap();
        assert_eq!(c, BearerChallenge::default());
        assert!(BearerChallenge::parse(["Basic realm=\"x\""]).is_none());
        assert!(BearerChallenge::parse(["=\"", ",,,", "\""]).is_none());
    }
}
