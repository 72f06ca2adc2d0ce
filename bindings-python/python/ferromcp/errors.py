"""Exceptions raised by ferromcp; the native layer picks the class by JSON-RPC code."""

from __future__ import annotations

from typing import Any

from . import _native

#: The engine's error-code table (``embed::ERROR_CODES``): name -> JSON-RPC code.
CODES: dict[str, int] = dict(_native.ERROR_CODES)


class McpError(Exception):
    """An error with a JSON-RPC ``code``, a ``message`` and optional ``data``.

    Raise it from a handler to answer the request with exactly this JSON-RPC error.
    """

    default_code: int = CODES["InternalError"]

    def __init__(self, message: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = self.default_code if code is None else code
        self.data = data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"


class ParseError(McpError):
    """-32700: invalid JSON."""

    default_code = CODES["ParseError"]


class InvalidRequest(McpError):
    """-32600: not a valid request."""

    default_code = CODES["InvalidRequest"]


class MethodNotFound(McpError):
    """-32601: unknown or not negotiated method."""

    default_code = CODES["MethodNotFound"]


class InvalidParams(McpError):
    """-32602: invalid parameters (including schema validation failures)."""

    default_code = CODES["InvalidParams"]


class InternalError(McpError):
    """-32603: internal error."""

    default_code = CODES["InternalError"]


class ConnectionClosed(McpError):
    """The connection closed before an answer arrived."""

    default_code = CODES["ConnectionClosed"]


class RequestTimeout(McpError):
    """A request timed out."""

    default_code = CODES["RequestTimeout"]


class ResourceNotFound(McpError):
    """-32002: the resource does not exist."""

    default_code = CODES["ResourceNotFound"]


class TransportError(McpError):
    """A transport failed (I/O, spawn, HTTP)."""

    default_code = CODES["TransportError"]


class UnsupportedProtocolVersion(McpError):
    """The peer negotiated a protocol version we cannot speak."""

    default_code = CODES["UnsupportedProtocolVersion"]


class RequestCancelled(McpError):
    """The request was cancelled by this side."""

    default_code = CODES["RequestCancelled"]


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


class ClientCapabilityError(RuntimeError):
    """A handler asked the client for something (``ctx.sample``, ``ctx.elicit``,
    ``ctx.list_roots``) that the client did not declare in its capabilities. Not an
    :class:`McpError`: left uncaught in a tool it answers ``isError`` with this message instead
    of failing the whole ``tools/call``."""

    def __init__(self, capability: str, method: str) -> None:
        super().__init__(
            f"the client does not support {capability} (it did not declare the "
            f"'{capability}' capability), so {method} cannot be sent"
        )
        self.capability = capability
        self.method = method


__all__ = [
    "ClientCapabilityError",
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
