#!/usr/bin/env python3
"""The four HTTP modes of each server side by side, from one benchmark run's samples.

`mcp-bench` writes every repetition's figures to `OUT/raw/samples.jsonl` (one JSON object per
server, transport and repetition). This prints, per server, one Markdown table with the HTTP
modes as columns (stateful SSE, stateless SSE, stateless JSON, per-request 2026-07-28) and the
figures that compare modes as rows: the median over the repetitions, the best mode's in bold,
and how many repetitions the per-request mode beat each other mode in (repetitions are
interleaved, so a pair ran minutes apart at most). Servers without a per-request run are
skipped.

Usage:
  target/release/mcp-bench --root . --bin-dir target/release --out /tmp/modes \\
      --only "ferromcp (" --transports http-stateful,http-stateless,http-json,http-per-request --reps 5
  bench/modes_table.py /tmp/modes/raw/samples.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict

MODES = ["http-stateful", "http-stateless", "http-json", "http-per-request"]
HEADS = ["stateful (SSE)", "stateless (SSE)", "stateless JSON", "per-request"]
PER_REQUEST = "http-per-request"

# (metric key in samples.jsonl, True when higher is better, row label)
FIGURES = [
    ("c1_rate", True, "1 client calls/s"),
    ("c1pin_p50_us", False, "1 client p50 µs, one CPU"),
    ("c1_cpu_us", False, "server CPU µs/call, 1 client"),
    ("cN_rate", True, "32 clients calls/s"),
    ("cN_p50_us", False, "32 clients p50 µs"),
    ("cN_cpu_us", False, "server CPU µs/call, 32 clients"),
]


def fmt(v: float) -> str:
    """A figure as the report writes it: thousands as `k` from 10,000, three digits below."""
    if v >= 10_000:
        return f"{v / 1000:.1f}k"
    if v >= 1000:
        return f"{v:.0f}"
    return f"{v:.3g}"


def better(a: float, b: float, higher: bool) -> bool:
    """Whether `a` beats `b` for a figure where higher (or lower) is better."""
    return a > b if higher else a < b


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("samples", help="OUT/raw/samples.jsonl of an mcp-bench run")
    args = ap.parse_args()

    # server -> transport -> repetition -> metrics
    runs: dict[str, dict[str, dict[int, dict[str, float]]]] = defaultdict(lambda: defaultdict(dict))
    with open(args.samples, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d.get("error"):
                print(f"(skipped: {d['server']} {d['transport']}: {d['error'][:120]})")
                continue
            runs[d["server"]][d["transport"]][d["rep"]] = d["metrics"]

    for server, by_mode in runs.items():
        if PER_REQUEST not in by_mode or any(m not in by_mode for m in MODES):
            continue
        reps = len(by_mode[PER_REQUEST])
        print(f"\n{server} ({reps} repetitions)\n")
        print(
            "| figure | "
            + " | ".join(HEADS)
            + " | per-request best | repetitions per-request beat "
            + ", ".join(HEADS[:3])
            + " |"
        )
        print("|---|" + "---:|" * len(MODES) + "---|---|")
        for key, higher, label in FIGURES:
            med = {m: statistics.median(r[key] for r in by_mode[m].values()) for m in MODES}
            best = (max if higher else min)(MODES, key=lambda m: med[m])
            cells = [f"**{fmt(med[m])}**" if m == best else fmt(med[m]) for m in MODES]
            wins = []
            for m in MODES[:3]:
                common = [r for r in by_mode[m] if r in by_mode[PER_REQUEST]]
                won = sum(
                    better(by_mode[PER_REQUEST][r][key], by_mode[m][r][key], higher) for r in common
                )
                wins.append(f"{won}/{len(common)}")
            print(
                f"| {label} | "
                + " | ".join(cells)
                + f" | {'yes' if best == PER_REQUEST else 'no'} | "
                + ", ".join(wins)
                + " |"
            )


if __name__ == "__main__":
    main()
