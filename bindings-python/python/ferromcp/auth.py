"""OAuth 2.1 authorization for ``Client.http(url, auth=OAuth(...))``, and bearer-token
protection for ``Server.serve_http(auth=ProtectedResource(...))`` (with the built-in
``JwtVerifier`` or ``IntrospectionVerifier``, or your own ``verify`` function).

The engine runs the flow (metadata discovery, client registration, PKCE, the ``resource``
parameter, ``iss`` check, refresh, step-up on 403 ``insufficient_scope``); this class only
says how to reach the user and where tokens live.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any, Protocol


class TokenStore(Protocol):
    """Keeps tokens and dynamic registrations between runs, keyed by the server's URL. The
    values are JSON-compatible dicts; ``load`` returns ``None`` for an unknown key."""

    def load(self, key: str) -> dict[str, Any] | None: ...
    def save(self, key: str, value: dict[str, Any]) -> None: ...
    def remove(self, key: str) -> None: ...


class OAuth:
    """How a client authorizes with a protected MCP server.

    Redirect step (authorization code flow), one of:

    * ``on_redirect(authorization_url) -> redirect_url`` (sync or async) with ``redirect_uri``:
      show the URL to the user, return the full URL the authorization server redirected back
      to (with ``code`` and ``state``);
    * otherwise a loopback listener on ``127.0.0.1:loopback_port`` (0: any free port) receives
      the browser's redirect; ``open_browser(url)`` shows the URL (default: printed to stderr;
      pass ``webbrowser.open`` to launch the browser).

    Client identity, in the spec's order: ``client_id`` (and ``client_secret``) of a
    pre-registered client, a client registered earlier (kept in the token store),
    ``client_metadata_url`` (an HTTPS Client ID Metadata Document URL) where the server accepts
    it, else dynamic registration under ``client_name``. ``client_credentials=True`` uses the
    client credentials grant with ``client_id``/``client_secret`` (no user, no redirect).

    ``token_store``: ``None`` (memory), a path (a JSON file, owner-only), or a ``TokenStore``.
    ``scopes``: requested when neither the server's challenge nor its metadata names any.
    ``max_attempts``: authorizations per request before giving up (401 and 403 together).
    ``expected_issuer``: the authorization server (issuer URL) the credentials belong to; a
    server whose protected-resource metadata names another is refused (``issuer_mismatch``)
    before anything is sent to it.
    """

    def __init__(
        self,
        *,
        on_redirect: Callable[[str], Awaitable[str] | str] | None = None,
        redirect_uri: str | None = None,
        loopback_port: int = 0,
        open_browser: Callable[[str], Any] | None = None,
        client_name: str = "ferromcp client",
        client_id: str | None = None,
        client_secret: str | None = None,
        client_metadata_url: str | None = None,
        client_credentials: bool = False,
        token_store: str | os.PathLike[str] | TokenStore | None = None,
        scopes: list[str] | None = None,
        max_attempts: int = 3,
        expected_issuer: str | None = None,
    ) -> None:
        if on_redirect is not None and redirect_uri is None:
            raise ValueError("on_redirect needs redirect_uri (the URI registered for it)")
        if client_credentials and (client_id is None or client_secret is None):
            raise ValueError("client_credentials needs client_id and client_secret")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.on_redirect = on_redirect
        self.redirect_uri = redirect_uri
        self.loopback_port = loopback_port
        self.open_browser = open_browser
        self.client_name = client_name
        self.client_id = client_id
        self.client_secret = client_secret
        self.client_metadata_url = client_metadata_url
        self.client_credentials = client_credentials
        self.token_store = token_store
        self.scopes = scopes
        self.max_attempts = max_attempts
        self.expected_issuer = expected_issuer

    def _native_config(self) -> dict[str, Any]:
        """The engine's OAuth settings (``embed::OAuthSettings``, camelCase, the same keys as
        Node's and Swift's) beside the Python callables and the token store object."""
        store = self.token_store
        path = os.fspath(store) if isinstance(store, (str, os.PathLike)) else None
        settings: dict[str, Any] = {
            "clientCredentials": self.client_credentials,
            "loopbackPort": self.loopback_port,
            "clientName": self.client_name,
            "maxAttempts": self.max_attempts,
        }
        optional = {
            "redirectUri": self.redirect_uri,
            "clientId": self.client_id,
            "clientSecret": self.client_secret,
            "clientMetadataUrl": self.client_metadata_url,
            "scopes": self.scopes,
            "tokenFile": path,
            "expectedIssuer": self.expected_issuer,
        }
        settings.update({k: v for k, v in optional.items() if v is not None})
        return {
            "settings": settings,
            "on_redirect": self.on_redirect,
            "open_browser": self.open_browser,
            "token_store": None if path is not None else store,
        }


class JwtVerifier:
    """The built-in verifier of JWT access tokens (``ProtectedResource(jwt=...)``).

    Keys: ``jwks_url`` (the authorization server's JWKS, fetched on first use, cached, fetched
    again for an unknown ``kid`` at most every 30 s) or ``jwks`` (the document itself,
    ``{"keys": [...]}``). A token passes when its ``alg`` is one of ``algorithms`` (default RS256,
    RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA; ``none`` and ``HS*`` are always
    refused) and fits the key, its signature verifies, ``iss`` is ``issuer`` (default: any of the
    ``authorization_servers``), ``aud`` holds ``audience`` (default: the ``resource``) and
    ``exp``/``nbf`` hold, give or take ``leeway_seconds`` (default 60). ``ctx.auth`` then has the
    ``subject`` (``sub``), ``client_id``, ``scopes`` (``scope`` or ``scp``) and every claim.
    """

    def __init__(
        self,
        *,
        jwks_url: str | None = None,
        jwks: dict[str, Any] | None = None,
        issuer: str | None = None,
        audience: str | None = None,
        algorithms: list[str] | None = None,
        leeway_seconds: int | None = None,
    ) -> None:
        if (jwks_url is None) == (jwks is None):
            raise ValueError("JwtVerifier needs exactly one of jwks_url and jwks")
        self.jwks_url = jwks_url
        self.jwks = jwks
        self.issuer = issuer
        self.audience = audience
        self.algorithms = algorithms
        self.leeway_seconds = leeway_seconds

    def _settings(self) -> dict[str, Any]:
        s = {
            "jwksUrl": self.jwks_url,
            "jwks": self.jwks,
            "issuer": self.issuer,
            "audience": self.audience,
            "algorithms": self.algorithms,
            "leewaySeconds": self.leeway_seconds,
        }
        return {k: v for k, v in s.items() if v is not None}


class IntrospectionVerifier:
    """The built-in RFC 7662 token introspection verifier (``ProtectedResource(introspection=...)``):
    each token is sent to the authorization server's ``endpoint``, authenticating with
    ``client_id``/``client_secret`` (HTTP Basic) when given; an active token's ``sub``,
    ``client_id``, ``scope``, ``aud``, ``exp`` and other members become ``ctx.auth``."""

    def __init__(
        self, *, endpoint: str, client_id: str | None = None, client_secret: str | None = None
    ) -> None:
        if (client_id is None) != (client_secret is None):
            raise ValueError(
                "IntrospectionVerifier needs both client_id and client_secret, or neither"
            )
        self.endpoint = endpoint
        self.client_id = client_id
        self.client_secret = client_secret

    def _settings(self) -> dict[str, Any]:
        s = {
            "endpoint": self.endpoint,
            "clientId": self.client_id,
            "clientSecret": self.client_secret,
        }
        return {k: v for k, v in s.items() if v is not None}


class ProtectedResource:
    """Bearer-token protection of an HTTP server (``serve_http(auth=...)``).

    ``resource``: this server's URL (e.g. ``https://mcp.example.com/mcp``), the audience tokens
    must carry. ``authorization_servers``: issuer URLs, published in the Protected Resource
    Metadata. Tokens are checked by exactly one of:

    * ``jwt=JwtVerifier(jwks_url=...)``: JWT access tokens signed by the authorization server;
    * ``introspection=IntrospectionVerifier(endpoint=...)``: RFC 7662 introspection;
    * ``verify(token)`` (sync or async): your own check (a lookup, a JWT library...), returning
      ``None`` to refuse the token (or raising: the message becomes the ``error_description``),
      else a dict with ``subject``, ``client_id``, ``scopes`` (list or space-separated),
      ``audience`` (list or str), ``expires_at`` (Unix seconds) and ``claims``.

    The engine then refuses expired tokens and tokens whose audience lacks ``resource`` (401
    ``invalid_token``; ``check_audience=False`` when ``verify`` checked it; with ``jwt`` the
    verifier checks its ``audience``) and tokens without ``required_scopes`` (403
    ``insufficient_scope``). Handlers read the identity as ``ctx.auth``.
    """

    def __init__(
        self,
        *,
        resource: str,
        authorization_servers: list[str],
        verify: Callable[[str], Awaitable[dict[str, Any] | None] | dict[str, Any] | None]
        | None = None,
        jwt: JwtVerifier | None = None,
        introspection: IntrospectionVerifier | None = None,
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        check_audience: bool = True,
    ) -> None:
        if not authorization_servers:
            raise ValueError("authorization_servers must name at least one issuer")
        if sum(x is not None for x in (verify, jwt, introspection)) != 1:
            raise ValueError("give exactly one of verify, jwt and introspection")
        self.resource = resource
        self.verify = verify
        self.jwt = jwt
        self.introspection = introspection
        self.authorization_servers = list(authorization_servers)
        self.required_scopes = list(required_scopes or [])
        self.scopes_supported = scopes_supported
        self.check_audience = check_audience
        # Set by OAuthProxy.protected_resource(): the native proxy, which the engine then uses
        # as its verifier in place of ``verify`` (no call into Python per request).
        self._engine_verifier: object | None = None

    def _native_config(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "resource": self.resource,
            "authorizationServers": self.authorization_servers,
            "requiredScopes": self.required_scopes,
            "checkAudience": self.check_audience,
        }
        if self.scopes_supported is not None:
            settings["scopesSupported"] = self.scopes_supported
        if self.jwt is not None:
            settings["jwt"] = self.jwt._settings()
        if self.introspection is not None:
            settings["introspection"] = self.introspection._settings()
        verify = self._engine_verifier if self._engine_verifier is not None else self.verify
        return {"settings": settings, "verify": verify}
