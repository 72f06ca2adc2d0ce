"""``streamable_http_client`` (the official SDK's ``mcp.client.streamable_http``; 1.x's
``streamablehttp_client`` too) for :class:`ferromcp.client.session.ClientSession`: the engine's
Streamable HTTP client connects when the session initializes."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from . import Client
from .session import Connector

__all__ = ["streamable_http_client", "streamablehttp_client"]


def _connector(url: str, headers: dict[str, str] | None) -> Connector:
    def make(**options: Any) -> Client:
        return Client.http(url, headers=headers, legacy_fallback=False, **options)

    return Connector(make, f"streamable HTTP {url}")


@contextlib.asynccontextmanager
async def streamable_http_client(
    url: str,
    *,
    http_client: Any = None,
    terminate_on_close: bool = True,
    headers: dict[str, str] | None = None,
    **_ignored: Any,
) -> AsyncIterator[tuple[Connector, Connector]]:
    """Yields ``(read, write)`` for ``ClientSession``. ``http_client`` (an httpx client) is
    read for its headers only; ``headers=`` adds some."""
    merged = dict(getattr(http_client, "headers", None) or {}) if http_client is not None else {}
    merged.update(headers or {})
    connector = _connector(url, merged or None)
    yield connector, connector


@contextlib.asynccontextmanager
async def streamablehttp_client(
    url: str, headers: dict[str, str] | None = None, **_ignored: Any
) -> AsyncIterator[tuple[Connector, Connector, Any]]:
    """The SDK 1.x spelling: yields ``(read, write, get_session_id)``."""
    connector = _connector(url, headers)
    yield connector, connector, lambda: None
