"""ferromcp.lowlevel: the official SDK's low-level Server API (2.x ``on_*`` handlers with
``(ctx, params)``, 1.x decorators), mapped onto the engine's registrations when serving starts."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypedDict

import ferromcp
import ferromcp.types as types
import pytest
from ferromcp.lowlevel import Server, ServerRequestContext


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="weather",
                description="Weather of a city",
                input_schema={
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
                output_schema={
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "temp": {"type": "number"}},
                    "required": ["city", "temp"],
                },
            ),
            types.Tool(name="fail", input_schema={"type": "object"}),
        ]
    )


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    if params.name == "weather":
        data = {"city": (params.arguments or {})["city"], "temp": 21.5}
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(data))],
            structured_content=data,
            _meta={"request": ctx.request_id is not None},
        )
    raise ValueError(f"Unknown tool: {params.name}")


async def test_on_handlers_list_and_call_tools() -> None:
    server = Server("low", on_list_tools=list_tools, on_call_tool=call_tool)
    async with ferromcp.Client.memory(server) as c:
        tools = {t.name: t for t in await c.list_all_tools()}
        assert tools["weather"].description == "Weather of a city"
        assert tools["weather"].output_schema is not None
        r = await c.call_tool("weather", {"city": "Oslo"})
        assert r.structured_content == {"city": "Oslo", "temp": 21.5}
        assert r["_meta"] == {"request": True}
        bad = await c.call_tool("weather", {})  # the engine checks the listed inputSchema
        assert bad.is_error
        failed = await c.call_tool("fail", {})
        assert failed.is_error and failed.text == "Error executing tool fail"


async def failing_read(
    ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    raise RuntimeError("password=hunter2")


async def one_resource(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(uri="mem://a", name="a")])


async def test_an_unexpected_exception_in_a_lowlevel_handler_is_masked_by_default() -> None:
    server = Server(
        "masked",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=one_resource,
        on_read_resource=failing_read,
    )
    async with ferromcp.Client.memory(server) as c:
        failed = await c.call_tool("fail", {})
        assert failed.is_error and failed.text == "Error executing tool fail"
        with pytest.raises(ferromcp.McpError) as e:
            await c.read_resource("mem://a")
        assert e.value.code == -32603 and "hunter2" not in str(e.value)
    shown = Server(
        "shown", on_list_tools=list_tools, on_call_tool=call_tool, mask_error_details=False
    )
    async with ferromcp.Client.memory(shown) as c:
        failed = await c.call_tool("fail", {})
        assert failed.text == "ValueError: Unknown tool: fail"


async def test_a_request_without_its_handler_is_method_not_found_as_in_the_sdk() -> None:
    server = Server("no-read", on_list_resources=one_resource, lists_per_request=True)
    async with ferromcp.Client.memory(server) as c:
        with pytest.raises(ferromcp.McpError) as e:
            await c.read_resource("mem://a")
        assert (e.value.code, e.value.message, e.value.data) == (
            -32601,
            "Method not found",
            "resources/read",
        )
        # A list without its handler too, though the engine lists templates beside resources.
        with pytest.raises(ferromcp.McpError) as e:
            await c.list_resource_templates()
        assert (e.value.code, e.value.message, e.value.data) == (
            -32601,
            "Method not found",
            "resources/templates/list",
        )


ITEMS = [f"Item {i}" for i in range(1, 26)]


async def paged_resources(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    cursor = params.cursor if params is not None else None
    start = 0 if cursor is None else int(cursor)
    end = start + 10
    page = [
        types.Resource(uri=f"resource://items/{i}", name=item, description=f"About {item}")
        for i, item in enumerate(ITEMS[start:end], start)
    ]
    return types.ListResourcesResult(
        resources=page, next_cursor=str(end) if end < len(ITEMS) else None
    )


async def read_resource(
    ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, text=f"read {params.uri}")]
    )


async def test_a_list_is_paged_by_the_handlers_own_cursors_as_returned() -> None:
    """The handler gets the request's cursor; its pages and next_cursor reach the client as it
    returned them (``page_size`` is the engine's paging, not applied on top)."""
    cursors: list[str | None] = []

    async def resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        if ctx.request_id is not None:  # a client's request, not the registration at start
            cursors.append(None if params is None else params.cursor)
        return await paged_resources(ctx, params)

    server = Server(
        "paged", on_list_resources=resources, on_read_resource=read_resource, page_size=7
    )
    async with ferromcp.Client.memory(server) as c:
        pages = [await c.list_resources()]
        while pages[-1].get("nextCursor"):
            pages.append(await c.list_resources(pages[-1]["nextCursor"]))
        assert [len(p["resources"]) for p in pages] == [10, 10, 5]
        assert [p.get("nextCursor") for p in pages] == ["10", "20", None]
        assert cursors == [None, "10", "20"]
        names = [r["name"] for p in pages for r in p["resources"]]
        assert names == ITEMS
        res = await c.read_resource("resource://items/3")
        assert res.text == "read resource://items/3"


async def test_a_cursor_the_list_handler_rejects_answers_invalid_params() -> None:
    server = Server("paged", on_list_resources=paged_resources, on_read_resource=read_resource)
    async with ferromcp.Client.memory(server) as c:
        with pytest.raises(ferromcp.McpError) as e:
            await c.list_resources("bogus")
        assert (e.value.code, e.value.message) == (-32602, 'invalid cursor "bogus"')

    async def refuses(ctx: Any, params: types.PaginatedRequestParams) -> types.ListToolsResult:
        if params.cursor is not None:
            raise ferromcp.McpError("Unknown cursor", code=-32602, data={"cursor": params.cursor})
        return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])

    async def broken(ctx: Any, params: types.PaginatedRequestParams) -> types.ListPromptsResult:
        if ctx.request_id is None:
            return types.ListPromptsResult(prompts=[types.Prompt(name="p")])
        raise RuntimeError("database password hunter2")

    server = Server("own", on_list_tools=refuses, on_list_prompts=broken, lists_per_request=True)
    async with ferromcp.Client.memory(server) as c:
        with pytest.raises(ferromcp.McpError) as e:
            await c.list_tools("expired")
        assert (e.value.code, e.value.message, e.value.data) == (
            -32602,
            "Unknown cursor",
            {"cursor": "expired"},
        )
        # A failure that is not about a cursor stays an internal error, its text masked.
        with pytest.raises(ferromcp.McpError) as e:
            await c.list_prompts()
        assert e.value.code == -32603 and "hunter2" not in str(e.value)


