"""``ServerFace``: what the modules below :mod:`ferromcp.server` use of a server, as a
structural type. :class:`ferromcp.Server` imports ``context``, ``middleware`` and ``composition``;
they take and hand back their server typed by this ``Protocol``, so none of them imports
``server`` (issue 35: no import circle, ``TYPE_CHECKING`` and lazy imports included;
``tests/test_import_cycles.py`` checks it). ``Server`` (and so ``lowlevel.Server``) is the one
implementation; mypy checks that it fits wherever ``server`` passes itself."""

from __future__ import annotations

import typing
from typing import Any, Protocol

if typing.TYPE_CHECKING:
    from ._native import NativeServer


class ServerFace(Protocol):
    """A :class:`ferromcp.Server` as its context, middleware and composition see it."""

    name: str
    """The server's name."""
    # The engine's server; whether a handler or layer needs the event loop; the tool names.
    _native: NativeServer
    _has_async: bool
    _tools: set[str]

    @property
    def lifespan_context(self) -> Any:
        """What ``lifespan`` yielded, while the server is serving (``None`` otherwise)."""
        ...

    def notify_resource_updated(self, uri: str) -> None:
        """Tells subscribed clients that ``uri`` changed."""
        ...
