"""An OAuth 2.1 authorization server fronting an upstream identity provider that has no
dynamic client registration (GitHub, Google, Entra ID, Auth0, any OpenID provider): MCP
clients register with the proxy and run the authorization code flow with PKCE against it; the
upstream only sees the proxy's one pre-registered client.

Every rule of the endpoints (metadata, ``/register``, ``/authorize`` with the consent page,
``/oauth/callback``, ``/token``, ``/revoke``, the OAuth error codes) is the engine's
(``ferromcp::auth::OAuthProxy``, docs/oauth-proxy.md), the same as Node's
``ferromcp/server/auth/oauthProxy.js``; this module only adapts ASGI requests to it.

>>> proxy = await OAuthProxy.create(  # doctest: +SKIP
...     issuer_url="https://mcp.example.com",
...     resource_server_url="https://mcp.example.com/mcp",
...     upstream={"preset": "github", "client_id": GH_ID, "client_secret": GH_SECRET},
... )
>>> app = proxy.asgi_app(server.http_app(auth=proxy.protected_resource()))  # doctest: +SKIP
>>> # Register proxy.callback_url as the redirect URI of the upstream app.

Or let the server's own listener serve it, configured once (:class:`OAuthProxyConfig`, the
same keywords): ``await server.serve_http(port=443, oauth_proxy=OAuthProxyConfig(...))``
serves the proxy's endpoints beside ``/mcp``, which then accepts the proxy's tokens (checked
in the engine, no call into Python per request).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from ._native import NativeOAuthProxy, create_oauth_proxy
from .auth import ProtectedResource

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Largest body read from a request (the engine answers 413 above 64 KiB itself).
_MAX_BODY = 64 * 1024 + 1


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _camel_keys(d: dict[str, Any], keep: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The same dict with camelCase keys (values of the keys in ``keep`` as given)."""
    return {_camel(k): v for k, v in d.items() if v is not None or k in keep}


