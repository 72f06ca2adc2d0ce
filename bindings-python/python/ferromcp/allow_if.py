"""Authorization by a predicate of your own, in Python: :class:`AllowIf` hides the tools,
resources, resource templates and prompts for which ``predicate(access)`` is false, as Rust's
``Authorization::allow_if`` does. Hidden items are absent from ``tools/list``,
``resources/list``, ``resources/templates/list`` and ``prompts/list``, and refused exactly as
unknown ones: ``tools/call`` and ``prompts/get`` with -32602 ``Unknown tool: name`` / ``Unknown
prompt: name``, ``resources/read`` and ``resources/subscribe`` with -32002 ``Resource not found:
uri``, ``completion/complete`` of a hidden prompt as unknown and of a hidden template with no
values. A caller cannot tell a hidden item from a missing one.

The decision is the engine's: the layer is the engine's ``Authorization`` layer, at the place in
the middleware chain where ``AllowIf`` was added, and it asks the predicate (in Python, on a
worker thread) once per list request about every item of the whole list, then pages what is
left with the server's ``page_size``: pages stay full and cursors valid. It asks once per call,
read or get about the one item. A predicate that raises hides that item (the exception is
logged on the ``ferromcp`` logger with its traceback); the request itself never fails for it.

    server = Server("demo", middleware=[AllowIf(lambda a: not a.name.startswith("admin_")
                                                 or a.has_scope("admin"))])
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from .middleware import MiddlewareContext

if TYPE_CHECKING:
    from .server import Server

__all__ = ["Access", "AllowIf"]

ItemKind = Literal["tool", "resource", "prompt"]


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
    module). The predicate is a plain function, called on a worker thread, once per listed item
    and once per call: keep it cheap."""

    def __init__(self, predicate: Callable[[Access], bool]) -> None:
        if not callable(predicate):
            raise TypeError("AllowIf(predicate): predicate must be a function of an Access")
        self._predicate = predicate

    def _install_in_engine(self, server: Server) -> None:
        """Adds the engine's authorization layer asking this predicate to ``server``'s chain
        (``server.add_middleware`` calls it)."""
        from . import _native

        predicate = self._predicate

        def allowed(
            request: dict[str, Any], item_kind: str, names: list[str], native: Any
        ) -> list[bool]:
            kind = cast(ItemKind, item_kind)  # the engine's: "tool", "resource" or "prompt"
            ctx = MiddlewareContext.from_request(request, native, server)
            answers: list[bool] = []
            for name in names:
                access = Access(kind, name, ctx.principal, ctx.session_id, ctx.session_key, ctx)
                try:
                    answers.append(bool(predicate(access)))
                except Exception as e:
                    logging.getLogger("ferromcp").error(
                        "AllowIf predicate failed for %s %r: hidden",
                        kind,
                        name,
                        exc_info=(type(e), e, e.__traceback__),
                    )
                    answers.append(False)
            return answers

        _native.add_access_predicate(server._native, allowed)

    def __call__(self, ctx: MiddlewareContext, call_next: Any) -> Any:
        """Not a layer to call: the engine runs it (add it with ``Server(middleware=[...])``,
        ``server.add_middleware`` or ``server.middleware.append``)."""
        raise TypeError(
            "AllowIf runs in the engine: add it with Server(middleware=[...]) or "
            "server.add_middleware, do not call it"
        )
