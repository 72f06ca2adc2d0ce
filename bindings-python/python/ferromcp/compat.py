"""``MCPServer`` / ``FastMCP``: :class:`ferromcp.Server` under the official SDK's names, with its
constructor and ``run()`` arguments, so that a FastMCP server ports with an import change::

    from ferromcp import FastMCP, Context      # was: from mcp.server.fastmcp import FastMCP, Context
    mcp = FastMCP("demo", instructions="...", port=8001)
    ...
    mcp.run(transport="streamable-http")

Settings that do not apply to the engine (``debug``, ``log_level``, ``dependencies``,
``warn_on_duplicate_*``) are accepted and ignored; ``auth=`` takes a
:class:`ferromcp.ProtectedResource` (OAuth resource server, ``ctx.auth``); features it does not
have (the SDK's ``AuthSettings``/``token_verifier``, ``event_store``, ``sse_app``) raise
``TypeError`` / ``NotImplementedError`` naming them. ``streamable_http_app()`` and
``session_manager`` are the ASGI app of :mod:`ferromcp.asgi`."""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .server import Server

F = TypeVar("F", bound=Callable[..., Any])

if typing.TYPE_CHECKING:
    from .asgi import StreamableHTTPApp

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


def sdk_streamable_http_app(
    server: Server,
    settings: dict[str, Any],
    *,
    streamable_http_path: str | None = None,
    json_response: bool | None = None,
    stateless_http: bool | None = None,
    event_store: Any = None,
    retry_interval: int | None = None,
    max_request_body_size: int | None = None,
    transport_security: Any = None,
    host: str | None = None,
    **unsupported: Any,
) -> StreamableHTTPApp:
    """``streamable_http_app()`` with the official SDK's arguments, for :class:`MCPServer` and
    :class:`ferromcp.lowlevel.Server`; ``settings``: the constructor's HTTP settings."""
    if event_store is not None:
        raise TypeError(
            "streamable_http_app(event_store=...): not supported by ferromcp; the engine "
            "keeps SSE events for resumption itself (on Redis with serve_http(redis_url=...))"
        )
    unknown = sorted(k for k in unsupported if k not in _IGNORED)
    if unknown:
        raise TypeError(f"streamable_http_app: not supported by ferromcp: {', '.join(unknown)}")
    s = settings
    host = host if host is not None else s.get("host", "127.0.0.1")
    allowed_hosts: list[str] | None = None
    allowed_origins: list[str] | None = None
    protection: bool | None = None
    if transport_security is not None:
        protection = bool(getattr(transport_security, "enable_dns_rebinding_protection", True))
        hosts = list(getattr(transport_security, "allowed_hosts", None) or [])
        origins = list(getattr(transport_security, "allowed_origins", None) or [])
        allowed_hosts = [h.removesuffix(":*") for h in hosts] or None
        allowed_origins = [o for o in origins if not o.endswith(":*")] or None
    elif host not in ("127.0.0.1", "localhost", "::1"):
        protection = False
    return server.http_app(
        streamable_http_path if streamable_http_path is not None else s.get("path", "/mcp"),
        json_response=json_response if json_response is not None else s.get("json_response", False),
        stateless=stateless_http if stateless_http is not None else s.get("stateless", False),
        retry_interval=retry_interval / 1000 if retry_interval is not None else 1.0,
        max_body_size=max_request_body_size
        if max_request_body_size is not None
        else s.get("max_body_size"),
        max_sessions=s.get("max_sessions"),
        session_idle_timeout=s.get("session_idle_timeout"),
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        dns_rebinding_protection=protection,
        auth=s.get("auth"),
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
        middleware: Sequence[Any] | None = None,
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
            middleware=middleware,
        )
        self.description = description
        self._http_settings: dict[str, Any] = {"host": "127.0.0.1", "port": 8000}
        self._http_settings.update(
            (_HTTP_SETTINGS[k], v) for k, v in settings.items() if k in _HTTP_SETTINGS
        )

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        title: str | None = None,
        icons: list[Any] | None = None,
        annotations: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Callable[[F], F]:
        """:meth:`Server.resource` with the SDK's default ``mime_type``, ``"text/plain"`` (in
        ``resources/list`` and in the contents read), whatever the function returns."""
        return super().resource(
            uri,
            name=name,
            description=description,
            mime_type=mime_type or "text/plain",
            title=title,
            icons=icons,
            annotations=annotations,
            meta=meta,
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
            f"custom_route({path!r}): the MCP app serves MCP only; serve custom routes from your "
            "own Starlette/FastAPI app and mount `mcp.streamable_http_app()` beside them (README, "
            "ASGI deployment)"
        )

    def streamable_http_app(
        self,
        *,
        streamable_http_path: str | None = None,
        json_response: bool | None = None,
        stateless_http: bool | None = None,
        event_store: Any = None,
        retry_interval: int | None = None,
        max_request_body_size: int | None = None,
        transport_security: Any = None,
        host: str | None = None,
        **unsupported: Any,
    ) -> StreamableHTTPApp:
        """The Streamable HTTP endpoint as an ASGI app, with the official SDK's arguments (see
        :meth:`Server.http_app`): mount it in Starlette or FastAPI and run
        ``mcp.session_manager.run()`` in the host app's lifespan, or serve it with ``uvicorn
        module:app``. Arguments left out take the constructor's settings (FastMCP 1.x), then the
        SDK's defaults. ``retry_interval`` is in milliseconds, as in the SDK.
        ``transport_security`` (the SDK's ``TransportSecuritySettings`` or any object with
        ``enable_dns_rebinding_protection``, ``allowed_hosts``, ``allowed_origins``): a
        ``"name:*"`` host allows any port; wildcard origins are dropped (an ``Origin`` whose
        host is allowed passes). Without it the ``Host``/``Origin`` checks are on for a loopback
        ``host`` (the default) and off otherwise, as in the SDK. ``event_store`` is refused: the
        engine keeps each stream's events for resumption itself."""
        return sdk_streamable_http_app(
            self,
            self._http_settings,
            streamable_http_path=streamable_http_path,
            json_response=json_response,
            stateless_http=stateless_http,
            event_store=event_store,
            retry_interval=retry_interval,
            max_request_body_size=max_request_body_size,
            transport_security=transport_security,
            host=host,
            **unsupported,
        )

    def sse_app(self, **_: Any) -> Any:
        raise NotImplementedError(
            "sse_app(): ferromcp's ASGI app serves Streamable HTTP (streamable_http_app()); the "
            "2024-11-05 SSE endpoints are served by serve_http(legacy_sse=True) / "
            "run(transport='sse')"
        )


FastMCP = MCPServer
"""The official SDK 1.x name of :class:`MCPServer`."""
