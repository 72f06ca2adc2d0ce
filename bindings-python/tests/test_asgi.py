"""The documented equivalent of mounting in an ASGI app: the app's lifespan runs the Rust
Streamable HTTP server beside it (README, "Mounting in an ASGI app")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import ferromcp
import pytest
from ferromcp import Context, Server

pytest.importorskip("starlette")
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402


def make_app() -> tuple[Starlette, Server]:
    server = Server("mounted")

    @server.tool()
    def hello(ctx: Context) -> str:
        return f"hello from {ctx.lifespan_context}"

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with await server.serve_http("127.0.0.1", 0) as http:
            app.state.mcp_url = http.url
            yield

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "mcp": request.app.state.mcp_url})

    return Starlette(routes=[Route("/health", health)], lifespan=lifespan), server


async def asgi_get(app: Any, path: str) -> tuple[int, Any]:
    """One GET through the ASGI interface (no HTTP client needed)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body)


async def test_app_lifespan_runs_the_mcp_server_beside_custom_routes() -> None:
    import asyncio

    app, _ = make_app()
    to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    from_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.ensure_future(app(scope, to_app.get, from_app.put))
    await to_app.put({"type": "lifespan.startup"})
    assert (await asyncio.wait_for(from_app.get(), 10))["type"] == "lifespan.startup.complete"
    url = app.state.mcp_url
    try:
        status, body = await asgi_get(app, "/health")
        assert status == 200 and body == {"ok": True, "mcp": url}
        async with ferromcp.Client.http(url) as c:
            r = await c.call_tool("hello")
            assert r.data == "hello from None"
    finally:
        await to_app.put({"type": "lifespan.shutdown"})
        assert (await asyncio.wait_for(from_app.get(), 10))["type"] == "lifespan.shutdown.complete"
        await task
    # The MCP server stopped with the app.
    try:
        async with ferromcp.Client.http(url, legacy_fallback=False, timeout=2) as c:
            await c.ping()
        raise AssertionError("still serving")
    except ferromcp.McpError:
        pass
