//! RFC 6570 conformance and MCP round-trip tests for `ferromcp::uri_template`.
//!
//! Expansion is checked against the examples of RFC 6570 sections 1.2 and 3.2; matching is
//! checked by expanding MCP-style templates and matching the result back, by explicit
//! non-matches, and by feeding thousands of pseudo-random inputs to `parse` and `match_uri`.

use ferromcp::codes;
use ferromcp::uri_template::{TemplateValue, UriTemplate};
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn s(v: &str) -> TemplateValue {
    TemplateValue::String(v.to_string())
}

fn list(items: &[&str]) -> TemplateValue {
    TemplateValue::List(items.iter().map(|i| i.to_string()).collect())
}

/// The variables of RFC 6570 section 3.2.
fn rfc_vars() -> HashMap<String, TemplateValue> {
    let mut vars = HashMap::new();
    vars.insert("count".into(), list(&["one", "two", "three"]));
    vars.insert("dom".into(), list(&["example", "com"]));
    vars.insert("dub".into(), s("me/too"));
    vars.insert("hello".into(), s("Hello World!"));
    vars.insert("half".into(), s("50%"));
    vars.insert("var".into(), s("value"));
    vars.insert("who".into(), s("fred"));
    vars.insert("base".into(), s("http://example.com/home/"));
    vars.insert("path".into(), s("/foo/bar"));
    vars.insert("list".into(), list(&["red", "green", "blue"]));
    vars.insert(
        "keys".into(),
        TemplateValue::Map(vec![
            ("semi".into(), ";".into()),
            ("dot".into(), ".".into()),
            ("comma".into(), ",".into()),
        ]),
    );
    vars.insert("v".into(), s("6"));
    vars.insert("x".into(), s("1024"));
    vars.insert("y".into(), s("768"));
    vars.insert("empty".into(), s(""));
    vars.insert("empty_keys".into(), TemplateValue::Map(vec![]));
    vars
}

fn check(cases: &[(&str, &str)]) {
    let vars = rfc_vars();
    for (template, expected) in cases {
        let parsed = UriTemplate::parse(template)
            .unwrap_or_else(|e| panic!("{template} failed to parse: {e}"));
        assert_eq!(parsed.expand(&vars), *expected, "expanding {template}");
    }
}

#[test]
fn level1_simple_string_expansion() {
    check(&[("{var}", "value"), ("{hello}", "Hello%20World%21")]);
}

#[test]
fn level2_reserved_and_fragment_expansion() {
    check(&[
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("X{#var}", "X#value"),
        ("X{#hello}", "X#Hello%20World!"),
    ]);
}

#[test]
fn level3_multiple_variables() {
    check(&[
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ]);
}

#[test]
fn level4_modifiers_lists_and_maps() {
    check(&[
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{keys}", "semi,%3B,dot,.,comma,%2C"),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{+keys}", "semi,;,dot,.,comma,,"),
        ("{+keys*}", "semi=;,dot=.,comma=,"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"),
        ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ]);
}

#[test]
fn section_3_2_tables() {
    check(&[
        // 3.2.1
        ("{count}", "one,two,three"),
        ("{count*}", "one,two,three"),
        ("{/count}", "/one,two,three"),
        ("{/count*}", "/one/two/three"),
        ("{;count}", ";count=one,two,three"),
        ("{;count*}", ";count=one;count=two;count=three"),
        ("{?count}", "?count=one,two,three"),
        ("{?count*}", "?count=one&count=two&count=three"),
        ("{&count*}", "&count=one&count=two&count=three"),
        // 3.2.2
        ("{half}", "50%25"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"),
        // 3.2.3
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"),
        ("O{+undef}X", "OX"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"),
        // 3.2.4
        ("{#var}", "#value"),
        ("{#half}", "#50%25"),
        ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"),
        // 3.2.5
        ("{.who}", ".fred"),
        ("{.who,who}", ".fred.fred"),
        ("{.half,who}", ".50%25.fred"),
        ("www{.dom*}", "www.example.com"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("X{.empty_keys}", "X"),
        ("X{.empty_keys*}", "X"),
        // 3.2.6
        ("{/who}", "/fred"),
        ("{/who,who}", "/fred/fred"),
        ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var,empty}", "/value/"),
        ("{/var,undef}", "/value"),
        // 3.2.7
        ("{;who}", ";who=fred"),
        ("{;half}", ";half=50%25"),
        ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;x,y,undef}", ";x=1024;y=768"),
        // 3.2.8
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?x,y,undef}", "?x=1024&y=768"),
        // 3.2.9
        ("{&who}", "&who=fred"),
        ("{&half}", "&half=50%25"),
    ]);
}

