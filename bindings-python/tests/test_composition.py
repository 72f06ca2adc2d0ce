"""Authorization, composition and tool transforms (issue 37 points 3-5) from Python:
``Authorization`` as a middleware layer, ``Server.mount`` / ``Server.import_server``,
``Server.transform_tool`` with ``ArgTransform`` and ``Server.add_transformed_tool`` with a
transform's JSON form. The scenario names are those of core/tests/integration/authorization.rs,
composition.rs and tool_transform.rs where the scenario is the same (the engine does the work;
these prove the Python surface reaches it, Python handlers included)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ferromcp import Client, InvalidParams, McpError, Server
from ferromcp.composition import ArgTransform, Authorization

from conftest import token_protection


def tool_names(r: dict[str, Any]) -> list[str]:
    return [t["name"] for t in r["tools"]]


async def all_tools(c: Client) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    while True:
        r = await c.list_tools(cursor)
        names += tool_names(r)
        cursor = r.get("nextCursor")
        if cursor is None:
            return names


def authz_server(*layers: Any) -> Server:
    server = Server("authz", version="1", page_size=2, middleware=list(layers))
    for name in ["admin_reset", "echo", "admin_delete", "search", "admin_grant", "time"]:

        def run(n: str = name) -> str:
            return f"ran {n}"

        server.add_tool(run, name=name, description=name)

    @server.resource("secret://keys")
    def keys() -> str:
        """Keys."""
        return "k"

    @server.resource("public://readme")
    def readme() -> str:
        """Readme."""
        return "r"

    @server.prompt()
    def admin_report() -> str:
        """Report."""
        return "report"

    return server


ADMIN = Authorization(
    [("tool", "admin_*", ["admin"]), ("resource", "secret://*", ["secrets"])]
).require_scopes("prompt", "admin_*", ["admin"])


async def test_hidden_tools_are_absent_from_tools_list() -> None:
    async with Client.memory(authz_server(ADMIN)) as c:
        assert await all_tools(c) == ["echo", "search", "time"]


async def test_pages_stay_full_and_cursors_valid_when_items_are_hidden() -> None:
    async with Client.memory(authz_server(ADMIN)) as c:
        first = await c.list_tools()
        assert tool_names(first) == ["echo", "search"]
        second = await c.list_tools(first["nextCursor"])
        assert tool_names(second) == ["time"] and "nextCursor" not in second


async def test_a_hidden_tool_is_refused_as_an_unknown_one() -> None:
    async with Client.memory(authz_server(ADMIN)) as c:
        with pytest.raises(InvalidParams) as hidden:
            await c.call_tool("admin_delete", {})
        with pytest.raises(InvalidParams) as missing:
            await c.call_tool("admin_nothing", {})
        assert hidden.value.message == "Unknown tool: admin_delete"
        assert missing.value.message == "Unknown tool: admin_nothing"
        assert hidden.value.data == {"tool": "admin_delete"}
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "ran echo"


async def test_hidden_resources_templates_and_prompts_are_absent_and_refused() -> None:
    async with Client.memory(authz_server(ADMIN)) as c:
        r = await c.list_resources()
        assert [x["uri"] for x in r["resources"]] == ["public://readme"]
        with pytest.raises(McpError) as e:
            await c.read_resource("secret://keys")
        assert e.value.code == -32002
        assert (await c.list_prompts())["prompts"] == []
        with pytest.raises(InvalidParams):
            await c.get_prompt("admin_report", {})


async def test_scopes_of_the_bearer_token_decide_over_http() -> None:
    # Token "alice" holds the admin scope, "bob" none.
    port, _, protection = token_protection(
        lambda token: (token, ["admin"] if token == "alice" else [])
    )
    everything = ["admin_reset", "echo", "admin_delete", "search", "admin_grant", "time"]
    server = authz_server(ADMIN)
    async with await server.serve_http("127.0.0.1", port, auth=protection) as http:
        for token, expected in [("alice", everything), ("bob", ["echo", "search", "time"])]:
            headers = {"Authorization": f"Bearer {token}"}
            async with Client.http(http.url, headers=headers) as c:
                assert await all_tools(c) == expected, token
                if token == "alice":
                    r = await c.call_tool("admin_delete", {})
                    assert r["content"][0]["text"] == "ran admin_delete"
                else:
                    with pytest.raises(InvalidParams) as e:
                        await c.call_tool("admin_delete", {})
                    assert e.value.message == "Unknown tool: admin_delete"


async def test_deny_unmatched_hides_items_no_rule_names() -> None:
    # One rule, needing no scope, names echo; everything else matches no rule and is hidden.
    policy = Authorization([("tool", "echo", [])], deny_unmatched=True)
    async with Client.memory(authz_server(policy)) as c:
        assert await all_tools(c) == ["echo"]
        assert (await c.list_prompts())["prompts"] == []
        assert (await c.list_resources())["resources"] == []
        r = await c.call_tool("echo", {})
        assert r["content"][0]["text"] == "ran echo"
        with pytest.raises(InvalidParams) as e:
            await c.call_tool("search", {})
        assert e.value.message == "Unknown tool: search"


async def test_the_layer_is_configured_by_name_from_json() -> None:
    config = {
        "name": "authorization",
        "rules": [{"kind": "tool", "pattern": "*e*", "scopes": ["x"]}],
    }
    async with Client.memory(authz_server(config)) as c:
        names = await all_tools(c)
    # Every tool whose name holds an "e" needs scope x, which an anonymous caller lacks.
    assert names == [
        n
        for n in ["admin_reset", "echo", "admin_delete", "search", "admin_grant", "time"]
        if "e" not in n
    ]
    assert dict(ADMIN)["name"] == "authorization"
    with pytest.raises(ValueError):
        Authorization([("table", "*", [])])  # type: ignore[list-item]
    with pytest.raises(InvalidParams):
        Server("x", middleware=[{"name": "authorization", "rules": [{"kind": "tool"}]}])


def weather() -> Server:
    wx = Server("weather", version="1")

    @wx.tool()
    async def forecast(city: str, days: int = 1) -> str:
        """Forecast."""
        await asyncio.sleep(0)
        return f"{city} for {days} days"

    @wx.resource("data://stations")
    def stations() -> str:
        """Stations."""
        return "Oslo, Lima"

    @wx.resource("weather://{city}/now")
    def now(city: str) -> str:
        """Now."""
        return f"sunny in {city}"

    @wx.prompt()
    def report(city: str) -> str:
        """Report."""
        return f"report for {city}"

    return wx


def main_server() -> Server:
    main = Server("main", version="1")

    @main.tool()
    def status() -> str:
        """Status."""
        return "ok"

    return main


async def test_calls_reads_and_gets_reach_the_mounted_server() -> None:
    main = main_server()
    main.mount("wx", weather())
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status", "wx_forecast"]
        r = await c.call_tool("wx_forecast", {"city": "Oslo", "days": 3})
        assert r["content"][0]["text"] == "Oslo for 3 days"
        listed = await c.list_resources()
        assert [x["uri"] for x in listed["resources"]] == ["data://wx/stations"]
        listed = await c.list_resource_templates()
        assert [x["uriTemplate"] for x in listed["resourceTemplates"]] == [
            "weather://wx/{city}/now"
        ]
        read = await c.read_resource("weather://wx/Lima/now")
        assert read["contents"][0]["text"] == "sunny in Lima"
        p = await c.get_prompt("wx_report", {"city": "Bergen"})
        assert p["messages"][0]["content"]["text"] == "report for Bergen"
        with pytest.raises(InvalidParams):
            await c.call_tool("forecast", {"city": "Oslo"})


async def test_mounted_resources_and_templates_are_listed_with_namespaced_uris() -> None:
    main = main_server()
    main.mount("wx", weather())
    async with Client.memory(main) as c:
        r = await c.list_resources()
        assert [x["uri"] for x in r["resources"]] == ["data://wx/stations"]
        assert "nextCursor" not in r
        r = await c.list_resource_templates()
        assert [x["uriTemplate"] for x in r["resourceTemplates"]] == ["weather://wx/{city}/now"]
        assert "nextCursor" not in r


async def test_completions_are_routed_to_the_mounted_server() -> None:
    wx = weather()

    @wx.completion(resource="weather://{city}/now", argument="city")
    def cities(value: str) -> list[str]:
        return ["Oslo", "Lima"]

    @wx.completion(prompt="report", argument="city")
    def report_cities(value: str) -> list[str]:
        return ["Bergen"]

    main = main_server()
    main.mount("wx", wx)
    async with Client.memory(main) as c:
        r = await c.complete({"type": "ref/resource", "uri": "weather://wx/{city}/now"}, "city", "")
        assert r["values"] == ["Oslo", "Lima"]
        r = await c.complete({"type": "ref/prompt", "name": "wx_report"}, "city", "")
        assert r["values"] == ["Bergen"]


async def test_tools_added_to_a_mounted_server_later_show_up() -> None:
    main = main_server()
    wx = weather()
    main.mount("wx", wx)
    notes: list[str] = []
    async with Client.memory(main, on_notification=lambda m, p: notes.append(m)) as c:
        await c.list_tools()

        @wx.tool()
        def radar() -> str:
            """Radar."""
            return "radar"

        for _ in range(100):
            if "notifications/tools/list_changed" in notes:
                break
            await asyncio.sleep(0.01)
        assert "notifications/tools/list_changed" in notes
        assert await all_tools(c) == ["status", "wx_forecast", "wx_radar"]
        r = await c.call_tool("wx_radar", {})
        assert r["content"][0]["text"] == "radar"


async def test_imported_items_are_copied_once() -> None:
    main = main_server()
    wx = weather()
    main.import_server("wx", wx)

    @wx.tool()
    def later() -> str:
        """Later."""
        return "later"

    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status", "wx_forecast"]
        r = await c.call_tool("wx_forecast", {"city": "Lima"})
        assert r["content"][0]["text"] == "Lima for 1 days"
        read = await c.read_resource("data://wx/stations")
        assert read["contents"][0]["text"] == "Oslo, Lima"


async def test_bad_mounts_are_refused() -> None:
    main = main_server()
    with pytest.raises(InvalidParams):
        main.mount("a/b", weather())
    with pytest.raises(InvalidParams):
        main.mount("me", main)


def search_server() -> Server:
    s = Server("t", version="1")

    @s.tool()
    def search(q: str, index: str, limit: int = 2) -> dict[str, Any]:
        """Search an index."""
        return {
            "args": {"q": q, "index": index, "limit": limit},
            "hits": [f"hit {i}" for i in range(limit)],
        }

    return s


async def test_a_transformed_tool_has_the_new_name_and_description() -> None:
    s = search_server()
    s.transform_tool("search", "find", title="Find", description="Find documents.")
    async with Client.memory(s) as c:
        tools = {t["name"]: t for t in (await c.list_tools())["tools"]}
        find = tools["find"]
        assert find["description"] == "Find documents."
        assert find["title"] == "Find"
        assert find["inputSchema"] == tools["search"]["inputSchema"]
        # The original stays until removed.
        assert tools["search"]["description"] == "Search an index."


async def test_a_default_makes_an_argument_optional() -> None:
    s = search_server()
    s.transform_tool("search", "quick", arguments={"index": ArgTransform(default="main")})
    async with Client.memory(s) as c:
        tools = {t["name"]: t for t in (await c.list_tools())["tools"]}
        schema = tools["quick"]["inputSchema"]
        assert schema["required"] == ["q"]
        assert schema["properties"]["index"]["default"] == "main"
        r = await c.call_tool("quick", {"q": "x"})
        assert r["structuredContent"]["args"]["index"] == "main"
        r = await c.call_tool("quick", {"q": "x", "index": "other"})
        assert r["structuredContent"]["args"]["index"] == "other"


async def test_renamed_arguments_reach_the_original_under_their_old_names() -> None:
    s = search_server()
    s.transform_tool(
        "search",
        "find",
        description="Find documents.",
        arguments={"q": ArgTransform(name="query", description="What to look for.")},
    )
    async with Client.memory(s) as c:
        tools = {t["name"]: t for t in (await c.list_tools())["tools"]}
        find = tools["find"]
        assert find["description"] == "Find documents."
        assert find["inputSchema"]["properties"]["query"]["description"] == "What to look for."
        assert "q" not in find["inputSchema"]["properties"]
        r = await c.call_tool("find", {"query": "rust", "index": "docs"})
        assert r["structuredContent"]["args"] == {"q": "rust", "index": "docs", "limit": 2}


async def test_the_original_can_be_removed_and_the_transform_still_works() -> None:
    s = search_server()
    s.transform_tool("search", "find", arguments={"q": ArgTransform(name="query")})
    assert s.remove_tool("search")
    async with Client.memory(s) as c:
        assert [t["name"] for t in (await c.list_tools())["tools"]] == ["find"]
        r = await c.call_tool("find", {"query": "a", "index": "b"})
        assert not r.get("isError"), r
        assert r["structuredContent"]["args"] == {"q": "a", "index": "b", "limit": 2}


async def test_a_hidden_argument_is_absent_from_the_schema_and_always_given() -> None:
    s = search_server()
    s.transform_tool(
        "search", "search_docs", arguments={"index": ArgTransform(hide=True, default="docs")}
    )
    async with Client.memory(s) as c:
        tools = {t["name"]: t for t in (await c.list_tools())["tools"]}
        assert "index" not in tools["search_docs"]["inputSchema"]["properties"]
        r = await c.call_tool("search_docs", {"q": "x"})
        assert r["structuredContent"]["args"]["index"] == "docs"
    with pytest.raises(ValueError):
        ArgTransform(hide=True).config()


async def test_a_constraint_refuses_values_the_original_would_accept() -> None:
    s = search_server()
    s.transform_tool(
        "search",
        "small_search",
        arguments={"limit": ArgTransform(constraints={"maximum": 3}, default=1)},
    )
    async with Client.memory(s) as c:
        r = await c.call_tool("small_search", {"q": "x", "index": "d", "limit": 10})
        assert r["isError"] is True and "Invalid arguments" in r["content"][0]["text"]
        r = await c.call_tool("small_search", {"q": "x", "index": "d"})
        assert r["structuredContent"]["args"]["limit"] == 1


async def test_reshaped_output_is_validated_against_the_new_schema() -> None:
    s = search_server()
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    s.transform_tool(
        "search",
        "count",
        transform_output=lambda out: {"count": len(out["hits"])},
        output_schema=schema,
    )
    s.transform_tool(
        "search", "broken", transform_output=lambda out: {"count": "many"}, output_schema=schema
    )
    async with Client.memory(s) as c:
        r = await c.call_tool("count", {"q": "x", "index": "d", "limit": 3})
        assert r["structuredContent"] == {"count": 3}
        with pytest.raises(McpError) as e:
            await c.call_tool("broken", {"q": "x", "index": "d"})
        assert e.value.code == -32603
    # The engine refuses it (embed/src/compose.rs); Python raises ValueError.
    with pytest.raises(ValueError, match="give both"):
        s.transform_tool("search", "schema_only", output_schema=schema)


async def test_a_transformed_tool_of_a_mounted_server_is_served_through_the_mount() -> None:
    s = search_server()
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    s.transform_tool(
        "search",
        "count",
        transform_output=lambda out: {"count": len(out["hits"])},
        output_schema=schema,
    )
    main = main_server()
    main.mount("docs", s)
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status", "docs_search", "docs_count"]
        r = await c.call_tool("docs_count", {"q": "x", "index": "d", "limit": 4})
        assert r["structuredContent"] == {"count": 4}
        tools = {t["name"]: t for t in (await c.list_tools())["tools"]}
        assert tools["docs_count"]["outputSchema"] == schema


async def test_transforms_naming_missing_or_clashing_arguments_are_refused() -> None:
    s = search_server()
    with pytest.raises(InvalidParams, match="no argument"):
        s.transform_tool("search", "a", arguments={"nope": ArgTransform(name="x")})
    with pytest.raises(InvalidParams, match="would be called"):
        s.transform_tool("search", "b", arguments={"q": ArgTransform(name="index")})
    with pytest.raises(InvalidParams, match="no tool"):
        s.transform_tool("missing", "c")


async def test_a_transform_is_read_from_its_json_form() -> None:
    s = search_server()
    s.add_transformed_tool(
        "search",
        {
            "name": "find",
            "description": "Find documents.",
            "arguments": {
                "q": {"name": "query", "description": "What to look for."},
                "index": {"hide": True, "default": "docs"},
                "limit": {"default": 2, "constraints": {"maximum": 3}},
            },
        },
    )
    async with Client.memory(s) as c:
        find = next(t for t in (await c.list_tools())["tools"] if t["name"] == "find")
        assert find["description"] == "Find documents."
        assert find["inputSchema"]["required"] == ["query"]
        assert find["inputSchema"]["properties"]["limit"]["maximum"] == 3
        r = await c.call_tool("find", {"query": "a"})
        assert r["structuredContent"]["args"] == {"q": "a", "index": "docs", "limit": 2}
    for bad, why in [
        ({"name": "x", "arguments": {"index": {"hide": True}}}, "needs a default"),
        ({"name": "x", "renamed": {}}, "unknown field"),
    ]:
        with pytest.raises(InvalidParams, match=why):
            s.add_transformed_tool("search", bad)