async def test_tools_templates_and_prompts_lists_are_the_handlers_pages() -> None:
    def paged(kind: str, make: Any, result: Any, key: str) -> Any:
        async def handler(ctx: Any, params: types.PaginatedRequestParams) -> Any:
            start = int(params.cursor or 0)
            items = [make(f"{kind}{i}") for i in range(start, min(start + 2, 3))]
            return result(**{key: items, "next_cursor": "2" if start == 0 else None})

        return handler

    server = Server(
        "all",
        on_list_tools=paged(
            "t",
            lambda n: types.Tool(name=n, input_schema={"type": "object"}),
            types.ListToolsResult,
            "tools",
        ),
        on_list_resource_templates=paged(
            "u",
            lambda n: types.ResourceTemplate(uri_template=n + "://{x}", name=n),
            types.ListResourceTemplatesResult,
            "resource_templates",
        ),
        on_list_prompts=paged(
            "p", lambda n: types.Prompt(name=n), types.ListPromptsResult, "prompts"
        ),
        page_size=1,
    )
    async with ferromcp.Client.memory(server) as c:
        for list_page, key, field in (
            (c.list_tools, "tools", "name"),
            (c.list_resource_templates, "resourceTemplates", "name"),
            (c.list_prompts, "prompts", "name"),
        ):
            first = await list_page()
            second = await list_page(first["nextCursor"])
            assert first["nextCursor"] == "2" and "nextCursor" not in second, key
            assert [len(first[key]), len(second[key])] == [2, 1], key
            assert [i[field][1:] for i in first[key] + second[key]] == ["0", "1", "2"], key


