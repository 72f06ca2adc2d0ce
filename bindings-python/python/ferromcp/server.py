"""``Server`` (FastMCP-style decorators) and ``Context``, on the native engine."""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from . import _native
from .errors import ClientCapabilityError, InvalidParams, McpError
from .schema import EMPTY as _EMPTY
from ._func import ArgumentError, Params, output_for
from .schema import inline_refs, schema_for, to_jsonable

# Imported lazily (cold start: `python server.py` should answer `initialize` quickly): asyncio
# (only when an async handler or HTTP needs the event loop), inspect (only for callables that
# are not plain functions), json, base64, signal, logging (on a handler's failure), pydantic
# (only for signatures beyond str/int/float/bool: see _func), the client (ctx.read_resource).

if typing.TYPE_CHECKING:
    from .auth import ProtectedResource
    from .results import ResourceContents

F = TypeVar("F", bound=Callable[..., Any])


class Context:
    """What a handler can do besides computing its result. Declare a parameter annotated
    ``Context`` to receive it (``Context[ServerSession, AppState]``, the official SDK's
    spelling, is accepted too and means the same)."""

    def __init__(self, native: _native.NativeContext, server: Server | None = None) -> None:
        self._native = native
        self._server = server

    def __class_getitem__(cls, params: Any) -> type[Context]:
        # FastMCP code annotates ``ctx: Context[ServerSession, AppContext]``.
        return cls

    @property
    def fastmcp(self) -> Server | None:
        """The server (FastMCP's name for :attr:`server`)."""
        return self._server

    @property
    def server(self) -> Server | None:
        """The server serving this request (``None`` in a client's handlers)."""
        return self._server

    @property
    def lifespan_context(self) -> Any:
        """What the server's ``lifespan`` yielded (``None`` without one)."""
        return None if self._server is None else self._server.lifespan_context

    @property
    def request_context(self) -> RequestContext:
        """FastMCP's ``ctx.request_context``: ``lifespan_context``, ``request_id``, ``meta``,
        ``headers``."""
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
        await self._native.progress(float(progress), None if total is None else float(total), message)

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

    def _require(self, capability: str, method: str) -> None:
        if not self.supports(capability):
            raise ClientCapabilityError(capability, method)

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

    async def elicit(self, message: str, schema: Any) -> ElicitResult:
        """Asks the user for input (``elicitation/create``, form mode). ``schema`` is a JSON
        Schema dict or a type (dataclass, TypedDict, pydantic model; its ``$defs`` are inlined,
        as elicitation schemas take no references). Returns the result dict (``action`` and
        ``content``) as an :class:`ElicitResult`, whose ``data`` is the accepted content
        validated into ``schema`` when it is a type (a ``pydantic.ValidationError``, a
        ``ValueError``, when the content does not fit). Raises :class:`ClientCapabilityError`
        when the client has no elicitation capability."""
        self._require("elicitation", "elicitation/create")
        requested = schema if isinstance(schema, dict) else inline_refs(schema_for(schema))
        raw: dict[str, Any] = await self.request(
            "elicitation/create", {"message": message, "requestedSchema": requested}
        )
        result = ElicitResult(raw)
        if not isinstance(schema, dict) and result.action == "accept":
            from pydantic import TypeAdapter

            from ._func import pydantic_ready

            result.data = TypeAdapter(pydantic_ready(schema)).validate_python(
                result.content or {}
            )
        return result

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
        self._require("sampling", "sampling/createMessage")
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

        return [ResourceContents(c) for c in await self._server._read_own_resource(uri)]

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
        self._require("roots", "roots/list")
        result = await self.request("roots/list")
        roots: list[dict[str, Any]] = result.get("roots", [])
        return roots


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


class RequestContext:
    """``ctx.request_context`` (FastMCP's name for the per-request state)."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx

    @property
    def lifespan_context(self) -> Any:
        """What the server's ``lifespan`` yielded."""
        return self._ctx.lifespan_context

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


class _Param:
    """The parts of ``inspect.Parameter`` the decorators use."""

    __slots__ = ("kind", "default")
    POSITIONAL_ONLY = "POSITIONAL_ONLY"
    POSITIONAL_OR_KEYWORD = "POSITIONAL_OR_KEYWORD"
    VAR_POSITIONAL = "VAR_POSITIONAL"
    KEYWORD_ONLY = "KEYWORD_ONLY"
    VAR_KEYWORD = "VAR_KEYWORD"
    empty: Any = _EMPTY

    def __init__(self, kind: str, default: Any = _EMPTY) -> None:
        self.kind = kind
        self.default = default


class _Sig:
    """The parts of ``inspect.Signature`` the decorators use."""

    __slots__ = ("parameters",)

    def __init__(self, parameters: dict[str, _Param]) -> None:
        self.parameters = parameters


_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08
_CO_COROUTINE = 0x80


