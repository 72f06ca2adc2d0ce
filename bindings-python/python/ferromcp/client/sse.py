"""``sse_client`` (the official SDK's ``mcp.client.sse``, the 2024-11-05 HTTP+SSE transport) for
:class:`ferromcp.client.session.ClientSession`: the engine's client connects when the session
initializes (a URL that refuses Streamable HTTP is served over HTTP+SSE)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from . import Client
from .session import Connector

__all__ = ["sse_client"]


@contextlib.asynccontextmanager
async def sse_client(
    url: str, headers: dict[str, Any] | None = None, **_ignored: Any
) -> AsyncIterator[tuple[Connector, Connector]]:
    """Yields ``(read, write)`` for ``ClientSession``."""
    hdrs = {k: str(v) for k, v in (headers or {}).items()} or None

    def make(**options: Any) -> Client:
        return Client.http(url, headers=hdrs, legacy_fallback=True, **options)

    connector = Connector(make, f"HTTP+SSE {url}")
    yield connector, connector
