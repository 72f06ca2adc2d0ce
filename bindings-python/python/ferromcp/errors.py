"""Exceptions raised by ferromcp; the native layer picks the class by JSON-RPC code.

This module is above the native one (it reads the code table from it) and hands its
:func:`from_code` down when imported (``_native.set_error_factory``), so the native layer never
imports it: no import circle (issue 35)."""

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

    @property
    def error(self) -> Any:
        """The error as a :class:`ferromcp.types.ErrorData` (the official SDK's
        ``MCPError.error``)."""
        from .types import ErrorData

        return ErrorData(code=self.code, message=self.message, data=self.data)

    @classmethod
    def from_error_data(cls, error: Any) -> McpError:
        """The exception of an ``ErrorData`` (ours or the SDK's), of the class its code names."""
        return from_code(error.code, error.message, error.data)


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


class RateLimited(McpError):
    """-32004 "Rate limited": the request's sender is over a rate limit (the ``RateLimit``
    middleware, or a server you call that limits you). :attr:`retry_after` says in how many
    seconds to try again; :attr:`limit` and :attr:`window` give the limit (calls per window
    seconds), from the error's ``data``."""

    default_code = CODES["RateLimited"]

    def _data_number(self, key: str) -> float | None:
        value = self.data.get(key) if isinstance(self.data, dict) else None
        return float(value) if isinstance(value, (int, float)) else None

    @property
    def retry_after(self) -> float | None:
        """Seconds until a request is allowed again (``data.retryAfter``)."""
        return self._data_number("retryAfter")

    @property
    def limit(self) -> int | None:
        """Requests allowed per window (``data.limit``)."""
        value = self._data_number("limit")
        return None if value is None else int(value)

    @property
    def window(self) -> float | None:
        """The window of the limit in seconds (``data.window``)."""
        return self._data_number("window")


class TransportError(McpError):
    """A transport failed (I/O, spawn, HTTP)."""

    default_code = CODES["TransportError"]


class UnsupportedProtocolVersion(McpError):
    """A protocol version one side cannot speak: the server chose one this client does not
    speak, or a 2026-07-28 request named one the server does not serve (``data`` lists the
    ``supported`` revisions and the ``requested`` one)."""

    default_code = CODES["UnsupportedProtocolVersion"]


class HeaderMismatch(McpError):
    """2026-07-28: the HTTP headers of a request are missing, malformed or do not match its
    body (``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``)."""

    default_code = CODES["HeaderMismatch"]


class MissingRequiredClientCapability(McpError):
    """2026-07-28: serving the request needs a capability (sampling, elicitation, roots) the
    client did not declare in the request's ``_meta``."""

    default_code = CODES["MissingRequiredClientCapability"]


class InputRequired(McpError):
    """A handler asks the client for input (2026-07-28): build it with :func:`input_required`
    and raise it; the engine answers an ``input_required`` result and runs the handler again
    when the client retries with the answers. :meth:`Context.request`, :meth:`Context.elicit`,
    :meth:`Context.sample` and :meth:`Context.input` raise it themselves in that era: let it
    propagate (do not catch it with a bare ``except McpError``)."""

    default_code = CODES["InputRequired"]


def input_required(requests: dict[str, dict[str, Any]], state: Any = None) -> InputRequired:
    """The exception that answers ``input_required`` (2026-07-28): ``requests`` maps keys of
    your choosing to ``{"method": ..., "params": ...}`` (``elicitation/create``,
    ``sampling/createMessage``, ``roots/list``); ``state`` (any JSON value) comes back, sealed
    so the client cannot alter it, as :attr:`Context.request_state` on the retry, where
    :meth:`Context.input_response` gives the answers::

        name = ctx.input_response("user_name")
        if name is None:
            raise input_required({"user_name": {"method": "elicitation/create", "params": {...}}})
    """
    if not isinstance(requests, dict) or not requests:
        raise TypeError("input_required needs a non-empty dict of input requests")
    for key, request in requests.items():
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            raise TypeError(f"input request {key!r} needs a string 'method'")
    return InputRequired("input required", data={"inputRequests": requests, "state": state})


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
        RateLimited,
        TransportError,
        UnsupportedProtocolVersion,
        HeaderMismatch,
        MissingRequiredClientCapability,
        InputRequired,
        RequestCancelled,
    )
}


#: The classes of failures this side made itself (the engine's ``ErrorKind`` other than ``Rpc``):
#: an error the peer answered with one of their codes is a plain :class:`McpError`.
_LOCAL: tuple[type[McpError], ...] = (
    ConnectionClosed,
    RequestTimeout,
    RequestCancelled,
    TransportError,
)


def from_code(code: int, message: str, data: Any = None, kind: str | None = None) -> McpError:
    """The exception for an error code (``McpError`` for codes without a subclass).

    ``kind`` is the engine's ``ErrorKind`` (``"rpc"``, ``"transport"``, ``"closed"``,
    ``"timeout"``, ``"cancelled"``) when the error comes from the engine: an ``"rpc"`` error,
    one the peer answered with, never becomes a local failure's class whatever its code (a
    server's own -32000 is not :class:`ConnectionClosed`). Without it the code alone decides.
    """
    cls = _BY_CODE.get(code, McpError)
    if kind == "rpc" and cls in _LOCAL:
        cls = McpError
    return cls(message, code=code, data=data)


