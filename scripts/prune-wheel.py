#!/usr/bin/env python3
"""Removes bytecode (``__pycache__/``, ``*.pyc``) from wheels, in place, and from their RECORD.

maturin 1.9 copies the whole python-source folder into the wheel, so the ``.pyc`` files a
checkout's test runs leave there (ignored by git) would ship. scripts/release runs this on every
wheel it builds. Usage: prune-wheel.py WHEEL...   Prints each wheel and how many files it dropped.
"""

from __future__ import annotations

import os
import sys
import tempfile
import zipfile


def _bytecode(name: str) -> bool:
    return "/__pycache__/" in f"/{name}" or name.endswith((".pyc", ".pyo"))


def prune(path: str) -> int:
    with zipfile.ZipFile(path) as zin:
        infos = zin.infolist()
        dropped = [i.filename for i in infos if _bytecode(i.filename)]
        if not dropped:
            return 0
        fd, tmp = tempfile.mkstemp(suffix=".whl", dir=os.path.dirname(os.path.abspath(path)))
        os.close(fd)
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in infos:
                if _bytecode(info.filename):
                    continue
                data = zin.read(info.filename)
                if info.filename.endswith(".dist-info/RECORD"):
                    lines = data.decode().splitlines(keepends=True)
                    data = "".join(x for x in lines if not _bytecode(x.split(",", 1)[0])).encode()
                zout.writestr(info, data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return len(dropped)


if __name__ == "__main__":
    for wheel in sys.argv[1:]:
        print(f"prune-wheel: {os.path.basename(wheel)}: dropped {prune(wheel)} bytecode files")
