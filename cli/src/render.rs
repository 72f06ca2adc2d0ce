//! Human-readable text for what a server answers: tool, resource, template and prompt lists,
//! tool results, resource contents, prompt messages and a server's whole surface. `--json`
//! prints the results themselves instead; this module is only the readable form.

use serde_json::Value;
use std::fmt::Write;

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The first line of a description.
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// `name(arg: type, optional?: type)` from a tool's input schema.
pub fn tool_signature(tool: &Value) -> String {
    let name = str_of(tool, "name").unwrap_or("?");
    let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args = Vec::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (arg, prop) in props {
            let ty = match prop.get("type") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("|"),
                _ if prop.get("enum").is_some() => "enum".into(),
                _ => "any".into(),
            };
            let opt = if required.contains(&arg.as_str()) {
                ""
            } else {
                "?"
            };
            args.push(format!("{arg}{opt}: {ty}"));
        }
    }
    format!("{name}({})", args.join(", "))
}

/// One entry per tool: its signature, then its description indented.
pub fn tools(list: &[Value]) -> String {
    let mut out = String::new();
    for t in list {
        let _ = writeln!(out, "{}", tool_signature(t));
        if let Some(d) = str_of(t, "description")
            .map(first_line)
            .filter(|d| !d.is_empty())
        {
            let _ = writeln!(out, "    {d}");
        }
    }
    out
}

/// One line per resource: URI, name, MIME type.
pub fn resources(list: &[Value]) -> String {
    let mut out = String::new();
    for r in list {
        let _ = write!(
            out,
            "{}  {}",
            str_of(r, "uri").unwrap_or("?"),
            str_of(r, "name").unwrap_or("")
        );
        if let Some(m) = str_of(r, "mimeType") {
            let _ = write!(out, "  ({m})");
        }
        out.push('\n');
    }
    out
}

/// One line per resource template: URI template, name, MIME type.
pub fn templates(list: &[Value]) -> String {
    let mut out = String::new();
    for r in list {
        let _ = write!(
            out,
            "{}  {}",
            str_of(r, "uriTemplate").unwrap_or("?"),
            str_of(r, "name").unwrap_or("")
        );
        if let Some(m) = str_of(r, "mimeType") {
            let _ = write!(out, "  ({m})");
        }
        out.push('\n');
    }
    out
}

/// One entry per prompt: `name(arg, optional?)`, then its description indented.
pub fn prompts(list: &[Value]) -> String {
    let mut out = String::new();
    for p in list {
        let args: Vec<String> = p
            .get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|arg| {
                        let name = str_of(arg, "name").unwrap_or("?");
                        let req = arg
                            .get("required")
                            .and_then(Value::as_bool)
                            .unwrap_or(false);
                        format!("{name}{}", if req { "" } else { "?" })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{}({})",
            str_of(p, "name").unwrap_or("?"),
            args.join(", ")
        );
        if let Some(d) = str_of(p, "description")
            .map(first_line)
            .filter(|d| !d.is_empty())
        {
            let _ = writeln!(out, "    {d}");
        }
    }
    out
}

/// A content block as text: text as it is, other kinds as a bracketed summary.
pub fn block(b: &Value) -> String {
    let size = |key: &str| str_of(b, key).map(|d| d.len() * 3 / 4).unwrap_or(0);
    match str_of(b, "type") {
        Some("text") => str_of(b, "text").unwrap_or("").to_string(),
        Some("image") => format!(
            "[image {}, {} bytes]",
            str_of(b, "mimeType").unwrap_or("?"),
            size("data")
        ),
        Some("audio") => format!(
            "[audio {}, {} bytes]",
            str_of(b, "mimeType").unwrap_or("?"),
            size("data")
        ),
        Some("resource_link") => format!(
            "[resource link {}{}]",
            str_of(b, "uri").unwrap_or("?"),
            str_of(b, "name")
                .map(|n| format!(" {n}"))
                .unwrap_or_default()
        ),
        Some("resource") => {
            let r = b.get("resource").cloned().unwrap_or(Value::Null);
            contents_entry(&r)
        }
        _ => serde_json::to_string(b).unwrap_or_default(),
    }
}

