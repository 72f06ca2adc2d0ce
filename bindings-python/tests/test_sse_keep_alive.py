"""``sse_keep_alive``: an open SSE stream that carries nothing gets a ``: keep-alive`` comment
every so many seconds (default 15 s), so proxies that cut idle connections leave it open;
``None`` turns the comments off. The scenarios of core/tests/integration/http_sse_keep_alive.rs,
through ``serve_http`` and through the ASGI app (``http_app``) under uvicorn."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from ferromcp import Server
from ferromcp.serving import Serving

from test_asgi_app import initialize, send_get_stream_request, uvicorn_serving
from test_config_schema import _FakeServing, _Sent

COMMENT = b": keep-alive\n\n"


def idle_server() -> Server:
    server = Server("keep-alive", version="1.0.0")

    @server.tool()
    def echo(text: str) -> str:
        """Echoes."""
        return text

    return server


async def read_get_stream(base: str, session: str, seconds: float) -> bytes:
    """Everything the session's GET stream carries for ``seconds`` (its head included)."""
    reader, writer = await send_get_stream_request(base, session)
    got = b""
    end = time.monotonic() + seconds
    try:
        while (left := end - time.monotonic()) > 0:
            try:
                chunk = await asyncio.wait_for(reader.read(4096), left)
            except asyncio.TimeoutError:
                break
            if not chunk:
                break
            got += chunk
    finally:
        writer.close()
    assert got.startswith(b"HTTP/1.1 200"), got[:200]
    return got


async def test_an_idle_get_stream_gets_keep_alive_comments_on_schedule() -> None:
    async with await idle_server().serve_http("127.0.0.1", 0, sse_keep_alive=0.1) as http:
        base = http.url.removesuffix("/mcp")
        got = await read_get_stream(base, await initialize(base), 0.55)
    assert 3 <= got.count(COMMENT) <= 6, got


async def test_keep_alive_comments_can_be_turned_off() -> None:
    async with await idle_server().serve_http("127.0.0.1", 0, sse_keep_alive=None) as http:
        base = http.url.removesuffix("/mcp")
        got = await read_get_stream(base, await initialize(base), 0.4)
    assert b"keep-alive" not in got, got


async def test_the_asgi_app_sends_them_too() -> None:
    async with uvicorn_serving(idle_server().http_app(sse_keep_alive=0.1)) as base:
        got = await read_get_stream(base, await initialize(base), 0.55)
    assert got.count(COMMENT) >= 3, got


async def test_the_default_is_15_seconds() -> None:
    with pytest.raises(_Sent) as sent:
        await Serving.serve_http(_FakeServing(), "127.0.0.1", 0)  # type: ignore[arg-type]
    options: dict[str, Any] = sent.value.config
    assert options["sseKeepAliveMs"] == 15_000
