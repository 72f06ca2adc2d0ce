"""Middleware (issue 37): Python layers (async and sync functions, ``@server.middleware``, the
FastMCP-style ``Middleware`` class) around every request, in order, answering, refusing,
changing the request and the result; the Rust built-ins by name (``RateLimit``, ``MaskErrors``,
``RequestLog``, ``Timing``, config dicts) on ``Server`` and ``MCPServer``. The scenario names are
those of core/tests/integration/middleware.rs (and middleware_http.rs) and
embed/tests/integration/middleware.rs where the scenario is the same."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ferromcp import (
    Client,
    Context,
    InvalidParams,
    McpError,
    MCPServer,
    RateLimited,
    Server,
)
from ferromcp.middleware import (
    CallNext,
    MaskErrors,
    Middleware,
    MiddlewareContext,
    NotificationContext,
    RateLimit,
    RequestLog,
    Timing,
    TimingEvent,
)

from conftest import token_protection


def make_server(**kwargs: Any) -> Server:
    server = Server("mw", version="1.0.0", **kwargs)

    @server.tool()
    def echo(text: str = "echoed") -> str:
        """Echoes."""
        return text

    @server.tool()
    def boom() -> str:
        """Fails."""
        raise ValueError("db password is hunter2")

    @server.resource("mem://a")
    def a() -> str:
        """A."""
        return "a"

    @server.prompt()
    def greet(name: str) -> str:
        """Greets."""
        return f"hello {name}"

    return server


async def test_middleware_sees_every_method() -> None:
    server = make_server()
    seen: list[MiddlewareContext] = []

    @server.middleware
    async def record(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        seen.append(ctx)
        return await call_next(ctx)

    @server.completion(prompt="greet", argument="name")
    def names(value: str) -> list[str]:
        return ["one"]

    async with Client.memory(server) as c:
        await c.list_tools()
        await c.call_tool("echo", {})
        await c.read_resource("mem://a")
        await c.get_prompt("greet", {"name": "x"})
        completion = await c.complete({"type": "ref/prompt", "name": "greet"}, "name", "o")
        assert completion["values"] == ["one"]
        # A method no handler serves reaches the chain too (and is refused by the dispatch).
        with pytest.raises(McpError) as e:
            await c.request("example.com/nope", {})
        assert e.value.code == -32601
    methods = [s.method for s in seen]
    assert methods == [
        "initialize",
        "tools/list",
        "tools/call",
        "resources/read",
        "prompts/get",
        "completion/complete",
        "example.com/nope",
    ]
    call = seen[2]
    assert call.tool == "echo" and call.params is not None and call.params["name"] == "echo"
    assert call.session_id is None and call.session_key.startswith("conn-")
    assert call.principal is None and call.http_headers is None
    assert isinstance(call.id, (int, str)) and call.protocol_version
    assert seen[1].tool is None


async def test_layers_run_in_order_the_first_outermost() -> None:
    log: list[str] = []

    def layer(tag: str) -> Any:
        async def run(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
            log.append(f"{tag}:{ctx.method}")
            r = await call_next(ctx)
            log.append(f"{tag}:done")
            return r

        return run

    server = make_server(middleware=[layer("outer")])
    server.add_middleware(layer("inner"))
    async with Client.memory(server) as c:
        log.clear()
        await c.call_tool("echo", {})
    assert log == ["outer:tools/call", "inner:tools/call", "inner:done", "outer:done"]


async def test_a_layer_answers_refuses_and_changes_request_and_result() -> None:
    server = make_server()

    @server.middleware
    async def layer(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool == "answered":
            return {"content": [{"type": "text", "text": "from the layer"}]}
        if ctx.tool == "refused":
            raise McpError("Permission denied", code=-32003, data={"tool": "refused"})
        if ctx.tool == "renamed":
            assert ctx.params is not None
            ctx.params = {**ctx.params, "name": "echo", "arguments": {"text": "changed"}}
            r = await call_next(ctx)
            r["content"][0]["text"] += " and reshaped"
            return r
        return await call_next(ctx)

    async with Client.memory(server) as c:
        r = await c.call_tool("answered", {})
        assert r["content"][0]["text"] == "from the layer"
        with pytest.raises(McpError) as e:
            await c.call_tool("refused", {})
        assert (e.value.code, e.value.message, e.value.data) == (
            -32003,
            "Permission denied",
            {"tool": "refused"},
        )
        r = await c.call_tool("renamed", {})
        assert r["content"][0]["text"] == "changed and reshaped"
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "echoed"


async def test_a_sync_layer_blocks_on_call_next_off_the_event_loop() -> None:
    server = make_server()
    threads: list[str] = []

    @server.middleware
    def sync_layer(ctx: MiddlewareContext, call_next: Any) -> dict[str, Any]:
        threads.append(threading.current_thread().name)
        if ctx.tool == "refused":
            raise McpError("no", code=-32003)
        r: dict[str, Any] = call_next(ctx)
        if ctx.tool == "echo":
            r["content"][0]["text"] = r["content"][0]["text"].upper()
        return r

    async with Client.memory(server) as c:
        r = await c.call_tool("echo", {"text": "quiet"})
        assert r["content"][0]["text"] == "QUIET"
        with pytest.raises(McpError) as e:
            await c.call_tool("refused", {})
        assert e.value.code == -32003
    assert threading.main_thread().name not in threads


async def test_a_middleware_class_gets_hooks_per_method() -> None:
    log: list[str] = []

    class Audit(Middleware):
        async def on_message(self, ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
            log.append(f"message:{ctx.method}")
            return await call_next(ctx)

        async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
            log.append(f"request:{ctx.method}")
            return await call_next(ctx)

        async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
            log.append(f"tool:{ctx.tool}")
            r = await call_next(ctx)
            r["content"].append({"type": "text", "text": "audited"})
            return r

        async def on_list_tools(
            self, ctx: MiddlewareContext, call_next: CallNext
        ) -> dict[str, Any]:
            r = await call_next(ctx)
            r["tools"] = [t for t in r["tools"] if t["name"] != "boom"]
            return r

    server = make_server()
    server.add_middleware(Audit())
    async with Client.memory(server) as c:
        log.clear()
        r = await c.call_tool("echo", {})
        assert [b["text"] for b in r["content"]] == ["echoed", "audited"]
        tools = await c.list_tools()
        assert sorted(t["name"] for t in tools["tools"]) == ["echo"]
    assert log == [
        "message:tools/call",
        "request:tools/call",
        "tool:echo",
        "message:tools/list",
        "request:tools/list",
    ]


async def test_per_request_era_calls_go_through_the_chain() -> None:
    # A 2026-07-28 client (no handshake; every request carries its revision in _meta): the
    # Python layer sees each request with that revision, and its change of the result reaches
    # the client with what the era adds to every result.
    server = make_server()
    seen: list[tuple[str, str | None]] = []

    @server.middleware
    async def stamp(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        seen.append((ctx.method, ctx.protocol_version))
        result = await call_next(ctx)
        if ctx.method == "tools/call":
            text = result["content"][0]["text"]
            return {**result, "content": [{"type": "text", "text": f"stamped {text}"}]}
        return result

    async with Client.memory(server, protocol_version="2026-07-28") as c:
        assert c.protocol_version == "2026-07-28"
        r = await c.call_tool("echo", {"text": "hi"})
        assert r["content"][0]["text"] == "stamped hi"
        await c.list_tools()
    assert ("tools/call", "2026-07-28") in seen and ("tools/list", "2026-07-28") in seen
    assert "initialize" not in [m for m, _ in seen]


async def test_input_required_rounds_work_through_the_chain() -> None:
    # 2026-07-28 over HTTP: the handler's ctx.input answers input_required through a Python
    # layer, the client's handler answers and retries, and the retry (with inputResponses and
    # requestState) goes through the layer again to the handler. Cancellation through the chain:
    # test_a_request_cancelled_during_call_next_cancels_the_layer_and_the_handler.
    server = Server("mrtr", version="1.0.0")
    rounds: list[tuple[str, bool, str]] = []

    @server.tool()
    async def greet(ctx: Context) -> str:
        """Asks for a name."""
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        answers = await ctx.input(
            {
                "who": {
                    "method": "elicitation/create",
                    "params": {"message": "name?", "requestedSchema": schema},
                }
            }
        )
        return f"Hello, {answers['who']['content']['name']}!"

    @server.middleware
    async def layer(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        answered = "inputResponses" in (ctx.params or {})
        try:
            result = await call_next(ctx)
        except McpError as e:
            rounds.append((ctx.method, answered, type(e).__name__))
            raise
        rounds.append((ctx.method, answered, result["content"][0]["text"]))
        return result

    async def on_elicit(params: dict[str, Any], _ctx: Context) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Di"}}

    async with await server.serve_http("127.0.0.1", 0) as http:
        async with Client.http(
            http.url, elicitation_handler=on_elicit, protocol_version="2026-07-28"
        ) as c:
            r = await c.call_tool("greet", {})
            assert r["content"][0]["text"] == "Hello, Di!"
    # The first round reaches the layer as InputRequired (an McpError it hands on), the retry as
    # the handler's result.
    assert rounds == [
        ("tools/call", False, "InputRequired"),
        ("tools/call", True, "Hello, Di!"),
    ]


async def test_rate_limit_answers_32004_with_retry_after() -> None:
    server = make_server(middleware=[RateLimit(2, 0.4, methods=["tools/call"])])
    async with Client.memory(server) as c:
        await c.call_tool("echo", {})
        await c.call_tool("echo", {})
        with pytest.raises(RateLimited) as e:
            await c.call_tool("echo", {})
        assert (e.value.code, e.value.message) == (-32004, "Rate limited")
        data = e.value.data
        assert data["limit"] == 2 and data["window"] == 0.4
        assert 0 < data["retryAfter"] <= 0.2
        assert (e.value.limit, e.value.window, e.value.retry_after) == (2, 0.4, data["retryAfter"])
        await c.list_tools()  # not counted
        await asyncio.sleep(data["retryAfter"])
        await c.call_tool("echo", {})


async def test_a_tool_with_its_own_limit_has_its_own_bucket() -> None:
    server = make_server()
    server.add_middleware({"name": "rateLimit", "limit": 100, "windowMs": 60000})
    server.add_middleware(RateLimit(100, 60, tools={"boom": (1, 60)}))
    async with Client.memory(server) as c:
        await c.call_tool("boom", {})
        with pytest.raises(McpError) as e:
            await c.call_tool("boom", {})
        assert e.value.code == -32004 and e.value.data["limit"] == 1
        for _ in range(3):
            await c.call_tool("echo", {})


async def test_rate_limit_by_tool_or_global_keys_buckets_across_sessions() -> None:
    # By tool: one bucket per tool, shared by every session.
    server = make_server(middleware=[RateLimit(1, 60, by=["tool"], methods=["tools/call"])])
    async with Client.memory(server) as a, Client.memory(server) as b:
        await a.call_tool("echo", {})
        with pytest.raises(RateLimited):
            await b.call_tool("echo", {})
        await b.call_tool("boom", {})
        with pytest.raises(RateLimited):
            await a.call_tool("boom", {})
    # Global: one bucket for everything, whatever the session or tool.
    server = make_server(middleware=[RateLimit(2, 60, by=["global"], methods=["tools/call"])])
    async with Client.memory(server) as a, Client.memory(server) as b:
        await a.call_tool("echo", {})
        await b.call_tool("boom", {})
        for c in (a, b):
            with pytest.raises(RateLimited) as e:
                await c.call_tool("echo", {})
            assert e.value.limit == 2


async def test_rate_limit_by_principal_spans_sessions_on_a_protected_server() -> None:
    # Over HTTP with a verified bearer token: a Python layer sees the principal and the
    # request's headers, and the principal's bucket is shared by its sessions.
    port, resource, protection = token_protection(
        lambda token: (token[4:], ["mcp"]) if token.startswith("tok-") else None,
        authorization_server="http://127.0.0.1:1",
    )
    server = make_server(middleware=[RateLimit(2, 60, by=["principal"], methods=["tools/call"])])
    seen: list[tuple[Any, ...]] = []

    @server.middleware
    async def record(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.method == "tools/call":
            principal = ctx.principal or {}
            seen.append(
                (principal.get("subject"), principal.get("scopes"), ctx.header("Authorization"))
            )
            assert ctx.session_id and ctx.session_id in ctx.session_key
        return await call_next(ctx)

    def as_(who: str) -> Client:
        return Client.http(resource, headers={"Authorization": f"Bearer tok-{who}"})

    async with await server.serve_http("127.0.0.1", port, auth=protection):
        async with as_("alice") as a1, as_("alice") as a2, as_("bob") as b:
            await a1.call_tool("echo", {})
            await a2.call_tool("echo", {})
            # Alice's third call, in either session, is over her limit; Bob has his own bucket.
            for c in (a1, a2):
                with pytest.raises(RateLimited) as e:
                    await c.call_tool("echo", {})
                assert e.value.limit == 2
            r = await b.call_tool("echo", {})
            assert r["content"][0]["text"] == "echoed"
    assert seen == [
        ("alice", ["mcp"], "Bearer tok-alice"),
        ("alice", ["mcp"], "Bearer tok-alice"),
        ("bob", ["mcp"], "Bearer tok-bob"),
    ]


async def test_mask_errors_hides_internal_details_only() -> None:
    server = make_server(middleware=[MaskErrors(message="Something went wrong")])

    @server.middleware
    async def layer(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool == "broken":
            raise KeyError("stack trace: at db.py:12")
        if ctx.tool == "refused":
            raise McpError("Permission denied", code=-32003)
        return await call_next(ctx)

    async with Client.memory(server) as c:
        with pytest.raises(McpError) as e:
            await c.call_tool("broken", {})
        assert (e.value.code, e.value.message, e.value.data) == (
            -32603,
            "Something went wrong",
            None,
        )
        with pytest.raises(McpError) as e:
            await c.call_tool("refused", {})
        assert (e.value.code, e.value.message) == (-32003, "Permission denied")
        # A tool's exception is a tool result (isError), not a JSON-RPC error.
        r = await c.call_tool("boom", {})
        assert r["isError"] is True


async def test_timing_hook_gets_method_tool_duration_and_outcome() -> None:
    events: list[TimingEvent] = []
    server = make_server(middleware=[Timing(events.append)])

    @server.middleware
    async def slow(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool == "slow":
            await asyncio.sleep(0.03)
            raise McpError("no", code=-32003)
        return await call_next(ctx)

    async with Client.memory(server) as c:
        await c.call_tool("echo", {})
        with pytest.raises(McpError):
            await c.call_tool("slow", {})
    deadline = time.monotonic() + 5
    while len([e for e in events if e.method == "tools/call"]) < 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    calls = [e for e in events if e.method == "tools/call"]
    assert [(e.tool, e.outcome, e.code) for e in calls] == [
        ("echo", "ok", None),
        ("slow", "error", -32003),
    ]
    assert calls[1].duration_ms >= 30


async def test_request_log_is_accepted_by_name_and_as_a_class() -> None:
    server = make_server(middleware=[RequestLog(level="debug"), {"name": "requestLog"}])
    async with Client.memory(server) as c:
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "echoed"


async def test_a_layer_changes_the_method() -> None:
    # In place (ctx.method = ...) or on a copy (dataclasses.replace), as the official SDK does:
    # the rest of the chain and the dispatch answer the new method.
    server = make_server()

    @server.middleware
    async def layer(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool == "list-them":
            ctx.method, ctx.params = "tools/list", None
        elif ctx.tool == "read-it":
            return await call_next(
                dataclasses.replace(ctx, method="resources/read", params={"uri": "mem://a"})
            )
        return await call_next(ctx)

    seen: list[str] = []

    @server.middleware
    async def inner(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        seen.append(ctx.method)
        return await call_next(ctx)

    async with Client.memory(server) as c:
        seen.clear()
        r = await c.request("tools/call", {"name": "list-them", "arguments": {}})
        assert [t["name"] for t in r["tools"]] == ["echo", "boom"]
        r = await c.request("tools/call", {"name": "read-it", "arguments": {}})
        assert r["contents"][0]["text"] == "a"
    assert seen == ["tools/list", "resources/read"]


async def test_call_next_twice_or_with_a_bad_request_is_an_internal_error_saying_so() -> None:
    server = make_server()

    @server.middleware
    async def layer(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        how = (ctx.params or {}).get("arguments", {}).get("text")
        if how == "twice":
            await call_next(ctx)
            return await call_next(ctx)
        if how == "bad-params":
            ctx.params = [1]  # type: ignore[assignment]
        if how == "returns-none":
            await call_next(ctx)
            return None  # type: ignore[return-value]
        return await call_next(ctx)

    async with Client.memory(server) as c:
        for how, says in [
            ("twice", "call_next was already called"),
            ("bad-params", "params must be an object or null, not an array"),
            ("returns-none", "returned NoneType, not a result dict"),
        ]:
            with pytest.raises(McpError) as e:
                await c.call_tool("echo", {"text": how})
            assert e.value.code == -32603, how
            assert says in e.value.message, (how, e.value.message)


async def test_middleware_is_refused_once_the_server_handled_a_request() -> None:
    server = make_server()
    async with Client.memory(server) as c:
        await c.list_tools()
        with pytest.raises(RuntimeError, match="before the server handles its first request"):
            server.add_middleware(RequestLog())


def test_unknown_middleware_names_and_options_are_refused() -> None:
    server = make_server()
    with pytest.raises(InvalidParams, match="cache"):
        server.add_middleware({"name": "cache"})
    with pytest.raises(InvalidParams, match="windw"):
        server.add_middleware({"name": "rateLimit", "limit": 1, "windowMs": 1, "windw": 3})
    with pytest.raises(ValueError, match="positive number of seconds"):
        server.add_middleware(RateLimit(1, 0))
    with pytest.raises(TypeError, match="must be a callable"):
        server.add_middleware(42)  # type: ignore[arg-type]


async def test_mcpserver_takes_middleware_as_fastmcp_does() -> None:
    mcp = MCPServer("compat", middleware=[MaskErrors()])

    @mcp.tool()
    def echo(text: str) -> str:
        """Echoes."""
        return text

    class Upper(Middleware):
        async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
            r = await call_next(ctx)
            r["content"][0]["text"] = r["content"][0]["text"].upper()
            return r

    mcp.add_middleware(Upper())
    async with Client.memory(mcp) as c:
        r = await c.call_tool("echo", {"text": "hi"})
        assert r["content"][0]["text"] == "HI"


async def test_the_example_server_runs_each_layer_over_stdio() -> None:
    example = str(Path(__file__).resolve().parents[2] / "examples/python/middleware_server.py")
    async with Client.stdio(sys.executable, [example], name="someone") as c:
        r = await c.call_tool("echo", {"text": "hi"})
        assert r["content"][0]["text"] == "hi"
        assert r["_meta"]["example.com/served-by"] == "middleware-server"
        with pytest.raises(McpError) as e:
            await c.call_tool("admin_reset", {})
        assert (e.value.code, e.value.data) == (-32003, {"tool": "admin_reset"})
        r = await c.call_tool("crash", {})
        assert r["isError"] is True
        with pytest.raises(McpError) as e:
            await c.call_tool("echo", {"text": "4th"})
        assert e.value.code == -32004 and e.value.data["limit"] == 3
    async with Client.stdio(sys.executable, [example], name="admin") as c:
        r = await c.call_tool("admin_reset", {})
        assert r["content"][0]["text"] == "reset"


async def test_nested_sync_layers_serve_many_concurrent_calls() -> None:
    server = make_server()
    for _ in range(3):

        @server.middleware
        def passes(ctx: MiddlewareContext, call_next: Any) -> dict[str, Any]:
            r: dict[str, Any] = call_next(ctx)
            return r

    async with Client.memory(server) as c:
        results = await asyncio.wait_for(
            asyncio.gather(*(c.call_tool("echo", {"text": str(i)}) for i in range(40))), 20
        )
    assert [r["content"][0]["text"] for r in results] == [str(i) for i in range(40)]


async def test_a_layer_failure_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = make_server()

    @server.middleware
    async def broken(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool == "echo":
            raise KeyError("missing")
        return await call_next(ctx)

    async with Client.memory(server) as c:
        with pytest.raises(McpError) as e:
            await c.call_tool("echo", {})
    assert e.value.code == -32603 and "KeyError" in e.value.message
    failed = [r for r in caplog.records if r.name == "ferromcp" and "broken" in r.getMessage()]
    assert failed and failed[0].exc_info is not None


async def test_a_middleware_class_observes_client_notifications() -> None:
    seen: list[NotificationContext] = []
    got = asyncio.Event()

    class Notes(Middleware):
        async def on_notification(self, ctx: NotificationContext, call_next: Any) -> None:
            seen.append(ctx)
            if ctx.method == "example.com/custom":
                got.set()
            await call_next(ctx)

    server = make_server(middleware=[Notes()])
    async with Client.memory(server) as c:
        await c.notify("notifications/roots/list_changed")
        await c.notify("example.com/custom", {"x": 1})
        await asyncio.wait_for(got.wait(), 5)
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "echoed"
    assert [n.method for n in seen] == ["notifications/roots/list_changed", "example.com/custom"]
    assert seen[1].params == {"x": 1} and seen[1].session_key.startswith("conn-")


async def test_an_official_sdk_style_middleware_rewrites_with_dataclasses_replace() -> None:
    """The official SDK's ``MCPServer(middleware=[...])`` / ``mcp.middleware.append(...)``
    shape: ``(ctx, call_next)``, ``ctx.request_id``, a rewrite by ``dataclasses.replace``."""
    seen: list[tuple[str, Any]] = []

    async def observe(ctx: Any, call_next: Any) -> Any:
        seen.append((ctx.method, ctx.request_id))
        return await call_next(ctx)

    async def rewrite(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            ctx = dataclasses.replace(ctx, params={**ctx.params, "arguments": {"text": "new"}})
        return await call_next(ctx)

    mcp = MCPServer("compat", middleware=[observe])
    mcp.middleware.append(rewrite)

    @mcp.tool()
    def echo(text: str) -> str:
        """Echoes."""
        return text

    assert mcp.middleware == [observe, rewrite]
    with pytest.raises(TypeError, match="only grows at its end"):
        mcp.middleware.insert(0, observe)
    async with Client.memory(mcp) as c:
        r = await c.call_tool("echo", {"text": "old"})
        assert r["content"][0]["text"] == "new"
    assert [m for m, _ in seen] == ["initialize", "tools/call"]
    assert all(isinstance(i, (int, str)) for _, i in seen)


async def test_a_request_cancelled_during_call_next_cancels_the_layer_and_the_handler() -> None:
    # The layer awaits the rest of the chain (a slow handler) when the client cancels: its
    # await raises CancelledError, the handler is cancelled too, and the server answers on.
    state: dict[str, bool] = {}
    server = make_server()

    @server.tool()
    async def slow() -> str:
        """Sleeps."""
        state["handler started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["handler cancelled"] = True
            raise
        return "late"

    @server.middleware
    async def waits(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        try:
            return await call_next(ctx)
        except asyncio.CancelledError:
            if ctx.tool == "slow":
                state["layer cancelled"] = True
            raise

    async with Client.memory(server) as c:
        t = asyncio.ensure_future(c.call_tool("slow", {}))
        for _ in range(200):
            if state.get("handler started"):
                break
            await asyncio.sleep(0.01)
        assert state.get("handler started") is True
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        for _ in range(200):
            if state.get("layer cancelled") and state.get("handler cancelled"):
                break
            await asyncio.sleep(0.01)
        assert state == {
            "handler started": True,
            "layer cancelled": True,
            "handler cancelled": True,
        }
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "echoed"


async def test_a_cancelled_request_cancels_the_layers_task() -> None:
    state: dict[str, bool] = {}
    server = make_server()

    @server.middleware
    async def stuck(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool != "stuck":
            return await call_next(ctx)
        state["started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return await call_next(ctx)

    async with Client.memory(server) as c:
        t = asyncio.ensure_future(c.call_tool("stuck", {}))
        for _ in range(200):
            if state.get("started"):
                break
            await asyncio.sleep(0.01)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        for _ in range(200):
            if state.get("cancelled"):
                break
            await asyncio.sleep(0.01)
        assert state.get("cancelled") is True
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "echoed"
