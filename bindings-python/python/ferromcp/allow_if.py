"""Authorization by a predicate of your own, in Python: :class:`AllowIf` hides the tools,
resources, resource templates and prompts for which ``predicate(access)`` is false, as Rust's
``Authorization::allow_if`` does. Hidden items are absent from ``tools/list``,
``resources/list``, ``resources/templates/list`` and ``prompts/list``, and refused exactly as
unknown ones: ``tools/call`` and ``prompts/get`` with -32602 ``Unknown tool: name`` / ``Unknown
prompt: name``, ``resources/read`` and ``resources/subscribe`` with -32002 ``Resource not found:
uri``, ``completion/complete`` of a hidden prompt as unknown and of a hidden template with no
values. A caller cannot tell a hidden item from a missing one.

It is a Python middleware layer (the predicate runs in Python, once per listed item and once per
call), so it filters each page the engine answers: a page may come back shorter than the page
size, and its ``nextCursor`` is the engine's. The engine's own scope rules
(:class:`ferromcp.composition.Authorization`) keep pages full; use them where scopes say enough.

    server = Server("demo", middleware=[AllowIf(lambda a: not a.name.startswith("admin_")
                                                 or a.has_scope("admin"))])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import McpError
from .middleware import CallNext, MiddlewareContext

__all__ = ["Access", "AllowIf"]

ItemKind = Literal["tool", "resource", "prompt"]

_LISTS: dict[str, tuple[str, ItemKind, str]] = {
    "tools/list": ("tools", "tool", "name"),
    "prompts/list": ("prompts", "prompt", "name"),
    "resources/list": ("resources", "resource", "uri"),
    "resources/templates/list": ("resourceTemplates", "resource", "uriTemplate"),
}


@dataclass(frozen=True)
class Access:
    """What the predicate is asked about: an item (``kind``; ``name``: the tool's or prompt's
    name, the resource's URI or the template's URI template) and the caller: ``principal`` (the
    verified token as a dict: ``subject``, ``client_id``, ``scopes``, ...; ``None`` without
    one), the session and the whole middleware context."""

    kind: ItemKind
    name: str
    principal: dict[str, Any] | None
    session_id: str | None
    session_key: str
    context: MiddlewareContext

    @property
    def scopes(self) -> list[str]:
        """The principal's scopes (empty without a token)."""
        scopes = (self.principal or {}).get("scopes") or []
        return [str(s) for s in scopes]

    def has_scope(self, scope: str) -> bool:
        """Whether the principal was granted ``scope``."""
        return scope in self.scopes


class AllowIf:
    """A middleware layer showing an item only when ``predicate(access)`` is true (see the
    module). The predicate is a plain function, called on the server's event loop: keep it
    cheap."""

    def __init__(self, predicate: Callable[[Access], bool]) -> None:
        if not callable(predicate):
            raise TypeError("AllowIf(predicate): predicate must be a function of an Access")
        self._predicate = predicate

    def _allows(self, ctx: MiddlewareContext, kind: ItemKind, name: str) -> bool:
        access = Access(kind, name, ctx.principal, ctx.session_id, ctx.session_key, ctx)
        return bool(self._predicate(access))

    async def __call__(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        params = ctx.params or {}
        listed = _LISTS.get(ctx.method)
        if listed is not None:
            field, kind, key = listed
            result = await call_next(ctx)
            items = result.get(field) if isinstance(result, dict) else None
            if isinstance(items, list):
                result[field] = [
                    i
                    for i in items
                    if not isinstance(i, dict) or self._allows(ctx, kind, str(i.get(key, "")))
                ]
            return result
        name = params.get("name")
        uri = params.get("uri")
        if ctx.method == "tools/call" and isinstance(name, str):
            if not self._allows(ctx, "tool", name):
                raise McpError(f"Unknown tool: {name}", code=-32602, data={"tool": name})
        elif ctx.method == "prompts/get" and isinstance(name, str):
            if not self._allows(ctx, "prompt", name):
                raise McpError(f"Unknown prompt: {name}", code=-32602, data={"prompt": name})
        elif ctx.method in ("resources/read", "resources/subscribe") and isinstance(uri, str):
            if not self._allows(ctx, "resource", uri):
                raise McpError(f"Resource not found: {uri}", code=-32002, data={"uri": uri})
        elif ctx.method == "completion/complete":
            ref = params.get("ref") or {}
            if ref.get("type") == "ref/prompt" and isinstance(ref.get("name"), str):
                prompt = ref["name"]
                if not self._allows(ctx, "prompt", prompt):
                    raise McpError(
                        f"Unknown prompt: {prompt}", code=-32602, data={"prompt": prompt}
                    )
            elif ref.get("type") == "ref/resource" and isinstance(ref.get("uri"), str):
                if not self._allows(ctx, "resource", ref["uri"]):
                    return {"completion": {"values": []}}
        return await call_next(ctx)
