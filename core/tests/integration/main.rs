//! The engine's integration tests, linked into one test binary.
//!
//! Each file here was its own test binary once: 85 binaries, each linking the whole engine and its
//! dependencies (~60 MB apiece in a debug build, over 5 GB in all, and a link step apiece). Here
//! they are modules of one binary, which libtest runs with the same number of threads as before.
//! Run one file's tests with `cargo test -p ferromcp --test integration -- <file>::`.
//!
//! A test stays in a binary of its own (a file directly in `core/tests/`) only when it needs the
//! process to itself: `http_compression_bomb.rs` reads the whole process's peak memory, and
//! `http_replicas.rs` is run on its own by `tests/run-redis.sh`. New test files may start there;
//! move them here (a `mod` line below, `use crate::support;` instead of `mod support;`) once they
//! share the process happily.

// The helper modules the test files share (they also serve the binaries of their own).
#[path = "../common/mod.rs"]
mod common;
#[path = "../common_cache_hints/mod.rs"]
mod common_cache_hints;
#[path = "../common_http/mod.rs"]
mod common_http;
#[path = "../common_modern/mod.rs"]
mod common_modern;
#[path = "../common_replicas/mod.rs"]
mod common_replicas;
#[path = "../common_task_tools/mod.rs"]
mod common_task_tools;
#[path = "../common_wire/mod.rs"]
mod common_wire;
#[path = "../support/mod.rs"]
mod support;

mod authorization;
mod bad_input;
mod cache_hints;
mod cancellation;
mod capabilities;
mod client_address;
mod client_emitted_schema;
mod client_features;
mod client_listen;
mod client_options;
mod client_per_request;
mod client_task_receiver;
mod client_tasks;
mod completion;
mod composition;
mod concurrency;
mod custom_methods;
mod emitted_schema;
mod error_kinds;
mod framing;
mod http_address_429;
mod http_bad_input;
mod http_client;
mod http_client_tls;
mod http_compression;
mod http_connection_fairness;
mod http_hardening;
mod http_header_count;
mod http_headers;
mod http_health;
mod http_host_origin;
mod http_oversized_id;
mod http_post_parity;
mod http_request_target;
mod http_robustness;
mod http_server;
mod http_session_admission;
mod http_sse_idle_timeout;
mod http_sse_keep_alive;
mod http_stream_budget;
mod http_tls;
mod http_transfer_encoding;
mod http_unavailable_ids;
mod http_wire;
mod inbound_parity;
mod jsonrpc_envelope;
mod lifecycle;
mod logging;
mod mcp_apps;
mod message_limits;
mod middleware;
mod middleware_http;
mod middleware_redis;
mod mrtr_http;
mod oauth_client;
mod oauth_expected_issuer;
mod oauth_introspection;
mod oauth_jwt;
mod oauth_proxy;
mod oauth_proxy_routes;
mod oauth_server;
mod parse_error_ids;
mod peer_limits;
mod per_request_http;
mod per_request_no_session;
mod per_request_only_http;
mod per_request_stream;
mod ping;
mod progress;
mod prompts;
mod protocol_types;
mod redis_outage;
mod replica_killed;
mod request_meta_shapes;
mod resources;
mod response_cache;
mod response_cache_replicas;
mod router_connection_fairness;
mod sampling_tools;
mod schema_validation;
mod serve_runtime;
mod stdio_shutdown;
mod stream_listen_shutdown;
mod subscriptions_listen;
mod tasks;
mod tasks_extension;
mod tasks_status_notifications;
mod timeouts;
mod tool_lane_parity;
mod tool_transform;
mod tools;
mod transport_child;
mod transport_websocket;
mod uri_template;
mod websocket_session;
