"""``stdio_client`` and ``StdioServerParameters`` (the official SDK's
``mcp.client.stdio``) for :class:`ferromcp.client.session.ClientSession`: the server is spawned
by the engine when the session initializes."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO

from . import Client
from .session import Connector

__all__ = ["StdioServerParameters", "get_default_environment", "stdio_client"]

# What the SDK passes to the child besides ``env`` (its DEFAULT_INHERITED_ENV_VARS on POSIX).
_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def get_default_environment() -> dict[str, str]:
    """The variables a server inherits whatever ``env`` says (as in the SDK)."""
    return {
        k: v for k in _INHERITED if (v := os.environ.get(k)) is not None and not v.startswith("()")
    }


class StdioServerParameters:
    """How to start the server: ``command``, ``args``, ``env`` (added to
    :func:`get_default_environment`), ``cwd``."""

    def __init__(
        self,
        command: str,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        encoding: str = "utf-8",
        encoding_error_handler: str = "strict",
    ) -> None:
        self.command = command
        self.args = list(args or [])
        self.env = env
        self.cwd = cwd
        self.encoding = encoding
        self.encoding_error_handler = encoding_error_handler

    def __repr__(self) -> str:
        return f"StdioServerParameters(command={self.command!r}, args={self.args!r})"


@contextlib.asynccontextmanager
async def stdio_client(
    server: StdioServerParameters, errlog: TextIO = sys.stderr
) -> AsyncIterator[tuple[Connector, Connector]]:
    """Yields ``(read, write)`` for ``ClientSession``; the process starts at ``initialize()``
    and ends when the session closes (its stderr is inherited, ``errlog`` is not used)."""
    env = {**get_default_environment(), **(server.env or {})}

    def make(**options: Any) -> Client:
        return Client.stdio(server.command, server.args, env=env, cwd=server.cwd, **options)

    connector = Connector(make, f"stdio {server.command}")
    yield connector, connector