#[test]
fn literals_outside_uri_syntax_are_encoded() {
    let t = UriTemplate::parse("a b/{x}/%41").unwrap();
    let vars = HashMap::from([("x".to_string(), s("é"))]);
    assert_eq!(t.expand(&vars), "a%20b/%C3%A9/%41");
}

#[test]
fn malformed_templates_are_rejected() {
    for bad in [
        "{",
        "abc{def",
        "abc}",
        "{}",
        "{a{b}}",
        "{=x}",
        "{,x}",
        "{!x}",
        "{@x}",
        "{|x}",
        "{a,}",
        "{,}",
        "{a b}",
        "{a-b}",
        "{.}",
        "{a.}",
        "{.a..b}",
        "{a:0}",
        "{a:01}",
        "{a:10000}",
        "{a:}",
        "{a:3*}",
        "{a**}",
        "{%zz}",
        "x\u{7}y",
    ] {
        let err = UriTemplate::parse(bad).expect_err(bad);
        assert_eq!(err.code, codes::INVALID_PARAMS, "{bad}");
        assert!(
            err.message.contains("Invalid URI template"),
            "{bad}: {}",
            err.message
        );
    }
    for good in [
        "",
        "plain",
        "{a.b}",
        "{a_1,%41b}",
        "{a:9999}",
        "{/a*,b:1}",
        "{x}{y}",
    ] {
        UriTemplate::parse(good).unwrap_or_else(|e| panic!("{good}: {e}"));
    }
}

#[test]
fn accessors() {
    let t = UriTemplate::parse("repo://{owner}/{repo}{?ref,path}{&owner}").unwrap();
    assert_eq!(t.as_str(), "repo://{owner}/{repo}{?ref,path}{&owner}");
    assert_eq!(t.to_string(), t.as_str());
    assert_eq!(t.variable_names(), vec!["owner", "repo", "ref", "path"]);
    let parsed: UriTemplate = "users://{userId}/profile".parse().unwrap();
    assert_eq!(parsed.variable_names(), vec!["userId"]);
}

