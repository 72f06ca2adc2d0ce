"""``serve_http(compression=...)``: ``Content-Encoding`` of answers and request bodies
(docs/compression.md). On by default: a large answer is gzip-encoded when the request's
``Accept-Encoding`` allows it, and a gzip request body is decoded; options of one's own (a
dict) are honoured; ``False`` answers as it is and refuses encoded bodies with 415. The
scenarios of core/tests/integration/http_compression.rs, through the Python binding."""

from __future__ import annotations

import asyncio
import gzip
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from ferromcp import InvalidParams, Server

TEXT = "compressible " * 2000  # 26,000 bytes


def big_server() -> Server:
    server = Server("compression", version="1.0.0")

    @server.tool()
    def big() -> str:
        """A large answer."""
        return TEXT

    return server


CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "big", "arguments": {}},
}


def post(url: str, body: bytes, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One POST (stateless, JSON answers); the status, the header fields and the raw body."""
    head = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
        **headers,
    }
    req = urllib.request.Request(url, body, head, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def text_of(body: bytes) -> str:
    answer: dict[str, Any] = json.loads(body)
    text: str = answer["result"]["content"][0]["text"]
    return text


async def call(compression: Any, **headers: str) -> tuple[int, dict[str, str], bytes]:
    kwargs: dict[str, Any] = {} if compression == "default" else {"compression": compression}
    server = big_server()
    async with await server.serve_http(
        "127.0.0.1", 0, stateless=True, json_response=True, **kwargs
    ) as http:
        return await asyncio.to_thread(post, http.url, json.dumps(CALL).encode(), **headers)


@pytest.mark.parametrize("compression", ["default", True, {"codings": ["gzip"], "minSize": 1}])
async def test_a_large_answer_crosses_gzip_encoded(compression: Any) -> None:
    status, head, body = await call(compression, **{"Accept-Encoding": "gzip"})
    assert status == 200, body
    assert head.get("content-encoding") == "gzip"
    assert len(body) < len(TEXT) // 5, len(body)
    assert text_of(gzip.decompress(body)) == TEXT


async def test_without_accept_encoding_the_answer_is_sent_as_it_is() -> None:
    status, head, body = await call("default")
    assert status == 200
    assert "content-encoding" not in head
    assert text_of(body) == TEXT


async def test_a_gzip_request_body_is_decoded() -> None:
    status, _, body = await call("default", **{"Content-Encoding": "gzip"})
    assert status == 400  # the body above was not gzip: refused, not read as JSON
    server = big_server()
    async with await server.serve_http("127.0.0.1", 0, stateless=True, json_response=True) as http:
        status, _, body = await asyncio.to_thread(
            post, http.url, gzip.compress(json.dumps(CALL).encode()), **{"Content-Encoding": "gzip"}
        )
    assert status == 200, body
    assert text_of(body) == TEXT


async def test_compression_off_answers_as_is_and_refuses_encoded_bodies() -> None:
    status, head, body = await call(False, **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert "content-encoding" not in head
    assert text_of(body) == TEXT
    server = big_server()
    async with await server.serve_http(
        "127.0.0.1", 0, stateless=True, json_response=True, compression=False
    ) as http:
        status, _, _ = await asyncio.to_thread(
            post, http.url, gzip.compress(json.dumps(CALL).encode()), **{"Content-Encoding": "gzip"}
        )
    assert status == 415


async def test_bad_compression_options_are_invalid_params() -> None:
    with pytest.raises(InvalidParams, match="unknown coding"):
        await big_server().serve_http("127.0.0.1", 0, compression={"codings": ["lzma"]})
