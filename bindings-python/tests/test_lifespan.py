"""Lifespan state, ctx.read_resource, notifications and headers from the context."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import ferromcp
import pytest
from ferromcp import Context, Server


def lifespan_server(events: list[str]) -> Server:
    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
        events.append(f"start {server.name}")
        try:
            yield {"db": "connected"}
        finally:
            events.append("stop")

    server = Server("life", lifespan=lifespan)

    @server.tool()
    async def db_async(ctx: Context) -> str:
        return str(ctx.lifespan_context["db"])

    @server.tool()
    def db_sync(ctx: Context) -> str:
        return str(ctx.request_context.lifespan_context["db"])

    return server


async def test_lifespan_in_memory_entered_once_and_left() -> None:
    events: list[str] = []
    server = lifespan_server(events)
    assert server.lifespan_context is None
    async with ferromcp.Client.memory(server) as c1:
        assert events == ["start life"]
        async with ferromcp.Client.memory(server) as c2:
            r = await c2.call_tool("db_sync")
            assert r["structuredContent"] == {"result": "connected"}
        assert events == ["start life"]  # c1 still connected
        r = await c1.call_tool("db_async")
        assert r["structuredContent"] == {"result": "connected"}
    assert events == ["start life", "stop"]
    assert server.lifespan_context is None


async def test_lifespan_over_http() -> None:
    events: list[str] = []
    server = lifespan_server(events)
    http = await server.serve_http("127.0.0.1", 0)
    try:
        assert events == ["start life"]
        async with ferromcp.Client.http(http.url) as c:
            r = await c.call_tool("db_async")
            assert r["structuredContent"] == {"result": "connected"}
    finally:
        await http.close()
    assert events == ["start life", "stop"]


async def test_lifespan_over_stdio(tmp_path: Path) -> None:
    log = tmp_path / "events.txt"
    script = tmp_path / "server.py"
    script.write_text(
        textwrap.dedent(
            f"""
            from contextlib import asynccontextmanager
            from ferromcp import Context, Server

            @asynccontextmanager
            async def lifespan(server):
                open({str(log)!r}, "a").write("start\\n")
                yield {{"answer": 42}}
                open({str(log)!r}, "a").write("stop\\n")

            server = Server("stdio-life", lifespan=lifespan)

            @server.tool
            def answer(ctx: Context) -> int:
                return ctx.lifespan_context["answer"]

            server.run()
            """
        )
    )
    async with ferromcp.Client.stdio(sys.executable, [str(script)]) as c:
        r = await c.call_tool("answer")
        assert r["structuredContent"] == {"result": 42}
    for _ in range(100):
        if log.exists() and log.read_text() == "start\nstop\n":
            break
        await asyncio.sleep(0.05)
    assert log.read_text() == "start\nstop\n"


async def test_lifespan_as_a_plain_async_generator() -> None:
    async def lifespan(server: Server) -> AsyncIterator[str]:
        yield "state"

    server = Server("t", lifespan=lifespan)

    @server.tool()
    def get(ctx: Context) -> str:
        return str(ctx.lifespan_context)

    async with ferromcp.Client.memory(server) as c:
        assert (await c.call_tool("get"))["structuredContent"] == {"result": "state"}


def test_lifespan_must_be_a_context_manager() -> None:
    async def not_a_cm(server: Server) -> None:
        return None

    server = Server("t", lifespan=not_a_cm)

    async def main() -> None:
        with pytest.raises(TypeError, match="asynccontextmanager"):
            await ferromcp.Client.memory(server).connect()

    asyncio.run(main())


async def test_ctx_read_resource() -> None:
    server = Server("t")

    @server.resource("config://app", mime_type="application/json")
    def config() -> dict[str, Any]:
        return {"debug": True}

    @server.resource("users://{user_id}/avatar")
    def avatar(user_id: int) -> bytes:
        return bytes([user_id])

    @server.tool()
    async def summary(ctx: Context) -> list[Any]:
        cfg = await ctx.read_resource("config://app")
        img = await ctx.read_resource("users://7/avatar")
        try:
            await ctx.read_resource("nope://x")
        except ferromcp.McpError as e:
            missing = type(e).__name__
        return [cfg, img, missing]

    async with ferromcp.Client.memory(server) as c:
        r = await c.call_tool("summary")
        cfg, img, missing = r["structuredContent"]["result"]
        assert cfg == [
            {"uri": "config://app", "mimeType": "application/json", "text": '{"debug": true}'}
        ]
        assert img == [
            {"uri": "users://7/avatar", "mimeType": "application/octet-stream", "blob": "Bw=="}
        ]
        assert missing == "ResourceNotFound"
        # A second call reuses the server's own in-memory client.
        r = await c.call_tool("summary")
        assert r["structuredContent"]["result"][0] == cfg


async def test_notifications_from_the_context() -> None:
    server = Server("t")
    received: list[tuple[str, Any]] = []

    @server.resource("r://watched")
    def watched() -> str:
        return "v"

    @server.tool()
    async def poke(ctx: Context) -> str:
        await ctx.notify_tool_list_changed()
        await ctx.notify_resource_list_changed()
        await ctx.notify_prompt_list_changed()
        await ctx.notify_resource_updated("r://watched")
        await ctx.notify("notifications/message", {"level": "info", "data": "raw"})
        return "ok"

    def on_notification(method: str, params: Any) -> None:
        received.append((method, params))

    async with ferromcp.Client.memory(server, on_notification=on_notification) as c:
        await c.subscribe("r://watched")
        await c.call_tool("poke")
        for _ in range(100):
            if len(received) >= 5:
                break
            await asyncio.sleep(0.01)
    methods = [m for m, _ in received]
    assert "notifications/tools/list_changed" in methods
    assert "notifications/resources/list_changed" in methods
    assert "notifications/prompts/list_changed" in methods
    assert ("notifications/resources/updated", {"uri": "r://watched"}) in received
    assert "notifications/message" in methods


async def test_request_headers_in_the_context() -> None:
    server = Server("t")

    @server.tool()
    def who(ctx: Context) -> dict[str, Any]:
        return {
            "auth": ctx.headers.get("authorization"),
            "custom": ctx.request_context.headers.get("x-custom"),
        }

    @server.tool()
    def none(ctx: Context) -> dict[str, Any]:
        return {"headers": ctx.headers, "raw": ctx.http_headers}

    async with ferromcp.Client.memory(server) as c:
        r = await c.call_tool("none")
        assert r["structuredContent"] == {"headers": {}, "raw": None}
    async with await server.serve_http("127.0.0.1", 0) as http:
        async with ferromcp.Client.http(
            http.url, headers={"Authorization": "Bearer t0k", "X-Custom": "yes"}
        ) as c:
            r = await c.call_tool("who")
            assert r["structuredContent"] == {"auth": "Bearer t0k", "custom": "yes"}


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


@dataclasses.dataclass
class Ticket:
    title: str
    priority: Priority = Priority.LOW
    count: int = 1


async def test_elicit_with_a_type_inlines_refs_and_validates() -> None:
    server = Server("t")
    asked: list[dict[str, Any]] = []

    @server.tool()
    async def file_ticket(ctx: Context) -> str:
        r = await ctx.elicit("New ticket?", Ticket)
        assert r["action"] == r.action
        if r.action != "accept":
            return r.action
        ticket = r.data
        assert isinstance(ticket, Ticket)
        return f"{ticket.title} {ticket.priority.name} {ticket.count}"

    answers = [
        {"action": "accept", "content": {"title": "Bug", "priority": "high"}},
        {"action": "decline"},
    ]

    async def elicitation(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
        asked.append(params["requestedSchema"])
        return answers.pop(0)

    async with ferromcp.Client.memory(server, elicitation_handler=elicitation) as c:
        r = await c.call_tool("file_ticket")
        assert r["structuredContent"] == {"result": "Bug HIGH 1"}
        r = await c.call_tool("file_ticket")
        assert r["structuredContent"] == {"result": "decline"}
    schema = asked[0]
    assert "$defs" not in schema and "$ref" not in str(schema)
    assert schema["properties"]["priority"]["enum"] == ["low", "high"]
    assert schema["required"] == ["title"]
