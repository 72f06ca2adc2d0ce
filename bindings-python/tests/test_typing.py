"""Schemas from type hints and argument conversion, as pydantic (and FastMCP) do them."""

from __future__ import annotations

import datetime as dt
import enum
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import ferromcp
import pytest
from ferromcp import Context, Server
from pydantic import BaseModel, Field


class Address(BaseModel):
    street: str
    city: str = "Paris"


class Person(BaseModel):
    name: str
    address: Address
    tags: list[str] = []


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Movie(TypedDict):
    title: str
    year: int


@dataclass
class Point:
    x: int
    y: float = 0.0


async def rejected(client: ferromcp.Client, name: str, args: dict[str, Any]) -> str:
    """The reason a call was refused: a JSON-RPC error, or an ``isError`` result (2025-11-25
    makes argument validation failures tool execution errors)."""
    try:
        r = await client.call_tool(name, args)
    except ferromcp.McpError as e:
        return str(e)
    assert r.get("isError") is True, r
    text: str = r["content"][0]["text"]
    return text


async def test_nested_models_register_resolve_and_convert() -> None:
    server = Server("t")
    seen: dict[str, Any] = {}

    @server.tool()
    def register(person: Person) -> str:
        seen["person"] = person
        return f"{person.name} lives in {person.address.city}"

    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        schema = tool["inputSchema"]
        # $ref stays inside the document: $defs at the root of inputSchema.
        assert schema["properties"]["person"] == {"$ref": "#/$defs/Person"}
        assert schema["$defs"]["Person"]["properties"]["address"] == {"$ref": "#/$defs/Address"}
        assert set(schema["$defs"]) == {"Person", "Address"}
        r = await c.call_tool("register", {"person": {"name": "Ada", "address": {"street": "x"}}})
        assert r["content"][0]["text"] == "Ada lives in Paris"
        assert isinstance(seen["person"], Person)
        assert isinstance(seen["person"].address, Address)
        # The engine resolves the $ref: a wrong nested type is refused before the handler.
        seen.clear()
        assert "street" in await rejected(c, "register", {"person": {"name": "A", "address": {}}})
        assert seen == {}


async def test_field_defaults_and_annotated_constraints() -> None:
    server = Server("t")

    @server.tool()
    def search(
        query: Annotated[str, Field(description="What to look for", min_length=1)],
        limit: Annotated[int, Field(ge=1, le=50, description="How many results")] = 10,
        offset: int = Field(0, ge=0, description="Where to start"),
    ) -> dict[str, Any]:
        return {"query": query, "limit": limit, "offset": offset}

    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        props = tool["inputSchema"]["properties"]
        assert props["query"]["description"] == "What to look for"
        assert props["query"]["minLength"] == 1
        assert props["limit"] == {
            "default": 10,
            "description": "How many results",
            "maximum": 50,
            "minimum": 1,
            "title": "Limit",
            "type": "integer",
        }
        assert props["offset"]["default"] == 0
        assert props["offset"]["minimum"] == 0
        assert props["offset"]["description"] == "Where to start"
        assert tool["inputSchema"]["required"] == ["query"]
        # Field(...) defaults reach the handler as values, not FieldInfo objects.
        r = await c.call_tool("search", {"query": "mcp"})
        assert r["structuredContent"] == {"query": "mcp", "limit": 10, "offset": 0}
        assert "limit" in await rejected(c, "search", {"query": "mcp", "limit": 51})
        assert "limit" in await rejected(c, "search", {"query": "mcp", "limit": 0})


async def test_rich_types_are_converted_before_the_handler() -> None:
    server = Server("t")
    seen: dict[str, Any] = {}

    @server.tool()
    def everything(
        when: dt.datetime,
        day: dt.date,
        ident: uuid.UUID,
        path: Path,
        color: Color,
        mode: Literal["fast", "slow"],
        movie: Movie,
        point: Point,
        maybe: Optional[int] = None,
        either: Union[int, str] = "x",
        nums: tuple[int, ...] = (),
    ) -> str:
        seen.update(locals())
        return "ok"

    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        props = tool["inputSchema"]["properties"]
        assert props["when"]["format"] == "date-time"
        assert props["day"]["format"] == "date"
        assert props["ident"]["format"] == "uuid"
        assert props["mode"]["enum"] == ["fast", "slow"]
        assert tool["inputSchema"]["$defs"]["Color"]["enum"] == ["red", "blue"]
        assert tool["inputSchema"]["$defs"]["Movie"]["required"] == ["title", "year"]
        assert props["maybe"] == {
            "anyOf": [{"type": "integer"}, {"type": "null"}],
            "default": None,
            "title": "Maybe",
        }
        u = uuid.uuid4()
        r = await c.call_tool(
            "everything",
            {
                "when": "2026-11-25T10:00:00Z",
                "day": "2026-11-25",
                "ident": str(u),
                "path": "/tmp/x",
                "color": "blue",
                "mode": "slow",
                "movie": {"title": "M", "year": 1999},
                "point": {"x": 1},
                "maybe": 3,
                "either": 7,
                "nums": [1, 2],
            },
        )
        assert r.get("isError") is not True, r
    assert seen["when"] == dt.datetime(2026, 11, 25, 10, tzinfo=dt.timezone.utc)
    assert seen["day"] == dt.date(2026, 11, 25)
    assert seen["ident"] == u
    assert seen["path"] == Path("/tmp/x")
    assert seen["color"] is Color.BLUE
    assert seen["mode"] == "slow"
    assert seen["movie"] == {"title": "M", "year": 1999}
    assert seen["point"] == Point(x=1, y=0.0)
    assert seen["maybe"] == 3
    assert seen["either"] == 7
    assert seen["nums"] == (1, 2)


