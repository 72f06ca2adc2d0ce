//! RFC 6570 URI templates (levels 1–4): parsing, expansion and matching.
//!
//! MCP servers publish parameterised resources as URI templates (`resources/templates/list`,
//! e.g. `file:///{path}` or `repo://{owner}/{repo}{?ref,path}`). Clients expand a template to
//! build a concrete URI; servers route `resources/read` by matching the requested URI against
//! their templates and extracting the variables. Both directions live here so that the Rust,
//! Python, Node.js and Swift bindings agree on every edge case.
//!
//! Matching is the inverse of expansion, with these rules:
//! - `{var}` matches a non-empty run without `/`, `?` or `#`;
//! - `{+var}` and `{#var}` match reserved characters too, including `/`;
//! - `{.var}`, `{/var}` and `{;var}` match their prefixed forms (one segment per variable unless
//!   exploded) and may be absent;
//! - trailing `{?a,b}` / `{&c}` expressions match the query string, parameters in any order,
//!   each optional; unknown parameters are ignored;
//! - extracted values are percent-decoded; a list comes back as its matched text (comma-separated,
//!   or joined by the operator's separator when exploded: `a/b/c` for `{/path*}`), and the last
//!   variable of an expression takes whatever its separator-split leaves over.
//!
//! Matching is a dynamic program over (template part, URI position) with a hard work budget, so
//! a hostile URI costs bounded time, and neither parsing nor matching panics on any input.
//!
//! ```
//! use ferromcp_protocol::uri_template::{TemplateValue, UriTemplate};
//! use std::collections::HashMap;
//!
//! let template = UriTemplate::parse("repo://{owner}/{repo}{?ref}").unwrap();
//! assert_eq!(template.variable_names(), ["owner", "repo", "ref"]);
//!
//! let vars: HashMap<String, TemplateValue> = [("owner", "rust-lang"), ("repo", "rust")]
//!     .into_iter()
//!     .map(|(k, v)| (k.to_string(), TemplateValue::from(v)))
//!     .collect();
//! assert_eq!(template.expand(&vars), "repo://rust-lang/rust");
//!
//! let found = template.match_uri("repo://rust-lang/rust?ref=stable").unwrap();
//! assert_eq!(found["repo"], "rust");
//! assert_eq!(found["ref"], "stable");
//! assert_eq!(template.match_uri("file:///etc/passwd"), None);
//! ```

mod matching;

use crate::error::McpError;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// A value substituted for a template variable.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateValue {
    /// A single string.
    String(String),
    /// A list of strings; an empty list counts as undefined.
    List(Vec<String>),
    /// An associative array of key/value pairs in order; an empty map counts as undefined.
    Map(Vec<(String, String)>),
}

impl From<&str> for TemplateValue {
    fn from(value: &str) -> Self {
        TemplateValue::String(value.to_string())
    }
}

impl From<String> for TemplateValue {
    fn from(value: String) -> Self {
        TemplateValue::String(value)
    }
}

impl From<Vec<String>> for TemplateValue {
    fn from(value: Vec<String>) -> Self {
        TemplateValue::List(value)
    }
}

impl From<Vec<&str>> for TemplateValue {
    fn from(value: Vec<&str>) -> Self {
        TemplateValue::List(value.into_iter().map(str::to_string).collect())
    }
}

impl From<Vec<(String, String)>> for TemplateValue {
    fn from(value: Vec<(String, String)>) -> Self {
        TemplateValue::Map(value)
    }
}

/// A parsed RFC 6570 URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    /// Index of the first part of the trailing run of `?`/`&` expressions (`parts.len()` if
    /// there is none); that run is matched against the query string as a whole.
    query_tail: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Literal text, stored in the form expansion emits (characters not allowed in a URI are
    /// percent-encoded).
    Literal(String),
    Expression(Expression),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Expression {
    op: Op,
    vars: Vec<VarSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct VarSpec {
    name: String,
    modifier: Modifier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modifier {
    None,
    Prefix(usize),
    Explode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryContinuation,
}

impl Op {
    fn from_char(c: char) -> Option<Op> {
        Some(match c {
            '+' => Op::Reserved,
            '#' => Op::Fragment,
            '.' => Op::Label,
            '/' => Op::Path,
            ';' => Op::PathParam,
            '?' => Op::Query,
            '&' => Op::QueryContinuation,
            _ => return None,
        })
    }

    /// The string emitted before the first defined variable.
    fn first(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query => "?",
            Op::QueryContinuation => "&",
        }
    }

    /// The separator between variables (and exploded items).
    fn sep(self) -> char {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ',',
            Op::Label => '.',
            Op::Path => '/',
            Op::PathParam => ';',
            Op::Query | Op::QueryContinuation => '&',
        }
    }

    /// Whether values are emitted as `name=value`.
    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryContinuation)
    }

    /// What follows the name of a named variable whose value is empty.
    fn if_empty(self) -> &'static str {
        match self {
            Op::Query | Op::QueryContinuation => "=",
            _ => "",
        }
    }

    /// Whether reserved characters and percent-escapes pass through unencoded.
    fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}

