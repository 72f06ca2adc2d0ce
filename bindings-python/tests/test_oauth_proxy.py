"""ferromcp.OAuthProxy: the engine's OAuth proxy (ferromcp::auth::OAuthProxy) served as an ASGI
app under uvicorn in front of a Server's http_app, fronting an identity provider written here
(no dynamic registration, one pre-registered client: the proxy), and protecting the MCP
endpoint with proxy.protected_resource() (whose tokens the engine checks: its Python verify
is replaced by one that fails). The flow as a browser and an MCP client run it:
metadata, register, consent page (cookie-bound), upstream leg with the proxy's PKCE, callback,
token, bearer call, refresh, revocation; and the RFC 6749 error codes the engine answers with.
The same scenarios as bindings-node/test/oauth_proxy.test.mjs."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import http.client as http_client
import json
import re
import socket
import threading
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ferromcp import Client, Context, InvalidParams, OAuthProxy, Server

uvicorn = pytest.importorskip("uvicorn")

VERIFIER = "v" * 50
REDIRECT = "http://127.0.0.1:5555/cb"


def s256(v: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(v.encode()).digest()).rstrip(b"=").decode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class IdentityProvider:
    """The upstream: a token endpoint checking the proxy's credentials, PKCE verifier and
    redirect URI against the codes the test hands out (its login page)."""

    def __init__(self) -> None:
        self.codes: dict[str, dict[str, str]] = {}
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                n = int(self.headers.get("content-length") or 0)
                f = dict(urllib.parse.parse_qsl(self.rfile.read(n).decode()))

                def answer(status: int, v: dict[str, Any]) -> None:
                    body = json.dumps(v).encode()
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

                if self.path != "/token":
                    return answer(404, {})
                if f.get("client_id") != "proxy-app" or f.get("client_secret") != "s3cret":
                    return answer(401, {"error": "invalid_client"})
                if f.get("grant_type") == "refresh_token":
                    return answer(
                        200,
                        {
                            "access_token": "up-at-2",
                            "token_type": "Bearer",
                            "refresh_token": "up-rt-2",
                        },
                    )
                c = idp.codes.pop(f.get("code", ""), None)
                if (
                    c is None
                    or s256(f.get("code_verifier", "")) != c["challenge"]
                    or f.get("redirect_uri") != c["redirect"]
                ):
                    return answer(400, {"error": "invalid_grant"})
                parts = [b'{"alg":"none"}', b'{"sub":"user-7"}']
                id_token = (
                    ".".join(base64.urlsafe_b64encode(p).rstrip(b"=").decode() for p in parts)
                    + ".x"
                )
                answer(
                    200,
                    {
                        "access_token": "up-at-1",
                        "token_type": "Bearer",
                        "expires_in": 3600,
                        "refresh_token": "up-rt-1",
                        "id_token": id_token,
                    },
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def identity_provider() -> Iterator[IdentityProvider]:
    idp = IdentityProvider()
    try:
        yield idp
    finally:
        idp.close()


class Answer:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.headers = {k.lower(): v for k, v in headers}
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def location(self) -> urllib.parse.ParseResult:
        return urllib.parse.urlparse(self.headers["location"])


async def fetch(
    url: str, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None
) -> Answer:
    """One request, redirects not followed, off the loop (uvicorn serves on it)."""

    def run() -> Answer:
        u = urllib.parse.urlparse(url)
        conn = http_client.HTTPConnection(u.hostname or "", u.port, timeout=10)
        target = u.path + (f"?{u.query}" if u.query else "")
        conn.request(method, target, body=body, headers=headers or {})
        r = conn.getresponse()
        a = Answer(r.status, r.getheaders(), r.read())
        conn.close()
        return a

    return await asyncio.to_thread(run)


async def form(url: str, fields: dict[str, str], headers: dict[str, str] | None = None) -> Answer:
    h = {"content-type": "application/x-www-form-urlencoded", **(headers or {})}
    return await fetch(url, "POST", urllib.parse.urlencode(fields).encode(), h)


async def register(base: str, metadata: dict[str, Any]) -> Answer:
    body = json.dumps(metadata).encode()
    return await fetch(f"{base}/register", "POST", body, {"content-type": "application/json"})


def q(url: urllib.parse.ParseResult, name: str) -> str:
    return urllib.parse.parse_qs(url.query)[name][0]


@contextlib.asynccontextmanager
async def app(idp: IdentityProvider, **extra: Any) -> AsyncIterator[tuple[str, OAuthProxy]]:
    """uvicorn serving the proxy's endpoints in front of a server whose /mcp is protected by the
    proxy's tokens; yields the base URL and the proxy."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proxy = await OAuthProxy.create(
        issuer_url=base,
        resource_server_url=f"{base}/mcp",
        upstream={
            "authorization_endpoint": f"{idp.base}/authorize",
            "token_endpoint": f"{idp.base}/token",
            "client_id": "proxy-app",
            "client_secret": "s3cret",
            "scopes": ["openid"],
        },
        scopes_supported=["mcp:read"],
        **extra,
    )
    server = Server("behind-the-proxy")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        auth = ctx.auth
        assert auth is not None
        return json.dumps(auth)

    resource = proxy.protected_resource()

    def not_in_python(token: str) -> None:
        raise AssertionError("the proxy's tokens are checked in the engine, not through Python")

    # Every bearer call below then passes (or is refused) only if the engine checks the token.
    resource.verify = not_in_python
    asgi = proxy.asgi_app(server.http_app(auth=resource))
    config = uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="warning")
    u = uvicorn.Server(config)
    task = asyncio.ensure_future(u.serve())
    try:
        for _ in range(500):
            if u.started or task.done():
                break
            await asyncio.sleep(0.01)
        assert u.started, "uvicorn did not start"
        yield base, proxy
    finally:
        u.should_exit = True
        await asyncio.wait_for(task, 20)


