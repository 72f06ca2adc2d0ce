//! The examples' end-to-end tests (each drives an example binary as a peer would), linked into
//! one test binary instead of one each (~45 MB apiece in a debug build). Run one file's tests
//! with `cargo test -p ferromcp-examples --test integration -- composition_stdio::`.

mod both_eras;
mod composition_stdio;
mod middleware_stdio;
mod stdio_e2e;
mod websocket_e2e;
