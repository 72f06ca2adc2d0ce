//! A before/after row for the Node binding's handler path (issue 35 point 3): the
//! official-example form ("ferromcp (Node handler, official-example form)": an `async` handler
//! returning `{ content: [...] }`) run on a second build of the binding, named by
//! `MCP_BENCH_FERROMCP_NODE_BASELINE` (a directory laid out as bindings-node after
//! `scripts/build.sh`: `dist/`, `esm/`, `native/`, `bench/echo_server.mjs`; e.g. a copy of it
//! made before a change). Both builds then run in the same run, interleaved, beside the Rust
//! handler's row, so a change to the handler path is timed against its baseline under the same
//! load. Without the variable there is no such row.
//!
//! Also the Swift handler in the official swift-sdk's form ("ferromcp (Swift handler,
//! official-example form)": bindings-swift/bench's `EchoServer` with
//! `FERROMCP_BENCH_HANDLER=official`, a `withMethodHandler(CallTool.self)` handler returning
//! `.init(content: [.text(...)], isError: false)` on FerroMCPCompat), the Swift counterpart of
//! the Node row of that form, and its baseline build (`MCP_BENCH_FERROMCP_SWIFT_BASELINE`, a
//! second `EchoServer`) as the Node one.

use crate::{http_modes, stdio_cmd, Kind, Lang, Spec, MODES};
use std::path::{Path, PathBuf};

/// The rows of the handler written as the official SDKs' examples write it that `specs()` of
/// main.rs does not hold: Swift's, and the Node baseline build's when
/// `MCP_BENCH_FERROMCP_NODE_BASELINE` names a built binding. Appended after every row of
/// main.rs's `specs()`, so the report's ratios and targets keep to the first ferromcp row of
/// each language.
pub fn specs(root: &Path) -> Vec<Spec> {
    let mut rows = vec![swift_official(root)];
    rows.extend(node_baseline());
    rows.extend(swift_baseline(root));
    rows
}

/// The Swift form's baseline row, when `MCP_BENCH_FERROMCP_SWIFT_BASELINE` names a second
/// release `EchoServer` (e.g. a copy of bindings-swift/bench/.build/release/EchoServer made
/// before a change to FerroMCPCompat), run beside the official-form row in the same run.
fn swift_baseline(root: &Path) -> Option<Spec> {
    let bin = std::env::var_os("MCP_BENCH_FERROMCP_SWIFT_BASELINE").map(PathBuf::from)?;
    let na = (!bin.exists()).then(|| {
        format!(
            "not run: {} does not exist (MCP_BENCH_FERROMCP_SWIFT_BASELINE)",
            bin.display()
        )
    });
    let base = [
        crate::swift_launcher(root),
        "--exec".to_string(),
        bin.display().to_string(),
    ];
    let (stdio, http) = match na {
        Some(_) => (None, Default::default()),
        None => (Some(stdio_cmd(&base)), http_modes(&base, &MODES)),
    };
    Some(Spec {
        name: "ferromcp (Swift handler, official-example form, baseline build)",
        lang: Lang::Swift,
        kind: Kind::Ferro,
        stdio,
        http,
        env: vec![("FERROMCP_BENCH_HANDLER".into(), "official".into())],
        na,
        smoke: false,
        huge_sessions: false,
    })
}

/// The Swift handler in the swift-sdk's form: the Swift handler's row, same executable, with
/// `FERROMCP_BENCH_HANDLER=official`.
fn swift_official(root: &Path) -> Spec {
    Spec {
        name: "ferromcp (Swift handler, official-example form)",
        env: vec![("FERROMCP_BENCH_HANDLER".into(), "official".into())],
        smoke: false,
        ..crate::ferro_swift(root)
    }
}

/// The Node baseline row, when `MCP_BENCH_FERROMCP_NODE_BASELINE` names a built binding.
fn node_baseline() -> Option<Spec> {
    let dir = std::env::var_os("MCP_BENCH_FERROMCP_NODE_BASELINE").map(PathBuf::from)?;
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
    Some(Spec {
        name: "ferromcp (Node handler, official-example form, baseline build)",
        lang: Lang::TypeScript,
        kind: Kind::Ferro,
        stdio,
        http,
        env: vec![("FERROMCP_BENCH_HANDLER".into(), "official".into())],
        na,
        smoke: false,
        huge_sessions: false,
    })
}
