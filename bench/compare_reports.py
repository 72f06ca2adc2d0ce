#!/usr/bin/env python3
"""Compare the rate cells (calls/s) of two `scripts/bench` reports, row by row.

Usage: bench/compare_reports.py OLD_REPORT.md NEW_REPORT.md [ROW_PREFIX]

For every section, row (default: the rows whose name starts with "ferromcp"; ROW_PREFIX picks
others, e.g. "floor") and calls/s column present in both reports, prints the old and new medians
and new / old, flags the cells more than 5 % below (the rule of the full runs' comparison), and
counts them. Give an old report with `git show COMMIT:bench/results/report.md > old.md`.
"""

from __future__ import annotations

import re
import sys


def parse(path: str) -> dict[tuple[str, str, str], float]:
    """Every numeric cell of the report's tables, keyed by (section, row, column)."""
    cells: dict[tuple[str, str, str], float] = {}
    section = ""
    header: list[str] | None = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                section, header = line[3:].split("(")[0].strip(), None
            elif line.startswith("| server |"):
                header = [c.strip() for c in line.strip().strip("|").split("|")]
            elif header and line.startswith("| "):
                row = [c.strip() for c in line.strip().strip("|").split("|")]
                for column, cell in zip(header[1:], row[1:]):
                    m = re.match(r"([\d.]+)(k?)", cell)
                    if m:
                        cells[(section, row[0], column)] = float(m.group(1)) * (
                            1000 if m.group(2) else 1
                        )
            elif not line.strip():
                header = None
    return cells


def main() -> int:
    old, new = parse(sys.argv[1]), parse(sys.argv[2])
    prefix = sys.argv[3] if len(sys.argv) > 3 else "ferromcp"
    below = 0
    for key in sorted(new):
        section, row, column = key
        if key not in old or "calls/s" not in column or not row.startswith(prefix):
            continue
        ratio = new[key] / old[key]
        flag = " <-- more than 5 % below" if ratio < 0.95 else ""
        below += bool(flag)
        print(
            f"{section[:28]:28} | {row[:58]:58} | {column[:40]:40} | {old[key]:>9.0f} | {new[key]:>9.0f} | {ratio:5.2f}{flag}"
        )
    print(f"{below} rate cell(s) of rows starting with {prefix!r} more than 5 % below")
    return 0


if __name__ == "__main__":
    sys.exit(main())