async def test_conversion_failure_is_a_tool_error_and_extras_are_ignored() -> None:
    server = Server("t")

    @server.tool()
    def at(when: dt.datetime) -> str:
        return when.isoformat()

    @server.tool()
    def add(a: int, b: int = 1) -> int:
        return a + b

    async with ferromcp.Client.memory(server) as c:
        # "format" is an annotation in JSON Schema 2020-12: pydantic refuses the value.
        r = await c.call_tool("at", {"when": "not a date"})
        assert r["isError"] is True
        assert "Invalid arguments for tool 'at'" in r["content"][0]["text"]
        assert "when" in r["content"][0]["text"]
        r = await c.call_tool("at", {"when": "2026-01-02T03:04:05+00:00", "extra": 1})
        assert r["structuredContent"] == {"result": "2026-01-02T03:04:05+00:00"}
        r = await c.call_tool("add", {"a": 1, "unknown": True})
        assert r["structuredContent"] == {"result": 2}


async def test_template_and_prompt_arguments_are_converted() -> None:
    server = Server("t")
    seen: dict[str, Any] = {}

    @server.resource("items://{id}/{flag}")
    def item(id: int, flag: bool) -> dict[str, Any]:  # noqa: A002 - the template variable
        seen["id"], seen["flag"] = id, flag
        return {"id": id, "flag": flag}

    @server.resource("days://{day}")
    def day(day: dt.date) -> str:
        return day.strftime("%A")

    @server.prompt()
    def review(flag: bool, count: int = 1, tags: Optional[list[str]] = None) -> str:
        seen["prompt"] = (flag, count, tags)
        return f"{flag!r} {count!r} {tags!r}"

    async with ferromcp.Client.memory(server) as c:
        r = await c.read_resource("items://42/false")
        assert seen["id"] == 42 and seen["flag"] is False
        assert r["contents"][0]["text"] == '{"id": 42, "flag": false}'
        assert r["contents"][0]["mimeType"] == "application/json"
        r = await c.read_resource("days://2026-11-25")
        assert r["contents"][0]["text"] == "Wednesday"
        with pytest.raises(ferromcp.InvalidParams, match="id"):
            await c.read_resource("items://abc/true")
        await c.get_prompt("review", {"flag": "false", "count": "3", "tags": '["a", "b"]'})
        assert seen["prompt"] == (False, 3, ["a", "b"])
        await c.get_prompt("review", {"flag": "true"})
        assert seen["prompt"] == (True, 1, None)
        with pytest.raises(ferromcp.InvalidParams, match="flag"):
            await c.get_prompt("review", {"flag": "maybe"})


async def test_prompt_argument_descriptions_from_field() -> None:
    server = Server("t")

    @server.prompt()
    def ask(topic: Annotated[str, Field(description="What to ask about")], n: int = 2) -> str:
        return topic * n

    async with ferromcp.Client.memory(server) as c:
        (p,) = (await c.list_prompts())["prompts"]
        assert p["arguments"] == [
            {"name": "topic", "description": "What to ask about", "required": True},
            {"name": "n", "required": False},
        ]


class Report(BaseModel):
    total: int
    items: list[Address]