async def test_registration_consent_upstream_leg_and_a_wrong_verifier() -> None:
    with identity_provider() as idp:
        async with app(idp) as (base, proxy):
            assert proxy.callback_url == f"{base}/oauth/callback"
            meta = (await fetch(f"{base}/.well-known/oauth-authorization-server")).json()
            assert meta == proxy.metadata()
            assert meta["registration_endpoint"] == f"{base}/register"
            assert meta["code_challenge_methods_supported"] == ["S256"]

            reg = await register(
                base,
                {
                    "redirect_uris": [REDIRECT],
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code", "refresh_token"],
                    "client_name": "Python test",
                },
            )
            assert reg.status == 201
            client = reg.json()

            params = {
                "response_type": "code",
                "client_id": client["client_id"],
                "redirect_uri": REDIRECT,
                "state": "st",
                "code_challenge": s256(VERIFIER),
                "code_challenge_method": "S256",
                "scope": "mcp:read",
                "resource": f"{base}/mcp",
            }
            page = await fetch(f"{meta['authorization_endpoint']}?{urllib.parse.urlencode(params)}")
            assert page.status == 200
            html = page.body.decode()
            assert "Python test" in html
            cookie = page.headers["set-cookie"].split(";")[0]

            def field(n: str) -> str:
                m = re.search(f'name="{n}" value="([^"]+)"', html)
                assert m is not None, n
                return m.group(1)

            consent = {"pending": field("pending"), "csrf": field("csrf"), "decision": "approve"}
            without_cookie = await form(f"{base}/authorize/consent", consent)
            assert without_cookie.status == 400, without_cookie.body
            up = await form(f"{base}/authorize/consent", consent, {"cookie": cookie})
            assert up.status == 302, up.body
            upstream = up.location()
            assert (
                f"{upstream.scheme}://{upstream.netloc}{upstream.path}" == f"{idp.base}/authorize"
            )
            assert q(upstream, "client_id") == "proxy-app"
            assert q(upstream, "code_challenge_method") == "S256"
            assert q(upstream, "redirect_uri") == proxy.callback_url
            # The proxy's own PKCE pair, not the client's.
            assert q(upstream, "code_challenge") != s256(VERIFIER)
            idp.codes["up-code"] = {
                "challenge": q(upstream, "code_challenge"),
                "redirect": q(upstream, "redirect_uri"),
            }
            cb = await fetch(
                f"{proxy.callback_url}?code=up-code&state={q(upstream, 'state')}",
                headers={"cookie": cookie},
            )
            assert cb.status == 302, cb.body
            back = cb.location()
            assert q(back, "state") == "st"
            assert q(back, "iss") == base

            wrong = await form(
                meta["token_endpoint"],
                {
                    "grant_type": "authorization_code",
                    "client_id": client["client_id"],
                    "code": q(back, "code"),
                    "code_verifier": "w" * 50,
                    "redirect_uri": REDIRECT,
                },
            )
            assert wrong.status == 400
            assert wrong.json()["error"] == "invalid_grant"
            assert wrong.headers["cache-control"] == "no-store"


