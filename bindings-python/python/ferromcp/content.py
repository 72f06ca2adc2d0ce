"""Typed values for tool results and definitions: ``Image``, ``Audio``, ``File`` (content a
tool returns), ``Icon`` and ``ToolAnnotations`` (metadata of a definition).

>>> @server.tool()
... def chart() -> Image:
...     return Image(path="chart.png")        # MIME type from the file name: image/png
"""

from __future__ import annotations

import os
from typing import Any

_IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
    ".avif": "image/avif",
}
_AUDIO_TYPES = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".aac": "audio/aac",
    ".webm": "audio/webm",
}


class _Binary:
    """Bytes from ``data`` or read from ``path`` (exactly one), with a MIME type from
    ``format`` (``"png"`` -> ``image/png``, or a full ``type/subtype``), else from the file
    name's suffix, else the default. The bytes themselves are never inspected."""

    __mcp_content__ = True
    _kind = ""
    _types: dict[str, str] = {}
    _default = "application/octet-stream"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        data: bytes | None = None,
        format: str | None = None,  # noqa: A002 - FastMCP's name
    ) -> None:
        if (path is None) == (data is None):
            raise ValueError("give exactly one of path and data")
        self.path = None if path is None else os.fspath(path)
        self.data = None if data is None else bytes(data)
        self.format = format
        self.mime_type = self._mime()

    def _mime(self) -> str:
        if self.format:
            return self.format if "/" in self.format else f"{self._kind}/{self.format.lower()}"
        if self.path is not None:
            suffix = os.path.splitext(self.path)[1].lower()
            if suffix in self._types:
                return self._types[suffix]
        return self._default

    def read(self) -> bytes:
        """The bytes (read from ``path`` on each call)."""
        if self.data is not None:
            return self.data
        assert self.path is not None
        with open(self.path, "rb") as f:
            return f.read()

    def base64(self) -> str:
        import base64

        return base64.b64encode(self.read()).decode()

    def to_content(self) -> dict[str, Any]:
        """The MCP content block."""
        return {"type": self._kind, "data": self.base64(), "mimeType": self.mime_type}

    def __repr__(self) -> str:
        src = (
            f"path={self.path!r}"
            if self.path is not None
            else f"data=<{len(self.data or b'')} bytes>"
        )
        return f"{type(self).__name__}({src}, mime_type={self.mime_type!r})"


class Image(_Binary):
    """An image a tool returns: ``{"type": "image", "data": base64, "mimeType": ...}``.
    ``Image(data=...)`` without ``format`` is ``image/png``."""

    _kind = "image"
    _types = _IMAGE_TYPES
    _default = "image/png"


class Audio(_Binary):
    """Audio a tool returns: ``{"type": "audio", "data": base64, "mimeType": ...}``.
    ``Audio(data=...)`` without ``format`` is ``audio/wav``."""

    _kind = "audio"
    _types = _AUDIO_TYPES
    _default = "audio/wav"


class File(_Binary):
    """A file a tool returns, as an embedded resource: ``{"type": "resource", "resource":
    {"uri": "file:///<name>", "mimeType": ..., "blob" | "text": ...}}``. The MIME type comes from
    ``format`` or the file name (``mimetypes``), else ``application/octet-stream``; text types
    (``text/*``, JSON, XML, YAML) are sent as ``text`` (UTF-8), others as a base64 ``blob``.
    ``name`` defaults to the file name of ``path`` (``"file"`` for data)."""

    _kind = "file"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        data: bytes | None = None,
        format: str | None = None,  # noqa: A002 - FastMCP's name
        name: str | None = None,
    ) -> None:
        super().__init__(path, data, format)
        self.name = name or (os.path.basename(self.path) if self.path else "file")

    def _mime(self) -> str:
        if self.format:
            if "/" in self.format:
                return self.format
            import mimetypes

            return mimetypes.guess_type(f"x.{self.format}")[0] or "application/octet-stream"
        if self.path is not None:
            import mimetypes

            return mimetypes.guess_type(self.path)[0] or "application/octet-stream"
        return "application/octet-stream"

    def _is_text(self) -> bool:
        m = self.mime_type
        return m.startswith("text/") or m in (
            "application/json",
            "application/xml",
            "application/yaml",
            "application/x-yaml",
            "application/toml",
        )

    def to_content(self) -> dict[str, Any]:
        from urllib.parse import quote

        resource: dict[str, Any] = {
            "uri": f"file:///{quote(self.name)}",
            "mimeType": self.mime_type,
        }
        if self._is_text():
            resource["text"] = self.read().decode("utf-8")
        else:
            resource["blob"] = self.base64()
        return {"type": "resource", "resource": resource}


class Icon:
    """An icon of a server, tool, resource or prompt (2025-11-25): ``src`` is an ``https:`` URL
    or a ``data:`` URI; ``sizes`` like ``["48x48"]`` or ``["any"]``; ``theme`` ``"light"`` or
    ``"dark"``."""

    __slots__ = ("src", "mime_type", "sizes", "theme")

    def __init__(
        self,
        src: str,
        mime_type: str | None = None,
        sizes: list[str] | None = None,
        theme: str | None = None,
    ) -> None:
        self.src = src
        self.mime_type = mime_type
        self.sizes = sizes
        self.theme = theme

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"src": self.src}
        if self.mime_type is not None:
            out["mimeType"] = self.mime_type
        if self.sizes is not None:
            out["sizes"] = list(self.sizes)
        if self.theme is not None:
            out["theme"] = self.theme
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Icon) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.src)

    def __repr__(self) -> str:
        return f"Icon({self.to_dict()!r})"


class ToolAnnotations:
    """Hints about a tool's behaviour (``annotations`` of a tool definition). Clients must treat
    them as untrusted hints."""

    __slots__ = (
        "title",
        "read_only_hint",
        "destructive_hint",
        "idempotent_hint",
        "open_world_hint",
    )

    def __init__(
        self,
        *,
        title: str | None = None,
        read_only_hint: bool | None = None,
        destructive_hint: bool | None = None,
        idempotent_hint: bool | None = None,
        open_world_hint: bool | None = None,
    ) -> None:
        self.title = title
        self.read_only_hint = read_only_hint
        self.destructive_hint = destructive_hint
        self.idempotent_hint = idempotent_hint
        self.open_world_hint = open_world_hint

    def to_dict(self) -> dict[str, Any]:
        pairs = (
            ("title", self.title),
            ("readOnlyHint", self.read_only_hint),
            ("destructiveHint", self.destructive_hint),
            ("idempotentHint", self.idempotent_hint),
            ("openWorldHint", self.open_world_hint),
        )
        return {k: v for k, v in pairs if v is not None}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolAnnotations) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.to_dict().items())))

    def __repr__(self) -> str:
        return f"ToolAnnotations({self.to_dict()!r})"
