"""Typed results of :class:`ferromcp.Client` calls.

Each is the MCP wire dict (so ``r["content"][0]["text"]`` keeps working) with typed, snake_case
properties on top: ``r.content``, ``r.structured_content``, ``r.is_error``, ``r.text``."""

from __future__ import annotations

from typing import Any


def _texts(blocks: Any) -> str:
    if not isinstance(blocks, list):
        return ""
    return "".join(
        str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    )


def _list(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class CallToolResult(dict[str, Any]):
    """A ``tools/call`` result."""

    @property
    def content(self) -> list[dict[str, Any]]:
        """The content blocks (``{"type": "text", "text": ...}``, images, ...)."""
        return _list(self.get("content"))

    @property
    def structured_content(self) -> Any:
        """``structuredContent`` (``None`` when absent)."""
        return self.get("structuredContent")

    @property
    def data(self) -> Any:
        """The structured value: ``structuredContent``, unwrapped when it is a primitive or list
        wrapped as ``{"result": ...}`` (only key); ``None`` when absent."""
        s = self.get("structuredContent")
        if isinstance(s, dict) and s.keys() == {"result"}:
            return s["result"]
        return s

    @property
    def is_error(self) -> bool:
        """Whether the tool reported an error (``isError``)."""
        return bool(self.get("isError", False))

    @property
    def text(self) -> str:
        """The text blocks joined."""
        return _texts(self.get("content"))


class Tool(dict[str, Any]):
    """A tool definition from ``tools/list``."""

    @property
    def name(self) -> str:
        return str(self.get("name", ""))

    @property
    def title(self) -> str | None:
        t = self.get("title")
        return t if isinstance(t, str) else None

    @property
    def description(self) -> str | None:
        d = self.get("description")
        return d if isinstance(d, str) else None

    @property
    def input_schema(self) -> dict[str, Any]:
        s = self.get("inputSchema")
        return s if isinstance(s, dict) else {}

    @property
    def output_schema(self) -> dict[str, Any] | None:
        s = self.get("outputSchema")
        return s if isinstance(s, dict) else None

    @property
    def annotations(self) -> dict[str, Any]:
        a = self.get("annotations")
        return a if isinstance(a, dict) else {}


class ResourceContents(dict[str, Any]):
    """One item of a ``resources/read`` result (``uri``, ``mimeType``, ``text`` or ``blob``)."""

    @property
    def uri(self) -> str:
        return str(self.get("uri", ""))

    @property
    def mime_type(self) -> str | None:
        m = self.get("mimeType")
        return m if isinstance(m, str) else None

    @property
    def content(self) -> str | bytes:
        """The text, or the blob's bytes (FastMCP's ``ReadResourceContents.content``)."""
        if "blob" in self:
            import base64

            return base64.b64decode(self["blob"])
        return str(self.get("text", ""))


class ReadResourceResult(dict[str, Any]):
    """A ``resources/read`` result."""

    @property
    def contents(self) -> list[ResourceContents]:
        """The contents items (``uri``, ``mimeType``, ``text`` or ``blob``)."""
        return [ResourceContents(c) for c in _list(self.get("contents"))]

    @property
    def text(self) -> str:
        """The text items joined."""
        return "".join(str(c["text"]) for c in self.contents if "text" in c)

    @property
    def blob(self) -> bytes:
        """The ``blob`` items decoded and joined."""
        import base64

        return b"".join(base64.b64decode(c["blob"]) for c in self.contents if "blob" in c)


class GetPromptResult(dict[str, Any]):
    """A ``prompts/get`` result."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return _list(self.get("messages"))

    @property
    def description(self) -> str | None:
        d = self.get("description")
        return d if isinstance(d, str) else None
