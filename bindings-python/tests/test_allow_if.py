"""Authorization by a predicate from Python (``ferromcp.allow_if.AllowIf``): the scenario of
core/tests/integration/authorization.rs ``a_predicate_decides_from_the_client_identity``, and
hidden items refused as unknown ones on call, get, read and completion."""

from __future__ import annotations

from typing import Any

import pytest

from ferromcp import Client, InvalidParams, McpError, Server
from ferromcp.allow_if import Access, AllowIf

from conftest import token_protection


def ops_only(a: Access) -> bool:
    """Admin items only for a client that calls itself ops-console."""
    if not (a.name.startswith("admin_") or a.name.startswith("secret://")):
        return True
    return bool(a.context.request_context.client_info.get("name") == "ops-console")


def server(*layers: Any) -> Server:
    s = Server("authz", version="1", page_size=2, middleware=list(layers))
    for name in ["admin_reset", "echo", "admin_delete", "search", "time"]:

        def run(n: str = name) -> str:
            return f"ran {n}"

        s.add_tool(run, name=name, description=name)

    @s.resource("secret://keys")
    def keys() -> str:
        return "k"

    @s.resource("public://readme")
    def readme() -> str:
        return "r"

    @s.prompt()
    def admin_report() -> str:
        return "report"

    return s


async def all_names(c: Client, method: str) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    while True:
        if method == "tools":
            r = await c.list_tools(cursor)
            names += [t["name"] for t in r["tools"]]
        elif method == "resources":
            r = await c.list_resources(cursor)
            names += [x["uri"] for x in r["resources"]]
        else:
            r = await c.list_prompts(cursor)
            names += [p["name"] for p in r["prompts"]]
        cursor = r.get("nextCursor")
        if cursor is None:
            return names


async def test_a_predicate_decides_from_the_client_identity() -> None:
    s = server(AllowIf(ops_only))
    async with Client.memory(s) as plain:
        assert await all_names(plain, "tools") == ["echo", "search", "time"]
        assert await all_names(plain, "resources") == ["public://readme"]
        assert await all_names(plain, "prompts") == []
    async with Client.memory(s, name="ops-console") as ops:
        assert len(await all_names(ops, "tools")) == 5
        r = await ops.call_tool("admin_reset", {})
        assert r["content"][0]["text"] == "ran admin_reset"


async def test_hidden_items_are_refused_as_unknown_ones() -> None:
    async with Client.memory(server(AllowIf(ops_only))) as plain:
        with pytest.raises(InvalidParams, match="Unknown tool: admin_reset") as e:
            await plain.call_tool("admin_reset", {})
        assert e.value.data == {"tool": "admin_reset"}
        with pytest.raises(McpError, match="Resource not found: secret://keys") as r:
            await plain.read_resource("secret://keys")
        assert r.value.code == -32002
        with pytest.raises(InvalidParams, match="Unknown prompt: admin_report"):
            await plain.get_prompt("admin_report", {})
        # Not hidden: answered as usual.
        assert (await plain.call_tool("echo", {}))["content"][0]["text"] == "ran echo"


async def test_a_predicate_reads_scopes_and_session() -> None:
    # Over HTTP with verified tokens: the predicate gets the principal, its scopes and the
    # session, and decides from the scopes (admin items for a token with "admin" only).
    port, resource, protection = token_protection(
        lambda token: (token, ["admin"] if token == "alice" else [])
    )
    seen: list[tuple[str, str | None, list[str], bool]] = []

    def admin_scope(a: Access) -> bool:
        subject = (a.principal or {}).get("subject")
        in_session = a.session_id is not None and a.session_id in a.session_key
        seen.append((a.name, subject, a.scopes, in_session))
        return not a.name.startswith("admin_") or a.has_scope("admin")

    s = server(AllowIf(admin_scope))
    async with await s.serve_http("127.0.0.1", port, auth=protection):
        for who, tools in [("alice", 5), ("bob", 3)]:
            headers = {"Authorization": f"Bearer {who}"}
            async with Client.http(resource, headers=headers) as c:
                assert len(await all_names(c, "tools")) == tools, who
    assert ("admin_reset", "alice", ["admin"], True) in seen
    assert ("admin_reset", "bob", [], True) in seen
    assert all(in_session for *_, in_session in seen)


def test_a_predicate_must_be_a_function() -> None:
    with pytest.raises(TypeError, match="predicate must be a function"):
        AllowIf("admin")  # type: ignore[arg-type]


async def test_allow_if_full_pages() -> None:
    """Hidden items straddling the page size (2): every page but the last is full, and each
    ``nextCursor`` leads on; the predicate is asked about the whole list once per request."""
    asked: list[str] = []

    def no_admin(a: Access) -> bool:
        asked.append(a.name)
        return not a.name.startswith("admin_")

    s = Server("authz", version="1", page_size=2, middleware=[AllowIf(no_admin)])
    for name in ["a", "admin_1", "b", "admin_2", "admin_3", "c", "d", "admin_4", "e"]:

        def run(n: str = name) -> str:
            return f"ran {n}"

        s.add_tool(run, name=name, description=name)
    async with Client.memory(s) as c:
        pages: list[list[str]] = []
        cursors: list[str | None] = []
        cursor: str | None = None
        while True:
            r = await c.list_tools(cursor)
            pages.append([t["name"] for t in r["tools"]])
            cursor = r.get("nextCursor")
            cursors.append(cursor)
            if cursor is None:
                break
    assert pages == [["a", "b"], ["c", "d"], ["e"]]
    assert all(isinstance(x, str) for x in cursors[:-1]) and cursors[-1] is None
    assert len(asked) == 3 * 9


async def test_a_predicate_that_raises_hides_the_item_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(a: Access) -> bool:
        if a.name == "search":
            raise RuntimeError("predicate bug")
        return True

    async with Client.memory(server(AllowIf(broken))) as c:
        assert "search" not in await all_names(c, "tools")
        with pytest.raises(InvalidParams, match="Unknown tool: search"):
            await c.call_tool("search", {})
        assert (await c.call_tool("echo", {}))["content"][0]["text"] == "ran echo"
    assert any("AllowIf predicate failed for tool 'search'" in r.message for r in caplog.records)


def test_allow_if_is_not_called_as_a_layer() -> None:
    with pytest.raises(TypeError, match="AllowIf runs in the engine"):
        AllowIf(lambda a: True)(None, None)  # type: ignore[arg-type]
