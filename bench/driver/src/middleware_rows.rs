//! The middleware rows (issue 37): the same `echo` server with one or five pass-through layers in
//! Rust, one in Python, JavaScript and Swift, and, beside them, FastMCP with and without one
//! FastMCP middleware and the official Python SDK's `MCPServer` with one server middleware.
//! Each row's baseline without middleware is a row of `specs()` in main (or, for FastMCP, a row
//! here), measured in the same run; `bench/middleware_table.py` puts each beside its baseline.
//!
//! Every layer hands the request on unchanged. Only stdio and the stateless JSON-response HTTP
//! mode are measured (1 and 32 clients): a layer's cost does not depend on the HTTP mode, and
//! the stateful mode's idle-session phase (10,000 sessions) would add minutes per row.

use crate::{ferro_node, ferro_python, ferro_swift, http_modes, stdio_cmd, Kind, Lang, Spec};
use std::path::Path;

/// The one HTTP mode of these rows.
const MODES: [&str; 1] = ["json"];

/// The rows, appended after `specs()`'s (so each language's first ferromcp and official row
/// stays the one the report's ratios are taken against).
pub fn specs(root: &Path, bins: &Path) -> Vec<Spec> {
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".into());
    let echo = bins.join("ferromcp-echo").display().to_string();
    let py = root.join(".tools/venv/bin/python").display().to_string();
    let pyscript = |n: &str| {
        root.join("bench/servers/python")
            .join(n)
            .display()
            .to_string()
    };
    let rust = |name: &'static str, layers: &str| Spec {
        name,
        lang: Lang::Rust,
        kind: Kind::Ferro,
        stdio: Some(vec![echo.clone(), "stdio".into()]),
        http: http_modes(std::slice::from_ref(&echo), &MODES),
        env: vec![("FERROMCP_BENCH_LAYERS".into(), layers.into())],
        na: None,
        smoke: true,
        huge_sessions: false,
    };
    // FastMCP is pinned in requirements-test.txt beside the official SDK (scripts/setup-test-deps).
    let fastmcp_na = (!has_module(&py, "fastmcp")).then(|| {
        format!(
            "not run: {py} has no fastmcp (scripts/setup-test-deps installs requirements-test.txt)"
        )
    });
    // A row of a Python framework other than ferromcp: its own script, the official SDK's venv.
    let python = |name: &'static str, script: &str, middleware: bool, smoke: bool| {
        let base = [py.clone(), pyscript(script)];
        let na = if script.contains("fastmcp") {
            fastmcp_na.clone()
        } else {
            None
        };
        Spec {
            name,
            lang: Lang::Python,
            // Not a reference row: the report's "official SDK" ratios and targets keep to the
            // plain official rows.
            kind: Kind::Other,
            stdio: Some(stdio_cmd(&base)),
            http: http_modes(&base, &MODES),
            env: if middleware {
                vec![("FERROMCP_BENCH_MIDDLEWARE".into(), "python".into())]
            } else {
                Vec::new()
            },
            na,
            smoke,
            huge_sessions: false,
        }
    };
    // The binding rows: their own constructors, one layer added and the modes narrowed.
    let layered = |mut s: Spec, name: &'static str, key: &str, value: &str| {
        s.name = name;
        s.env.push((key.into(), value.into()));
        s.http.retain(|m, _| MODES.contains(m));
        s.smoke = true;
        s
    };
    vec![
        rust(
            "ferromcp (Rust handler, 1 pass-through middleware layer)",
            "1",
        ),
        rust(
            "ferromcp (Rust handler, 5 pass-through middleware layers)",
            "5",
        ),
        layered(
            ferro_python("", root, false),
            "ferromcp (Python handler, sync def, 1 Python middleware)",
            "FERROMCP_BENCH_MIDDLEWARE",
            "python",
        ),
        layered(
            ferro_node("", root, &node, false),
            "ferromcp (Node handler, 1 JavaScript middleware)",
            "FERROMCP_BENCH_JS_MIDDLEWARE",
            "1",
        ),
        layered(
            ferro_swift(root),
            "ferromcp (Swift handler, 1 Swift middleware)",
            "FERROMCP_BENCH_MIDDLEWARE",
            "swift",
        ),
        python(
            "Python SDK 2.3.0 (MCPServer, 1 server middleware)",
            "echo_mcpserver.py",
            true,
            false,
        ),
        python("FastMCP 4.1.6", "echo_fastmcp.py", false, false),
        python(
            "FastMCP 4.1.6 (1 FastMCP middleware)",
            "echo_fastmcp.py",
            true,
            true,
        ),
    ]
}

/// Whether `python` finds `module` (without importing it: a look-up on its path).
fn has_module(python: &str, module: &str) -> bool {
    std::process::Command::new(python)
        .arg("-c")
        .arg(format!(
            "import importlib.util, sys; sys.exit(importlib.util.find_spec({module:?}) is None)"
        ))
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}
