//! The proxy's integration tests, linked into one test binary (four binaries, each linking the
//! engine, took ~60 MB apiece in a debug build). Run one file's tests with
//! `cargo test -p ferromcp-proxy --test integration -- proxy_stdio::`.

// The helpers the test files share.
#[path = "../common/mod.rs"]
mod common;
// The task-capable tools' handlers, shared with core's and embed's task tests.
#[path = "../../../core/tests/common_task_tools/mod.rs"]
mod common_task_tools;

mod client_tasks;
mod era_bridging;
mod in_process;
mod legacy_sse;
mod multi_client;
mod pass_through;
mod per_client;
mod proxy_http;
mod proxy_stdio;
mod task_capabilities;
mod task_late_input;
mod task_progress;
mod task_states_across_eras;
mod task_status;
mod tasks;
