"""The engine's response cache as a middleware layer (Rust's
``ferromcp::server::middleware::ResponseCache``): ``tools/list``, ``resources/list``,
``resources/templates/list``, ``prompts/list`` and ``resources/read`` answered from memory for
``ttl_seconds`` (and ``tools/call`` of the tools named in ``tools``, by arguments).

Entries are keyed by method, params (without ``_meta``), protocol revision and ``scope``:
``"principal"`` (default: the token's subject, client id and scopes; the session without a
token), ``"session"`` or ``"shared"``, so one principal's or session's answer never reaches
another. The server's own ``list_changed`` and ``resources/updated`` notifications forget the
entries they concern (see docs/middleware.md, "Response caching"); :func:`invalidate_cache`
forgets them explicitly (Rust's ``invalidate_all``, ``invalidate`` and
``invalidate_resource``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _native

if TYPE_CHECKING:
    from .server import Server

__all__ = ["ResponseCache", "invalidate_cache"]

_SCOPES = ("principal", "session", "shared")


class ResponseCache(dict[str, Any]):
    """``Server(middleware=[ResponseCache(30.0, tools=["forecast"])])``: the built-in's config
    dict (``{"name": "responseCache", "ttlMs": 30000, ...}``), checked here."""

    def __init__(
        self,
        ttl_seconds: float,
        *,
        tools: Sequence[str] = (),
        methods: Sequence[str] | None = None,
        scope: str = "principal",
        max_entries: int | None = None,
    ) -> None:
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, (int, float)):
            raise TypeError("ttl_seconds must be a number of seconds")
        ttl_ms = int(ttl_seconds * 1000)
        if ttl_ms < 1:
            raise ValueError(f"ttl_seconds must be at least 0.001, not {ttl_seconds!r}")
        if scope not in _SCOPES:
            raise ValueError(f"scope must be one of {', '.join(_SCOPES)}, not {scope!r}")
        config: dict[str, Any] = {"name": "responseCache", "ttlMs": ttl_ms, "scope": scope}
        if tools:
            config["tools"] = list(tools)
        if methods is not None:
            config["methods"] = list(methods)
        if max_entries is not None:
            if max_entries < 1:
                raise ValueError("max_entries must be at least 1")
            config["maxEntries"] = max_entries
        super().__init__(config)

    def config(self) -> dict[str, Any]:
        """The engine's JSON form."""
        return dict(self)


def invalidate_cache(server: Server, method: str | None = None, *, uri: str | None = None) -> None:
    """Forgets entries of the response caches configured on ``server`` (``ResponseCache`` in its
    ``middleware`` or added with ``use``): all of them with no argument, one method's with
    ``method`` (``"tools/list"``, ``"resources/read"``, ``"tools/call"``, ...), the cached reads
    of one resource with ``uri``. The next such request runs its handler again. Raises
    ``ValueError`` when ``server`` has no response cache, or when both are given."""
    _native.invalidate_cache(server._native, method, uri)
