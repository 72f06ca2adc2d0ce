"""scripts/strip_wheel.py: stripping the native module inside a wheel keeps it loadable."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
PKG = HERE / "python" / "ferromcp"


@pytest.mark.skipif(shutil.which("strip") is None, reason="binutils' strip is missing")
def test_strip_wheel_shrinks_and_keeps_the_module_loadable(tmp_path: Path) -> None:
    native = next(PKG.glob("_native*.so"))
    wheel = tmp_path / "ferromcp-0.0.0-cp310-abi3-linux_x86_64.whl"
    members = {f"ferromcp/{p.name}": p.read_bytes() for p in PKG.iterdir() if p.is_file()}
    members[f"ferromcp/{native.name}"] = native.read_bytes()
    record = (
        "".join(
            f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
            for n, d in members.items()
        )
        + "ferromcp-0.0.0.dist-info/RECORD,,\n"
    )
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in members.items():
            z.writestr(n, d)
        z.writestr("ferromcp-0.0.0.dist-info/RECORD", record)

    spec = importlib.util.spec_from_file_location(
        "strip_wheel", HERE / "scripts" / "strip_wheel.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    before, after = mod.strip_wheel(str(wheel))
    assert after < before

    out = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(out)
        rec = z.read("ferromcp-0.0.0.dist-info/RECORD").decode().splitlines()
    so = out / "ferromcp" / native.name
    assert so.stat().st_size < native.stat().st_size
    line = next(x for x in rec if x.startswith(f"ferromcp/{native.name},"))
    digest = (
        base64.urlsafe_b64encode(hashlib.sha256(so.read_bytes()).digest()).rstrip(b"=").decode()
    )
    assert line == f"ferromcp/{native.name},sha256={digest},{so.stat().st_size}"
    env = {**os.environ, "PYTHONPATH": str(out)}
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import ferromcp, sys; print(ferromcp.__file__, ferromcp.Server('x').name)",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(out) in r.stdout and r.stdout.strip().endswith(" x")