fn vars_of(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn round_trip(template: &str, pairs: &[(&str, &str)]) {
    let t = UriTemplate::parse(template).unwrap();
    let input: HashMap<String, TemplateValue> =
        pairs.iter().map(|(k, v)| (k.to_string(), s(v))).collect();
    let uri = t.expand(&input);
    assert_eq!(
        t.match_uri(&uri),
        Some(vars_of(pairs)),
        "{template} expanded to {uri}"
    );
}

#[test]
fn mcp_templates_round_trip() {
    round_trip("file:///{path}", &[("path", "readme.md")]);
    round_trip("file:///{path}", &[("path", "docs/guide with spaces.md")]);
    round_trip("file:///{+path}", &[("path", "docs/guide.md")]);
    round_trip("test://template/{id}/data", &[("id", "42")]);
    round_trip("test://template/{id}/data", &[("id", "a/b?c#d é")]);
    round_trip(
        "users://{userId}/profile",
        &[("userId", "alice@example.com")],
    );
    round_trip(
        "repo://{owner}/{repo}{?ref,path}",
        &[("owner", "o"), ("repo", "r")],
    );
    round_trip(
        "repo://{owner}/{repo}{?ref,path}",
        &[("owner", "o"), ("repo", "r"), ("path", "src/lib.rs")],
    );
    round_trip(
        "repo://{owner}/{repo}{?ref,path}",
        &[
            ("owner", "o"),
            ("repo", "r"),
            ("ref", "v1.0&x=y"),
            ("path", "a b"),
        ],
    );
    round_trip(
        "db://{table}{/id}{.format}",
        &[("table", "t"), ("id", "7"), ("format", "json")],
    );
    round_trip("db://{table}{/id}{.format}", &[("table", "t")]);
    round_trip(
        "doc://{name}{#section}",
        &[("name", "n"), ("section", "intro/part 1")],
    );
    round_trip("x://{a}{;p,q}", &[("a", "1"), ("p", "2"), ("q", "")]);
    round_trip(
        "search://items{?q}{&page,limit}",
        &[("q", "rust mcp"), ("limit", "10")],
    );
    round_trip("{+base}/{name}", &[("base", "http://h/a/b"), ("name", "c")]);
}

#[test]
fn matching_details() {
    let repo = UriTemplate::parse("repo://{owner}/{repo}{?ref,path}").unwrap();
    // Query parameters in any order, unknown ones ignored, values decoded.
    assert_eq!(
        repo.match_uri("repo://o/r?path=a%2Fb&junk=1&ref=main"),
        Some(vars_of(&[
            ("owner", "o"),
            ("repo", "r"),
            ("path", "a/b"),
            ("ref", "main")
        ]))
    );
    assert_eq!(
        repo.match_uri("repo://o/r?"),
        Some(vars_of(&[("owner", "o"), ("repo", "r")]))
    );

    let file = UriTemplate::parse("file:///{path}").unwrap();
    assert_eq!(file.match_uri("file:///docs/readme.md"), None);
    assert_eq!(
        file.match_uri("file:///docs%2Freadme.md"),
        Some(vars_of(&[("path", "docs/readme.md")]))
    );
    let reserved = UriTemplate::parse("file:///{+path}").unwrap();
    assert_eq!(
        reserved.match_uri("file:///docs/readme.md"),
        Some(vars_of(&[("path", "docs/readme.md")]))
    );

    // `{+path}` stops at the query when the template declares query parameters.
    let t = UriTemplate::parse("file:///{+path}{?rev}").unwrap();
    assert_eq!(
        t.match_uri("file:///a/b?rev=3"),
        Some(vars_of(&[("path", "a/b"), ("rev", "3")]))
    );

    // Exploded path segments and lists.
    let t = UriTemplate::parse("fs://root{/path*}").unwrap();
    assert_eq!(
        t.match_uri("fs://root/a/b/c"),
        Some(vars_of(&[("path", "a/b/c")]))
    );
    let t = UriTemplate::parse("q://x{?tag*}").unwrap();
    assert_eq!(
        t.match_uri("q://x?tag=a&tag=b"),
        Some(vars_of(&[("tag", "a,b")]))
    );

    // A name followed by an optional extension prefers the extension.
    let t = UriTemplate::parse("f://{name}{.ext}").unwrap();
    assert_eq!(
        t.match_uri("f://file.tar.gz"),
        Some(vars_of(&[("name", "file"), ("ext", "tar.gz")]))
    );

    // Literal-only templates match only themselves.
    let t = UriTemplate::parse("config://app").unwrap();
    assert_eq!(t.match_uri("config://app"), Some(HashMap::new()));
    assert_eq!(t.match_uri("config://app2"), None);
}

#[test]
fn non_matches() {
    let cases = [
        ("users://{userId}/profile", "users:///profile"),
        ("users://{userId}/profile", "users://a/b/profile"),
        ("users://{userId}/profile", "users://a/profile/extra"),
        ("users://{userId}/profile", "user://a/profile"),
        ("test://template/{id}/data", "test://template/1/data?x=1"),
        ("test://template/{id}/data", "test://template/1/dat"),
        ("repo://{owner}/{repo}{?ref,path}", "repo://o"),
        ("repo://{owner}/{repo}{?ref,path}", "repo://o/r/extra?ref=1"),
        ("file:///{path}", "file:///"),
        ("file:///{path}", "http:///x"),
        ("x://{a}{/b}", "x://a/b/c"),
        ("", "x"),
    ];
    for (template, uri) in cases {
        let t = UriTemplate::parse(template).unwrap();
        assert_eq!(t.match_uri(uri), None, "{template} should not match {uri}");
    }
}

/// `{x:N}` expands to at most N characters of the value, so a URI holding more is not an
/// expansion (found by the `uri_template` fuzz target: the matcher took any length).
#[test]
fn prefix_variables_match_at_most_their_length() {
    let matches = [
        ("x://{d:3}/end", "x://abc/end", vec![("d", "abc")]),
        ("x://{d:3}/end", "x://ab/end", vec![("d", "ab")]),
        // Characters are counted decoded: one escape, or one multi-byte character, is one.
        ("x://{d:2}/end", "x://%20a/end", vec![("d", " a")]),
        ("x://{d:2}/end", "x://%C3%A9b/end", vec![("d", "\u{e9}b")]),
        ("x://{+d:3}", "x://a/b", vec![("d", "a/b")]),
        ("x://{/d:2}/rest", "x:///ab/rest", vec![("d", "ab")]),
        (
            "x://{a:2,b}",
            "x://ab,cdef",
            vec![("a", "ab"), ("b", "cdef")],
        ),
        ("x://y{?q:3}", "x://y?q=abc", vec![("q", "abc")]),
    ];
    for (template, uri, want) in matches {
        let t = UriTemplate::parse(template).unwrap();
        assert_eq!(
            t.match_uri(uri),
            Some(vars_of(&want)),
            "{template} against {uri}"
        );
    }
    let refused = [
        ("x://{d:3}/end", "x://abcd/end"),
        ("x://{d:2}/end", "x://%20ab/end"),
        ("x://{d:1}/end", "x://%C3%A9b/end"),
        ("x://{+d:3}", "x://a/bc"),
        ("x://{/d:2}/rest", "x:///abc/rest"),
        ("x://{a:2,b}", "x://abc,d"),
        ("x://y{?q:3}", "x://y?q=abcd"),
        ("x://{;p:1}", "x://;p=ab"),
    ];
    for (template, uri) in refused {
        let t = UriTemplate::parse(template).unwrap();
        assert_eq!(t.match_uri(uri), None, "{template} should not match {uri}");
    }
    // The round trip the fuzz target checks: a longer value expands truncated and matches back.
    let t = UriTemplate::parse("x://{d:3}/end").unwrap();
    let uri = t.expand(&HashMap::from([("d".to_string(), s("abcdef"))]));
    assert_eq!(uri, "x://abc/end");
    assert_eq!(t.match_uri(&uri), Some(vars_of(&[("d", "abc")])));
}

/// A small deterministic xorshift generator, so the fuzz test needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn string(&mut self, alphabet: &[&str], max_len: usize) -> String {
        let len = self.below(max_len + 1);
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())])
            .collect()
    }
}

