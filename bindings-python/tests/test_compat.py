"""A FastMCP (official SDK) server ported by changing its imports."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import textwrap
from pathlib import Path

import ferromcp
import pytest
from ferromcp import Context, FastMCP, MCPServer

# The same server the official SDK 1.x documents, with only the imports changed.
PORTED = textwrap.dedent(
    """
    import sys
    from contextlib import asynccontextmanager
    from typing import Annotated
    from pydantic import BaseModel, Field
    from ferromcp import FastMCP, Context, Image   # was: from mcp.server.fastmcp import ...

    class Order(BaseModel):
        item: str
        qty: Annotated[int, Field(ge=1)] = 1

    @asynccontextmanager
    async def lifespan(server):
        yield {"stock": {"apple": 3}}

    mcp = FastMCP("shop", instructions="A shop.", lifespan=lifespan, port=int(sys.argv[2]))

    @mcp.tool()
    def order(o: Order, ctx: Context) -> dict:
        '''Places an order.'''
        stock = ctx.request_context.lifespan_context["stock"]
        return {"item": o.item, "ok": stock.get(o.item, 0) >= o.qty}

    @mcp.resource("stock://{item}")
    def stock(item: str) -> str:
        return "3"

    @mcp.prompt()
    def ask(item: str) -> str:
        return f"Do you have {item}?"

    if __name__ == "__main__":
        mcp.run(transport=sys.argv[1])
    """
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def exercise(client: ferromcp.Client) -> None:
    assert client.initialize_result["instructions"] == "A shop."
    r = await client.call_tool("order", {"o": {"item": "apple", "qty": 2}})
    assert r.data == {"item": "apple", "ok": True}
    assert (await client.read_resource("stock://apple")).text == "3"
    p = await client.get_prompt("ask", {"item": "pears"})
    assert p.messages[0]["content"]["text"] == "Do you have pears?"


async def test_ported_server_over_stdio(tmp_path: Path) -> None:
    script = tmp_path / "shop.py"
    script.write_text(PORTED)
    async with ferromcp.Client.stdio(sys.executable, [str(script), "stdio", "0"]) as c:
        await exercise(c)


async def test_ported_server_over_streamable_http(tmp_path: Path) -> None:
    script = tmp_path / "shop.py"
    script.write_text(PORTED)
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        "streamable-http",
        str(port),
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        line = await asyncio.wait_for(proc.stderr.readline(), 30)
        assert f"http://127.0.0.1:{port}/mcp" in line.decode()
        async with ferromcp.Client.http(f"http://127.0.0.1:{port}/mcp") as c:
            await exercise(c)
    finally:
        proc.terminate()
        await proc.wait()


def test_constructor_and_run_arguments() -> None:
    assert FastMCP is MCPServer
    s = MCPServer("x", debug=True, log_level="DEBUG", host="0.0.0.0", port=9, stateless_http=True)
    assert s._http_options({"port": 10, "json_response": True}) == {
        "host": "0.0.0.0",
        "port": 10,
        "stateless": True,
        "json_response": True,
    }
    with pytest.raises(TypeError, match="auth"):
        MCPServer("x", auth=object())
    with pytest.raises(TypeError, match="event_store"):
        s.run("streamable-http", event_store=object())
    with pytest.raises(ValueError, match="Unknown transport"):
        s.run("carrier-pigeon")
    assert callable(s.streamable_http_app())  # an ASGI app (tests/test_asgi_app.py)


class ServerSession:
    """Stands in for mcp.server.session.ServerSession in ported annotations."""


class AppContext:
    def __init__(self) -> None:
        self.db = "db"


async def test_fastmcp_context_idioms() -> None:
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(server: FastMCP) -> AsyncIterator[AppContext]:
        yield AppContext()

    mcp = FastMCP("idioms", lifespan=lifespan)

    @mcp.resource("config://app", mime_type="application/json")
    def config() -> dict[str, bool]:
        return {"debug": True}

    @mcp.resource("logo://png")
    def logo() -> bytes:
        return b"\x89PNG"

    @mcp.tool()
    async def query(ctx: Context[ServerSession, AppContext]) -> list[str]:
        app = ctx.request_context.lifespan_context
        (cfg,) = await ctx.read_resource("config://app")
        (png,) = await ctx.read_resource("logo://png")
        assert ctx.fastmcp is mcp
        assert isinstance(png.content, bytes)
        return [app.db, str(cfg.content), str(cfg.mime_type), png.content.hex()]

    async with ferromcp.Client.memory(mcp) as c:
        (tool,) = await c.list_all_tools()
        assert tool.input_schema["properties"] == {}  # the context is not an argument
        r = await c.call_tool("query")
        assert r.data == ["db", '{"debug": true}', "application/json", "89504e47"]
        res = await c.read_resource("logo://png")
        assert res.contents[0].content == b"\x89PNG"

    with pytest.raises(NotImplementedError, match="streamable_http_app"):
        mcp.custom_route("/health", methods=["GET"])


async def test_an_mcpserver_resource_without_mime_type_is_text_plain_as_in_the_sdk() -> None:
    mcp = MCPServer("mime")

    @mcp.resource("mem://note")
    def note() -> str:
        return "hi"

    @mcp.resource("mem://items/{id}")
    def item(id: str) -> dict[str, str]:
        return {"id": id}

    @mcp.resource("mem://data", mime_type="application/json")
    def data() -> dict[str, int]:
        return {"n": 1}

    plain = ferromcp.Server("plain")

    @plain.resource("mem://note")
    def plain_note() -> str:
        return "hi"

    async with ferromcp.Client.memory(mcp) as c:
        listed = {r["uri"]: r.get("mimeType") for r in (await c.list_resources())["resources"]}
        assert listed == {"mem://note": "text/plain", "mem://data": "application/json"}
        [template] = (await c.list_resource_templates())["resourceTemplates"]
        assert template["mimeType"] == "text/plain"
        assert (await c.read_resource("mem://note")).contents[0]["mimeType"] == "text/plain"
        read = (await c.read_resource("mem://items/7")).contents[0]
        assert (read["mimeType"], json.loads(read["text"])) == ("text/plain", {"id": "7"})
    async with ferromcp.Client.memory(plain) as c:  # ferromcp's own Server: none given, none sent
        [r] = (await c.list_resources())["resources"]
        assert "mimeType" not in r