async def test_return_annotations_give_output_schemas() -> None:
    server = Server("t")

    @server.tool()
    def count() -> int:
        return 3

    @server.tool()
    def names() -> list[str]:
        return ["a", "b"]

    @server.tool()
    def greet() -> str:
        return "hi"

    @server.tool()
    def nothing() -> None:
        return None

    @server.tool()
    def when() -> dt.date:
        return dt.date(2026, 1, 2)

    @server.tool()
    def report() -> Report:
        return Report(total=1, items=[Address(street="s")])

    @server.tool()
    def point() -> Point:
        return Point(x=1)

    @server.tool(structured_output=True)
    def forced() -> float:
        return 1.5

    @server.tool(structured_output=False)
    def plain() -> int:
        return 4

    @server.tool()
    def untyped():  # type: ignore[no-untyped-def]
        return 5

    async with ferromcp.Client.memory(server) as c:
        tools = {t["name"]: t for t in await c.list_all_tools()}
        assert tools["count"]["outputSchema"] == {
            "properties": {"result": {"title": "Result", "type": "integer"}},
            "required": ["result"],
            "title": "countOutput",
            "type": "object",
        }
        assert tools["names"]["outputSchema"]["properties"]["result"] == {
            "items": {"type": "string"},
            "title": "Result",
            "type": "array",
        }
        assert tools["report"]["outputSchema"]["properties"]["items"]["items"] == {
            "$ref": "#/$defs/Address"
        }
        assert "Address" in tools["report"]["outputSchema"]["$defs"]
        assert tools["point"]["outputSchema"]["required"] == ["x"]
        assert tools["forced"]["outputSchema"]["properties"]["result"]["type"] == "number"
        assert "outputSchema" not in tools["plain"]
        assert "outputSchema" not in tools["untyped"]

        r = await c.call_tool("count")
        assert r["structuredContent"] == {"result": 3}
        assert r["content"] == [{"type": "text", "text": "3"}]
        r = await c.call_tool("names")
        assert r["structuredContent"] == {"result": ["a", "b"]}
        r = await c.call_tool("greet")
        assert r["structuredContent"] == {"result": "hi"}
        assert r["content"] == [{"type": "text", "text": "hi"}]
        r = await c.call_tool("nothing")
        assert r["structuredContent"] == {"result": None}
        r = await c.call_tool("when")
        assert r["structuredContent"] == {"result": "2026-01-02"}
        r = await c.call_tool("report")
        assert r["structuredContent"] == {
            "total": 1,
            "items": [{"street": "s", "city": "Paris"}],
        }
        r = await c.call_tool("point")
        assert r["structuredContent"] == {"x": 1, "y": 0.0}
        r = await c.call_tool("forced")
        assert r["structuredContent"] == {"result": 1.5}
        r = await c.call_tool("plain")
        assert "structuredContent" not in r
        assert r["content"] == [{"type": "text", "text": "4"}]


def test_structured_output_true_needs_an_annotation() -> None:
    server = Server("t")
    with pytest.raises(TypeError, match="return annotation"):

        @server.tool(structured_output=True)
        def f():  # type: ignore[no-untyped-def]
            return 1


@pytest.mark.parametrize(
    "signature",
    [
        "def f(a: int, b: str, c: float, d: bool): pass",
        "def f(a: int = 1, b_c: str = 'x', c: float = 1.5, d: bool = False): pass",
        "def f(user_id: int, x=None, *, y: str = 'z'): pass",
        "def f(): pass",
    ],
)
def test_plain_signatures_give_pydantic_schema_without_pydantic(signature: str) -> None:
    from ferromcp import _func
    from ferromcp.server import _params

    scope: dict[str, Any] = {}
    exec(signature, scope)  # noqa: S102 - test input
    _, _, _, params = _params(scope["f"], "fArguments")
    assert params._model is None  # the plain path
    forced = _func.Params.__new__(_func.Params)
    forced.names, forced.var_kw, forced.strings, forced._aliases = params.names, False, False, []
    forced._build_model("fArguments")
    assert params.schema == forced.schema


def test_a_plain_server_does_not_import_pydantic() -> None:
    code = (
        "import sys\n"
        "from ferromcp import Server\n"
        "s = Server('t')\n"
        "@s.tool\n"
        "def add(a: int, b: float = 2.0, c: str = '', d: bool = False) -> int:\n"
        "    return a\n"
        "@s.prompt\n"
        "def p(x: str) -> str:\n"
        "    return x\n"
        "@s.resource('r://{x}')\n"
        "def r(x: str) -> str:\n"
        "    return x\n"
        "assert 'pydantic' not in sys.modules, 'pydantic was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_context_parameter_is_not_an_argument() -> None:
    server = Server("t")

    @server.tool()
    async def f(x: dt.date, ctx: Context) -> str:
        return f"{x.year} {ctx.request_id is not None}"

    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        assert list(tool["inputSchema"]["properties"]) == ["x"]
        r = await c.call_tool("f", {"x": "2020-02-02"})
        assert r["structuredContent"] == {"result": "2020 True"}


META = {"note": "a dict makes the annotation unhashable"}


async def test_unhashable_annotations() -> None:
    from ferromcp import schema_for

    meta = META
    assert schema_for(Annotated[int, meta]) == {"type": "integer"}
    server = Server("t")

    @server.tool()
    def f(x: Annotated[int, META]) -> Annotated[int, META]:
        return x + 1

    async with ferromcp.Client.memory(server) as c:
        r = await c.call_tool("f", {"x": 1})
        assert r["structuredContent"] == {"result": 2}


async def test_one_unresolvable_annotation_does_not_hide_the_others() -> None:
    class Local:  # not resolvable from the module's globals (string annotations)
        pass

    server = Server("t")

    @server.tool()
    def f(x: dt.date, ctx: Context) -> Local:
        return f"{x.year} {ctx.request_id is not None}"  # type: ignore[return-value]

    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        assert list(tool["inputSchema"]["properties"]) == ["x"]
        assert "outputSchema" not in tool
        r = await c.call_tool("f", {"x": "2021-01-01"})
        assert r["content"][0]["text"] == "2021 True"