class OAuthProxyConfig:
    """An OAuth proxy's options: for ``Server.serve_http(oauth_proxy=...)``, whose listener
    then serves the proxy's endpoints beside the MCP endpoint and accepts the proxy's tokens
    there (unless ``auth=`` protects it otherwise), and for :meth:`OAuthProxy.create`, which
    takes the same keywords.

    ``issuer_url``: https, or http on a loopback host; the endpoints are served below it (the
    server must be reachable there). ``resource_server_url``: the MCP endpoint the issued tokens
    are for (their audience). ``upstream``: the engine's upstream settings with snake_case keys:
    ``preset`` (``github``, ``google``, ``entra`` with ``tenant``, ``auth0`` with ``domain``,
    ``oidc`` with ``issuer``; none: give ``authorization_endpoint`` and ``token_endpoint``),
    ``client_id``, ``client_secret``, ``revocation_endpoint``, ``auth_method``
    (``client_secret_post`` default, or ``client_secret_basic``), ``scopes``,
    ``authorize_params``, ``root_certificates`` (PEM texts). ``required_scopes``: scopes every
    request to the MCP endpoint needs (a proxy token without one is refused 403
    ``insufficient_scope``, the challenge listing them; each one of ``scopes_supported`` when
    that is given). ``require_consent`` (default true)
    shows users a consent page per client; read docs/oauth-proxy.md before turning it off.
    ``redis_url`` keeps registrations, codes and tokens on Redis, so every replica given the same
    URL serves any leg of the flow (with ``serve_http``, the server's own ``redis_url`` is used
    when this one is not given). ``client_id_documents``: Client ID Metadata Documents
    (``https://`` client ids, on by default) with snake_case keys: ``enabled``, ``max_bytes``
    (default 5120), ``timeout_seconds`` (5), ``default_cache_seconds`` (600),
    ``max_cache_seconds`` (86400) and, for tests only, ``allow_private_addresses`` and
    ``root_certificates`` (PEM texts). The engine checks the options when the proxy is built:
    bad ones (unknown keys included) raise ``InvalidParams`` with its message."""

    def __init__(
        self,
        *,
        issuer_url: str,
        resource_server_url: str,
        upstream: dict[str, Any],
        scopes_supported: list[str] | None = None,
        required_scopes: list[str] | None = None,
        forward_scopes: bool | None = None,
        require_consent: bool | None = None,
        allow_registration: bool | None = None,
        access_token_ttl_seconds: int | None = None,
        refresh_token_ttl_seconds: int | None = None,
        code_ttl_seconds: int | None = None,
        client_ttl_seconds: int | None = None,
        redis_url: str | None = None,
        client_id_documents: dict[str, Any] | None = None,
    ) -> None:
        self.issuer_url = issuer_url.rstrip("/")
        self.resource_server_url = resource_server_url
        self.upstream = dict(upstream)
        self.scopes_supported = scopes_supported
        self.required_scopes = required_scopes
        self.forward_scopes = forward_scopes
        self.require_consent = require_consent
        self.allow_registration = allow_registration
        self.access_token_ttl_seconds = access_token_ttl_seconds
        self.refresh_token_ttl_seconds = refresh_token_ttl_seconds
        self.code_ttl_seconds = code_ttl_seconds
        self.client_ttl_seconds = client_ttl_seconds
        self.redis_url = redis_url
        self.client_id_documents = client_id_documents

    def _native_config(self) -> dict[str, Any]:
        """The engine's ``OAuthProxySettings`` (camelCase JSON)."""
        options: dict[str, Any] = {
            "issuer": self.issuer_url,
            "resource": self.resource_server_url,
            "upstream": _camel_keys(self.upstream),
        }
        documents = self.client_id_documents
        options.update(
            _camel_keys(
                {
                    "scopes_supported": self.scopes_supported,
                    "required_scopes": self.required_scopes,
                    "forward_scopes": self.forward_scopes,
                    "require_consent": self.require_consent,
                    "allow_registration": self.allow_registration,
                    "access_token_ttl_seconds": self.access_token_ttl_seconds,
                    "refresh_token_ttl_seconds": self.refresh_token_ttl_seconds,
                    "code_ttl_seconds": self.code_ttl_seconds,
                    "client_ttl_seconds": self.client_ttl_seconds,
                    "redis_url": self.redis_url,
                    "client_id_documents": None if documents is None else _camel_keys(documents),
                }
            )
        )
        return options


