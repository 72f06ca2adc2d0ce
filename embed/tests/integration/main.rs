//! ferromcp-embed's integration tests, linked into one test binary (as core's are: one link of
//! the engine instead of one per file). Run one file's tests with
//! `cargo test -p ferromcp-embed --test integration -- <file>::`.
//!
//! The helper modules are core's (`core/tests/`), shared through `#[path]`: the embed tests
//! drive the same servers and raw HTTP clients as the engine's own.

#[path = "../../../core/tests/common_cache_hints/mod.rs"]
mod common_cache_hints;
#[path = "../../../core/tests/common_task_tools/mod.rs"]
mod common_task_tools;
// Not every helper of these modules is used here.
#[path = "../../../core/tests/common_http/mod.rs"]
mod common_http;
#[allow(dead_code)]
#[path = "../../../core/tests/common/listen.rs"]
mod common_listen;
#[path = "../../../core/tests/common_modern/mod.rs"]
mod common_modern;
#[path = "../../../core/tests/support/mod.rs"]
mod support;

mod apps;
mod client_listen;
mod client_tasks;
mod compose;
mod config_cache_hints;
mod foreign_authorization;
mod list_provider;
mod middleware;
mod response_cache;
mod session_ids;
mod tasks_extension;
mod tool_errors;