def _signature(fn: Callable[..., Any]) -> _Sig:
    """``fn``'s parameters; read from its code object for plain functions (no ``inspect``
    import), from ``inspect.signature`` for anything else (wrappers, partials, methods)."""
    if type(fn) is types.FunctionType and not hasattr(fn, "__wrapped__") and not hasattr(
        fn, "__signature__"
    ):
        code = fn.__code__
        names = code.co_varnames
        n_pos, n_kw = code.co_argcount, code.co_kwonlyargcount
        defaults = fn.__defaults__ or ()
        kwdefaults = fn.__kwdefaults__ or {}
        first_default = n_pos - len(defaults)
        params: dict[str, _Param] = {}
        for i in range(n_pos):
            kind = _Param.POSITIONAL_ONLY if i < code.co_posonlyargcount else _Param.POSITIONAL_OR_KEYWORD
            params[names[i]] = _Param(kind, defaults[i - first_default] if i >= first_default else _EMPTY)
        extra = n_pos + n_kw
        if code.co_flags & _CO_VARARGS:
            params[names[extra]] = _Param(_Param.VAR_POSITIONAL)
            extra += 1
        for name in names[n_pos : n_pos + n_kw]:
            params[name] = _Param(_Param.KEYWORD_ONLY, kwdefaults.get(name, _EMPTY))
        if code.co_flags & _CO_VARKEYWORDS:
            params[names[extra]] = _Param(_Param.VAR_KEYWORD)
        return _Sig(params)
    import inspect

    return _Sig(
        {
            n: _Param(p.kind.name, _EMPTY if p.default is p.empty else p.default)
            for n, p in inspect.signature(fn).parameters.items()
        }
    )


def _is_async(fn: Callable[..., Any]) -> bool:
    """``inspect.iscoroutinefunction`` without importing inspect for plain functions."""
    if type(fn) is types.FunctionType and not hasattr(fn, "_is_coroutine_marker"):
        return bool(fn.__code__.co_flags & _CO_COROUTINE)
    import inspect

    return inspect.iscoroutinefunction(fn)


def _is_awaitable(value: Any) -> bool:
    return hasattr(value, "__await__") or type(value) is types.CoroutineType


def _doc(fn: Callable[..., Any]) -> str | None:
    """``inspect.getdoc`` for plain functions: the docstring with its indentation removed."""
    if type(fn) is not types.FunctionType:
        import inspect

        return inspect.getdoc(fn)
    doc = fn.__doc__
    if not isinstance(doc, str):
        return None
    lines = doc.expandtabs().split("\n")
    indents = [len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()]
    margin = min(indents) if indents else 0
    out = [lines[0].lstrip()] + [x[margin:] for x in lines[1:]]
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)


def _is_context_type(tp: Any) -> bool:
    if isinstance(tp, type):
        return issubclass(tp, Context)
    return any(_is_context_type(a) for a in typing.get_args(tp))


def _context_param(sig: _Sig, hints: dict[str, Any]) -> str | None:
    for name in sig.parameters:
        tp = hints.get(name)
        if tp is not None and _is_context_type(tp):
            return name
    return None


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001 - some forward reference does not resolve
        # Resolve the annotations one by one, so that one unresolvable name (a class local to
        # a function, under `from __future__ import annotations`) does not hide the others.
        globalns = getattr(fn, "__globals__", {})
        out: dict[str, Any] = {}
        for name, ann in dict(getattr(fn, "__annotations__", {})).items():
            if isinstance(ann, str):
                try:
                    ann = eval(ann, globalns)  # noqa: S307 - what get_type_hints does
                except Exception:  # noqa: BLE001 - left as the string
                    pass
            out[name] = ann
        return out


def _params(
    fn: Callable[..., Any], model_name: str, *, strings: bool = False
) -> tuple[_Sig, dict[str, Any], str | None, Params]:
    """``fn``'s signature, type hints, ``Context`` parameter and :class:`Params` (the others)."""
    sig = _signature(fn)
    hints = _hints(fn)
    ctx_name = _context_param(sig, hints)
    names: dict[str, tuple[Any, Any]] = {}
    var_kw = False
    for n, p in sig.parameters.items():
        if n == ctx_name or p.kind == p.VAR_POSITIONAL:
            continue
        if p.kind == p.VAR_KEYWORD:
            var_kw = True
            continue
        names[n] = (hints.get(n, _EMPTY), p.default)
    return sig, hints, ctx_name, Params(model_name, names, var_kw=var_kw, strings=strings)


def _logger() -> Any:
    import logging

    return logging.getLogger("ferromcp")


def _log_failure(kind: str, name: str, e: BaseException) -> None:
    """Logs a handler's exception with its traceback (logger ``ferromcp``)."""
    _logger().error("%s %r failed", kind, name, exc_info=(type(e), e, e.__traceback__))


def _tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


async def _await(aw: Awaitable[Any]) -> Any:
    return await aw


def _bytes_content(value: bytes | bytearray) -> dict[str, Any]:
    """Raw bytes returned by a tool: their base64 text (no guessing what they are; return
    ``Image``, ``Audio`` or ``File`` to say it)."""
    import base64

    return {"type": "text", "text": base64.b64encode(bytes(value)).decode()}