async def test_lists_that_do_not_page_are_answered_from_the_start_unless_asked_per_request() -> (
    None
):
    calls: list[int | str | None] = []

    async def tools(ctx: Any, params: types.PaginatedRequestParams) -> types.ListToolsResult:
        calls.append(ctx.request_id)
        return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])

    async with ferromcp.Client.memory(Server("start", on_list_tools=tools)) as c:
        for _ in range(2):
            assert [t["name"] for t in (await c.list_tools())["tools"]] == ["t"]
    assert calls == [None]  # read once, at start: tools/call keeps the engine's typed lane
    calls.clear()
    server = Server("each", on_list_tools=tools, lists_per_request=True)
    async with ferromcp.Client.memory(server) as c:
        for _ in range(2):
            assert [t["name"] for t in (await c.list_tools())["tools"]] == ["t"]
    assert calls[0] is None and len(calls) == 3 and None not in calls[1:]


async def test_middleware_added_before_serving_sees_the_handlers_list_answers() -> None:
    seen: list[Any] = []

    async def layer(ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "resources/list":
            seen.append((ctx.params or {}).get("cursor"))
            seen.append(result.get("nextCursor"))
        return result

    server = Server("mw", on_list_resources=paged_resources, on_read_resource=read_resource)
    server.add_middleware(layer)
    async with ferromcp.Client.memory(server) as c:
        page = await c.list_resources("10")
        assert len(page["resources"]) == 10
    assert seen == ["10", "20"]


class AppContext(TypedDict):
    db: str


async def test_lifespan_context_reaches_handlers_and_the_list_call() -> None:
    seen: list[Any] = []

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[AppContext]) -> AsyncIterator[AppContext]:
        yield {"db": "conn"}

    async def tools(
        ctx: ServerRequestContext[AppContext], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        seen.append(ctx.lifespan_context["db"])
        return types.ListToolsResult(tools=[types.Tool(name="query")])

    async def call(
        ctx: ServerRequestContext[AppContext], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text=ctx.lifespan_context["db"])])

    server = Server("life", lifespan=lifespan, on_list_tools=tools, on_call_tool=call)
    async with ferromcp.Client.memory(server) as c:
        assert (await c.call_tool("query", {})).text == "conn"
    assert seen == ["conn"]


async def test_prompts_and_templates() -> None:
    async def prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        arg = types.PromptArgument(name="arg1", description="Example", required=True)
        return types.ListPromptsResult(prompts=[types.Prompt(name="ex", arguments=[arg])])

    async def get(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        text = f"text {(params.arguments or {}).get('arg1')}"
        return types.GetPromptResult(
            description="Example prompt",
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )

    async def templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate(uri_template="user://{id}", name="user")]
        )

    server = Server(
        "p",
        on_list_prompts=prompts,
        on_get_prompt=get,
        on_list_resource_templates=templates,
        on_read_resource=read_resource,
    )
    async with ferromcp.Client.memory(server) as c:
        (p,) = (await c.list_prompts())["prompts"]
        assert p["arguments"][0]["required"] is True
        got = await c.get_prompt("ex", {"arg1": "v"})
        assert got["messages"][0]["content"]["text"] == "text v"
        assert (await c.read_resource("user://7")).text == "read user://7"


