"""``Context``: what a handler can do besides computing its result (progress, logs, requests
to the client, elicitation, sampling, roots, its request's metadata), with FastMCP's
``RequestContext`` view and the ``ElicitResult`` of :meth:`Context.elicit`. Kept apart from the
registration code in :mod:`ferromcp.server` because clients' handlers receive it too."""

from __future__ import annotations

import typing
from typing import Any, Generic

from . import _native
from .schema import inline_refs, schema_for, to_jsonable

if typing.TYPE_CHECKING:
    from typing_extensions import TypeVar

    from .results import ResourceContents
    from ._server_face import ServerFace
    from .session import ServerSession

    # Defaults (PEP 696) so that ``Context``, ``Context[AppContext]`` and
    # ``Context[ServerSession, AppContext]`` are all valid; RequestT defaults to ``object``, not
    # ``Any``, so that mypy picks _LifespanContext's first overload for the last one (an
    # argument type holding Any makes overlapping overloads ambiguous). At run time
    # subscripting is ``__class_getitem__`` below.
    SessionT = TypeVar("SessionT", default=Any)
    LifespanT = TypeVar("LifespanT", default=Any)
    RequestT = TypeVar("RequestT", default=object)
else:
    SessionT = typing.TypeVar("SessionT")
    LifespanT = typing.TypeVar("LifespanT")
    RequestT = typing.TypeVar("RequestT")


_UNSET: Any = object()
_L = typing.TypeVar("_L")


class _LifespanContext:
    """``lifespan_context`` of :class:`Context` and :class:`RequestContext`: what the server's
    ``lifespan`` yielded (``None`` without one). A descriptor so that a type checker finds its
    type in both of the official SDK's spellings: ``Context[ServerSession, AppContext]``
    (1.x FastMCP: session type first) and ``Context[AppContext]`` (2.x MCPServer: lifespan
    type first)."""

    @typing.overload
    def __get__(self, obj: None, owner: type[Any]) -> _LifespanContext: ...

    @typing.overload
    def __get__(
        self,
        obj: Context[ServerSession, _L, Any] | RequestContext[ServerSession, _L, Any],
        owner: type[Any],
    ) -> _L: ...

    @typing.overload
    def __get__(
        self, obj: Context[_L, Any, Any] | RequestContext[_L, Any, Any], owner: type[Any]
    ) -> _L: ...

    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        if obj is None:
            return self
        return obj._lifespan_value()


