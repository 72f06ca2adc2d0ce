#!/usr/bin/env python3
"""Recompresses wheels and npm tarballs in place with Zopfli: the same files, smaller downloads.

A wheel is a zip and an npm package a gzipped tar; both hold deflate streams, which any inflater
reads whatever compressor made them. maturin writes a wheel's entries with zlib at level 6 and
``npm pack`` gzips at its own level; Zopfli finds shorter deflate encodings of the same bytes
(bench/results/package-size-levers.md, "Under the 8 MB target": 3-6 % of a package, for the 8 MB
target of issue 36).
Nothing inside changes: the entries of a wheel keep their names, order, dates, permissions and
bytes (so RECORD's hashes still hold), a tarball's tar stream is the same byte for byte, and each
file is read back and compared before it replaces the original.

Usage: release-recompress.py FILE...   (``.whl`` or ``.tgz``; ZOPFLI_ITERATIONS, default 1:
more iterations save a few KB more and take minutes more per file; ZOPFLI_BLOCKSPLITTINGMAX,
default 100: Zopfli's own default, 15, is what c2f88a6 used). Needs the ``zopfli`` package
(scripts/requirements-release.txt). Prints each file's size before and after.
"""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
import zipfile
from typing import Any

import zopfli.gzip
import zopfli.zlib

ITERATIONS = int(os.environ.get("ZOPFLI_ITERATIONS", "1"))
# How many deflate blocks Zopfli may cut each 1 MB of input into (its default is 15). A native
# module's code, tables and strings alternate every few KB; more blocks, each with Huffman codes
# fitted to its part, make a shorter stream. On the x86_64 wheel of fff7eb9: 15 -> 8,732,035 B,
# 50 -> 8,713,755 B, 100 -> 8,708,674 B (-23 KB) for about 1.35x the time
# (bench/results/package-size-levers.md, "Levers measured on 2026-11-30 at fff7eb9").
BLOCKSPLITTINGMAX = int(os.environ.get("ZOPFLI_BLOCKSPLITTINGMAX", "100"))


def _deflate(data: bytes) -> bytes:
    """A raw deflate stream of `data` (Zopfli's zlib stream less its 2-byte header and Adler-32)."""
    return zopfli.zlib.compress(
        data, numiterations=ITERATIONS, blocksplittingmax=BLOCKSPLITTINGMAX
    )[2:-4]


class _ZopfliCompressor:
    """What zipfile expects of a compressor (compress, flush), deflating everything at flush."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def compress(self, data: bytes) -> bytes:
        self._parts.append(bytes(data))
        return b""

    def flush(self) -> bytes:
        return _deflate(b"".join(self._parts))


def _recompress_wheel(path: str, tmp: str) -> None:
    original = zipfile._get_compressor  # type: ignore[attr-defined]

    def compressor(compress_type: int, compresslevel: Any = None) -> Any:
        if compress_type == zipfile.ZIP_DEFLATED:
            return _ZopfliCompressor()
        return original(compress_type, compresslevel)

    zipfile._get_compressor = compressor  # type: ignore[attr-defined]
    try:
        with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w") as zout:
            for info in zin.infolist():
                data = zin.read(info.filename)
                info.compress_type = zipfile.ZIP_DEFLATED
                zout.writestr(info, data)
    finally:
        zipfile._get_compressor = original  # type: ignore[attr-defined]
    with zipfile.ZipFile(path) as a, zipfile.ZipFile(tmp) as b:
        if b.testzip() is not None:
            raise SystemExit(f"release-recompress: {tmp}: a CRC does not match")
        if [i.filename for i in a.infolist()] != [i.filename for i in b.infolist()]:
            raise SystemExit(f"release-recompress: {path}: the entries differ")
        for ia, ib in zip(a.infolist(), b.infolist()):
            if a.read(ia) != b.read(ib) or (ia.date_time, ia.external_attr) != (
                ib.date_time,
                ib.external_attr,
            ):
                raise SystemExit(f"release-recompress: {path}: {ia.filename} differs")


def _recompress_tgz(path: str, tmp: str) -> None:
    with open(path, "rb") as f:
        tar = gzip.decompress(f.read())
    with open(tmp, "wb") as f:
        f.write(
            zopfli.gzip.compress(tar, numiterations=ITERATIONS, blocksplittingmax=BLOCKSPLITTINGMAX)
        )
    with open(tmp, "rb") as f:
        if gzip.decompress(f.read()) != tar:
            raise SystemExit(f"release-recompress: {path}: the tar stream differs")


def recompress(path: str) -> tuple[int, int]:
    before = os.path.getsize(path)
    fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    os.close(fd)
    try:
        if path.endswith(".whl"):
            _recompress_wheel(path, tmp)
        elif path.endswith(".tgz"):
            _recompress_tgz(path, tmp)
        else:
            raise SystemExit(f"release-recompress: {path}: not a .whl or .tgz")
        after = os.path.getsize(tmp)
        if after < before:
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
            return before, after
        return before, before
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        b, a = recompress(name)
        print(f"release-recompress: {os.path.basename(name)}: {b} -> {a} B")