class OAuthProxy:
    """An OAuth proxy (see the module's notes). Make one with :meth:`create`; serve its
    endpoints with :meth:`asgi_app` (or :meth:`handle` from any framework) and protect the MCP
    endpoint with :meth:`protected_resource` (or ``verify`` as a ``ProtectedResource``'s
    verifier)."""

    def __init__(
        self,
        native: NativeOAuthProxy,
        issuer: str,
        resource: str,
        required_scopes: list[str] | None = None,
    ) -> None:
        self._native = native
        self.issuer = issuer
        self.resource = resource
        self.required_scopes = required_scopes

    @classmethod
    async def create(
        cls,
        *,
        issuer_url: str,
        resource_server_url: str,
        upstream: dict[str, Any],
        scopes_supported: list[str] | None = None,
        required_scopes: list[str] | None = None,
        forward_scopes: bool | None = None,
        require_consent: bool | None = None,
        allow_registration: bool | None = None,
        access_token_ttl_seconds: int | None = None,
        refresh_token_ttl_seconds: int | None = None,
        code_ttl_seconds: int | None = None,
        client_ttl_seconds: int | None = None,
        redis_url: str | None = None,
        client_id_documents: dict[str, Any] | None = None,
    ) -> OAuthProxy:
        """Makes a proxy (an ``oidc`` preset reads the provider's discovery document first),
        to serve from an ASGI app or another framework. The keywords are
        :class:`OAuthProxyConfig`'s (see there); bad options (unknown keys included) raise
        ``InvalidParams`` with the engine's message."""
        config = OAuthProxyConfig(
            issuer_url=issuer_url,
            resource_server_url=resource_server_url,
            upstream=upstream,
            scopes_supported=scopes_supported,
            required_scopes=required_scopes,
            forward_scopes=forward_scopes,
            require_consent=require_consent,
            allow_registration=allow_registration,
            access_token_ttl_seconds=access_token_ttl_seconds,
            refresh_token_ttl_seconds=refresh_token_ttl_seconds,
            code_ttl_seconds=code_ttl_seconds,
            client_ttl_seconds=client_ttl_seconds,
            redis_url=redis_url,
            client_id_documents=client_id_documents,
        )
        native = await create_oauth_proxy(config._native_config())
        return cls(native, config.issuer_url, config.resource_server_url, required_scopes)

    @property
    def callback_url(self) -> str:
        """The redirect URI to register at the upstream identity provider."""
        return self._native.callback_url

    def metadata(self) -> dict[str, Any]:
        """The authorization server metadata (RFC 8414) the proxy serves."""
        return self._native.metadata()

    def serves(self, path: str) -> bool:
        """Whether ``path`` is one of the proxy's endpoints."""
        return self._native.serves(path)

    async def verify(self, token: str) -> dict[str, Any] | None:
        """Verifies a token the proxy issued: the identity (``subject``: the upstream's
        ``sub``, ``clientId``, ``scopes``, ``audience``, ``expiresAt``, ``claims`` with
        ``upstream_access_token``), or ``None`` when it is refused. This is the shape
        ``ProtectedResource(verify=...)`` takes."""
        return await self._native.verify(token)

    def protected_resource(self, *, required_scopes: list[str] | None = None) -> ProtectedResource:
        """Bearer protection of the MCP endpoint by the proxy's tokens, for
        ``server.serve_http(auth=...)`` or ``server.http_app(auth=...)``: the resource is the
        proxy's ``resource_server_url``, the authorization server its issuer, the scopes
        required ``required_scopes``, else the proxy's own ``required_scopes``. The engine
        checks the proxy's tokens itself (the resource carries the native proxy; its ``verify``
        is this proxy's :meth:`verify`, for calls from Python, and is not called per request)."""
        metadata = self.metadata()
        scopes = metadata.get("scopes_supported")
        resource = ProtectedResource(
            resource=self.resource,
            authorization_servers=[self.issuer],
            verify=self.verify,
            required_scopes=required_scopes
            if required_scopes is not None
            else self.required_scopes,
            scopes_supported=list(scopes) if scopes else None,
        )
        resource._engine_verifier = self._native
        return resource

    async def handle(
        self,
        method: str,
        target: str,
        headers: Iterable[tuple[bytes | str, bytes | str]],
        body: bytes,
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """Answers one request (``target``: path and query) with status, header pairs and
        body; ``None`` (nothing answered) when the path is not one of the proxy's endpoints."""
        return await self._native.handle(method, target, headers, body)

    def asgi_app(self, app: ASGIApp | None = None) -> ASGIApp:
        """An ASGI 3 application serving the proxy's endpoints; every other request (and the
        ``lifespan`` and ``websocket`` scopes) goes to ``app``, or gets 404 without one."""
        return _ProxyApp(self, app)


async def _not_found(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            kind = message["type"].removeprefix("lifespan.")
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 404,
            "headers": [(b"content-type", b"text/plain"), (b"content-length", b"9")],
        }
    )
    await send({"type": "http.response.body", "body": b"not found"})


class _ProxyApp:
    """The ASGI app of :meth:`OAuthProxy.asgi_app`."""

    def __init__(self, proxy: OAuthProxy, app: ASGIApp | None) -> None:
        self._proxy = proxy
        self._app: ASGIApp = app if app is not None else _not_found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "/")
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :] or "/"
        if scope["type"] != "http" or not self._proxy.serves(path):
            await self._app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more and size <= _MAX_BODY:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)[:_MAX_BODY]
        query: bytes = scope.get("query_string", b"")
        target = f"{path}?{query.decode('latin-1')}" if query else path
        answer = await self._proxy.handle(scope["method"], target, scope["headers"], body)
        if answer is None:
            await self._app(scope, receive, send)
            return
        status, headers, out = answer
        headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(out)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": out})