fn template_error(template: &str, offset: usize, reason: impl fmt::Display) -> McpError {
    McpError::invalid_params(format!(
        "Invalid URI template {template:?}: {reason} (at offset {offset})"
    ))
}

impl UriTemplate {
    /// Parses `template`, rejecting unclosed or stray braces, empty expressions, reserved or
    /// unknown operators, malformed variable names and modifiers.
    pub fn parse(template: &str) -> Result<UriTemplate, McpError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(c) = rest.chars().next() {
            match c {
                '{' => {
                    let body_len = rest[1..]
                        .find(['{', '}'])
                        .filter(|&i| rest.as_bytes()[1 + i] == b'}')
                        .ok_or_else(|| {
                            let nested = rest[1..].find('{').is_some_and(|open| {
                                rest[1..].find('}').is_none_or(|close| open < close)
                            });
                            let reason = if nested {
                                "'{' inside an expression"
                            } else {
                                "unclosed '{'"
                            };
                            template_error(template, offset, reason)
                        })?;
                    let body = &rest[1..1 + body_len];
                    let expression = parse_expression(body).map_err(|(at, reason)| {
                        template_error(template, offset + 1 + at, reason)
                    })?;
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Expression(expression));
                    let consumed = body_len + 2;
                    rest = &rest[consumed..];
                    offset += consumed;
                }
                '}' => return Err(template_error(template, offset, "unmatched '}'")),
                c if c.is_control() => {
                    return Err(template_error(
                        template,
                        offset,
                        "control character in a literal",
                    ))
                }
                c => {
                    if c == '%' && is_pct_triplet(rest.as_bytes()) {
                        literal.push_str(&rest[..3]);
                        rest = &rest[3..];
                        offset += 3;
                        continue;
                    }
                    encode_char(c, true, &mut literal);
                    rest = &rest[c.len_utf8()..];
                    offset += c.len_utf8();
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        let mut query_tail = parts.len();
        while query_tail > 0
            && matches!(
                &parts[query_tail - 1],
                Part::Expression(Expression {
                    op: Op::Query | Op::QueryContinuation,
                    ..
                })
            )
        {
            query_tail -= 1;
        }
        Ok(UriTemplate {
            source: template.to_string(),
            parts,
            query_tail,
        })
    }

    /// The template text as given to [`UriTemplate::parse`].
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names of the template's variables, in order of first appearance, without repeats.
    pub fn variable_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expression(e) = part {
                for v in &e.vars {
                    if !names.contains(&v.name.as_str()) {
                        names.push(&v.name);
                    }
                }
            }
        }
        names
    }

    /// Expands the template with `vars`; missing variables, empty lists and empty maps are
    /// undefined and produce nothing (RFC 6570 section 3).
    pub fn expand(&self, vars: &HashMap<String, TemplateValue>) -> String {
        let mut out = String::with_capacity(self.source.len() + 16);
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression(e) => expand_expression(e, vars, &mut out),
            }
        }
        out
    }

    /// Matches a concrete `uri` against the template and returns the extracted variables,
    /// percent-decoded, or `None` if the URI is not an expansion of this template.
    ///
    /// Variables that are absent from the URI (an optional query parameter, an empty `{/x}`)
    /// are absent from the map.
    pub fn match_uri(&self, uri: &str) -> Option<HashMap<String, String>> {
        matching::match_uri(self, uri)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for UriTemplate {
    type Err = McpError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(s)
    }
}

// --- parsing -------------------------------------------------------------------------------

fn is_pct_triplet(bytes: &[u8]) -> bool {
    bytes.len() >= 3
        && bytes[0] == b'%'
        && bytes[1].is_ascii_hexdigit()
        && bytes[2].is_ascii_hexdigit()
}

/// Parses the text between `{` and `}`; errors carry an offset relative to `body`.
fn parse_expression(body: &str) -> Result<Expression, (usize, String)> {
    let Some(first) = body.chars().next() else {
        return Err((0, "empty expression".to_string()));
    };
    let (op, list, base) = if let Some(op) = Op::from_char(first) {
        (op, &body[1..], 1)
    } else if "=,!@|".contains(first) {
        return Err((0, format!("operator '{first}' is reserved for future use")));
    } else {
        (Op::Simple, body, 0)
    };
    let mut vars = Vec::new();
    let mut at = base;
    for spec in list.split(',') {
        vars.push(parse_varspec(spec).map_err(|(i, reason)| (at + i, reason))?);
        at += spec.len() + 1;
    }
    Ok(Expression { op, vars })
}

