//! Matching a URI against a [`UriTemplate`]: the inverse of expansion, as the parent module's
//! documentation lays out. A dynamic program over (template part, URI position) with a hard work
//! budget, so that a hostile URI costs bounded time; then the variables are read out of the spans
//! it found and percent-decoded.

use super::{is_pct_triplet, Expression, Modifier, Op, Part, UriTemplate};
use std::collections::HashMap;

/// [`UriTemplate::match_uri`].
pub(super) fn match_uri(template: &UriTemplate, uri: &str) -> Option<HashMap<String, String>> {
    let spans = Matcher::new(template, uri).run()?;
    let mut vars = HashMap::new();
    for (part, &(start, end)) in template.parts[..template.query_tail].iter().zip(&spans) {
        if let Part::Expression(e) = part {
            extract(e, &uri[start..end], &mut vars);
        }
    }
    if template.query_tail < template.parts.len() {
        let (start, end) = spans[template.query_tail];
        if end > start {
            // Skip the leading `?` or `&`.
            let query = &uri[start + 1..end];
            for part in &template.parts[template.query_tail..] {
                if let Part::Expression(e) = part {
                    extract_named(e, query, '&', &mut vars);
                }
            }
        }
    }
    // A prefixed variable that was not bounded while matching (one of several in an
    // expression, or a named one) is checked here: more than N characters is no expansion.
    if !fits_prefixes(template, &vars) {
        return None;
    }
    Some(vars)
}

/// Whether every `{x:N}` variable in `vars` holds at most N characters.
fn fits_prefixes(template: &UriTemplate, vars: &HashMap<String, String>) -> bool {
    template.parts.iter().all(|part| match part {
        Part::Expression(e) => e.vars.iter().all(|spec| match spec.modifier {
            Modifier::Prefix(n) => vars
                .get(&spec.name)
                .is_none_or(|v| v.chars().nth(n).is_none()),
            _ => true,
        }),
        Part::Literal(_) => true,
    })
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
