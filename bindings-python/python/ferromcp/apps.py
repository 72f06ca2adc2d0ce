"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension, SEP-1865): a tool names an HTML user
interface, a ``ui://`` resource of MIME type ``text/html;profile=mcp-app``, that a host renders
in a sandboxed frame.

The same helpers as Rust's ``ferromcp::server::apps``, built on :meth:`Server.resource` and
:meth:`Server.add_tool` with ``meta``: :func:`add_ui_resource` registers the UI (its HTML and
its ``_meta.ui``: CSP domains, permissions, dedicated domain, border preference),
:func:`ui_tool` / :func:`add_ui_tool` a tool with ``_meta.ui.resourceUri`` (and the
deprecated flat ``ui/resourceUri`` older hosts read), :func:`client_supports_ui` whether the
client behind a request renders UIs. Every check happens at registration and raises
``ValueError`` naming the member and the rule: a URI outside ``ui://``, a malformed
``_meta.ui``, a tool naming a UI that is not registered on the server."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .server import Server

__all__ = [
    "LEGACY_RESOURCE_URI_KEY",
    "PERMISSIONS",
    "UI_EXTENSION",
    "UI_MIME_TYPE",
    "UiCsp",
    "add_ui_resource",
    "add_ui_tool",
    "capabilities_support_ui",
    "check_ui_resource_meta",
    "check_ui_uri",
    "client_supports_ui",
    "ui_client_capability",
    "ui_tool",
    "ui_tool_meta",
]

F = TypeVar("F", bound=Callable[..., Any])

UI_EXTENSION = "io.modelcontextprotocol/ui"
"""The extension's identifier, the key under ``capabilities.extensions``."""
UI_MIME_TYPE = "text/html;profile=mcp-app"
"""The MIME type of an MCP App's HTML."""
LEGACY_RESOURCE_URI_KEY = "ui/resourceUri"
"""The deprecated flat ``_meta`` key older hosts read a tool's UI from."""
PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
"""The browser permissions a UI may ask for."""
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")