async def test_tokens_reach_the_protected_server_refresh_rotates_revocation_ends_them() -> None:
    with identity_provider() as idp:
        async with app(idp, require_consent=False) as (base, proxy):
            client = (
                await register(
                    base,
                    {
                        "redirect_uris": [REDIRECT],
                        "grant_types": ["authorization_code", "refresh_token"],
                    },
                )
            ).json()
            assert client["token_endpoint_auth_method"] == "client_secret_basic"
            secret = f"{client['client_id']}:{client['client_secret']}".encode()
            basic = {"authorization": f"Basic {base64.b64encode(secret).decode()}"}
            params = {
                "response_type": "code",
                "client_id": client["client_id"],
                "state": "st",
                "code_challenge": s256(VERIFIER),
                "code_challenge_method": "S256",
            }
            up = (await fetch(f"{base}/authorize?{urllib.parse.urlencode(params)}")).location()
            idp.codes["c1"] = {
                "challenge": q(up, "code_challenge"),
                "redirect": q(up, "redirect_uri"),
            }
            back = (await fetch(f"{proxy.callback_url}?code=c1&state={q(up, 'state')}")).location()
            grant = {"grant_type": "authorization_code", "code": q(back, "code")}
            no_verifier = await form(f"{base}/token", grant, basic)
            assert no_verifier.status == 400
            assert no_verifier.json()["error"] == "invalid_request"
            t = (await form(f"{base}/token", {**grant, "code_verifier": VERIFIER}, basic)).json()
            assert t["token_type"] == "Bearer"
            used = await form(f"{base}/token", {**grant, "code_verifier": VERIFIER}, basic)
            assert used.json()["error"] == "invalid_grant", "a code is used once"

            async def whoami(token: str) -> dict[str, Any]:
                bearer = {"Authorization": f"Bearer {token}"}
                async with Client.http(f"{base}/mcp", headers=bearer) as c:
                    r = await c.call_tool("whoami", {})
                    result: dict[str, Any] = json.loads(r["content"][0]["text"])
                    return result

            async def mcp_status(token: str) -> int:
                body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
                h = {"authorization": f"Bearer {token}", "content-type": "application/json"}
                return (await fetch(f"{base}/mcp", "POST", body, h)).status

            me = await whoami(t["access_token"])
            assert me["subject"] == "user-7"
            assert me["clientId"] == client["client_id"]
            assert me["claims"]["upstream_access_token"] == "up-at-1"
            assert await proxy.verify("forged") is None
            assert await mcp_status("forged") == 401

            unauthenticated = await form(
                f"{base}/token",
                {
                    "grant_type": "refresh_token",
                    "client_id": client["client_id"],
                    "refresh_token": t["refresh_token"],
                },
            )
            assert unauthenticated.status == 401
            assert unauthenticated.json()["error"] == "invalid_client"
            assert unauthenticated.headers["www-authenticate"].startswith("Basic")
            t2 = (
                await form(
                    f"{base}/token",
                    {"grant_type": "refresh_token", "refresh_token": t["refresh_token"]},
                    basic,
                )
            ).json()
            assert await mcp_status(t["access_token"]) == 401, "the old access token is gone"
            assert (await whoami(t2["access_token"]))["claims"][
                "upstream_access_token"
            ] == "up-at-2"

            revoked = await form(f"{base}/revoke", {"token": t2["access_token"]}, basic)
            assert revoked.status == 200
            assert await mcp_status(t2["access_token"]) == 401

            bad_grant = await form(f"{base}/token", {"grant_type": "password"}, basic)
            assert bad_grant.json()["error"] == "unsupported_grant_type"
            not_allowed = await fetch(f"{base}/token")
            assert not_allowed.status == 405
            assert "POST" in not_allowed.headers["allow"]
            assert (await fetch(f"{base}/elsewhere")).status == 404, "other paths reach the app"


