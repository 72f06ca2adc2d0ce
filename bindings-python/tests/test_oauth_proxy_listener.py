"""Server.serve_http(oauth_proxy=OAuthProxyConfig(...)): the engine's own listener serves the
OAuth proxy's endpoints beside /mcp and protects /mcp with the proxy's tokens, with no ASGI app.
The first scenario never reaches the upstream identity provider (the authorization request is a
redirect to it), so its endpoints are URLs of a host that does not exist; it is the same as
bindings-node/test/oauth_proxy_listener.test.mjs and the Swift OAuthProxyListenerTests. The
last one runs the whole flow against a token endpoint written here and calls a tool with the
token the listener's proxy issued (checked in the engine, the identity in ctx.auth); with
``required_scopes``, a token without them is refused 403 (the same scenario as Node's
oauth_proxy_required_scopes.test.mjs and Swift's OAuthProxyRequiredScopesTests)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.client as http_client
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ferromcp import Client, Context, InvalidParams, OAuthProxyConfig, Server

ISSUER = "https://mcp.example.com"
RESOURCE = "https://mcp.example.com/mcp"
REDIRECT = "http://127.0.0.1:7777/cb"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 50).digest()).rstrip(b"=").decode()


def s256(v: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(v.encode()).digest()).rstrip(b"=").decode()


def config(**upstream: Any) -> OAuthProxyConfig:
    return OAuthProxyConfig(
        issuer_url=ISSUER,
        resource_server_url=RESOURCE,
        upstream={
            "authorization_endpoint": "https://idp.example.com/authorize",
            "token_endpoint": "https://idp.example.com/token",
            "client_id": "proxy-app",
            "client_secret": "s3cret",
            **upstream,
        },
        require_consent=False,
    )


def request(
    port: int, method: str, path: str, body: bytes | None = None, ctype: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http_client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"content-type": ctype} if ctype else {}
    if path == "/mcp":
        headers["accept"] = "application/json, text/event-stream"
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


async def test_oauth_proxy_serves_metadata_registration_and_the_401_challenge() -> None:
    server = Server("signed-in")

    @server.tool()
    def whoami() -> str:
        return "nobody"

    http = await server.serve_http(port=0, oauth_proxy=config())
    try:
        port = http.port
        status, _, body = request(port, "GET", "/.well-known/oauth-authorization-server")
        assert status == 200, body
        metadata = json.loads(body)
        assert metadata["issuer"] == ISSUER
        assert metadata["token_endpoint"] == f"{ISSUER}/token"
        assert metadata["registration_endpoint"] == f"{ISSUER}/register"
        assert metadata["code_challenge_methods_supported"] == ["S256"]

        status, _, body = request(port, "GET", "/.well-known/oauth-protected-resource/mcp")
        assert status == 200, body
        assert json.loads(body)["authorization_servers"] == [ISSUER]

        registration = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
        status, _, body = request(
            port, "POST", "/register", json.dumps(registration).encode(), "application/json"
        )
        assert status == 201, body
        client_id = json.loads(body)["client_id"]

        query = urllib.parse.urlencode(
            {
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": CHALLENGE,
                "code_challenge_method": "S256",
                "state": "st",
                "resource": RESOURCE,
            }
        )
        status, headers, body = request(port, "GET", f"/authorize?{query}")
        assert status == 302, body
        location = urllib.parse.urlsplit(headers["location"])
        assert f"{location.scheme}://{location.netloc}{location.path}" == (
            "https://idp.example.com/authorize"
        )
        upstream = dict(urllib.parse.parse_qsl(location.query))
        assert upstream["client_id"] == "proxy-app"
        assert upstream["redirect_uri"] == f"{ISSUER}/oauth/callback"
        assert upstream["code_challenge_method"] == "S256"
        # The proxy's own PKCE pair, not the client's.
        assert len(upstream["code_challenge"]) == 43 and upstream["code_challenge"] != CHALLENGE

        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        status, headers, _ = request(
            port, "POST", "/mcp", json.dumps(initialize).encode(), "application/json"
        )
        assert status == 401
        challenge = headers["www-authenticate"]
        assert challenge.startswith("Bearer "), challenge
        assert 'resource_metadata="' in challenge, challenge
        assert "/.well-known/oauth-protected-resource/mcp" in challenge, challenge

        # A token the proxy did not issue is refused the same way.
        conn = http_client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request(
            "POST",
            "/mcp",
            body=json.dumps(initialize).encode(),
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "authorization": "Bearer forged",
            },
        )
        forged = conn.getresponse()
        forged.read()
        conn.close()
        assert forged.status == 401
        assert 'error="invalid_token"' in (forged.getheader("www-authenticate") or "")
    finally:
        await http.close()


async def test_oauth_proxy_options_are_checked_before_listening() -> None:
    server = Server("signed-in")
    with pytest.raises(InvalidParams, match="tenant"):
        await server.serve_http(port=0, oauth_proxy=config(preset="entra"))
    with pytest.raises(InvalidParams, match="preset"):
        await server.serve_http(port=0, oauth_proxy=config(preset="okta"))


class TokenEndpoint:
    """The upstream's token endpoint: answers the code it was told of, once, when the proxy's
    credentials and PKCE verifier match, with an ID token whose subject is ``user-7``."""

    def __init__(self) -> None:
        self.codes: dict[str, str] = {}
        codes = self.codes

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                n = int(self.headers.get("content-length") or 0)
                f = dict(urllib.parse.parse_qsl(self.rfile.read(n).decode()))
                challenge = codes.pop(f.get("code", ""), None)
                ok = (
                    f.get("client_id") == "proxy-app"
                    and f.get("client_secret") == "s3cret"
                    and challenge is not None
                    and s256(f.get("code_verifier", "")) == challenge
                )
                parts = [b'{"alg":"none"}', b'{"sub":"user-7"}']
                id_token = ".".join(
                    base64.urlsafe_b64encode(p).rstrip(b"=").decode() for p in parts
                )
                v = (
                    {"access_token": "up-at", "token_type": "Bearer", "id_token": id_token + ".x"}
                    if ok
                    else {"error": "invalid_grant"}
                )
                body = json.dumps(v).encode()
                self.send_response(200 if ok else 400)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/token"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def sign_in(port: int, idp: TokenEndpoint, scope: str | None = None) -> tuple[str, str]:
    """The flow against the listener at ``port`` (a public client, no consent): registers,
    authorizes (asking ``scope``), lets the upstream answer the proxy's callback and exchanges
    the code. The client id and the access token the proxy issued."""

    def call(method: str, path: str, body: bytes | None = None) -> Any:
        ctype = "application/x-www-form-urlencoded" if method == "POST" else None
        return request(port, method, path, body, ctype)

    registration = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
    _, _, body = request(
        port, "POST", "/register", json.dumps(registration).encode(), "application/json"
    )
    client_id = json.loads(body)["client_id"]
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
        "state": "st",
        "resource": RESOURCE,
    }
    if scope is not None:
        params["scope"] = scope
    _, headers, _ = call("GET", f"/authorize?{urllib.parse.urlencode(params)}")
    upstream = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["location"]).query))
    idp.codes["up-code"] = upstream["code_challenge"]
    callback = f"/oauth/callback?code=up-code&state={urllib.parse.quote(upstream['state'])}"
    status, headers, body = call("GET", callback)
    assert status == 302, body
    back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["location"]).query))
    assert back["state"] == "st"
    grant = {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": back["code"],
        "code_verifier": "v" * 50,
        "redirect_uri": REDIRECT,
        "resource": RESOURCE,
    }
    status, _, body = call("POST", "/token", urllib.parse.urlencode(grant).encode())
    assert status == 200, body
    return client_id, json.loads(body)["access_token"]


async def test_a_token_from_the_listeners_proxy_reaches_the_handler_as_ctx_auth() -> None:
    idp = TokenEndpoint()
    server = Server("signed-in")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        return json.dumps(ctx.auth)

    http = await server.serve_http(port=0, oauth_proxy=config(token_endpoint=idp.url))
    try:
        client_id, token = await asyncio.to_thread(sign_in, http.port, idp)
        bearer = {"Authorization": f"Bearer {token}"}
        async with Client.http(f"http://127.0.0.1:{http.port}/mcp", headers=bearer) as c:
            r = await c.call_tool("whoami", {})
        me = json.loads(r["content"][0]["text"])
        assert me["subject"] == "user-7"
        assert me["clientId"] == client_id
        assert me["claims"]["upstream_access_token"] == "up-at"
    finally:
        await http.close()
        idp.close()


async def test_oauth_proxy_token_without_the_required_scope_is_refused_403() -> None:
    """``required_scopes``: the listener's engine refuses a proxy token lacking one with 403
    ``insufficient_scope`` and a challenge listing them; a token with them is served."""
    idp = TokenEndpoint()
    server = Server("scoped")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        return json.dumps(ctx.auth)

    options = config(token_endpoint=idp.url)
    options.scopes_supported = ["mcp:read", "mcp:admin"]
    options.required_scopes = ["mcp:admin"]
    http = await server.serve_http(port=0, oauth_proxy=options)
    try:
        _, read_only = await asyncio.to_thread(sign_in, http.port, idp, "mcp:read")
        conn = http_client.HTTPConnection("127.0.0.1", http.port, timeout=10)
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        conn.request(
            "POST",
            "/mcp",
            body=json.dumps(initialize).encode(),
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "authorization": f"Bearer {read_only}",
            },
        )
        refused = conn.getresponse()
        body = json.loads(refused.read())
        conn.close()
        assert refused.status == 403
        assert body["error"] == "insufficient_scope"
        challenge = refused.getheader("www-authenticate") or ""
        assert 'error="insufficient_scope"' in challenge, challenge
        assert 'scope="mcp:admin"' in challenge, challenge

        _, admin = await asyncio.to_thread(sign_in, http.port, idp, "mcp:read mcp:admin")
        bearer = {"Authorization": f"Bearer {admin}"}
        async with Client.http(f"http://127.0.0.1:{http.port}/mcp", headers=bearer) as c:
            r = await c.call_tool("whoami", {})
        assert json.loads(r["content"][0]["text"])["scopes"] == ["mcp:read", "mcp:admin"]
    finally:
        await http.close()
        idp.close()

    with pytest.raises(InvalidParams, match="mcp:write"):
        bad = config()
        bad.scopes_supported = ["mcp:read"]
        bad.required_scopes = ["mcp:write"]
        await server.serve_http(port=0, oauth_proxy=bad)