class ClientCapabilityError(MissingRequiredClientCapability):
    """A handler asked the client for something (``ctx.sample``, ``ctx.elicit``,
    ``ctx.list_roots``, ``ctx.request``) that the client did not declare in its capabilities:
    the engine's ``-32021`` in every protocol revision, so ``except ClientCapabilityError`` and
    ``except MissingRequiredClientCapability`` catch the same thing. Left uncaught in a tool, it
    answers ``isError`` with this message for a handshake-era client (which knows no such
    code) and is the ``-32021`` answer the spec asks for under 2026-07-28.
    :attr:`capability` names the capability (``"sampling"``, ``"elicitation.url"``, ...),
    :attr:`method` the request that was not sent (``None`` under 2026-07-28)."""

    @property
    def capability(self) -> str | None:
        """The missing capability as a dotted path, read from ``data.requiredCapabilities``."""
        required = self.data.get("requiredCapabilities") if isinstance(self.data, dict) else None
        path: list[str] = []
        while isinstance(required, dict) and len(required) == 1:
            key, required = next(iter(required.items()))
            path.append(key)
        return ".".join(path) or None

    @property
    def method(self) -> str | None:
        """The request that could not be sent (handshake era)."""
        m = self.data.get("method") if isinstance(self.data, dict) else None
        return m if isinstance(m, str) else None


class UrlElicitationRequiredError(McpError):
    """-32042: the request needs the user to complete URL-mode elicitations first (the official
    SDK's ``mcp.shared.exceptions.UrlElicitationRequiredError``). Raised in a tool it is the
    JSON-RPC error ``{"code": -32042, "data": {"elicitations": [...]}}`` (not an ``isError``
    result), as the spec asks. ``elicitations``: :class:`ferromcp.types.ElicitRequestURLParams`
    (or the official SDK's, or dicts with ``mode``, ``message``, ``url``, ``elicitationId``)."""

    default_code = CODES["UrlElicitationRequired"]

    def __init__(self, elicitations: Any = None, message: str | None = None, **kw: Any) -> None:
        if "data" in kw:  # built by from_code from a received error
            data = kw["data"]
            raw = data.get("elicitations", []) if isinstance(data, dict) else []
            text = elicitations if isinstance(elicitations, str) else message
            super().__init__(text or "URL elicitation required", kw.get("code"), data)
            self._elicitations = list(raw)
            return
        items = []
        for e in elicitations or []:
            dump = getattr(e, "model_dump", None)
            item = dump(by_alias=True, exclude_none=True, mode="json") if callable(dump) else e
            if not isinstance(item, dict):
                raise TypeError("an elicitation must be an ElicitRequestURLParams or a dict")
            item = {**item, "mode": "url"}
            if "elicitation_id" in item:
                item["elicitationId"] = item.pop("elicitation_id")
            items.append(item)
        if message is None:
            message = f"URL elicitation{'s' if len(items) > 1 else ''} required"
        super().__init__(message, data={"elicitations": items})
        self._elicitations = items

    @classmethod
    def from_error(cls, error: Any) -> UrlElicitationRequiredError:
        """From the ``ErrorData`` of a received -32042 (the SDK's ``from_error``)."""
        if error.code != cls.default_code:
            raise ValueError(f"Expected error code {cls.default_code}, got {error.code}")
        data = error.data if isinstance(error.data, dict) else {}
        return cls(error.message, data=data)

    @property
    def elicitations(self) -> list[Any]:
        """The required elicitations (:class:`ferromcp.types.ElicitRequestURLParams`)."""
        from .types import ElicitRequestURLParams

        return [
            ElicitRequestURLParams.model_validate(e) if isinstance(e, dict) else e
            for e in self._elicitations
        ]


class ToolError(Exception):
    """A tool failure you anticipated (the official SDK's ``ToolError``): the call answers
    ``isError`` with ``"Error executing tool <name>: <message>"``, logged at INFO without a
    traceback. Any other exception (not an :class:`McpError`) is a crash: the client sees only
    ``"Error executing tool <name>"`` unless the server has ``mask_error_details=False``."""


class ResourceError(Exception):
    """A resource failure you anticipated (the official SDK's ``ResourceError``): the read
    answers a JSON-RPC internal error with this message, never masked."""


# A -32021 from the engine is raised as ClientCapabilityError (a MissingRequiredClientCapability).
_BY_CODE[ClientCapabilityError.default_code] = ClientCapabilityError
_BY_CODE[UrlElicitationRequiredError.default_code] = UrlElicitationRequiredError


_native.set_error_factory(from_code)

#: The official SDK's name (``mcp.shared.exceptions.MCPError``).
MCPError = McpError

__all__ = [
    "MCPError",
    "ClientCapabilityError",
    "ConnectionClosed",
    "HeaderMismatch",
    "InputRequired",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "MethodNotFound",
    "MissingRequiredClientCapability",
    "ParseError",
    "RateLimited",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceError",
    "ResourceNotFound",
    "ToolError",
    "TransportError",
    "UnsupportedProtocolVersion",
    "UrlElicitationRequiredError",
    "from_code",
    "input_required",
]
