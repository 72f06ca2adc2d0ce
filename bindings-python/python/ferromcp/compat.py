"""``MCPServer`` / ``FastMCP``: :class:`ferromcp.Server` under the official SDK's names, with its
constructor and ``run()`` arguments, so that a FastMCP server ports with an import change::

    from ferromcp import FastMCP, Context      # was: from mcp.server.fastmcp import FastMCP, Context
    mcp = FastMCP("demo", instructions="...", port=8001)
    ...
    mcp.run(transport="streamable-http")

Settings that do not apply to the engine (``debug``, ``log_level``, ``dependencies``,
``warn_on_duplicate_*``) are accepted and ignored; ``auth=`` takes a
:class:`ferromcp.ProtectedResource` (OAuth resource server, ``ctx.auth``); features it does not
have (the SDK's ``AuthSettings``/``token_verifier``, ``event_store``, ASGI apps) raise
``TypeError`` / ``NotImplementedError`` naming them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .server import Server

_IGNORED = frozenset(
    (
        "debug",
        "log_level",
        "dependencies",
        "warn_on_duplicate_tools",
        "warn_on_duplicate_resources",
        "warn_on_duplicate_prompts",
        "sse_path",
        "message_path",
        "mount_path",
        "transport_security",
    )
)
# FastMCP 1.x settings -> Server.serve_http options.
_HTTP_SETTINGS = {
    "host": "host",
    "port": "port",
    "streamable_http_path": "path",
    "json_response": "json_response",
    "stateless_http": "stateless",
    "session_idle_timeout": "session_idle_timeout",
    "max_sessions": "max_sessions",
    "max_request_body_size": "max_body_size",
    "auth": "auth",
}


def _check_auth(settings: dict[str, Any]) -> None:
    """``auth=`` must be a :class:`ferromcp.ProtectedResource` (the official SDK's
    ``AuthSettings`` + ``token_verifier`` pair has no equivalent here)."""
    auth = settings.get("auth")
    if auth is None:
        return
    from .auth import ProtectedResource

    if not isinstance(auth, ProtectedResource):
        raise TypeError(
            "MCPServer(auth=...): pass a ferromcp.ProtectedResource(resource=..., verify=... | "
            "jwt=JwtVerifier(...) | introspection=IntrospectionVerifier(...), "
            "authorization_servers=[...], required_scopes=[...]) (the official SDK's "
            "AuthSettings and token_verifier are not supported)"
        )


class MCPServer(Server):
    """A :class:`Server` with the official SDK's ``MCPServer``/``FastMCP`` constructor and
    ``run(transport=...)``."""

    def __init__(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        version: str = "",
        *,
        lifespan: Callable[[Any], Any] | None = None,
        mask_error_details: bool = True,
        **settings: Any,
    ) -> None:
        unknown = sorted(k for k in settings if k not in _IGNORED and k not in _HTTP_SETTINGS)
        if unknown:
            raise TypeError(f"MCPServer: not supported by ferromcp: {', '.join(unknown)}")
        _check_auth(settings)
        super().__init__(
            name or "ferromcp",
            version or "0.1.0",
            title=title,
            instructions=instructions,
            website_url=website_url,
            icons=icons,
            lifespan=lifespan,
            mask_error_details=mask_error_details,
        )
        self.description = description
        self._http_settings: dict[str, Any] = {"host": "127.0.0.1", "port": 8000}
        self._http_settings.update(
            (_HTTP_SETTINGS[k], v) for k, v in settings.items() if k in _HTTP_SETTINGS
        )

    def _http_options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(k for k in kwargs if k not in _IGNORED and k not in _HTTP_SETTINGS)
        if unknown:
            raise TypeError(f"run: not supported by ferromcp: {', '.join(unknown)}")
        _check_auth(kwargs)
        options = dict(self._http_settings)
        options.update((_HTTP_SETTINGS[k], v) for k, v in kwargs.items() if k in _HTTP_SETTINGS)
        return options

    def run(self, transport: str = "stdio", **kwargs: Any) -> None:
        """``"stdio"``, ``"streamable-http"`` (Streamable HTTP at ``host:port`` +
        ``streamable_http_path``) or ``"sse"`` (the same server, which also serves the
        2024-11-05 ``/sse`` + ``/messages`` endpoints)."""
        if transport == "stdio":
            unknown = sorted(k for k in kwargs if k not in _IGNORED)
            if unknown:
                raise TypeError(f"run: stdio takes no {', '.join(unknown)}")
            super().run("stdio")
        elif transport in ("streamable-http", "sse", "http"):
            options = self._http_options(kwargs)
            options["legacy_sse"] = True
            super().run("http", **options)
        else:
            raise ValueError(f"Unknown transport: {transport}")

    async def run_streamable_http_async(self) -> None:
        """Serves Streamable HTTP with the constructor's settings until SIGINT/SIGTERM."""
        await self.run_http_async(**self._http_options({}))

    async def run_sse_async(self) -> None:
        """As :meth:`run_streamable_http_async` (the server also serves the SSE endpoints)."""
        await self.run_streamable_http_async()

    def custom_route(self, path: str, methods: list[str], **_: Any) -> Any:
        raise NotImplementedError(
            f"custom_route({path!r}): the Rust HTTP server serves MCP only; serve custom routes "
            "from your own ASGI app and run `await server.serve_http(...)` in its lifespan "
            "(see the README)"
        )

    def streamable_http_app(self, **_: Any) -> Any:
        raise NotImplementedError(
            "ferromcp serves HTTP from its Rust engine, not as an ASGI app: start "
            "`await server.serve_http(...)` in your app's lifespan (see the README)"
        )

    def sse_app(self, **_: Any) -> Any:
        return self.streamable_http_app()


FastMCP = MCPServer
"""The official SDK 1.x name of :class:`MCPServer`."""
