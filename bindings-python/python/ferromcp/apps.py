"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension, SEP-1865): a tool names an HTML user
interface, a ``ui://`` resource of MIME type ``text/html;profile=mcp-app``, that a host renders
in a sandboxed frame.

The helpers of Rust's ``ferromcp::server::apps``, and every check is the engine's (through
``ferromcp-embed``'s ``apps`` seam, as in Node and Swift): :func:`add_ui_resource` registers the
UI (its HTML and its ``_meta.ui``: CSP domains, permissions, dedicated domain, border
preference), :func:`ui_tool` / :func:`add_ui_tool` a tool with ``_meta.ui.resourceUri`` (and the
deprecated flat ``ui/resourceUri`` older hosts read), :func:`client_supports_ui` whether the
client behind a request renders UIs. Every check happens at registration and raises
``ValueError`` with the engine's message naming the member and the rule: a URI outside
``ui://``, a malformed ``_meta.ui``, a tool naming a UI that is not registered on the server
as a UI resource."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from . import _native

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

_NAMES = _native.ui_constants()
UI_EXTENSION: str = _NAMES["extension"]
"""The extension's identifier, the key under ``capabilities.extensions``."""
UI_MIME_TYPE: str = _NAMES["mimeType"]
"""The MIME type of an MCP App's HTML."""
LEGACY_RESOURCE_URI_KEY: str = _NAMES["legacyResourceUriKey"]
"""The deprecated flat ``_meta`` key older hosts read a tool's UI from."""
PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
"""The browser permissions a UI may ask for (names for :func:`add_ui_resource`; the engine
refuses any other)."""


@dataclass(frozen=True)
class UiCsp:
    """The origins a UI may reach (``_meta.ui.csp``); empty lists are left out."""

    connect_domains: Sequence[str] = field(default_factory=tuple)
    resource_domains: Sequence[str] = field(default_factory=tuple)
    frame_domains: Sequence[str] = field(default_factory=tuple)
    base_uri_domains: Sequence[str] = field(default_factory=tuple)

    def to_json(self) -> dict[str, list[str]]:
        """The ``csp`` object."""
        pairs = (
            ("connectDomains", self.connect_domains),
            ("resourceDomains", self.resource_domains),
            ("frameDomains", self.frame_domains),
            ("baseUriDomains", self.base_uri_domains),
        )
        return {k: list(v) for k, v in pairs if v}


def check_ui_uri(uri: str) -> None:
    """Raises ``ValueError`` unless ``uri`` is ``ui://`` followed by something, without
    whitespace."""
    _native.ui_check_uri(uri)


def check_ui_resource_meta(ui: Any) -> None:
    """Checks a resource's ``_meta.ui`` against the extension's ``UIResourceMeta`` (Rust's
    ``check_ui_resource_meta``); raises ``ValueError`` naming the member."""
    _native.ui_check_resource_meta(ui)


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
    ``permissions`` are names from :data:`PERMISSIONS`. Registering a URI twice raises
    ``ValueError``."""
    if uri in server._resources:
        raise ValueError(f"a resource {uri!r} is already registered")
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
    definition: dict[str, Any] = {
        "uri": uri,
        "name": name or uri.removeprefix("ui://").replace("/", "_"),
        "description": description or f"MCP App UI {uri}",
        "html": html,
    }
    if title is not None:
        definition["title"] = title
    if ui:
        definition["_meta"] = {"ui": ui}
    _native.ui_add_resource(server._native, definition)
    server._resources.add(uri)


def _ui(resource_uri: str, visibility: Sequence[str] | None) -> dict[str, Any]:
    ui: dict[str, Any] = {"resourceUri": resource_uri}
    if visibility is not None:
        ui["visibility"] = list(visibility)
    return ui


def ui_tool_meta(resource_uri: str, *, visibility: Sequence[str] | None = None) -> dict[str, Any]:
    """A tool's ``_meta`` naming its UI: ``{"ui": {"resourceUri": ..., "visibility": [...]},
    "ui/resourceUri": ...}``. ``visibility`` lists ``"model"`` and ``"app"`` (default: both)."""
    return _native.ui_tool_meta(None, None, {"ui": _ui(resource_uri, visibility)})


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
    ``resource_uri``, which must already be registered on ``server`` as a UI resource
    (:func:`add_ui_resource`)."""
    tool_name = tool_options.get("name") or getattr(fn, "__name__", "tool")
    wanted = {**(meta or {}), "ui": _ui(resource_uri, visibility)}
    checked = _native.ui_tool_meta(server._native, tool_name, wanted)
    server.add_tool(fn, meta=checked, **tool_options)


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
    return _native.ui_capabilities_support(capabilities)


def client_supports_ui(ctx: Any) -> bool:
    """Whether the client behind a request (a handler's ``Context``) renders MCP Apps, from the
    capabilities it declared (both protocol eras)."""
    return capabilities_support_ui(getattr(ctx, "client_capabilities", None))


def ui_client_capability() -> dict[str, Any]:
    """The capabilities a client (host) declares to say it renders MCP Apps."""
    return _native.ui_client_capability()
