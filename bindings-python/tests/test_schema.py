"""Schema inference for each supported type."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal, Optional, TypedDict, Union

from ferromcp import Server, schema_for


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Point:
    x: int
    y: float = 0.0


class Movie(TypedDict):
    title: str
    year: int


def test_primitives() -> None:
    assert schema_for(int) == {"type": "integer"}
    assert schema_for(float) == {"type": "number"}
    assert schema_for(str) == {"type": "string"}
    assert schema_for(bool) == {"type": "boolean"}
    assert schema_for(None) == {"type": "null"}


def test_containers_and_unions() -> None:
    assert schema_for(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert schema_for(dict[str, bool]) == {
        "type": "object",
        "additionalProperties": {"type": "boolean"},
    }
    assert schema_for(Optional[int]) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema_for(Union[int, str]) == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert schema_for(Literal["a", "b"]) == {"enum": ["a", "b"], "type": "string"}
    assert schema_for(Color) == {"enum": ["red", "blue"], "title": "Color", "type": "string"}


def test_records() -> None:
    # pydantic's schemas (TypeAdapter(tp).json_schema()): titles and defaults included.
    assert schema_for(Point) == {
        "type": "object",
        "title": "Point",
        "properties": {
            "x": {"title": "X", "type": "integer"},
            "y": {"default": 0.0, "title": "Y", "type": "number"},
        },
        "required": ["x"],
    }
    assert schema_for(Movie)["required"] == ["title", "year"]


async def test_tool_schema_and_structured_output() -> None:
    import ferromcp

    server = Server("s")

    @server.tool()
    def where(p: Point, c: Color = Color.RED) -> Movie:
        """Finds a movie."""
        return {"title": f"{p.x} {c.value}", "year": 2000}

    async with ferromcp.Client.memory(server) as client:
        (tool,) = await client.list_all_tools()
        assert tool["description"] == "Finds a movie."
        assert tool["inputSchema"]["required"] == ["p"]
        assert tool["outputSchema"]["properties"]["year"] == {"title": "Year", "type": "integer"}
        r = await client.call_tool("where", {"p": {"x": 3}, "c": "blue"})
        assert r["structuredContent"] == {"title": "3 blue", "year": 2000}
