"""Prints the failing checks of an interop client's JSON report (tests/interop/SURFACE.md),
indented under its FAIL line. Exits non-zero when the report cannot be read, so the caller can
show the client's stderr instead.

    python failures.py REPORT.json
"""

import json
import sys

report = json.load(open(sys.argv[1]))
for check in report.get("checks", []):
    if not check["ok"]:
        print(f"        - {check['name']}: {json.dumps(check['detail'], default=str)[:300]}")
if report.get("error"):
    print(f"        - error: {report['error'][:500]}")
