//! Criterion micro-benchmarks live in `benches/hot_paths.rs`; run them with `cargo bench -p ferromcp-bench-micro`.