async def test_authorize_refusals_go_to_the_browser_then_to_the_client() -> None:
    with identity_provider() as idp:
        async with app(idp, require_consent=False) as (base, _proxy):
            client = (
                await register(
                    base, {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
                )
            ).json()
            unknown = await fetch(f"{base}/authorize?response_type=code&client_id=nobody")
            assert unknown.status == 400
            assert unknown.json()["error"] == "invalid_client"
            base_params = {
                "client_id": client["client_id"],
                "redirect_uri": REDIRECT,
                "state": "s1",
            }
            pkce = {
                "response_type": "code",
                "code_challenge": s256(VERIFIER),
                "code_challenge_method": "S256",
            }
            for extra, error in [
                (
                    {"response_type": "token", "code_challenge": s256(VERIFIER)},
                    "unsupported_response_type",
                ),
                ({"response_type": "code"}, "invalid_request"),  # no PKCE challenge
                (
                    {
                        "response_type": "code",
                        "code_challenge": s256(VERIFIER),
                        "code_challenge_method": "plain",
                    },
                    "invalid_request",
                ),
                (
                    {**pkce, "scope": "admin"},
                    "invalid_scope",
                ),
                (
                    {**pkce, "resource": "http://other/mcp"},
                    "invalid_target",
                ),
            ]:
                r = await fetch(
                    f"{base}/authorize?{urllib.parse.urlencode({**base_params, **extra})}"
                )
                assert r.status == 302, (extra, r.body)
                back = r.location()
                assert back.geturl().startswith(REDIRECT), back
                assert q(back, "error") == error, extra
                assert q(back, "state") == "s1"
            bad_uri = await register(base, {"redirect_uris": ["http://evil.example/cb"]})
            assert bad_uri.status == 400
            assert bad_uri.json()["error"] == "invalid_redirect_uri"
            not_json = await fetch(
                f"{base}/register", "POST", b"{", {"content-type": "application/json"}
            )
            assert not_json.status == 400
            assert not_json.json()["error"] == "invalid_client_metadata"


async def test_bad_options_are_refused_with_the_engine_message() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        (
            {
                "issuer_url": "http://mcp.example.com",
                "resource_server_url": "http://mcp.example.com/mcp",
                "upstream": {"preset": "github", "client_id": "a", "client_secret": "b"},
            },
            "https",
        ),
        (
            {
                "issuer_url": "http://127.0.0.1:1",
                "resource_server_url": "http://127.0.0.1:1/mcp",
                "upstream": {"preset": "entra", "client_id": "a", "client_secret": "b"},
            },
            "tenant",
        ),
        (
            {
                "issuer_url": "http://127.0.0.1:1",
                "resource_server_url": "http://127.0.0.1:1/mcp",
                "upstream": {"client_id": "a", "token_endpoint": "http://x/t", "consent": False},
            },
            "consent",
        ),
    ]
    for options, word in cases:
        with pytest.raises(InvalidParams, match=word):
            await OAuthProxy.create(**options)
