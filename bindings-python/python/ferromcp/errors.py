"""Exceptions raised by ferromcp; the native layer picks the class by JSON-RPC code."""

from __future__ import annotations

from typing import Any


class McpError(Exception):
    """An error with a JSON-RPC ``code``, a ``message`` and optional ``data``.

    Raise it from a handler to answer the request with exactly this JSON-RPC error.
    """

    default_code: int = -32603

    def __init__(self, message: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = self.default_code if code is None else code
        self.data = data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"


class ParseError(McpError):
    """-32700: invalid JSON."""

    default_code = -32700


class InvalidRequest(McpError):
    """-32600: not a valid request."""

    default_code = -32600


class MethodNotFound(McpError):
    """-32601: unknown or not negotiated method."""

    default_code = -32601


class InvalidParams(McpError):
    """-32602: invalid parameters (including schema validation failures)."""

    default_code = -32602


class InternalError(McpError):
    """-32603: internal error."""

    default_code = -32603


class ConnectionClosed(McpError):
    """The connection closed before an answer arrived."""

    default_code = -32000


class RequestTimeout(McpError):
    """A request timed out."""

    default_code = -32001


class ResourceNotFound(McpError):
    """-32002: the resource does not exist."""

    default_code = -32002


class TransportError(McpError):
    """A transport failed (I/O, spawn, HTTP)."""

    default_code = -32010


class UnsupportedProtocolVersion(McpError):
    """The peer negotiated a protocol version we cannot speak."""

    default_code = -32011


class RequestCancelled(McpError):
    """The request was cancelled by this side."""

    default_code = -32800


_BY_CODE: dict[int, type[McpError]] = {
    cls.default_code: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        ConnectionClosed,
        RequestTimeout,
        ResourceNotFound,
        TransportError,
        UnsupportedProtocolVersion,
        RequestCancelled,
    )
}


def from_code(code: int, message: str, data: Any = None) -> McpError:
    """The exception for an error code (``McpError`` for codes without a subclass)."""
    cls = _BY_CODE.get(code, McpError)
    return cls(message, code=code, data=data)


__all__ = [
    "ConnectionClosed",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "MethodNotFound",
    "ParseError",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceNotFound",
    "TransportError",
    "UnsupportedProtocolVersion",
    "from_code",
]
