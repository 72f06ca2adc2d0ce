"""Image/Audio/File helpers, resource values, typed annotations and icons."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path
from typing import Any

import ferromcp
import pytest
from ferromcp import Audio, File, Icon, Image, Server, ToolAnnotations
from pydantic import BaseModel

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_helpers_mime_types(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"jpg")
    assert Image(path=tmp_path / "a.jpg").to_content() == {
        "type": "image",
        "data": b64(b"jpg"),
        "mimeType": "image/jpeg",
    }
    assert Image(data=b"x").mime_type == "image/png"  # FastMCP's default, not sniffed
    assert Image(data=PNG, format="gif").mime_type == "image/gif"  # format wins over the bytes
    assert Audio(data=b"x").to_content()["mimeType"] == "audio/wav"
    assert Audio(data=b"x", format="mpeg").mime_type == "audio/mpeg"
    assert Audio(path="x.mp3").mime_type == "audio/mpeg"
    with pytest.raises(ValueError):
        Image()
    with pytest.raises(ValueError):
        Image(path="a.png", data=b"x")


async def test_tools_return_helpers(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    server = Server("t")

    @server.tool()
    def picture() -> Image:
        return Image(data=PNG)

    @server.tool()
    def mixed() -> list[Any]:
        return ["caption", Image(data=b"i", format="webp"), Audio(data=b"a")]

    @server.tool()
    def text_file() -> File:
        return File(path=tmp_path / "notes.txt")

    @server.tool()
    def blob_file() -> File:
        return File(data=b"\x00\x01", name="raw.bin")

    @server.tool()
    def raw() -> Any:
        return PNG  # bytes: base64 text, never sniffed into an image

    async with ferromcp.Client.memory(server) as c:
        tools = {t["name"]: t for t in await c.list_all_tools()}
        assert "outputSchema" not in tools["picture"]  # content, not data
        r = await c.call_tool("picture")
        assert r["content"] == [{"type": "image", "data": b64(PNG), "mimeType": "image/png"}]
        assert "structuredContent" not in r
        r = await c.call_tool("mixed")
        assert [b["type"] for b in r["content"]] == ["text", "image", "audio"]
        assert r["content"][1]["mimeType"] == "image/webp"
        r = await c.call_tool("text_file")
        assert r["content"] == [
            {
                "type": "resource",
                "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "hello"},
            }
        ]
        r = await c.call_tool("blob_file")
        res = r["content"][0]["resource"]
        assert res["blob"] == b64(b"\x00\x01")
        assert res["mimeType"] == "application/octet-stream"
        r = await c.call_tool("raw")
        assert r["content"] == [{"type": "text", "text": b64(PNG)}]


class Item(BaseModel):
    id: int
    name: str


@dataclasses.dataclass
class Row:
    a: int


async def test_resource_values() -> None:
    server = Server("t")

    @server.resource("data://dict")
    def as_dict() -> dict[str, Any]:
        return {"name": "x", "n": [1, 2]}

    @server.resource("data://text-key")
    def text_key() -> dict[str, Any]:
        return {"text": "a data field, not contents", "count": 1}

    @server.resource("data://contents")
    def contents() -> dict[str, Any]:
        return {"text": "<b>hi</b>", "mimeType": "text/html"}

    @server.resource("data://model")
    def model() -> Item:
        return Item(id=1, name="a")

    @server.resource("data://rows")
    def rows() -> list[Row]:
        return [Row(1), Row(2)]

    @server.resource("data://yaml", mime_type="application/yaml")
    def yaml_like() -> dict[str, Any]:
        return {"k": "v"}

    @server.resource("data://many")
    def many() -> list[Any]:
        return ["one", b"\x00"]

    async with ferromcp.Client.memory(server) as c:
        r = await c.read_resource("data://dict")
        assert r["contents"] == [
            {
                "uri": "data://dict",
                "mimeType": "application/json",
                "text": '{"name": "x", "n": [1, 2]}',
            }
        ]
        r = await c.read_resource("data://text-key")
        assert r["contents"][0]["text"] == '{"text": "a data field, not contents", "count": 1}'
        r = await c.read_resource("data://contents")
        assert r["contents"] == [
            {"uri": "data://contents", "mimeType": "text/html", "text": "<b>hi</b>"}
        ]
        r = await c.read_resource("data://model")
        assert r["contents"][0]["text"] == '{"id": 1, "name": "a"}'
        r = await c.read_resource("data://rows")
        assert r["contents"][0]["text"] == '[{"a": 1}, {"a": 2}]'
        r = await c.read_resource("data://yaml")
        assert r["contents"][0]["mimeType"] == "application/yaml"
        r = await c.read_resource("data://many")
        assert r["contents"][0]["text"] == "one"
        assert r["contents"][1]["blob"] == b64(b"\x00")


async def test_typed_annotations_and_icons() -> None:
    icon = Icon("https://example.com/i.png", mime_type="image/png", sizes=["48x48"], theme="dark")
    server = Server("t", icons=[icon], website_url="https://example.com")

    @server.tool(
        annotations=ToolAnnotations(title="Delete", destructive_hint=True, idempotent_hint=False),
        icons=[icon],
    )
    def delete(path: str) -> str:
        return path

    @server.tool(annotations={"readOnlyHint": True}, icons=[{"src": "data:image/png;base64,AA=="}])
    def look() -> str:
        return ""

    @server.resource("r://x", icons=[icon])
    def r() -> str:
        return ""

    @server.prompt(icons=[icon])
    def p() -> str:
        return ""

    wire = {
        "src": "https://example.com/i.png",
        "mimeType": "image/png",
        "sizes": ["48x48"],
        "theme": "dark",
    }
    async with ferromcp.Client.memory(server) as c:
        info = c.server_info
        assert info["icons"] == [wire]
        assert info["websiteUrl"] == "https://example.com"
        tools = {t["name"]: t for t in await c.list_all_tools()}
        assert tools["delete"]["annotations"] == {
            "title": "Delete",
            "destructiveHint": True,
            "idempotentHint": False,
        }
        assert tools["delete"]["icons"] == [wire]
        assert tools["look"]["annotations"] == {"readOnlyHint": True}
        assert (await c.list_resources())["resources"][0]["icons"] == [wire]
        assert (await c.list_prompts())["prompts"][0]["icons"] == [wire]
    with pytest.raises(TypeError):
        server.tool(annotations=42)(lambda: None)


async def test_pydantic_annotations_model() -> None:
    """Any pydantic model (such as the official SDK's ToolAnnotations) is dumped by alias."""
    from pydantic import ConfigDict, Field

    class SdkAnnotations(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        read_only_hint: bool | None = Field(None, alias="readOnlyHint")
        title: str | None = None

    server = Server("t")

    @server.tool(annotations=SdkAnnotations(read_only_hint=True))
    def f() -> str:
        return ""

    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        assert tool["annotations"] == {"readOnlyHint": True}
