#!/usr/bin/env python3
"""Strips the debug info from the native modules (``*.so``) inside wheels, in place.

The workspace's release profile keeps debug info (``debug = 1``, for profiling), so the wheel of
``maturin build --release`` carries it; building with ``--strip`` would change the profile and
recompile every dependency beside the other release builds. This strips afterwards instead, as
``npm pack`` does for the Node binding: each ``.so`` goes through ``strip --strip-debug`` (symbols
kept for backtraces) and the wheel's ``RECORD`` gets the new hashes and sizes.

Usage: strip_wheel.py WHEEL...      (needs binutils' ``strip``, or STRIP=...)
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def strip_wheel(path: str, strip: str = "strip") -> tuple[int, int]:
    """Strips ``path`` in place; returns its size before and after."""
    before = os.path.getsize(path)
    with zipfile.ZipFile(path) as zin:
        infos = zin.infolist()
        files = {i.filename: zin.read(i.filename) for i in infos}
    record = next((n for n in files if n.endswith(".dist-info/RECORD")), None)
    if record is None:
        raise SystemExit(f"{path}: no .dist-info/RECORD, not a wheel")
    changed: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in files.items():
            if not name.endswith(".so"):
                continue
            so = os.path.join(tmp, "lib.so")
            with open(so, "wb") as f:
                f.write(data)
            subprocess.run([strip, "--strip-debug", so], check=True)
            with open(so, "rb") as f:
                changed[name] = f.read()
    if not changed:
        return before, before
    files.update(changed)
    lines = []
    for line in files[record].decode().splitlines():
        name = line.split(",", 1)[0]
        if name in changed:
            line = f"{name},{_record_hash(changed[name])},{len(changed[name])}"
        lines.append(line)
    files[record] = ("\n".join(lines) + "\n").encode()
    tmp_path = path + ".tmp"
    with zipfile.ZipFile(tmp_path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in infos:  # same order and metadata, RECORD last as it was
            zout.writestr(info, files[info.filename], compress_type=zipfile.ZIP_DEFLATED)
    os.replace(tmp_path, path)
    return before, os.path.getsize(path)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    strip = os.environ.get("STRIP", "strip")
    for wheel in argv:
        before, after = strip_wheel(wheel, strip)
        print(f"{wheel}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
