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

use crate::error::McpError;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// A value substituted for a template variable.
#[derive(Clone, Debug, PartialEq, Eq)]
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
        let spans = Matcher::new(self, uri).run()?;
        let mut vars = HashMap::new();
        for (part, &(start, end)) in self.parts[..self.query_tail].iter().zip(&spans) {
            if let Part::Expression(e) = part {
                extract(e, &uri[start..end], &mut vars);
            }
        }
        if self.query_tail < self.parts.len() {
            let (start, end) = spans[self.query_tail];
            if end > start {
                // Skip the leading `?` or `&`.
                let query = &uri[start + 1..end];
                for part in &self.parts[self.query_tail..] {
                    if let Part::Expression(e) = part {
                        extract_named(e, query, '&', &mut vars);
                    }
                }
            }
        }
        // A prefixed variable that was not bounded while matching (one of several in an
        // expression, or a named one) is checked here: more than N characters is no expansion.
        if !self.fits_prefixes(&vars) {
            return None;
        }
        Some(vars)
    }

    /// Whether every `{x:N}` variable in `vars` holds at most N characters.
    fn fits_prefixes(&self, vars: &HashMap<String, String>) -> bool {
        self.parts.iter().all(|part| match part {
            Part::Expression(e) => e.vars.iter().all(|spec| match spec.modifier {
                Modifier::Prefix(n) => vars
                    .get(&spec.name)
                    .is_none_or(|v| v.chars().nth(n).is_none()),
                _ => true,
            }),
            Part::Literal(_) => true,
        })
    }
}