def _unstructured(value: Any, *_: Any) -> Any:
    """A tool's value without an output schema, as JSON for the engine (embed::shape::tool_result:
    strings, content blocks, lists of them, full results, other values as JSON text)."""
    if type(value) is str:
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"content": [_bytes_content(value)]}
    if isinstance(value, (list, tuple)) and any(
        isinstance(v, (bytes, bytearray)) or getattr(type(v), "__mcp_content__", False) for v in value
    ):
        blocks = []
        for v in value:
            if isinstance(v, (bytes, bytearray)):
                blocks.append(_bytes_content(v))
            elif isinstance(v, str):
                blocks.append({"type": "text", "text": v})
            else:
                blocks.append(to_jsonable(v))
        return {"content": blocks}
    return to_jsonable(value)


def _annotations_dict(annotations: Any) -> dict[str, Any] | None:
    """Tool annotations as the wire dict: a dict, a :class:`ToolAnnotations`, or any pydantic
    model (such as the official SDK's ``ToolAnnotations``)."""
    if annotations is None:
        return None
    if isinstance(annotations, dict):
        return dict(annotations)
    to_dict = getattr(annotations, "to_dict", None)
    if callable(to_dict):
        out: dict[str, Any] = to_dict()
        return out
    if hasattr(annotations, "model_dump"):
        dumped: dict[str, Any] = annotations.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    raise TypeError(f"annotations must be a dict or ToolAnnotations, not {type(annotations).__name__}")


def _icons_list(icons: Any) -> list[dict[str, Any]] | None:
    if icons is None:
        return None
    out: list[dict[str, Any]] = []
    for icon in icons:
        if isinstance(icon, dict):
            out.append(dict(icon))
        elif callable(getattr(icon, "to_dict", None)):
            out.append(icon.to_dict())
        elif hasattr(icon, "model_dump"):
            out.append(icon.model_dump(by_alias=True, exclude_none=True, mode="json"))
        else:
            raise TypeError(f"an icon must be a dict or Icon, not {type(icon).__name__}")
    return out


