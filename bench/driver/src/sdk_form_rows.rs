//! A before/after row for the Node binding's handler path (issue 35 point 3): the
//! official-example form ("ferromcp (Node handler, official-example form)": an `async` handler
//! returning `{ content: [...] }`) run on a second build of the binding, named by
//! `MCP_BENCH_FERROMCP_NODE_BASELINE` (a directory laid out as bindings-node after
//! `scripts/build.sh`: `dist/`, `esm/`, `native/`, `bench/echo_server.mjs`; e.g. a copy of it
//! made before a change). Both builds then run in the same run, interleaved, beside the Rust
//! handler's row, so a change to the handler path is timed against its baseline under the same
//! load. Without the variable there is no such row.

use crate::{http_modes, stdio_cmd, Kind, Lang, Spec, MODES};
use std::path::PathBuf;

/// The baseline row, when `MCP_BENCH_FERROMCP_NODE_BASELINE` names a built binding.
pub fn specs() -> Vec<Spec> {
    let Some(dir) = std::env::var_os("MCP_BENCH_FERROMCP_NODE_BASELINE").map(PathBuf::from) else {
        return Vec::new();
    };
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".into());
    let script = dir.join("bench/echo_server.mjs");
    let na = (!script.exists() || !dir.join("native/index.js").exists()).then(|| {
        format!(
            "not run: {} is not a built binding (MCP_BENCH_FERROMCP_NODE_BASELINE)",
            dir.display()
        )
    });
    let base = [node, script.display().to_string()];
    let (stdio, http) = match na {
        Some(_) => (None, Default::default()),
        None => (Some(stdio_cmd(&base)), http_modes(&base, &MODES)),
    };
    vec![Spec {
        name: "ferromcp (Node handler, official-example form, baseline build)",
        lang: Lang::TypeScript,
        // Appended after every row of `specs()`: the report's ratios and targets keep to the
        // first ferromcp row of each language.
        kind: Kind::Ferro,
        stdio,
        http,
        env: vec![("FERROMCP_BENCH_HANDLER".into(), "official".into())],
        na,
        smoke: false,
        huge_sessions: false,
    }]
}
