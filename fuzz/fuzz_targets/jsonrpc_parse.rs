//! JSON-RPC: the scanner and the fast path must read every frame as `serde_json` and the full
//! parser do (see `ferromcp::fuzzing::jsonrpc::check`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ferromcp::fuzzing::jsonrpc::check(data);
});