fn parse_varspec(spec: &str) -> Result<VarSpec, (usize, String)> {
    let (name, modifier) = if let Some(name) = spec.strip_suffix('*') {
        (name, Modifier::Explode)
    } else if let Some((name, digits)) = spec.split_once(':') {
        let valid = !digits.is_empty()
            && digits.len() <= 4
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0');
        if !valid {
            return Err((
                name.len() + 1,
                format!("invalid prefix length {digits:?} (expected 1 to 9999)"),
            ));
        }
        // Four digits at most, checked above, so this fits.
        let length = digits.parse().unwrap_or(1);
        (name, Modifier::Prefix(length))
    } else {
        (spec, Modifier::None)
    };
    check_varname(name)?;
    Ok(VarSpec {
        name: name.to_string(),
        modifier,
    })
}

/// `varname = varchar *( ["."] varchar )`, `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn check_varname(name: &str) -> Result<(), (usize, String)> {
    if name.is_empty() {
        return Err((0, "empty variable name".to_string()));
    }
    let bytes = name.as_bytes();
    let mut i = 0;
    let mut after_dot = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphanumeric() || b == b'_' {
            i += 1;
            after_dot = false;
        } else if b == b'%' && is_pct_triplet(&bytes[i..]) {
            i += 3;
            after_dot = false;
        } else if b == b'.' && !after_dot {
            i += 1;
            after_dot = true;
        } else {
            let c = name[i..].chars().next().unwrap_or('?');
            return Err((
                i,
                format!("invalid character {c:?} in variable name {name:?}"),
            ));
        }
    }
    if after_dot {
        return Err((
            name.len() - 1,
            format!("variable name {name:?} ends with '.'"),
        ));
    }
    Ok(())
}

// --- expansion -----------------------------------------------------------------------------

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn is_reserved(c: char) -> bool {
    matches!(
        c,
        ':' | '/'
            | '?'
            | '#'
            | '['
            | ']'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '='
    )
}

/// Appends `c`, percent-encoding it unless it is unreserved (or reserved, when allowed).
fn encode_char(c: char, allow_reserved: bool, out: &mut String) {
    if is_unreserved(c) || (allow_reserved && is_reserved(c)) {
        out.push(c);
    } else {
        let mut buf = [0u8; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn encode(value: &str, allow_reserved: bool, out: &mut String) {
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        if allow_reserved && c == '%' && is_pct_triplet(rest.as_bytes()) {
            out.push_str(&rest[..3]);
            rest = &rest[3..];
            continue;
        }
        encode_char(c, allow_reserved, out);
        rest = &rest[c.len_utf8()..];
    }
}

fn expand_expression(e: &Expression, vars: &HashMap<String, TemplateValue>, out: &mut String) {
    let op = e.op;
    let allow = op.allow_reserved();
    let mut first = true;
    for spec in &e.vars {
        let Some(value) = vars.get(&spec.name) else {
            continue;
        };
        let defined = match value {
            TemplateValue::String(_) => true,
            TemplateValue::List(items) => !items.is_empty(),
            TemplateValue::Map(pairs) => !pairs.is_empty(),
        };
        if !defined {
            continue;
        }
        if first {
            out.push_str(op.first());
            first = false;
        } else {
            out.push(op.sep());
        }
        let explode = spec.modifier == Modifier::Explode;
        match value {
            TemplateValue::String(s) => {
                if op.named() {
                    out.push_str(&spec.name);
                    if s.is_empty() {
                        out.push_str(op.if_empty());
                        continue;
                    }
                    out.push('=');
                }
                let s = match spec.modifier {
                    Modifier::Prefix(n) => match s.char_indices().nth(n) {
                        Some((cut, _)) => &s[..cut],
                        None => s.as_str(),
                    },
                    _ => s.as_str(),
                };
                encode(s, allow, out);
            }
            TemplateValue::List(items) if !explode => {
                if op.named() {
                    out.push_str(&spec.name);
                    out.push('=');
                }
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    encode(item, allow, out);
                }
            }
            TemplateValue::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(op.sep());
                    }
                    if op.named() {
                        out.push_str(&spec.name);
                        if item.is_empty() {
                            out.push_str(op.if_empty());
                            continue;
                        }
                        out.push('=');
                    }
                    encode(item, allow, out);
                }
            }
            TemplateValue::Map(pairs) if !explode => {
                if op.named() {
                    out.push_str(&spec.name);
                    out.push('=');
                }
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    encode(k, allow, out);
                    out.push(',');
                    encode(v, allow, out);
                }
            }
            TemplateValue::Map(pairs) => {
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(op.sep());
                    }
                    encode(k, allow, out);
                    if op.named() && v.is_empty() {
                        out.push_str(op.if_empty());
                        continue;
                    }
                    out.push('=');
                    encode(v, allow, out);
                }
            }
        }
    }
}
