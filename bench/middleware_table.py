#!/usr/bin/env python3
"""The middleware rows beside their baselines, from one benchmark run's samples (issue 37).

`mcp-bench` writes every repetition's figures to `OUT/raw/samples.jsonl`. This prints one
Markdown table: for each row with middleware (bench/driver/src/middleware_rows.rs), the same
server without it measured in the same run, on stdio and on HTTP (stateless JSON responses),
with the medians over the repetitions of both, the median of the per-repetition ratios (the
repetitions are interleaved, so a pair ran minutes apart at most; each ratio is listed) and,
for the server CPU per call, the median per-repetition difference: what the middleware adds.
Rows or baselines missing from the run are left out.

Usage:
  target/release/mcp-bench --root . --bin-dir target/release --out /tmp/mw \\
      --only "$(bench/middleware_table.py --only)" --transports stdio,http-json --reps 3
  bench/middleware_table.py /tmp/mw/raw/samples.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict

# (row with middleware, its baseline without)
PAIRS = [
    ("ferromcp (Rust handler, 1 pass-through middleware layer)", "ferromcp (Rust handler)"),
    ("ferromcp (Rust handler, 5 pass-through middleware layers)", "ferromcp (Rust handler)"),
    (
        "ferromcp (Python handler, sync def, 1 Python middleware)",
        "ferromcp (Python handler, sync def)",
    ),
    ("ferromcp (Node handler, 1 JavaScript middleware)", "ferromcp (Node handler)"),
    ("ferromcp (Swift handler, 1 Swift middleware)", "ferromcp (Swift handler)"),
    ("Python SDK 2.3.0 (MCPServer, 1 server middleware)", "Python SDK 2.3.0 (MCPServer)"),
    ("FastMCP 4.1.6 (1 FastMCP middleware)", "FastMCP 4.1.6"),
]

# (transport, metric key in samples.jsonl, label, whether it is a CPU figure)
FIGURES = [
    ("stdio", "seq_p50_us", "sequential p50 µs", False),
    ("stdio", "seq_cpu_us", "server CPU µs/call, sequential", True),
    ("stdio", "pipe_rate", "pipelined calls/s", False),
    ("http-json", "c1_p50_us", "1 client p50 µs", False),
    ("http-json", "c1_cpu_us", "server CPU µs/call, 1 client", True),
    ("http-json", "cN_rate", "32 clients calls/s", False),
    ("http-json", "cN_cpu_us", "server CPU µs/call, 32 clients", True),
]


def fmt(v: float) -> str:
    """A figure as the report writes it: thousands as `k` from 10,000, three digits below."""
    if v >= 10_000:
        return f"{v / 1000:.1f}k"
    if v >= 1000:
        return f"{v:.0f}"
    return f"{v:.3g}"


def only_filter() -> str:
    """The `--only` value of mcp-bench that selects every row of the table and its baselines.
    `--only` splits at commas and matches substrings (case-insensitive), so each name is given
    by its last comma-separated part, its leading space and closing parenthesis included
    ("ferromcp (Rust handler)" does not match the other Rust rows, " sync def)" neither the
    sync row with middleware nor "async def)")."""
    names: list[str] = []
    for row, base in PAIRS:
        for n in (row, base):
            part = n.rsplit(",", 1)[-1]
            if part not in names:
                names.append(part)
    return ",".join(names)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("samples", nargs="?", help="OUT/raw/samples.jsonl of an mcp-bench run")
    ap.add_argument(
        "--only", action="store_true", help="print the mcp-bench --only value for these rows"
    )
    args = ap.parse_args()
    if args.only:
        print(only_filter())
        return
    if not args.samples:
        ap.error("give OUT/raw/samples.jsonl (or --only)")

    # (server, transport) -> rep -> metrics
    runs: dict[tuple[str, str], dict[int, dict[str, float]]] = defaultdict(dict)
    loads: list[float] = []
    with open(args.samples, encoding="utf-8") as f:
        for line in f:
            s = json.loads(line)
            loads.append(s["loadavg"])
            if s.get("metrics"):
                runs[(s["server"], s["transport"])][s["rep"]] = s["metrics"]
    if loads:
        print(f"Load average (1 min) at the samples: {min(loads):.1f} to {max(loads):.1f}.\n")
    print(
        "| row | transport | figure | without | with | with / without (each repetition) "
        "| added CPU µs/call |"
    )
    print("|---|---|---|---:|---:|---|---:|")
    for row, base in PAIRS:
        for transport, key, label, cpu in FIGURES:
            a, b = runs.get((base, transport), {}), runs.get((row, transport), {})
            reps = sorted(r for r in a if r in b and key in a[r] and key in b[r])
            if not reps:
                continue
            wo = statistics.median(a[r][key] for r in reps)
            wi = statistics.median(b[r][key] for r in reps)
            ratios = [b[r][key] / a[r][key] for r in reps if a[r][key]]
            each = ", ".join(f"{x:.2f}" for x in ratios)
            ratio = f"{statistics.median(ratios):.2f}× ({each})" if ratios else "–"
            added = f"{statistics.median(b[r][key] - a[r][key] for r in reps):+.2f}" if cpu else ""
            print(f"| {row} | {transport} | {label} | {fmt(wo)} | {fmt(wi)} | {ratio} | {added} |")


if __name__ == "__main__":
    main()