class Context(Generic[SessionT, LifespanT, RequestT]):
    """What a handler can do besides computing its result. Declare a parameter annotated
    ``Context`` to receive it. Generic as in the official SDK:
    ``Context[ServerSession, AppContext]`` (1.x FastMCP) and ``Context[AppContext]`` (2.x
    MCPServer) both type ``ctx.lifespan_context`` and ``ctx.request_context.lifespan_context``
    as ``AppContext`` for a type checker (at run time any parameters are accepted and mean
    ``Context``)."""

    def __init__(self, native: _native.NativeContext, server: ServerFace | None = None) -> None:
        self._native = native
        self._server = server

    def __class_getitem__(cls, params: Any) -> Any:
        # FastMCP code annotates ``ctx: Context[ServerSession, AppContext]`` (1.x) or
        # ``ctx: Context[AppContext]`` (2.x): both mean Context at run time.
        return cls

    @property
    def session(self) -> ServerSession:
        """The official SDK's ``ctx.session``: ``send_resource_list_changed()``,
        ``send_log_message(...)``, ``create_message(...)``, ``elicit(...)``, ``list_roots()``,
        ``client_params``, ``check_client_capability(...)``, ... mapped onto this context."""
        from .session import ServerSession

        return ServerSession(self)

    @property
    def fastmcp(self) -> ServerFace | None:
        """The server (FastMCP's name for :attr:`server`)."""
        return self._server

    @property
    def server(self) -> ServerFace | None:
        """The :class:`ferromcp.Server` serving this request (``None`` in a client's handlers),
        typed by what this module knows of it (:class:`ferromcp._server_face.ServerFace`), since
        ``server`` imports this module."""
        return self._server

    lifespan_context = _LifespanContext()
    """What the server's ``lifespan`` yielded (``None`` without one)."""

    def _lifespan_value(self) -> Any:
        return None if self._server is None else self._server.lifespan_context

    @property
    def request_context(self) -> RequestContext[SessionT, LifespanT, RequestT]:
        """FastMCP's ``ctx.request_context``: ``lifespan_context``, ``request_id``, ``meta``,
        ``headers``, ``session``."""
        return RequestContext(self)

    @property
    def request_id(self) -> int | str:
        """The id of the request being served."""
        return self._native.request_id

    @property
    def meta(self) -> dict[str, Any] | None:
        """The request's ``_meta``."""
        return self._native.meta

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol revision."""
        return self._native.protocol_version

    @property
    def client_info(self) -> Any:
        """The client's ``clientInfo``."""
        return self._native.peer_info

    @property
    def client_capabilities(self) -> Any:
        """The client's capabilities."""
        return self._native.peer_capabilities

    @property
    def progress_token(self) -> int | str | None:
        """The request's progress token (``None`` when the client asked for no progress)."""
        token: int | str | None = self._native.progress_token
        return token

    @property
    def http_headers(self) -> dict[str, str] | None:
        """The headers of the HTTP request this request came in (names in lowercase, repeated
        fields joined with ``", "``); ``None`` on stdio and in-memory connections."""
        pairs: list[list[str]] | None = self._native.http_headers
        if pairs is None:
            return None
        out: dict[str, str] = {}
        for name, value in pairs:
            out[name] = f"{out[name]}, {value}" if name in out else value
        return out

    @property
    def headers(self) -> dict[str, str]:
        """The HTTP request headers (:attr:`http_headers`), empty on stdio and in memory."""
        return self.http_headers or {}

    @property
    def auth(self) -> dict[str, Any] | None:
        """On a protected HTTP server (``serve_http(auth=ProtectedResource(...))``), the verified
        token's identity: ``subject``, ``clientId``, ``scopes``, ``audience``, ``expiresAt``,
        ``claims``; ``None`` otherwise."""
        info: dict[str, Any] | None = self._native.auth
        return info

    def close_sse_stream(self) -> bool:
        """Streamable HTTP only: closes the SSE stream carrying this request after its priming
        event; the client reconnects with ``Last-Event-ID`` and receives the rest (SSE polling,
        2025-11-25). Returns ``False`` where there is no such stream (stdio, JSON responses)."""
        return self._native.close_sse_stream()

    def is_cancelled(self) -> bool:
        """Whether the client cancelled this request."""
        return self._native.is_cancelled()

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Sends ``notifications/progress`` (only if the client asked for progress)."""
        await self._native.progress(
            float(progress), None if total is None else float(total), message
        )

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Sends ``notifications/message`` at an RFC 5424 level (``"info"``, ``"error"``, ...)."""
        await self._native.log(level, to_jsonable(data), logger)

    async def debug(self, data: Any, logger: str | None = None) -> None:
        """``log("debug", ...)``."""
        await self.log("debug", data, logger)

    async def info(self, data: Any, logger: str | None = None) -> None:
        """``log("info", ...)``."""
        await self.log("info", data, logger)

    async def warning(self, data: Any, logger: str | None = None) -> None:
        """``log("warning", ...)``."""
        await self.log("warning", data, logger)

    async def error(self, data: Any, logger: str | None = None) -> None:
        """``log("error", ...)``."""
        await self.log("error", data, logger)

    def supports(self, capability: str) -> bool:
        """Whether the client declared ``capability`` (``"sampling"``, ``"elicitation"``,
        ``"roots"``, ...) in its ``initialize`` request."""
        caps = self.client_capabilities
        return isinstance(caps, dict) and caps.get(capability) is not None

    async def request(self, method: str, params: Any = None) -> Any:
        """Sends a request to the client and returns its result."""
        return await self._native.request(method, to_jsonable(params))

    async def input(self, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Asks the client for several things at once: ``requests`` maps keys of your choosing
        to ``{"method": ..., "params": ...}`` (``elicitation/create``,
        ``sampling/createMessage``, ``roots/list``); returns the client's results under the
        same keys. Before 2026-07-28 each is sent to the client as a request; in the 2026-07-28
        era this raises :class:`InputRequired` (let it propagate), the client answers, and the
        handler runs again, when this call returns the answers. One handler serves both eras."""
        answers: dict[str, Any] = await self._native.input(to_jsonable(requests))
        return answers

    def input_response(self, key: str) -> Any:
        """2026-07-28: the client's answer to input request ``key`` of an earlier
        :func:`input_required` (``None`` when this request carries none)."""
        return self._native.input_response(key)

    @property
    def request_state(self) -> Any:
        """2026-07-28: the ``state`` given to :func:`input_required` in the previous round,
        verified by the engine (``None`` on a first round and before 2026-07-28)."""
        return self._native.request_state

    async def elicit(
        self, message: str, schema: Any = _UNSET, *, response_type: Any = _UNSET
    ) -> ElicitResult:
        """Asks the user for input (``elicitation/create``, form mode). ``schema`` (or
        ``response_type=``, FastMCP's name) is a JSON Schema dict or a type: a dataclass,
        TypedDict or pydantic model (its ``$defs`` are inlined, as elicitation schemas take no
        references), or a single value (``str``, ``int``, ``float``, ``bool``, a ``Literal``, an
        ``Enum``, or a list of strings to choose from), which is asked as an object with one
        ``value`` field, as FastMCP does; ``None`` (or nothing) asks for no data. Returns the
        result dict (``action`` and ``content``) as an :class:`ElicitResult`, whose ``data`` is
        the accepted content validated into the type (for a single value: the value; a
        ``pydantic.ValidationError``, a ``ValueError``, when the content does not fit).
        Raises :class:`ClientCapabilityError` when the client has no elicitation capability."""
        if schema is _UNSET:
            schema = None if response_type is _UNSET else response_type
        elif response_type is not _UNSET:
            raise TypeError("elicit: give schema or response_type, not both")
        requested, convert = _elicitation_schema(schema)
        raw: dict[str, Any] = await self.request(
            "elicitation/create", {"message": message, "requestedSchema": requested}
        )
        result = ElicitResult(raw)
        if convert is not None and result.action == "accept":
            result.data = convert(result.content or {})
        return result

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult:
        """Asks the user to go to ``url`` (``elicitation/create`` in URL mode, for credentials,
        OAuth or payments that must not pass through the client). Returns the result with
        ``action`` (``"accept"`` means the user agreed to open the URL; the interaction itself
        happens out of band, and ``ctx.session.send_elicit_complete(elicitation_id)`` can say
        when it is done). Raises :class:`ClientCapabilityError` when the client did not
        declare URL elicitation. To refuse a request until the user has been there instead,
        raise :class:`~ferromcp.errors.UrlElicitationRequiredError` (-32042)."""
        raw: dict[str, Any] = await self.request(
            "elicitation/create",
            {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id},
        )
        return ElicitResult(raw)

    async def sample(
        self,
        messages: str | list[dict[str, Any]],
        *,
        max_tokens: int = 256,
        system_prompt: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Asks the client's model (``sampling/createMessage``). ``messages`` is a string (one
        user message) or MCP ``SamplingMessage`` dicts. Returns the result dict."""
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens, **extra}
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        result: dict[str, Any] = await self.request("sampling/createMessage", params)
        return result

    async def read_resource(self, uri: str) -> list[ResourceContents]:
        """Reads one of this server's resources (static or through a template) and returns its
        ``contents`` list: dicts with ``uri``, ``mimeType`` and ``text`` or ``blob``, which also
        have FastMCP's ``.content`` (text, or the blob's bytes) and ``.mime_type``. Unknown URIs
        raise ``ResourceNotFound``."""
        if self._server is None:
            raise RuntimeError("read_resource needs a server context")
        from .results import ResourceContents

        r = await self._server._native.read_resource(uri, self._native)
        return [ResourceContents(c) for c in r.get("contents", [])]

    async def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification to the client of this request."""
        await self._native.notify(method, to_jsonable(params))

    async def notify_tool_list_changed(self) -> None:
        """``notifications/tools/list_changed`` to this client (adding or removing a tool sends
        it to every client already)."""
        await self.notify("notifications/tools/list_changed")

    async def notify_resource_list_changed(self) -> None:
        """``notifications/resources/list_changed`` to this client."""
        await self.notify("notifications/resources/list_changed")

    async def notify_prompt_list_changed(self) -> None:
        """``notifications/prompts/list_changed`` to this client."""
        await self.notify("notifications/prompts/list_changed")

    async def notify_resource_updated(self, uri: str) -> None:
        """``notifications/resources/updated`` to every client subscribed to ``uri``."""
        if self._server is None:
            await self.notify("notifications/resources/updated", {"uri": uri})
        else:
            self._server.notify_resource_updated(uri)

    async def list_roots(self) -> list[dict[str, Any]]:
        """The client's roots (``roots/list``)."""
        result = await self.request("roots/list")
        roots: list[dict[str, Any]] = result.get("roots", [])
        return roots


def _elicitation_schema(tp: Any) -> tuple[dict[str, Any], Any]:
    """The ``requestedSchema`` for what :meth:`Context.elicit` was asked for, and the function
    turning accepted content into ``data`` (``None``: ``data`` stays ``None``)."""
    if isinstance(tp, dict):
        return tp, None
    if tp is None:
        return {"type": "object", "properties": {}}, None
    if isinstance(tp, (list, tuple)):
        if not all(isinstance(c, str) for c in tp):
            raise TypeError("elicit: a list of choices must hold strings")
        choices = list(tp)
        value_schema: dict[str, Any] = {"type": "string", "enum": choices}

        def choose(content: dict[str, Any]) -> Any:
            value = content.get("value")
            if value not in choices:
                raise ValueError(f"elicit: {value!r} is not one of {choices}")
            return value

        return _wrapped_value_schema(value_schema), choose
    from pydantic import TypeAdapter

    from ._func import _is_plain_class
    from .schema import pydantic_ready

    ready = pydantic_ready(tp)
    if _is_single_value(tp):
        adapter: Any = TypeAdapter(ready)
        value_schema = inline_refs(adapter.json_schema())
        value_schema.pop("title", None)
        return _wrapped_value_schema(value_schema), lambda c: adapter.validate_python(
            c.get("value")
        )
    if _is_plain_class(tp):
        raise TypeError(f"elicit: {tp.__name__} is not a dataclass, TypedDict or pydantic model")
    adapter = TypeAdapter(ready)
    return inline_refs(schema_for(tp)), adapter.validate_python


def _wrapped_value_schema(value_schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": value_schema}, "required": ["value"]}


def _is_single_value(tp: Any) -> bool:
    """``str``/``int``/``float``/``bool``, a ``Literal`` or an ``Enum``: FastMCP asks for these
    as one ``value`` field."""
    if tp in (str, int, float, bool):
        return True
    if typing.get_origin(tp) is typing.Literal:
        return True
    import enum

    return isinstance(tp, type) and issubclass(tp, enum.Enum)


class ElicitResult(dict[str, Any]):
    """The result of :meth:`Context.elicit`: the ``ElicitResult`` dict (``action``,
    ``content``), with ``data``, the accepted content converted to the requested type."""

    data: Any = None

    @property
    def action(self) -> str:
        """``"accept"``, ``"decline"`` or ``"cancel"``."""
        return str(self.get("action", ""))

    @property
    def content(self) -> dict[str, Any] | None:
        """The submitted values (accepted results only)."""
        c = self.get("content")
        return c if isinstance(c, dict) else None


class RequestContext(Generic[SessionT, LifespanT, RequestT]):
    """``ctx.request_context`` (FastMCP's name for the per-request state)."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: Context[SessionT, LifespanT, RequestT]) -> None:
        self._ctx = ctx

    def __class_getitem__(cls, params: Any) -> Any:
        return cls

    lifespan_context = _LifespanContext()
    """What the server's ``lifespan`` yielded (``None`` without one)."""

    def _lifespan_value(self) -> Any:
        return self._ctx._lifespan_value()

    @property
    def session(self) -> ServerSession:
        """The same as ``ctx.session``."""
        return self._ctx.session

    @property
    def request_id(self) -> int | str:
        return self._ctx.request_id

    @property
    def meta(self) -> dict[str, Any] | None:
        return self._ctx.meta

    @property
    def headers(self) -> dict[str, str]:
        """The HTTP request headers (empty on stdio and in memory)."""
        return self._ctx.headers