/// One resource contents entry: a header line with its URI and MIME type, then its text (or
/// the size of its blob).
fn contents_entry(r: &Value) -> String {
    let mut out = format!("[resource {}", str_of(r, "uri").unwrap_or("?"));
    if let Some(m) = str_of(r, "mimeType") {
        let _ = write!(out, " ({m})");
    }
    out.push(']');
    if let Some(t) = str_of(r, "text") {
        let _ = write!(out, "\n{t}");
    } else if let Some(blob) = str_of(r, "blob") {
        let _ = write!(out, "\n[blob, {} bytes]", blob.len() * 3 / 4);
    }
    out
}

/// A `tools/call` result: each content block, then the structured content if any.
pub fn call_result(r: &Value) -> String {
    let mut out = String::new();
    for b in r
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let _ = writeln!(out, "{}", block(b));
    }
    if let Some(s) = r.get("structuredContent") {
        let _ = writeln!(
            out,
            "structured content:\n{}",
            serde_json::to_string_pretty(s).unwrap_or_default()
        );
    }
    out
}

/// A `resources/read` result.
pub fn read_result(r: &Value) -> String {
    let mut out = String::new();
    for c in r
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let _ = writeln!(out, "{}", contents_entry(c));
    }
    out
}

/// A `prompts/get` result: its description, then `[role] content` per message.
pub fn prompt_result(r: &Value) -> String {
    let mut out = String::new();
    if let Some(d) = str_of(r, "description") {
        let _ = writeln!(out, "{d}");
    }
    for m in r
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = m.get("content").map(block).unwrap_or_default();
        let _ = writeln!(out, "[{}] {content}", str_of(m, "role").unwrap_or("?"));
    }
    out
}

/// The capabilities object as a list: `tools (listChanged), resources (subscribe, ...)`.
pub fn capabilities(caps: &Value) -> String {
    let Some(obj) = caps.as_object() else {
        return "none".into();
    };
    let parts: Vec<String> = obj
        .iter()
        .map(|(k, v)| {
            let flags: Vec<&str> = v
                .as_object()
                .map(|o| {
                    o.iter()
                        .filter(|(_, f)| f.as_bool() != Some(false))
                        .map(|(f, _)| f.as_str())
                        .collect()
                })
                .unwrap_or_default();
            if flags.is_empty() {
                k.clone()
            } else {
                format!("{k} ({})", flags.join(", "))
            }
        })
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// Renders one list of a server's surface.
type Renderer = fn(&[Value]) -> String;

/// A server's whole surface (`ferromcp inspect`), from the object `--json` prints.
pub fn surface(s: &Value) -> String {
    let mut out = String::new();
    let info = s.get("serverInfo").cloned().unwrap_or(Value::Null);
    let _ = write!(
        out,
        "server: {} {}",
        str_of(&info, "name").unwrap_or("?"),
        str_of(&info, "version").unwrap_or("?")
    );
    if let Some(t) = str_of(&info, "title") {
        let _ = write!(out, " ({t})");
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "protocol: {}",
        str_of(s, "protocolVersion").unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "capabilities: {}",
        capabilities(s.get("capabilities").unwrap_or(&Value::Null))
    );
    if let Some(i) = str_of(s, "instructions") {
        let _ = writeln!(out, "instructions: {i}");
    }
    let sections: [(&str, &str, Renderer); 4] = [
        ("tools", "tools", tools),
        ("resources", "resources", resources),
        ("resource templates", "resourceTemplates", templates),
        ("prompts", "prompts", prompts),
    ];
    for (title, key, render) in sections {
        let items = s
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let _ = writeln!(out, "\n{title} ({}):", items.len());
        for line in render(&items).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}
