"""ferromcp.OAuth: argument checks and what reaches the engine (the flow itself runs in the
conformance suite's auth/* scenarios, tests/run-python.sh); ferromcp.ProtectedResource: a
protected server refusing bad tokens and handing the identity to handlers."""

from __future__ import annotations

import asyncio
import http.client as http_client
import json
import pathlib
import socket
import time
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
    assert (c["token_file"], c["token_store"]) == (str(path), None)
    store = DictStore()
    c = OAuth(token_store=store)._native_config()
    assert (c["token_file"], c["token_store"]) == (None, store)
    c = OAuth(client_credentials=True, client_id="a", client_secret="b")._native_config()
    assert c["grant"] == "client_credentials"


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
