"""``Server(supported_versions=...)``: the protocol revisions a server speaks. A server of
2026-07-28 only refuses ``initialize`` with -32022 (HTTP 400) naming what it speaks and still
serves per-request calls; a server without 2026-07-28 refuses a per-request request with -32022
(2026-07-28, versioning) and still serves handshake clients; a bad list fails at construction.
The requests are sent raw over Streamable HTTP, as each era's client sends them."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from test_mrtr import meta

from ferromcp import Client, InvalidParams, Server, UnsupportedProtocolVersion

KNOWN = '"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"'


def make_server(versions: list[str]) -> Server:
    server = Server("versions", version="1.0.0", supported_versions=versions)

    @server.tool()
    def echo(text: str) -> str:
        """Answers with its argument."""
        return f"echo: {text}"

    return server


def post(url: str, body: dict[str, Any], version: str | None) -> tuple[int, dict[str, Any]]:
    """One POST; the HTTP status and the JSON-RPC answer (JSON body or last SSE message)."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if version is not None:
        headers["mcp-protocol-version"] = version
        headers["mcp-method"] = body["method"]
        name = body.get("params", {}).get("name")
        if name is not None:
            headers["mcp-name"] = name
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, text, kind = (
                resp.status,
                resp.read().decode(),
                resp.headers.get("content-type", ""),
            )
    except urllib.error.HTTPError as e:
        status, text, kind = e.code, e.read().decode(), e.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        data = [
            line[5:] for line in text.splitlines() if line.startswith("data:") and line[5:].strip()
        ]
        text = data[-1]
    answer: dict[str, Any] = json.loads(text)
    return status, answer


def initialize(asked: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": asked,
            "capabilities": {},
            "clientInfo": {"name": "py-test", "version": "1.0"},
        },
    }


def per_request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "method": method, "params": {**params, "_meta": meta({})}}


async def test_a_server_of_2026_07_28_only_refuses_initialize_and_serves_per_request_calls() -> (
    None
):
    server = make_server(["2026-07-28"])
    async with await server.serve_http("127.0.0.1", 0) as h:
        for asked in ("2025-11-25", "2024-11-05"):
            status, answer = await asyncio.to_thread(post, h.url, initialize(asked), None)
            assert status == 400, answer
            assert answer["error"]["code"] == -32022, answer
            assert answer["error"]["data"] == {"supported": ["2026-07-28"], "requested": asked}
        status, answer = await asyncio.to_thread(
            post, h.url, per_request("server/discover", {}), "2026-07-28"
        )
        assert status == 200, answer
        assert answer["result"]["supportedVersions"] == ["2026-07-28"], answer
        call = per_request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        status, answer = await asyncio.to_thread(post, h.url, call, "2026-07-28")
        assert status == 200, answer
        assert answer["result"]["content"] == [{"type": "text", "text": "echo: hi"}], answer
        # The Python client in the handshake era is told what the server speaks (no fallback).
        with pytest.raises(UnsupportedProtocolVersion) as refused:
            async with Client.http(h.url):
                pass
        assert refused.value.data == {"supported": ["2026-07-28"], "requested": "2025-11-25"}


async def test_a_server_without_2026_07_28_refuses_per_request_calls_and_serves_handshakes() -> (
    None
):
    server = make_server(["2025-11-25", "2025-06-18"])
    async with await server.serve_http("127.0.0.1", 0) as h:
        call = per_request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        for req in (call, per_request("server/discover", {})):
            status, answer = await asyncio.to_thread(post, h.url, req, "2026-07-28")
            assert status == 400, answer
            assert answer["id"] == 2, answer
            assert answer["error"]["code"] == -32022, answer
            assert answer["error"]["data"] == {
                "supported": ["2025-11-25", "2025-06-18"],
                "requested": "2026-07-28",
            }, answer
        status, answer = await asyncio.to_thread(post, h.url, initialize("2025-11-25"), None)
        assert status == 200, answer
        assert answer["result"]["protocolVersion"] == "2025-11-25", answer
        async with Client.http(h.url) as c:
            result = await c.call_tool("echo", {"text": "hi"})
            assert result.text == "echo: hi"
            assert c.protocol_version == "2025-11-25"


@pytest.mark.parametrize(
    ("versions", "says"),
    [
        (
            ["2025-11-25", "2026-01-01"],
            f'unknown protocol revision "2026-01-01" \\(known: {KNOWN}\\)',
        ),
        ([], f"supportedVersions must name at least one revision \\(known: {KNOWN}\\)"),
    ],
)
def test_a_bad_list_fails_at_construction(versions: list[str], says: str) -> None:
    with pytest.raises(InvalidParams, match=says):
        Server("bad", supported_versions=versions)  # type: ignore[arg-type]