# The UI resources registered on each server, so a tool naming another URI is refused.
_REGISTERED: weakref.WeakKeyDictionary[Server, set[str]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class UiCsp:
    """The origins a UI may reach (``_meta.ui.csp``); empty lists are left out."""

    connect_domains: Sequence[str] = field(default_factory=tuple)
    resource_domains: Sequence[str] = field(default_factory=tuple)
    frame_domains: Sequence[str] = field(default_factory=tuple)
    base_uri_domains: Sequence[str] = field(default_factory=tuple)

    def to_json(self) -> dict[str, list[str]]:
        """The ``csp`` object."""
        pairs = zip(
            _CSP_KEYS,
            (
                self.connect_domains,
                self.resource_domains,
                self.frame_domains,
                self.base_uri_domains,
            ),
        )
        return {k: list(v) for k, v in pairs if v}


def check_ui_uri(uri: str) -> None:
    """Raises ``ValueError`` unless ``uri`` is ``ui://`` followed by something, without
    whitespace."""
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        raise ValueError(f"UI resource URI {uri!r} must use the ui:// scheme (MCP Apps)")
    rest = uri[len("ui://") :]
    if not rest or any(c.isspace() for c in rest):
        raise ValueError(f"UI resource URI {uri!r} has nothing after ui:// or contains whitespace")


def check_ui_resource_meta(ui: Any) -> None:
    """Checks a resource's ``_meta.ui`` against the extension's ``UIResourceMeta`` (as Rust's
    ``check_ui_resource_meta``); raises ``ValueError`` naming the member."""
    if not isinstance(ui, dict):
        raise ValueError("_meta.ui must be an object")
    csp = ui.get("csp")
    if csp is not None:
        if not isinstance(csp, dict):
            raise ValueError("_meta.ui.csp must be an object")
        for key, items in csp.items():
            if key not in _CSP_KEYS:
                raise ValueError(
                    f"_meta.ui.csp.{key} is not a CSP member of MCP Apps ({', '.join(_CSP_KEYS)})"
                )
            if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
                raise ValueError(f"_meta.ui.csp.{key} must be a list of non-empty strings")
    perms = ui.get("permissions")
    if perms is not None:
        if not isinstance(perms, dict):
            raise ValueError("_meta.ui.permissions must be an object")
        for key, value in perms.items():
            if key not in PERMISSIONS:
                raise ValueError(
                    f"_meta.ui.permissions.{key} is not a permission of MCP Apps "
                    f"({', '.join(PERMISSIONS)})"
                )
            if not isinstance(value, dict):
                raise ValueError(f"_meta.ui.permissions.{key} must be an object ({{}})")
    if "domain" in ui and not isinstance(ui["domain"], str):
        raise ValueError("_meta.ui.domain must be a string")
    if "prefersBorder" in ui and not isinstance(ui["prefersBorder"], bool):
        raise ValueError("_meta.ui.prefersBorder must be a boolean")


def add_ui_resource(
    server: Server,
    uri: str,
    html: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    csp: UiCsp | None = None,
    permissions: Iterable[str] = (),
    domain: str | None = None,
    prefers_border: bool | None = None,
) -> None:
    """Registers an MCP App's UI: ``uri`` (``ui://...``) serves ``html`` with the MIME type
    ``text/html;profile=mcp-app`` and ``_meta.ui`` (also on its ``resources/list`` entry).
    ``permissions`` are names from :data:`PERMISSIONS`."""
    check_ui_uri(uri)
    ui: dict[str, Any] = {}
    if csp is not None:
        ui["csp"] = csp.to_json()
    perms = list(permissions)
    if perms:
        ui["permissions"] = {p: {} for p in perms}
    if domain is not None:
        ui["domain"] = domain
    if prefers_border is not None:
        ui["prefersBorder"] = prefers_border
    check_ui_resource_meta(ui)
    meta = {"ui": ui} if ui else None
    contents: dict[str, Any] = {"uri": uri, "mimeType": UI_MIME_TYPE, "text": html}
    if meta is not None:
        contents["_meta"] = meta

    def read() -> dict[str, Any]:
        return dict(contents)

    read.__name__ = name or uri[len("ui://") :].replace("/", "_")
    server.resource(
        uri,
        name=name,
        title=title,
        description=description or f"MCP App UI {uri}",
        mime_type=UI_MIME_TYPE,
        meta=meta,
    )(read)
    _REGISTERED.setdefault(server, set()).add(uri)


def ui_tool_meta(resource_uri: str, *, visibility: Sequence[str] | None = None) -> dict[str, Any]:
    """A tool's ``_meta`` naming its UI: ``{"ui": {"resourceUri": ..., "visibility": [...]},
    "ui/resourceUri": ...}``. ``visibility`` lists ``"model"`` and ``"app"`` (default: both)."""
    check_ui_uri(resource_uri)
    ui: dict[str, Any] = {"resourceUri": resource_uri}
    if visibility is not None:
        v = list(visibility)
        if not v or any(i not in ("model", "app") for i in v):
            raise ValueError(
                '_meta.ui.visibility must be a non-empty list of "model" and "app", '
                f"not {visibility!r}"
            )
        ui["visibility"] = v
    return {"ui": ui, LEGACY_RESOURCE_URI_KEY: resource_uri}


def add_ui_tool(
    server: Server,
    fn: Callable[..., Any],
    *,
    resource_uri: str,
    visibility: Sequence[str] | None = None,
    meta: dict[str, Any] | None = None,
    **tool_options: Any,
) -> None:
    """Registers ``fn`` as a tool (``Server.add_tool`` options) rendered by the UI at
    ``resource_uri``, which must already be registered with :func:`add_ui_resource`."""
    ui_meta = ui_tool_meta(resource_uri, visibility=visibility)
    tool_name = tool_options.get("name") or getattr(fn, "__name__", "tool")
    if resource_uri not in _REGISTERED.get(server, set()):
        raise ValueError(
            f"tool {tool_name!r} names UI resource {resource_uri!r}, which is not registered on "
            "this server as a UI resource: register it first (add_ui_resource)"
        )
    server.add_tool(fn, meta={**(meta or {}), **ui_meta}, **tool_options)


def ui_tool(
    server: Server,
    resource_uri: str,
    *,
    visibility: Sequence[str] | None = None,
    **tool_options: Any,
) -> Callable[[F], F]:
    """Decorator form of :func:`add_ui_tool`: ``@ui_tool(server, "ui://weather/view")``."""

    def deco(fn: F) -> F:
        add_ui_tool(server, fn, resource_uri=resource_uri, visibility=visibility, **tool_options)
        return fn

    return deco


def capabilities_support_ui(capabilities: Any) -> bool:
    """Whether a client's capabilities list ``text/html;profile=mcp-app`` under
    ``extensions["io.modelcontextprotocol/ui"].mimeTypes``."""
    if not isinstance(capabilities, dict):
        return False
    ext = capabilities.get("extensions")
    ui = ext.get(UI_EXTENSION) if isinstance(ext, dict) else None
    types = ui.get("mimeTypes") if isinstance(ui, dict) else None
    return isinstance(types, list) and UI_MIME_TYPE in types


def client_supports_ui(ctx: Any) -> bool:
    """Whether the client behind a request (a handler's ``Context``) renders MCP Apps, from the
    capabilities it declared (both protocol eras)."""
    return capabilities_support_ui(getattr(ctx, "client_capabilities", None))


def ui_client_capability() -> dict[str, Any]:
    """The capabilities a client (host) declares to say it renders MCP Apps."""
    return {"extensions": {UI_EXTENSION: {"mimeTypes": [UI_MIME_TYPE]}}}