const TEMPLATE_ALPHABET: &[&str] = &[
    "{", "}", "a", "b", "x", "/", "?", "&", "#", ".", ";", "+", ",", "*", ":", "3", "0", "%",
    "%2F", "=", "!", " ", "é", "{a}", "{+b}", "{?x,y}", "{/p*}", "{#f}", "{.e}", "{;m}", "{&c}",
    "://",
];

const URI_ALPHABET: &[&str] = &[
    "a", "b", "x", "/", "?", "&", "#", ".", ";", "=", ",", "%", "%2F", "%zz", "%C3%A9", "é", "://",
    "a=1", " ", "\u{0}",
];

#[test]
fn random_inputs_never_panic_and_finish_fast() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let started = Instant::now();
    let mut templates = Vec::new();
    for _ in 0..4000 {
        let text = rng.string(TEMPLATE_ALPHABET, 24);
        if let Ok(t) = UriTemplate::parse(&text) {
            templates.push(t);
        }
    }
    assert!(templates.len() > 100, "too few random templates parsed");
    for t in &templates {
        for _ in 0..4 {
            let uri = rng.string(URI_ALPHABET, 40);
            let _ = t.match_uri(&uri);
        }
        // Whatever a template expands to, it must match back.
        let names: Vec<String> = t.variable_names().iter().map(|n| n.to_string()).collect();
        let vars: HashMap<String, TemplateValue> = names
            .iter()
            .map(|n| {
                (
                    n.clone(),
                    TemplateValue::String(rng.string(URI_ALPHABET, 6)),
                )
            })
            .collect();
        let uri = t.expand(&vars);
        let _ = t.match_uri(&uri);
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "fuzzing took {:?}",
        started.elapsed()
    );
}

#[test]
fn hostile_uris_are_bounded() {
    let started = Instant::now();
    let uri = "a".repeat(8_000);

    // Sixty-four adjacent expressions: ambiguous, but still matched in linear time per part.
    let many: String = (0..64).map(|i| format!("{{v{i}}}")).collect();
    let adjacent = UriTemplate::parse(&many).unwrap();
    let vars = adjacent.match_uri(&uri).expect("adjacent variables match");
    assert_eq!(vars.len(), 64);
    assert_eq!(vars["v0"], "a");
    assert_eq!(vars["v63"].len(), 8_000 - 63);

    let wide = UriTemplate::parse("{+a}{+b}{+c}{+d}{+e}x").unwrap();
    assert_eq!(wide.match_uri(&uri), None);
    let slashes = UriTemplate::parse("{/a,b,c,d,e,f}z").unwrap();
    assert_eq!(slashes.match_uri(&"/a".repeat(10_000)), None);
    let segments = UriTemplate::parse("{a}{b}{c}/{d}{e}{f}?").unwrap();
    assert_eq!(segments.match_uri(&"ab/".repeat(7_000)), None);
    let query = UriTemplate::parse("q://{a}{?x,y}").unwrap();
    let long_query = format!("q://a?{}", "x=1&".repeat(5_000));
    assert!(query.match_uri(&long_query).is_some());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

/// Found by the `uri_template` fuzz target: a variable name may contain percent-encoded octets
/// (RFC 6570 section 2.3); a named expression writes the name as it is, and matching must find
/// that variable again (the names in the URI are decoded, the template's were not).
#[test]
fn named_variables_with_percent_encoded_names_match_back() {
    for template in ["mem://{a}x{&%C3%A9t%C3%A9}", "q{?%41b}", "p{;%7E}"] {
        let t = UriTemplate::parse(template).unwrap();
        let name = t.variable_names()[t.variable_names().len() - 1].to_string();
        let mut vars = HashMap::new();
        vars.insert(name.clone(), s("v1"));
        vars.insert("a".to_string(), s("z"));
        let uri = t.expand(&vars);
        let found = t
            .match_uri(&uri)
            .unwrap_or_else(|| panic!("{template} does not match {uri}"));
        assert_eq!(
            found.get(&name).map(String::as_str),
            Some("v1"),
            "{template} {uri}"
        );
    }
}