async def test_sdk_1x_decorators() -> None:
    server = Server("one")

    @server.list_tools()
    async def tools() -> list[types.Tool]:
        return [types.Tool(name="add", input_schema={"type": "object"})]

    @server.call_tool()
    async def call(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
        assert server.request_context.request_id is not None
        return [types.TextContent(text=f"{name} {sorted(arguments)}")]

    @server.list_resources()
    async def resources(request: Any) -> types.ListResourcesResult:
        assert request.params is None
        return types.ListResourcesResult(resources=[types.Resource(uri="a://b", name="b")])

    @server.read_resource()
    async def read(uri: str) -> str:
        return f"content of {uri}"

    async with ferromcp.Client.memory(server) as c:
        assert (await c.call_tool("add", {"x": 1})).text == "add ['x']"
        res = await c.read_resource("a://b")
        assert res.text == "content of a://b"


async def test_run_with_the_sdks_stdio_idiom(tmp_path: Path) -> None:
    """``async with stdio_server() as (r, w): await server.run(r, w, options)`` serves stdio."""
    script = tmp_path / "low.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio
            import ferromcp.lowlevel.stdio
            import ferromcp.types as types
            from ferromcp.lowlevel import Server

            async def tools(ctx, params):
                return types.ListToolsResult(tools=[types.Tool(name="hi")])

            async def call(ctx, params):
                return types.CallToolResult(content=[types.TextContent(text="hello")])

            server = Server("stdio-low", on_list_tools=tools, on_call_tool=call)

            async def run():
                async with ferromcp.lowlevel.stdio.stdio_server() as (r, w):
                    await server.run(r, w, server.create_initialization_options())

            asyncio.run(run())
            """
        )
    )
    async with ferromcp.Client.stdio(sys.executable, [str(script)]) as c:
        assert (await c.call_tool("hi", {})).text == "hello"


def test_the_cli_lists_a_lowlevel_server(tmp_path: Path) -> None:
    script = tmp_path / "paged.py"
    script.write_text(
        textwrap.dedent(
            """
            import ferromcp.types as types
            from ferromcp.lowlevel import Server

            async def resources(ctx, params):
                start = int(params.cursor or 0)  # never None, as in the SDK 2.x
                page = [types.Resource(uri=f"r://{i}", name=f"r{i}") for i in range(start, start + 5)]
                return types.ListResourcesResult(
                    resources=page, next_cursor=str(start + 5) if start < 10 else None
                )

            server = Server("paged", on_list_resources=resources)
            """
        )
    )
    out = subprocess.run(
        [sys.executable, "-m", "ferromcp", "list", str(script), "resources", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["resources"]) == 15


def test_unsupported_handlers_are_refused() -> None:
    async def complete(ctx: Any, params: Any) -> Any:
        return None

    with pytest.raises(TypeError, match="on_completion"):
        Server("x", on_completion=complete)


async def test_streamable_http_app_of_a_lowlevel_server() -> None:
    from test_asgi_app import uvicorn_serving

    server = Server("low-http", on_list_tools=list_tools, on_call_tool=call_tool)
    async with uvicorn_serving(server.streamable_http_app(json_response=True)) as base:
        async with ferromcp.Client.http(f"{base}/mcp") as c:
            r = await c.call_tool("weather", {"city": "Rome"})
    assert r.structured_content == {"city": "Rome", "temp": 21.5}


async def test_the_handlers_pages_over_serve_http_and_the_asgi_app() -> None:
    from test_asgi_app import uvicorn_serving

    async def pages(c: ferromcp.Client) -> list[Any]:
        first = await c.list_resources()
        second = await c.list_resources(first["nextCursor"])
        return [len(first["resources"]), first["nextCursor"], len(second["resources"])]

    server = Server("http", on_list_resources=paged_resources, on_read_resource=read_resource)
    async with await server.serve_http("127.0.0.1", 0) as http:
        async with ferromcp.Client.http(http.url) as c:
            assert await pages(c) == [10, "10", 10]
    asgi = Server("asgi", on_list_resources=paged_resources, on_read_resource=read_resource)
    async with uvicorn_serving(asgi.streamable_http_app(json_response=True)) as base:
        async with ferromcp.Client.http(f"{base}/mcp") as c:
            assert await pages(c) == [10, "10", 10]
