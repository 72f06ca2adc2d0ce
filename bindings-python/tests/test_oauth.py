"""ferromcp.OAuth: argument checks and what reaches the engine (the flow itself runs in the
conformance suite's auth/* scenarios, tests/run-python.sh); ferromcp.ProtectedResource: a
protected server refusing bad tokens and handing the identity to handlers."""

from __future__ import annotations

import asyncio
import http.client as http_client
import json
import pathlib
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ferromcp import Client, Context, OAuth, ProtectedResource, Server, TransportError


class DictStore:
    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}

    def load(self, key: str) -> dict[str, Any] | None:
        return self.data.get(key)

    def save(self, key: str, value: dict[str, Any]) -> None:
        self.data[key] = value

    def remove(self, key: str) -> None:
        self.data.pop(key, None)


async def redirect(url: str) -> str:
    return url


def test_inconsistent_options_are_refused() -> None:
    with pytest.raises(ValueError, match="redirect_uri"):
        OAuth(on_redirect=redirect)
    with pytest.raises(ValueError, match="client_id and client_secret"):
        OAuth(client_credentials=True, client_id="x")
    with pytest.raises(ValueError, match="max_attempts"):
        OAuth(max_attempts=0)


def test_token_store_kinds(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tokens.json"
    c = OAuth(token_store=path)._native_config()
    assert (c["settings"]["tokenFile"], c["token_store"]) == (str(path), None)
    store = DictStore()
    c = OAuth(token_store=store)._native_config()
    assert ("tokenFile" in c["settings"], c["token_store"]) == (False, store)
    c = OAuth(client_credentials=True, client_id="a", client_secret="b")._native_config()
    assert c["settings"]["clientCredentials"] is True


async def test_unreachable_server_fails_with_a_transport_error() -> None:
    # Nothing listens on port 9: the engine accepts the OAuth config and fails to connect.
    client = Client.http(
        "http://127.0.0.1:9/mcp",
        legacy_fallback=False,
        auth=OAuth(
            on_redirect=redirect, redirect_uri="http://127.0.0.1:1/cb", token_store=DictStore()
        ),
    )
    with pytest.raises(Exception, match="(?i)transport|connect"):
        await client.connect()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_protected_server_checks_tokens_and_passes_identity() -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    seen: list[str] = []

    async def verify(token: str) -> dict[str, Any] | None:
        seen.append(token)
        tokens: dict[str, dict[str, Any]] = {
            "good": {
                "subject": "alice",
                "scopes": "mcp extra",
                "audience": resource,
                "expires_at": time.time() + 600,
                "claims": {"tenant": "t1"},
            },
            "narrow": {"subject": "bob", "scopes": ["other"], "audience": [resource]},
            "elsewhere": {"subject": "eve", "scopes": ["mcp"], "audience": "http://other/mcp"},
        }
        return tokens.get(token)

    server = Server("protected")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        auth = ctx.auth
        assert auth is not None
        return f"{auth['subject']}|{' '.join(auth['scopes'])}|{auth['claims']['tenant']}"

    protection = ProtectedResource(
        resource=resource,
        verify=verify,
        authorization_servers=["http://as.example"],
        required_scopes=["mcp"],
    )
    async with await server.serve_http("127.0.0.1", port, auth=protection) as http:
        assert http.url == resource
        async with Client.http(http.url, headers={"Authorization": "Bearer good"}) as client:
            r = await client.call_tool("whoami", {})
            assert r["content"][0]["text"] == "alice|mcp extra|t1"
        for headers, status in [
            ({}, 401),
            ({"Authorization": "Bearer nope"}, 401),
            ({"Authorization": "Bearer elsewhere"}, 401),
            ({"Authorization": "Bearer narrow"}, 403),
        ]:
            with pytest.raises(TransportError) as e:
                await Client.http(http.url, headers=headers, legacy_fallback=False).connect()
            assert (e.value.data or {}).get("httpStatus") == status, (headers, e.value)

        def get_metadata() -> tuple[int, str, dict[str, Any]]:
            conn = http_client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("POST", "/mcp", body="{}", headers={"content-type": "application/json"})
            r = conn.getresponse()
            challenge = r.getheader("WWW-Authenticate") or ""
            r.read()
            conn.request("GET", "/.well-known/oauth-protected-resource/mcp")
            doc = json.loads(conn.getresponse().read())
            conn.close()
            return r.status, challenge, doc

        status, challenge, doc = await asyncio.to_thread(get_metadata)
        assert status == 401
        meta = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        assert challenge == f'Bearer resource_metadata="{meta}", scope="mcp"'
        assert doc["resource"] == resource
        assert doc["authorization_servers"] == ["http://as.example"]
    assert "good" in seen and "narrow" in seen


class MiniAS(BaseHTTPRequestHandler):
    """A tiny authorization server: approves at once, issues ``tok-N``."""

    counts: dict[str, int] = {}

    def log_message(self, *args: Any) -> None:
        pass

    def answer(self, status: int, body: dict[str, Any] | None = None, **headers: str) -> None:
        data = json.dumps(body or {}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        url = urllib.parse.urlsplit(self.path)
        MiniAS.counts[url.path] = MiniAS.counts.get(url.path, 0) + 1
        if url.path == "/.well-known/oauth-authorization-server":
            self.answer(
                200,
                {
                    "issuer": base,
                    "authorization_endpoint": f"{base}/authorize",
                    "token_endpoint": f"{base}/token",
                    "registration_endpoint": f"{base}/register",
                    "code_challenge_methods_supported": ["S256"],
                },
            )
        elif url.path == "/authorize":
            q = dict(urllib.parse.parse_qsl(url.query))
            target = f"{q['redirect_uri']}?code=c1&state={urllib.parse.quote(q['state'])}"
            self.answer(302, location=target)
        else:
            self.answer(404)

    def do_POST(self) -> None:
        MiniAS.counts[self.path] = MiniAS.counts.get(self.path, 0) + 1
        self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/register":
            self.answer(201, {"client_id": "py-client"})
        elif self.path == "/token":
            n = MiniAS.counts[self.path]
            self.answer(
                200,
                {
                    "access_token": f"tok-{n}",
                    "token_type": "Bearer",
                    "expires_in": 3600,
                    "refresh_token": f"r{n}",
                },
            )
        else:
            self.answer(404)


def approve(url: str) -> str:
    u = urllib.parse.urlsplit(url)
    conn = http_client.HTTPConnection(u.hostname or "", u.port or 80, timeout=10)
    conn.request("GET", f"{u.path}?{u.query}")
    r = conn.getresponse()
    r.read()
    conn.close()
    return r.getheader("Location") or ""


async def test_client_authorizes_with_python_callbacks_and_store() -> None:
    MiniAS.counts = {}
    as_server = ThreadingHTTPServer(("127.0.0.1", 0), MiniAS)
    threading.Thread(target=as_server.serve_forever, daemon=True).start()
    as_url = f"http://127.0.0.1:{as_server.server_address[1]}"
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"

    def verify(token: str) -> dict[str, Any] | None:
        if not token.startswith("tok-"):
            return None
        return {"subject": token, "scopes": ["mcp"], "audience": resource}

    server = Server("protected")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        return str((ctx.auth or {}).get("subject"))

    protection = ProtectedResource(resource=resource, verify=verify, authorization_servers=[as_url])
    store = DictStore()
    try:
        async with await server.serve_http("127.0.0.1", port, auth=protection) as http:
            for _ in range(2):
                auth = OAuth(
                    on_redirect=approve, redirect_uri="http://127.0.0.1:1/cb", token_store=store
                )
                async with Client.http(http.url, auth=auth, legacy_fallback=False) as client:
                    r = await client.call_tool("whoami", {})
                    assert r["content"][0]["text"] == "tok-1"
    finally:
        as_server.shutdown()
    # The second client reused the stored token and registration: one authorization in all.
    assert (MiniAS.counts.get("/register"), MiniAS.counts.get("/authorize")) == (1, 1)
    assert MiniAS.counts.get("/token") == 1
    saved = store.data[resource]
    assert saved["tokens"]["access_token"] == "tok-1"
    assert saved["client"]["client_id"] == "py-client"


class BrokenStore(DictStore):
    def load(self, key: str) -> dict[str, Any] | None:
        raise OSError("keychain locked")


async def _protected_server_and_as() -> tuple[Server, ProtectedResource, ThreadingHTTPServer, int]:
    MiniAS.counts = {}
    as_server = ThreadingHTTPServer(("127.0.0.1", 0), MiniAS)
    threading.Thread(target=as_server.serve_forever, daemon=True).start()
    as_url = f"http://127.0.0.1:{as_server.server_address[1]}"
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    server = Server("protected")

    @server.tool()
    async def whoami() -> str:
        return "someone"

    protection = ProtectedResource(
        resource=resource,
        verify=lambda token: {"subject": token, "scopes": ["mcp"], "audience": resource},
        authorization_servers=[as_url],
    )
    return server, protection, as_server, port


async def test_a_failing_token_store_names_itself_and_the_operation() -> None:
    server, protection, as_server, port = await _protected_server_and_as()
    try:
        async with await server.serve_http("127.0.0.1", port, auth=protection) as http:
            auth = OAuth(
                on_redirect=approve, redirect_uri="http://127.0.0.1:1/cb", token_store=BrokenStore()
            )
            with pytest.raises(Exception, match=r"token_store\.load: .*keychain locked"):
                async with Client.http(http.url, auth=auth, legacy_fallback=False) as client:
                    await client.call_tool("whoami", {})
    finally:
        as_server.shutdown()


async def test_expected_issuer_refuses_another_authorization_server() -> None:
    server, protection, as_server, port = await _protected_server_and_as()
    try:
        async with await server.serve_http("127.0.0.1", port, auth=protection) as http:
            auth = OAuth(
                on_redirect=approve,
                redirect_uri="http://127.0.0.1:1/cb",
                expected_issuer="https://login.example.com",
            )
            with pytest.raises(Exception, match="issuer"):
                async with Client.http(http.url, auth=auth, legacy_fallback=False) as client:
                    await client.call_tool("whoami", {})
    finally:
        as_server.shutdown()
    assert MiniAS.counts.get("/authorize") is None and MiniAS.counts.get("/token") is None
