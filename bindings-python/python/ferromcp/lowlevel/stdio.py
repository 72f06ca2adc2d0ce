"""``stdio_server()`` for the official SDK's low-level idiom::

    async with ferromcp.lowlevel.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

The engine reads stdin and writes stdout itself: the streams are placeholders that tell
:meth:`ferromcp.lowlevel.Server.run` to serve stdio."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["stdio_server"]


class _Stdio:
    """A placeholder for the SDK's memory streams (the engine owns stdin/stdout)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<ferromcp stdio {self.name}>"


@contextlib.asynccontextmanager
async def stdio_server(
    stdin: Any = None, stdout: Any = None
) -> AsyncIterator[tuple[_Stdio, _Stdio]]:
    if stdin is not None or stdout is not None:
        raise TypeError("stdio_server(): ferromcp serves the process's own stdin/stdout only")
    yield _Stdio("stdin"), _Stdio("stdout")
