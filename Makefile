# Convenience targets; the scripts hold the logic.
.PHONY: bench bench-smoke bench-micro

bench:
	scripts/bench

bench-smoke:
	scripts/bench --smoke

bench-micro:
	cargo bench -p ferromcp-bench-micro
