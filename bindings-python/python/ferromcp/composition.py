"""Authorization per tool, resource and prompt, server composition and tool transforms: the
engine's (``core/src/server/authorization.rs``, ``compose.rs``, ``transform.rs``, see
``docs/composition.md``) from Python.

- :class:`Authorization`: a built-in middleware layer; pass it to ``Server(middleware=[...])``
  or ``server.add_middleware``. Items a caller may not see are absent from the lists and refused
  as unknown ones.
- ``server.mount(prefix, other)`` / ``server.import_server(prefix, other)``: the tools and
  prompts of ``other`` as ``prefix_name``, its resources as ``scheme://prefix/path``.
- ``server.transform_tool(original, name, arguments={...: ArgTransform(...)})``: a new tool made
  from an existing one; ``server.add_transformed_tool(original, {...})`` the same from the
  transform's JSON form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from . import _native

if TYPE_CHECKING:
    from ._server_face import ServerFace

ItemKind = Literal["tool", "resource", "prompt"]


class Authorization(Mapping[str, Any]):
    """Which tools, resources and prompts a caller may list and use, from the scopes of its
    token: ``require_scopes(kind, pattern, scopes)`` adds a rule (``*`` in ``pattern`` stands
    for any run of characters; a resource rule matches resource URIs and template URI
    templates); an item every matching rule of which the caller's scopes meet is shown, others
    are hidden (``deny_unmatched=True`` also hides items no rule matches). Hidden items are
    absent from ``tools/list``, ``resources/list``, ``resources/templates/list`` and
    ``prompts/list`` (pages stay full) and refused as unknown ones: JSON-RPC -32602 ``Unknown
    tool: name`` / ``Unknown prompt: name``, -32002 ``Resource not found``.

    It is the engine's layer configured by name, so it is also a mapping (the config dict)."""

    def __init__(
        self,
        rules: Sequence[tuple[ItemKind, str, Sequence[str]]] = (),
        *,
        deny_unmatched: bool = False,
    ) -> None:
        self._rules: list[dict[str, Any]] = []
        self._deny_unmatched = deny_unmatched
        for kind, pattern, scopes in rules:
            self.require_scopes(kind, pattern, scopes)

    def require_scopes(self, kind: ItemKind, pattern: str, scopes: Sequence[str]) -> Authorization:
        """Items of ``kind`` named (or with a URI) matching ``pattern`` need all of ``scopes``."""
        if kind not in ("tool", "resource", "prompt"):
            raise ValueError(f"kind must be 'tool', 'resource' or 'prompt', not {kind!r}")
        if isinstance(scopes, str):
            raise TypeError("scopes must be a sequence of scope names, not one string")
        self._rules.append({"kind": kind, "pattern": pattern, "scopes": list(scopes)})
        return self

    def config(self) -> dict[str, Any]:
        """The engine's configuration of this layer."""
        return {
            "name": "authorization",
            "rules": [dict(r) for r in self._rules],
            "denyUnmatched": self._deny_unmatched,
        }

    def __getitem__(self, key: str) -> Any:
        return self.config()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.config())

    def __len__(self) -> int:
        return len(self.config())

    def __repr__(self) -> str:
        return f"Authorization({self._rules!r}, deny_unmatched={self._deny_unmatched})"


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass(frozen=True)
class ArgTransform:
    """What :meth:`ferromcp.Server.transform_tool` changes of one argument of the original
    tool: its ``name`` and ``description`` in the new tool, a ``default`` (the argument becomes
    optional), ``hide=True`` (gone from the new tool's schema, always ``default``), and
    ``constraints``, JSON Schema keywords merged into its schema (``{"maximum": 20}``,
    ``{"enum": [...]}``) and enforced before the original runs."""

    name: str | None = None
    description: str | None = None
    default: Any = UNSET
    hide: bool = False
    constraints: Mapping[str, Any] | None = None

    def config(self) -> dict[str, Any]:
        """The engine's form of this change."""
        c: dict[str, Any] = {}
        if self.name is not None:
            c["name"] = self.name
        if self.description is not None:
            c["description"] = self.description
        if self.default is not UNSET:
            c["default"] = self.default
        if self.hide:
            if self.default is UNSET:
                raise ValueError(
                    "ArgTransform(hide=True) needs a default: the value it always gets"
                )
            c["hide"] = True
        if self.constraints is not None:
            c["constraints"] = dict(self.constraints)
        return c


def mount(server: ServerFace, prefix: str, other: ServerFace) -> None:
    """See :meth:`ferromcp.Server.mount`."""
    _native.mount_server(server._native, prefix, other._native)
    _follow(server, other)


def import_server(server: ServerFace, prefix: str, other: ServerFace) -> None:
    """See :meth:`ferromcp.Server.import_server`."""
    _native.import_server(server._native, prefix, other._native)
    _follow(server, other)


def _follow(server: ServerFace, other: ServerFace) -> None:
    # The other server's handlers are served by this one: it needs an event loop if they do.
    server._has_async = server._has_async or other._has_async


def transform_tool(
    server: ServerFace,
    original: str,
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    arguments: Mapping[str, ArgTransform] | None = None,
    transform_output: Callable[[Any], Any] | None = None,
    output_schema: Mapping[str, Any] | None = None,
) -> None:
    """See :meth:`ferromcp.Server.transform_tool`."""
    config: dict[str, Any] = {"name": name}
    if title is not None:
        config["title"] = title
    if description is not None:
        config["description"] = description
    if arguments:
        config["arguments"] = {arg: t.config() for arg, t in arguments.items()}
    _native.add_transformed_tool(
        server._native,
        original,
        config,
        transform_output,
        dict(output_schema) if output_schema is not None else None,
    )
    server._tools.add(name)


def add_transformed_tool(server: ServerFace, original: str, transform: Mapping[str, Any]) -> None:
    """See :meth:`ferromcp.Server.add_transformed_tool`."""
    if not isinstance(transform, Mapping):
        raise TypeError(
            f"transform must be a mapping (its JSON form), not {type(transform).__name__}"
        )
    _native.add_transformed_tool(server._native, original, dict(transform), None, None)
    server._tools.add(str(transform["name"]))