class Server:
    """An MCP server. Register features with the decorators, then call :meth:`run`."""

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        title: str | None = None,
        instructions: str | None = None,
        page_size: int | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        lifespan: Callable[[Server], Any] | None = None,
    ) -> None:
        """``lifespan(server)``: an async context manager (``@asynccontextmanager`` function)
        entered when the server starts serving (``run``, ``serve_http``, a ``Client.memory``
        connection) and left when it stops; what it yields is ``ctx.lifespan_context`` (and
        ``server.lifespan_context``). It is entered once however many of these overlap."""
        config: dict[str, Any] = {"name": name, "version": version}
        if title is not None:
            config["title"] = title
        if instructions is not None:
            config["instructions"] = instructions
        if page_size is not None:
            config["pageSize"] = page_size
        if website_url is not None:
            config["websiteUrl"] = website_url
        if icons is not None:
            config["icons"] = _icons_list(icons)
        self.name = name
        self._native = _native.NativeServer(config)
        self._has_async = False
        self._loopless = False
        self._tools: set[str] = set()
        self._resources: set[str] = set()
        self._prompts: set[str] = set()
        self._lifespan = lifespan
        self._lifespan_cm: Any = None
        self._lifespan_state: Any = None
        self._users = 0
        self._self_clients: dict[Any, Any] = {}
        if lifespan is not None:
            self._has_async = True  # entering it needs an event loop

    # ---- lifespan ----------------------------------------------------------------------------
    @property
    def lifespan_context(self) -> Any:
        """What ``lifespan`` yielded, while the server is serving (``None`` otherwise)."""
        return self._lifespan_state

    async def _start_use(self) -> None:
        """One more user (a serving transport or in-memory client); the first enters the
        lifespan."""
        self._users += 1
        if self._users == 1 and self._lifespan is not None:
            cm = self._lifespan(self)
            if hasattr(cm, "__anext__") and not hasattr(cm, "__aenter__"):
                # An undecorated async generator function: used as if decorated.
                import contextlib

                gen = cm
                cm = contextlib.asynccontextmanager(lambda: gen)()
            if not hasattr(cm, "__aenter__"):
                self._users -= 1
                close = getattr(cm, "close", None)
                if close is not None:
                    close()  # a coroutine: not awaited
                raise TypeError(
                    "lifespan must return an async context manager (decorate it with "
                    "contextlib.asynccontextmanager)"
                )
            try:
                self._lifespan_state = await cm.__aenter__()
            except BaseException:
                self._users -= 1
                raise
            self._lifespan_cm = cm

    async def _end_use(self) -> None:
        """One user fewer; the last closes the server's own clients and leaves the lifespan."""
        self._users -= 1
        if self._users > 0:
            return
        clients, self._self_clients = self._self_clients, {}
        for client in clients.values():
            if hasattr(client, "cancel"):  # still connecting
                client.cancel()
                continue
            try:
                await client.close()
            except Exception:  # noqa: BLE001 - closing anyway (another loop, already closed)
                pass
        cm, self._lifespan_cm = self._lifespan_cm, None
        if cm is not None:
            try:
                await cm.__aexit__(None, None, None)
            finally:
                self._lifespan_state = None

    async def _read_own_resource(self, uri: str) -> list[dict[str, Any]]:
        """``resources/read`` of this server through an in-memory client (one per event loop),
        so templates, MIME types and errors are exactly those a client sees."""
        import asyncio

        loop = asyncio.get_running_loop()
        pending = self._self_clients.get(loop)
        if pending is None:
            from .client import Client

            client = Client.memory(self, name=f"{self.name} (ctx.read_resource)")
            client._uses_server = False
            pending = asyncio.ensure_future(client.connect())
            self._self_clients[loop] = pending
        if isinstance(pending, asyncio.Future):
            try:
                client = await asyncio.shield(pending)
            except BaseException:
                if self._self_clients.get(loop) is pending:
                    del self._self_clients[loop]
                raise
            self._self_clients[loop] = client
        else:
            client = pending
        r = await client.read_resource(uri)
        contents: list[dict[str, Any]] = r.get("contents", [])
        return contents

    # ---- tools -------------------------------------------------------------------------------
    @typing.overload
    def tool(self, name: F) -> F: ...

    @typing.overload
    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        title: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        task_support: str | None = None,
        structured_output: bool | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        name: Any = None,
        *,
        description: str | None = None,
        title: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        task_support: str | None = None,
        structured_output: bool | None = None,
    ) -> Any:
        """Registers a function as a tool (``@server.tool`` or ``@server.tool(...)``).

        The input schema comes from the parameters' type hints as pydantic generates it (nested
        models, ``Field(...)`` defaults and constraints, ``Annotated[int, Field(ge=1)]``, enums,
        datetimes, ...) unless ``input_schema`` is given; arguments are converted to the
        annotated types before the call. The return annotation gives the ``outputSchema``:
        object-shaped types (pydantic model, dataclass, TypedDict, ``dict[str, T]``) as they
        are, anything else wrapped as ``{"result": ...}``; ``structured_output=False`` turns it
        off. ``annotations`` is a :class:`ToolAnnotations` or dict, ``icons`` a list of
        :class:`Icon` or dicts. Registering a name twice raises ``ValueError``."""
        if callable(name):
            self.add_tool(name)
            return name
        if name is not None and not isinstance(name, str):
            raise TypeError(f"tool name must be a string, not {type(name).__name__}")

        def deco(fn: F) -> F:
            self.add_tool(
                fn,
                name=name,
                description=description,
                title=title,
                input_schema=input_schema,
                output_schema=output_schema,
                annotations=annotations,
                icons=icons,
                meta=meta,
                task_support=task_support,
                structured_output=structured_output,
            )
            return fn

        return deco

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        task_support: str | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Registers ``fn`` as a tool (see :meth:`tool`)."""
        tool_name = name or fn.__name__
        if tool_name in self._tools:
            raise ValueError(f"a tool named {tool_name!r} is already registered")
        fn_name = getattr(fn, "__name__", tool_name)
        try:
            _, hints, ctx_name, params = _params(fn, f"{fn_name}Arguments")
        except TypeError:
            if input_schema is None:
                raise
            # An explicit schema: arguments are passed as they come.
            sig = _signature(fn)
            hints = _hints(fn)
            ctx_name = _context_param(sig, hints)
            params = Params(f"{fn_name}Arguments", {}, var_kw=True)
        if input_schema is None:
            input_schema = params.schema
        out = output_for(
            hints.get("return", _EMPTY), fn_name, structured_output, output_schema, _unstructured
        )
        definition: dict[str, Any] = {"name": tool_name, "inputSchema": input_schema}
        doc = description or _doc(fn)
        if doc:
            definition["description"] = doc
        if title:
            definition["title"] = title
        if out.schema is not None:
            definition["outputSchema"] = out.schema
        ann = _annotations_dict(annotations)
        if ann:
            definition["annotations"] = ann
        icon_list = _icons_list(icons)
        if icon_list is not None:
            definition["icons"] = icon_list
        if meta is not None:
            definition["_meta"] = meta
        if task_support is not None:
            if task_support not in ("forbidden", "optional", "required"):
                raise ValueError(
                    f"task_support must be 'forbidden', 'optional' or 'required', not {task_support!r}"
                )
            definition["execution"] = {"taskSupport": task_support}

        convert = params.convert
        prepare: Callable[..., dict[str, Any]] = convert
        if ctx_name is not None:

            def prepare(
                arguments: dict[str, Any], native_ctx: _native.NativeContext
            ) -> dict[str, Any]:
                kwargs = convert(arguments)
                kwargs[ctx_name] = Context(native_ctx, self)
                return kwargs

        # The engine shapes the answer (embed::shape::tool_result): strings, content blocks,
        # structured values (the tool has an outputSchema) and full results.
        handler = self._adapt(fn, prepare, out.finish, kind="tool", name=tool_name)
        self._native.add_tool(definition, handler)
        self._tools.add(tool_name)

    def _adapt(
        self,
        fn: Callable[..., Any],
        prepare: Callable[..., dict[str, Any]],
        finish: Callable[..., Any],
        *,
        kind: str,
        name: str,
    ) -> Callable[..., Any]:
        """The native handler for ``fn``: ``prepare(*native_args)`` gives its keyword arguments,
        ``finish(value, *native_args)`` the answer. A coroutine function gives an ``async def``
        handler (runs as a task on the event loop); any other function a plain one, which the
        native layer calls directly on a worker thread (off the event loop, no asyncio round
        trip).

        Failures: ``McpError`` is the JSON-RPC error it names. For a tool, arguments that do not
        convert answer ``isError`` with the reason, and any other exception answers ``isError``
        with ``"<Type>: <message>"`` and is logged with its traceback (logger ``ferromcp``).
        For other handlers, unconvertible arguments are ``InvalidParams`` and other exceptions
        are logged and answered as internal errors."""
        is_tool = kind == "tool"

        def failed(e: Exception) -> Any:
            if isinstance(e, ArgumentError):
                if is_tool:
                    return _tool_error(f"Invalid arguments for tool {name!r}: {e}")
                raise InvalidParams(f"Invalid arguments for {kind} {name!r}: {e}") from None
            _log_failure(kind, name, e)
            if is_tool:
                return _tool_error(f"{type(e).__name__}: {e}")
            raise e

        if _is_async(fn):
            if self._loopless:
                raise RuntimeError(
                    "this server is serving stdio without an event loop (all handlers were sync "
                    "when run() started): async handlers cannot be added now"
                )
            self._has_async = True

            async def run_async(*native_args: Any) -> Any:
                try:
                    value = await fn(**prepare(*native_args))
                    return finish(value, *native_args)
                except McpError:
                    raise
                except Exception as e:
                    return failed(e)

            return run_async

        def run_sync(*native_args: Any) -> Any:
            try:
                value = fn(**prepare(*native_args))
                if _is_awaitable(value):
                    value = self._await_on_loop(value)
                return finish(value, *native_args)
            except McpError:
                raise
            except Exception as e:
                return failed(e)

        return run_sync

    def _await_on_loop(self, aw: Awaitable[Any]) -> Any:
        """Awaits ``aw`` (returned by a sync handler) on the serving loop from a worker thread."""
        import asyncio

        loop = self._native.event_loop
        if loop is None or loop.is_closed():
            return asyncio.run(_await(aw))  # serving without a loop (see run())
        return asyncio.run_coroutine_threadsafe(_await(aw), loop).result()

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; returns whether it existed."""
        self._tools.discard(name)
        return self._native.remove_tool(name)

    # ---- resources ---------------------------------------------------------------------------
    def remove_resource(self, uri: str) -> bool:
        """Removes a resource or resource template (by its URI or URI template); returns whether
        it existed."""
        self._resources.discard(uri)
        return self._native.remove_resource(uri)

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        title: str | None = None,
        icons: list[Any] | None = None,
        annotations: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Callable[[F], F]:
        """Registers a resource (a URI) or a resource template (a URI with ``{variables}``,
        passed to the function as keyword arguments converted to their annotated types, e.g.
        ``id: int``). The function returns ``str`` (text), ``bytes`` (blob), a contents dict
        (``text`` or ``blob``, optional ``mimeType``), a list of them, or any other value
        (a dict, list, pydantic model, dataclass), which is read as its JSON text
        (``application/json`` unless ``mime_type`` says otherwise). Registering a URI twice
        raises ``ValueError``."""
        if callable(uri):
            raise TypeError("use @server.resource(uri), with the resource's URI")

        def deco(fn: F) -> F:
            if uri in self._resources:
                raise ValueError(f"a resource {uri!r} is already registered")
            fn_name = getattr(fn, "__name__", "resource")
            _, _, ctx_name, params = _params(fn, f"{fn_name}Arguments", strings=True)
            is_template = "{" in uri
            definition: dict[str, Any] = {"name": name or fn_name}
            definition["uriTemplate" if is_template else "uri"] = uri
            doc = description or _doc(fn)
            if doc:
                definition["description"] = doc
            if mime_type:
                definition["mimeType"] = mime_type
            if title:
                definition["title"] = title
            icon_list = _icons_list(icons)
            if icon_list is not None:
                definition["icons"] = icon_list
            if annotations is not None:
                definition["annotations"] = annotations
            if meta is not None:
                definition["_meta"] = meta
            _check_template_params(uri, fn_name, params)
            convert = params.convert

            def prepare(
                read_uri: str, variables: dict[str, str], native_ctx: _native.NativeContext
            ) -> dict[str, Any]:
                kwargs = convert(variables)
                if ctx_name is not None:
                    kwargs[ctx_name] = Context(native_ctx, self)
                return kwargs

            def finish(value: Any, *_: Any) -> Any:
                return _resource_value(value, mime_type)

            handler = self._adapt(fn, prepare, finish, kind="resource", name=uri)
            if is_template:
                self._native.add_resource_template(definition, handler)
            else:
                self._native.add_resource(definition, handler)
            self._resources.add(uri)
            return fn

        return deco

    def notify_resource_updated(self, uri: str) -> None:
        """Tells subscribed clients that ``uri`` changed."""
        self._native.notify_resource_updated(uri)

    # ---- prompts -----------------------------------------------------------------------------
    @typing.overload
    def prompt(self, name: F) -> F: ...

    @typing.overload
    def prompt(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        title: str | None = None,
        arguments: list[dict[str, Any]] | None = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        name: Any = None,
        *,
        description: str | None = None,
        title: str | None = None,
        arguments: list[dict[str, Any]] | None = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """Registers a prompt (``@server.prompt`` or ``@server.prompt(...)``). Parameters become
        prompt arguments (required unless they have a default; descriptions from
        ``Field(description=...)``) unless ``arguments`` (MCP ``PromptArgument`` dicts: ``name``,
        ``description``, ``required``) is given; the string values are converted to the
        annotated types (``flag: bool`` gets ``False`` from ``"false"``). The function returns a
        string (one user message), a list of strings or message dicts, or a full
        ``GetPromptResult`` dict. Registering a name twice raises ``ValueError``."""
        if callable(name):
            return self.prompt()(name)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"prompt name must be a string, not {type(name).__name__}")

        def deco(fn: F) -> F:
            prompt_name = name or fn.__name__
            if prompt_name in self._prompts:
                raise ValueError(f"a prompt named {prompt_name!r} is already registered")
            _, _, ctx_name, params = _params(fn, f"{fn.__name__}Arguments", strings=True)
            if arguments is not None:
                args = arguments
            else:
                descriptions = params.descriptions()
                args = []
                for n, (_, default) in params.names.items():
                    arg: dict[str, Any] = {"name": n}
                    if n in descriptions:
                        arg["description"] = descriptions[n]
                    arg["required"] = default is _EMPTY
                    args.append(arg)
            definition: dict[str, Any] = {"name": prompt_name, "arguments": args}
            doc = description or _doc(fn)
            if doc:
                definition["description"] = doc
            if title:
                definition["title"] = title
            icon_list = _icons_list(icons)
            if icon_list is not None:
                definition["icons"] = icon_list
            if meta is not None:
                definition["_meta"] = meta
            convert = params.convert

            def prepare(
                arguments: dict[str, str], native_ctx: _native.NativeContext
            ) -> dict[str, Any]:
                kwargs = convert(arguments)
                if ctx_name is not None:
                    kwargs[ctx_name] = Context(native_ctx, self)
                return kwargs

            def finish(value: Any, *_: Any) -> Any:
                return to_jsonable(value)

            handler = self._adapt(fn, prepare, finish, kind="prompt", name=prompt_name)
            self._native.add_prompt(definition, handler)
            self._prompts.add(prompt_name)
            return fn

        return deco

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt; returns whether it existed."""
        self._prompts.discard(name)
        return self._native.remove_prompt(name)

    # ---- completion --------------------------------------------------------------------------
    def completion(
        self, *, prompt: str | None = None, resource: str | None = None, argument: str | None = None
    ) -> Callable[[F], F]:
        """Registers a completion handler for ``argument`` of a prompt or resource template
        (without ``prompt``/``resource``: the fallback for all). The function receives
        ``(argument_value: str, context_arguments: dict)`` and returns a list of strings."""

        def deco(fn: F) -> F:
            reference: dict[str, Any] | None = None
            if prompt is not None:
                reference = {"type": "ref/prompt", "name": prompt}
            elif resource is not None:
                reference = {"type": "ref/resource", "uri": resource}

            takes_context = _takes_context(fn)

            def prepare(params: dict[str, Any], native_ctx: _native.NativeContext) -> dict[str, Any]:
                value = params.get("argument", {}).get("value", "")
                if not takes_context:
                    return {"value": value}
                context = (params.get("context") or {}).get("arguments") or {}
                return {"value": value, "context": context}

            def finish(result: Any, *_: Any) -> Any:
                if isinstance(result, dict):
                    return result
                return list(result)

            handler = self._adapt(
                fn, prepare, finish, kind="completion", name=argument or fn.__name__
            )
            self._native.add_completion(reference, argument, handler)
            return fn

        return deco

    # ---- running -----------------------------------------------------------------------------
    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Sends a log message to every connected session (each session's level applies)."""
        await self._native.log(level, to_jsonable(data), logger)

    async def run_stdio_async(self) -> None:
        """Serves one client over stdin/stdout until stdin closes (within the lifespan)."""
        await self._start_use()
        try:
            await self._native.serve_stdio()
        finally:
            await self._end_use()

    async def _finish_stdio(self, started: _native.NativeStdioRun) -> None:
        await self._start_use()
        try:
            await started.finish()
        finally:
            await self._end_use()

    async def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        path: str = "/mcp",
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: list[str] | None = None,
        allowed_origins: list[str] | None = None,
        dns_rebinding_protection: bool | None = None,
        max_sessions: int | None = None,
        session_idle_timeout: float | None = None,
        max_body_size: int | None = None,
        retry_interval: float | None = 1.0,
        enable_get_stream: bool = True,
        legacy_sse: bool = True,
        stream_queue_capacity: int | None = None,
        close_streams_after: float | None = None,
        max_connections: int | None = None,
        max_head_size: int | None = None,
        header_read_timeout: float | None = None,
        request_timeout: float | None = None,
        keep_alive_timeout: float | None = None,
        write_timeout: float | None = None,
        max_buffered_bytes: int | None = None,
        auth: ProtectedResource | None = None,
    ) -> HttpServer:
        """Starts serving Streamable HTTP at ``http://host:port{path}`` in this process and
        returns at once with a running :class:`HttpServer` (``port=0`` picks a free port).

        - ``stateless``: no ``Mcp-Session-Id``; every POST is a fresh, initialized session.
        - ``json_response``: answer each POST with one JSON body instead of an SSE stream (progress,
          logs and server-to-client requests of that call are then not delivered).
        - ``allowed_hosts`` / ``allowed_origins`` / ``dns_rebinding_protection``: ``Host`` and
          ``Origin`` checks (403). By default (``None``) the checks are on for a loopback bind
          (allowing the loopback names at the bound port) and, for other binds, on only when
          ``allowed_hosts``/``allowed_origins`` are given; ``True``/``False`` force them.
        - ``stream_queue_capacity``: messages buffered per SSE stream before a slow reader's
          stream is closed (it can resume with ``Last-Event-ID``); ``close_streams_after``
          (seconds): close long-running request streams after this long so clients poll.
        - ``max_sessions`` (503 beyond), ``session_idle_timeout`` (seconds), ``max_body_size``
          (bytes, 413 beyond), ``retry_interval`` (seconds, the SSE ``retry:`` hint; ``None``: none),
          ``enable_get_stream`` (405 to GET when off), ``legacy_sse`` (also serve the 2024-11-05
          ``/sse`` + ``/messages`` endpoints).
        - Connection limits (``None`` keeps the engine's default): ``max_connections`` (1024;
          more wait), ``max_head_size`` (64 KiB, 431 beyond), ``header_read_timeout`` (10 s for a
          new connection's first head), ``request_timeout`` (30 s for a request once begun),
          ``keep_alive_timeout`` (300 s idle), ``write_timeout`` (30 s without progress: a client
          that stops reading is dropped), ``max_buffered_bytes`` (256 MiB buffered by all
          connections, 503 beyond).
        - ``auth``: protect the endpoint with OAuth bearer tokens (:class:`ProtectedResource`):
          401/403 with a ``WWW-Authenticate`` challenge, the Protected Resource Metadata at
          ``/.well-known/oauth-protected-resource{path}``, the identity in ``ctx.auth``.
        """
        options: dict[str, Any] = {
            "path": path,
            "stateless": stateless,
            "jsonResponse": json_response,
            "dnsRebindingProtection": dns_rebinding_protection,
            "enableGetStream": enable_get_stream,
            "legacySse": legacy_sse,
            "retryIntervalMs": None if retry_interval is None else int(retry_interval * 1000),
        }
        if allowed_hosts is not None:
            options["allowedHosts"] = list(allowed_hosts)
        if allowed_origins is not None:
            options["allowedOrigins"] = list(allowed_origins)
        if max_sessions is not None:
            options["maxSessions"] = max_sessions
        if session_idle_timeout is not None:
            options["sessionIdleTimeoutMs"] = int(session_idle_timeout * 1000)
        if max_body_size is not None:
            options["maxBodySize"] = max_body_size
        if stream_queue_capacity is not None:
            options["streamQueueCapacity"] = stream_queue_capacity
        if close_streams_after is not None:
            options["closeStreamsAfterMs"] = int(close_streams_after * 1000)
        for key, size in (
            ("maxConnections", max_connections),
            ("maxHeadSize", max_head_size),
            ("maxBufferedBytes", max_buffered_bytes),
        ):
            if size is not None:
                options[key] = size
        for key, seconds in (
            ("headerReadTimeoutMs", header_read_timeout),
            ("requestTimeoutMs", request_timeout),
            ("keepAliveTimeoutMs", keep_alive_timeout),
            ("writeTimeoutMs", write_timeout),
        ):
            if seconds is not None:
                options[key] = int(seconds * 1000)
        await self._start_use()
        try:
            native = await self._native.serve_http(
                host, port, options, auth._native_config() if auth is not None else None
            )
        except BaseException:
            await self._end_use()
            raise
        return HttpServer(native, self)

    async def run_http_async(self, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
        """Serves Streamable HTTP until SIGINT/SIGTERM (or cancellation), then shuts down
        gracefully. ``options`` as for :meth:`serve_http`."""
        import asyncio
        import signal

        http = await self.serve_http(host, port, **options)
        print(f"{self.name}: serving MCP at {http.url}", file=sys.stderr, flush=True)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        installed: list[signal.Signals] = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        try:
            await stop.wait()
        finally:
            for installed_sig in installed:
                loop.remove_signal_handler(installed_sig)
            await http.close()

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Runs the server (blocking). ``transport``: ``"stdio"``, or ``"http"`` /
        ``"streamable-http"`` with ``host``, ``port`` and the options of :meth:`serve_http`."""
        if transport == "stdio":
            if options:
                raise TypeError(f"stdio takes no options: {sorted(options)}")
            if not self._has_async:
                # Only sync handlers: they run on worker threads, no event loop is needed.
                self._loopless = True
                try:
                    self._native.serve_stdio_blocking()
                finally:
                    self._loopless = False
                return
            # The engine starts serving before asyncio is imported (that import alone takes tens
            # of milliseconds): the handshake is answered meanwhile, and calls of async handlers
            # wait until the loop below is up.
            import asyncio

            if self._lifespan is not None:
                # The lifespan is entered before the first request is read.
                asyncio.run(self.run_stdio_async())
                return
            started = self._native.start_stdio()
            asyncio.run(self._finish_stdio(started))
        elif transport in ("http", "streamable-http"):
            import asyncio

            asyncio.run(self.run_http_async(**options))
        else:
            raise ValueError(f"unknown transport {transport!r} (use 'stdio' or 'http')")


class HttpServer:
    """A running Streamable HTTP server (from :meth:`Server.serve_http`). Use ``await
    close()`` or ``async with`` to stop it."""

    def __init__(self, native: _native.NativeHttpServer, server: Server | None = None) -> None:
        self._native = native
        self._server = server

    @property
    def url(self) -> str:
        """The endpoint, e.g. ``http://127.0.0.1:8000/mcp``."""
        return self._native.url

    @property
    def port(self) -> int:
        """The bound port."""
        return self._native.port

    async def close(self) -> None:
        """Stops accepting connections, lets in-flight requests finish, closes the sessions
        (and leaves the server's lifespan if nothing else serves)."""
        await self._native.close()
        server, self._server = self._server, None
        if server is not None:
            await server._end_use()

    async def wait(self) -> None:
        """Resolves once the server has stopped."""
        await self._native.wait()

    async def __aenter__(self) -> HttpServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _takes_context(fn: Callable[..., Any]) -> bool:
    return "context" in _signature(fn).parameters


def _template_variables(uri: str) -> list[str]:
    """The variable names of an RFC 6570 URI template (``{id}``, ``{+path}``, ``{?a,b*}``)."""
    import re

    names: list[str] = []
    for expr in re.findall(r"\{([^}]*)\}", uri):
        for spec in expr.lstrip("+#./;?&").split(","):
            name = spec.split(":", 1)[0].rstrip("*").strip()
            if name:
                names.append(name)
    return names


def _check_template_params(uri: str, fn_name: str, params: Params) -> None:
    """A resource function's parameters must match its URI's variables: each variable is a
    parameter (unless it takes ``**kwargs``), each parameter without a default a variable."""
    variables = _template_variables(uri)
    missing = [v for v in variables if v not in params.names]
    if missing and not params.var_kw:
        raise ValueError(
            f"resource {uri!r}: {fn_name}() has no parameter for the URI variable(s) "
            + ", ".join(missing)
        )
    unbound = [n for n, (_, d) in params.names.items() if d is _EMPTY and n not in variables]
    if unbound:
        raise ValueError(
            f"resource {uri!r}: the parameter(s) {', '.join(unbound)} of {fn_name}() are not "
            "URI variables (give them defaults, or add {" + unbound[0] + "} to the URI)"
        )


_CONTENTS_KEYS = frozenset(("uri", "mimeType", "text", "blob", "_meta", "name", "title", "annotations"))


def _is_contents(value: Any) -> bool:
    """Whether a dict is a ``ResourceContents`` (``text`` or ``blob`` and only contents keys)."""
    return (
        isinstance(value, dict)
        and ("text" in value or "blob" in value)
        and value.keys() <= _CONTENTS_KEYS
    )


def _resource_item(value: Any, json_mime: str | None) -> Any:
    import base64

    if isinstance(value, str) or _is_contents(value):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"blob": base64.b64encode(value).decode()}
    import json

    item: dict[str, Any] = {"text": json.dumps(to_jsonable(value), ensure_ascii=False)}
    if json_mime is not None:
        item["mimeType"] = json_mime
    return item


def _resource_value(value: Any, mime_type: str | None) -> Any:
    """A resource handler's answer as JSON for the engine (embed::shape::resource_contents,
    which completes ``uri`` and ``mimeType``): a string is text, bytes a base64 ``blob``, a
    contents dict stays as it is, a list of those gives several contents, a
    ``{"contents": [...]}`` result passes through; any other value (a dict, a list of data, a
    model, a dataclass) is one text item with its JSON (``application/json`` unless the
    resource declared a MIME type)."""
    json_mime = None if mime_type else "application/json"
    if isinstance(value, dict) and isinstance(value.get("contents"), list):
        return value
    if isinstance(value, list) and value and all(
        isinstance(i, (str, bytes, bytearray)) or _is_contents(i) for i in value
    ):
        return [_resource_item(i, json_mime) for i in value]
    return _resource_item(value, json_mime)


Handler = Callable[..., Awaitable[Any]]