/// Where a value of at most `n` characters starting at `from` can end in `uri` (not past
/// `hi`): characters are counted as decoded, a percent-escape being the byte it stands for and
/// a UTF-8 continuation byte not starting a character.
fn prefix_end(uri: &[u8], from: usize, n: usize, hi: usize) -> usize {
    let mut at = from;
    let mut count = 0;
    while at < hi.min(uri.len()) {
        let (byte, width) = if is_pct_triplet(&uri[at..]) {
            let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            (hex(uri[at + 1]) * 16 + hex(uri[at + 2]), 3)
        } else {
            (uri[at], 1)
        };
        if byte & 0xC0 != 0x80 {
            if count == n {
                break;
            }
            count += 1;
        }
        at += width;
    }
    at.min(hi)
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

// --- matching ------------------------------------------------------------------------------

/// Fixed part of the step budget of one `match_uri` call.
const MATCH_WORK_BASE: usize = 1_000_000;

/// Steps allowed per (URI byte × template part) on top of [`MATCH_WORK_BASE`]; an ordinary
/// match takes one or two, so only pathological template/URI pairs run out and get `None`.
const MATCH_WORK_PER_STATE: usize = 8;

/// The characters that end an expression's match, by operator family.
#[derive(Clone, Copy)]
enum Stops {
    /// `/`, `?`, `#`: simple, label and path-parameter expressions.
    Segment = 0,
    /// `?`, `#`: path expressions (segments are counted separately).
    Path = 1,
    /// `/`, `#`: query expressions in the middle of a template.
    Query = 2,
}

impl Stops {
    const ALL: [(Stops, &'static [u8]); 3] = [
        (Stops::Segment, b"/?#"),
        (Stops::Path, b"?#"),
        (Stops::Query, b"/#"),
    ];
}

struct Matcher<'a> {
    template: &'a UriTemplate,
    uri: &'a str,
    work: usize,
    limit: usize,
    /// For each stop family, the offset of the next stop character at or after each position
    /// (`len` if none), computed on first use in one pass.
    next_stop: [Option<Vec<usize>>; 3],
    /// The offset of the next `/` at or after each position, for counting path segments.
    next_slash: Option<Vec<usize>>,
}

/// One reachable position after matching a prefix of the template's parts, with the index of
/// the entry in the previous layer it was reached from.
#[derive(Clone, Copy)]
struct Reached {
    pos: usize,
    from: usize,
}

fn next_table(bytes: &[u8], stops: &[u8]) -> Vec<usize> {
    let mut table = vec![bytes.len(); bytes.len() + 1];
    for i in (0..bytes.len()).rev() {
        table[i] = if stops.contains(&bytes[i]) {
            i
        } else {
            table[i + 1]
        };
    }
    table
}

impl<'a> Matcher<'a> {
    fn new(template: &'a UriTemplate, uri: &'a str) -> Self {
        let states = (uri.len() + 1).saturating_mul(template.parts.len() + 1);
        Self {
            template,
            uri,
            work: 0,
            limit: MATCH_WORK_BASE.saturating_add(states.saturating_mul(MATCH_WORK_PER_STATE)),
            next_stop: [None, None, None],
            next_slash: None,
        }
    }

    fn spend(&mut self, steps: usize) -> Option<()> {
        self.work = self.work.saturating_add(steps);
        (self.work <= self.limit).then_some(())
    }

    fn run_end(&mut self, from: usize, stops: Stops) -> usize {
        let bytes = self.uri.as_bytes();
        let table = self.next_stop[stops as usize].get_or_insert_with(|| {
            let set = Stops::ALL[stops as usize].1;
            next_table(bytes, set)
        });
        table[from.min(bytes.len())]
    }

    /// Where an expression starting at `start` may end: whether it may match nothing, and the
    /// inclusive range of non-empty ends (byte offsets; callers skip non-boundaries). A lone
    /// unnamed `{x:N}` ends within N characters of its value (an expansion never holds more).
    fn candidates(&mut self, e: &Expression, start: usize) -> (bool, Option<(usize, usize)>) {
        let (allow_empty, range) = self.unbounded_candidates(e, start);
        let (Some((lo, hi)), [spec]) = (range, e.vars.as_slice()) else {
            return (allow_empty, range);
        };
        let Modifier::Prefix(n) = spec.modifier else {
            return (allow_empty, range);
        };
        if e.op.named() {
            return (allow_empty, range); // Checked on the whole match (`fits_prefixes`).
        }
        let content = start + e.op.first().len();
        let limit = prefix_end(self.uri.as_bytes(), content, n, hi);
        self.work = self.work.saturating_add(limit - content);
        (allow_empty, (limit >= lo).then_some((lo, hi.min(limit))))
    }

    /// [`Self::candidates`] before a prefix length is applied.
    fn unbounded_candidates(
        &mut self,
        e: &Expression,
        start: usize,
    ) -> (bool, Option<(usize, usize)>) {
        let bytes = self.uri.as_bytes();
        let len = bytes.len();
        let non_empty = |lo: usize, hi: usize| (hi >= lo).then_some((lo, hi));
        let lead = match e.op {
            Op::Simple => {
                return (
                    false,
                    non_empty(start + 1, self.run_end(start, Stops::Segment)),
                )
            }
            Op::Reserved => return (false, non_empty(start + 1, len)),
            op => op.first().as_bytes()[0],
        };
        if start >= len || bytes[start] != lead {
            return (true, None);
        }
        let end = match e.op {
            Op::Fragment => len,
            Op::Label | Op::PathParam => self.run_end(start + 1, Stops::Segment),
            Op::Query | Op::QueryContinuation => self.run_end(start + 1, Stops::Query),
            _ => {
                let stop = self.run_end(start + 1, Stops::Path);
                if e.vars.iter().any(|v| v.modifier == Modifier::Explode) {
                    stop
                } else {
                    // One segment per variable: stop before the slash that would start one
                    // too many.
                    let slashes = self
                        .next_slash
                        .get_or_insert_with(|| next_table(bytes, b"/"));
                    let mut at = start + 1;
                    for _ in 1..e.vars.len() {
                        let slash = slashes[at];
                        if slash >= stop {
                            break;
                        }
                        at = slash + 1;
                    }
                    self.work = self.work.saturating_add(e.vars.len());
                    slashes[at].min(stop)
                }
            }
        };
        (true, non_empty(start + 1, end))
    }

    /// Returns the `(start, end)` span each matching unit covers: one per part before the query
    /// tail, plus one for the whole tail if the template has one.
    ///
    /// Layers are explored breadth-first; within a layer, entries are kept in preference order
    /// (earlier parts prefer the shortest match), and each position is kept only at its first,
    /// most preferred, arrival, so a layer never holds more than `len + 1` entries.
    fn run(mut self) -> Option<Vec<(usize, usize)>> {
        let len = self.uri.len();
        let tail = self.template.query_tail;
        let units = tail + usize::from(tail < self.template.parts.len());
        let mut layers: Vec<Vec<Reached>> = Vec::with_capacity(units + 1);
        layers.push(vec![Reached { pos: 0, from: 0 }]);
        let mut stamp: Vec<usize> = vec![usize::MAX; len + 1];
        for unit in 0..units {
            let mut next: Vec<Reached> = Vec::new();
            // Candidate ranges end at a stop character, so many share their upper end: for each
            // upper end, the lowest start from which the range up to it was already pushed.
            // Later, less preferred entries skip that part, keeping each layer linear.
            let mut covered: HashMap<usize, usize> = HashMap::new();
            let current = std::mem::take(&mut layers[unit]);
            for (index, reached) in current.iter().enumerate() {
                let start = reached.pos;
                let mut push = |end: usize, next: &mut Vec<Reached>| {
                    if stamp[end] != unit {
                        stamp[end] = unit;
                        next.push(Reached {
                            pos: end,
                            from: index,
                        });
                    }
                };
                self.spend(1)?;
                if unit == tail {
                    // The query tail: absent, or everything from its `?` or `&` to the end.
                    let lead = match &self.template.parts[unit] {
                        Part::Expression(e) => e.op.first().as_bytes()[0],
                        Part::Literal(_) => b'?',
                    };
                    if start == len || self.uri.as_bytes()[start] == lead {
                        push(len, &mut next);
                    }
                    continue;
                }
                match &self.template.parts[unit] {
                    Part::Literal(text) => {
                        self.spend(text.len().min(len - start))?;
                        if self.uri[start..].starts_with(text.as_str()) {
                            push(start + text.len(), &mut next);
                        }
                    }
                    Part::Expression(e) => {
                        let (allow_empty, range) = self.candidates(e, start);
                        if allow_empty {
                            push(start, &mut next);
                        }
                        let Some((lo, hi)) = range else {
                            continue;
                        };
                        let mut visit = |from: usize, to: usize, next: &mut Vec<Reached>| {
                            for end in from..to {
                                if self.uri.is_char_boundary(end) {
                                    push(end, next);
                                }
                            }
                            to.saturating_sub(from)
                        };
                        let visited = match covered.get(&hi).copied() {
                            Some(clo) if clo <= lo => 0,
                            Some(clo) => {
                                covered.insert(hi, lo);
                                visit(lo, clo, &mut next)
                            }
                            None => {
                                covered.insert(hi, lo);
                                visit(lo, hi + 1, &mut next)
                            }
                        };
                        self.spend(visited)?;
                    }
                }
            }
            layers[unit] = current;
            if next.is_empty() {
                return None;
            }
            layers.push(next);
        }
        let last = layers.last()?;
        let mut index = last.iter().position(|r| r.pos == len)?;
        let mut spans = vec![(0, 0); units];
        for unit in (0..units).rev() {
            let reached = layers[unit + 1][index];
            let previous = layers[unit][reached.from];
            spans[unit] = (previous.pos, reached.pos);
            index = reached.from;
        }
        Some(spans)
    }
}

/// Percent-decodes `s`; malformed escapes are kept as they are, invalid UTF-8 is replaced.
fn decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if is_pct_triplet(&bytes[i..]) {
            let hi = (bytes[i + 1] as char).to_digit(16).unwrap_or(0);
            let lo = (bytes[i + 2] as char).to_digit(16).unwrap_or(0);
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Assigns the variables of `e` from the text it matched.
fn extract(e: &Expression, matched: &str, vars: &mut HashMap<String, String>) {
    if matched.is_empty() {
        return;
    }
    let body = matched.strip_prefix(e.op.first()).unwrap_or(matched);
    if e.op.named() {
        extract_named(e, body, e.op.sep(), vars);
        return;
    }
    let sep = e.op.sep();
    let mut rest = body;
    for (i, spec) in e.vars.iter().enumerate() {
        let last = i + 1 == e.vars.len();
        let piece = if last {
            std::mem::take(&mut rest)
        } else {
            match rest.split_once(sep) {
                Some((piece, tail)) => {
                    rest = tail;
                    piece
                }
                None => std::mem::take(&mut rest),
            }
        };
        vars.insert(spec.name.clone(), decode(piece));
        if rest.is_empty() && !last {
            break;
        }
    }
}

/// Assigns named variables from `name=value` items separated by `sep`; repeated names (an
/// exploded list) are joined with commas, unknown names are ignored.
fn extract_named(e: &Expression, body: &str, sep: char, vars: &mut HashMap<String, String>) {
    for item in body.split(sep) {
        if item.is_empty() {
            continue;
        }
        let (name, value) = item.split_once('=').unwrap_or((item, ""));
        // A template's variable names may hold percent-encoded octets (RFC 6570 section 2.3);
        // expansion writes them as they are, so they are compared as written, then decoded.
        let decoded = decode(name);
        if let Some(spec) = e
            .vars
            .iter()
            .find(|v| v.name == name || v.name == decoded || decode(&v.name) == decoded)
        {
            let value = decode(value);
            vars.entry(spec.name.clone())
                .and_modify(|existing| {
                    existing.push(',');
                    existing.push_str(&value);
                })
                .or_insert(value);
        }
    }
}
