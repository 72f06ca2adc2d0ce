"""Server middleware: layers around every request the server handles, in the order they were
added (the first one outermost), run by the engine's middleware chain.

A layer is a callable ``(ctx, call_next)``, async or not, or a class instance with that
``__call__`` (:class:`Middleware` gives FastMCP-style hooks per method). It may answer itself
(return a result dict without calling ``call_next``), refuse (raise :class:`ferromcp.McpError`
with a code, message and data), change the request (``ctx.method``, ``ctx.params``) before
``call_next(ctx)``, or change the result it returns::

    @server.middleware
    async def audit(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
        if ctx.tool == "drop_tables" and ctx.principal is None:
            raise McpError("Permission denied", code=-32003)
        return await call_next(ctx)

The built-in layers run in Rust: :class:`RateLimit`, :class:`RequestLog`, :class:`MaskErrors`
and :class:`Timing` (or their config dicts, ``{"name": "rateLimit", ...}``). The client's
notifications are shown to :meth:`Middleware.on_notification` and always handed on. Add every
layer before the server handles its first request."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, Union

from .schema import to_jsonable

if TYPE_CHECKING:
    from . import _native
    from .context import Context
    from ._server_face import ServerFace

__all__ = [
    "AsyncCallNext",
    "CallNext",
    "MaskErrors",
    "Middleware",
    "MiddlewareContext",
    "MiddlewareList",
    "NotificationContext",
    "RateLimit",
    "RequestLog",
    "Timing",
    "TimingEvent",
]

Result = dict[str, Any]
AsyncCallNext = Callable[["MiddlewareContext"], Awaitable[Result]]
"""``call_next`` of an async layer: ``await call_next(ctx)`` runs the rest of the chain."""
SyncCallNext = Callable[["MiddlewareContext"], Result]
"""``call_next`` of a plain (sync) layer, which runs on a worker thread: it blocks until the
rest of the chain answered."""
CallNext = AsyncCallNext


@dataclass(eq=False)
class MiddlewareContext:
    """One request on its way through the middleware: what it is and where it came from.
    ``method`` and ``params`` may be changed before ``call_next(ctx)``, in place or on a copy
    (``dataclasses.replace(ctx, params=...)``, as the official SDK's middleware does); the rest
    describes the request."""

    method: str
    """The JSON-RPC method (``tools/call``, ``resources/read``, ``initialize``, ...)."""
    params: dict[str, Any] | None
    """The request's params (a dict, or None)."""
    id: str | int
    """The JSON-RPC request id."""
    tool: str | None = None
    """For ``tools/call``: the tool's name."""
    session_id: str | None = None
    """The ``Mcp-Session-Id`` (stateful Streamable HTTP), else None."""
    session_key: str = ""
    """A key naming the session (the ``Mcp-Session-Id``, else the connection)."""
    principal: dict[str, Any] | None = None
    """The verified token's identity on a protected server (``subject``, ``clientId``,
    ``scopes``, ``audience``, ``expiresAt``, ``claims``), else None."""
    protocol_version: str | None = None
    """The request's protocol revision."""
    http_headers: list[tuple[str, str]] | None = None
    """The HTTP request's header fields (lowercase names, in order), else None."""
    native: _native.NativeContext | None = field(default=None, repr=False)
    """The engine's context of the request (private)."""
    server: ServerFace | None = field(default=None, repr=False)
    """The server handling the request."""

    @classmethod
    def from_request(
        cls,
        request: dict[str, Any],
        native: _native.NativeContext | None = None,
        server: ServerFace | None = None,
    ) -> MiddlewareContext:
        """The context of a request as the engine describes it (see ``embed::request_json``)."""
        headers = request.get("httpHeaders")
        return cls(
            method=request["method"],
            params=request.get("params"),
            id=request["id"],
            tool=request.get("tool"),
            session_id=request.get("sessionId"),
            session_key=request.get("sessionKey") or "",
            principal=request.get("principal"),
            protocol_version=request.get("protocolVersion"),
            http_headers=None if headers is None else [(k, v) for k, v in headers],
            native=native,
            server=server,
        )

    @property
    def request_id(self) -> str | int:
        """The same as :attr:`id` (the official SDK's name)."""
        return self.id

    @property
    def meta(self) -> dict[str, Any] | None:
        """The request's ``params._meta``, or None."""
        meta = (self.params or {}).get("_meta")
        return meta if isinstance(meta, dict) else None

    @property
    def headers(self) -> dict[str, str] | None:
        """The HTTP headers as a dict (the first of each name), or None (the official SDK's
        ``ctx.headers``)."""
        if self.http_headers is None:
            return None
        out: dict[str, str] = {}
        for k, v in self.http_headers:
            out.setdefault(k, v)
        return out

    def header(self, name: str) -> str | None:
        """The first HTTP header called ``name`` (any case), or None."""
        lower = name.lower()
        for k, v in self.http_headers or ():
            if k == lower:
                return v
        return None

    @property
    def request_context(self) -> Context[Any, Any, Any]:
        """The request's :class:`ferromcp.Context` (log to the client, report progress, ...)."""
        from .context import Context

        if self.native is None:
            raise RuntimeError("this MiddlewareContext was not made for a request")
        return Context(self.native, self.server)

    def _request(self) -> dict[str, Any]:
        return {"method": self.method, "params": self.params}


class NotificationContext:
    """A notification from the client, shown to :meth:`Middleware.on_notification`."""

    __slots__ = ("method", "params", "session_id", "session_key")

    def __init__(self, notification: dict[str, Any]) -> None:
        self.method: str = notification["method"]
        """The notification's method (``notifications/roots/list_changed``, ...)."""
        self.params: dict[str, Any] | None = notification.get("params")
        """Its params (a dict, or None)."""
        self.session_id: str | None = notification.get("sessionId")
        """The ``Mcp-Session-Id`` (stateful Streamable HTTP), else None."""
        self.session_key: str = notification.get("sessionKey") or ""
        """A key naming the session (the ``Mcp-Session-Id``, else the connection)."""

    def __repr__(self) -> str:
        return f"NotificationContext(method={self.method!r})"


async def _handed_on(ctx: NotificationContext) -> None:
    """``call_next`` of :meth:`Middleware.on_notification`: the notification is handed on
    whatever the hook does, so there is nothing left to do."""


class _Layer(Protocol):
    def __call__(self, ctx: MiddlewareContext, call_next: Any, /) -> Any: ...


class Middleware:
    """A base class for middleware with a hook per kind of request, as FastMCP has them:
    ``on_message`` wraps ``on_request``, which wraps the hook of the method (``on_call_tool``,
    ``on_read_resource``, ``on_get_prompt``, ``on_list_tools``, ``on_list_resources``,
    ``on_list_resource_templates``, ``on_list_prompts``, ``on_initialize``). Each gets
    ``(ctx, call_next)``; the defaults hand the request on. Override what you need."""

    async def __call__(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        hook = _HOOKS.get(ctx.method)
        inner: AsyncCallNext = call_next
        if hook is not None:
            method_hook = getattr(self, hook)

            async def by_method(c: MiddlewareContext, n: AsyncCallNext = call_next) -> Result:
                r: Result = await method_hook(c, n)
                return r

            inner = by_method

        async def request(c: MiddlewareContext) -> Result:
            return await self.on_request(c, inner)

        return await self.on_message(ctx, request)

    async def on_message(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """Every request (the outermost hook)."""
        return await call_next(ctx)

    async def on_request(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """Every request, inside :meth:`on_message`."""
        return await call_next(ctx)

    async def on_call_tool(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``tools/call`` (``ctx.tool`` is the tool's name)."""
        return await call_next(ctx)

    async def on_read_resource(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``resources/read``."""
        return await call_next(ctx)

    async def on_get_prompt(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``prompts/get``."""
        return await call_next(ctx)

    async def on_list_tools(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``tools/list``."""
        return await call_next(ctx)

    async def on_list_resources(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``resources/list``."""
        return await call_next(ctx)

    async def on_list_resource_templates(
        self, ctx: MiddlewareContext, call_next: AsyncCallNext
    ) -> Result:
        """``resources/templates/list``."""
        return await call_next(ctx)

    async def on_list_prompts(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``prompts/list``."""
        return await call_next(ctx)

    async def on_initialize(self, ctx: MiddlewareContext, call_next: AsyncCallNext) -> Result:
        """``initialize`` (handshake-era clients)."""
        return await call_next(ctx)

    async def on_notification(
        self,
        ctx: NotificationContext,
        call_next: Callable[[NotificationContext], Awaitable[None]],
    ) -> None:
        """A notification from the client (``notifications/roots/list_changed``, custom ones;
        not those the engine consumes: initialized, cancelled, progress), to observe: it is
        handed on whatever this does (``call_next`` does nothing and is there for FastMCP's
        shape). Runs as a task on the server's event loop, beside the requests."""
        await call_next(ctx)


_HOOKS = {
    "tools/call": "on_call_tool",
    "resources/read": "on_read_resource",
    "prompts/get": "on_get_prompt",
    "tools/list": "on_list_tools",
    "resources/list": "on_list_resources",
    "resources/templates/list": "on_list_resource_templates",
    "prompts/list": "on_list_prompts",
    "initialize": "on_initialize",
}


# ---- built-in layers (they run in Rust) -----------------------------------------------------
RateKey = Literal["principal", "session", "clientAddress", "tool", "global"]


def _ms(seconds: float, what: str) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise ValueError(f"{what} must be a positive number of seconds, not {seconds!r}")
    return max(1, round(seconds * 1000))


@dataclass(frozen=True)
class RateLimit:
    """Token buckets: ``limit`` requests per ``window`` seconds per key (the session by
    default; ``by`` combines ``"principal"``, ``"session"``, ``"clientAddress"``, ``"tool"``,
    ``"global"``). ``tools`` gives tools their own limit, ``{"search": (5, 1.0)}``;
    ``methods`` restricts what is counted (default: every request). Over the limit the request
    is refused with JSON-RPC error -32004 ``"Rate limited"``, ``data: {"retryAfter", "limit",
    "window"}`` in seconds. ``"clientAddress"`` is the connection's peer address; with
    ``address_header`` (e.g. ``"x-forwarded-for"``) and the peer one of ``trusted_proxies``
    (IP addresses and CIDR ranges, ``["10.0.0.0/8"]``; default loopback only), it is the
    rightmost address of that header that is not a trusted proxy. With ``redis_url``
    (``"redis://host:6379/0"``) the buckets live on that Redis, shared by every server given
    the same URL (replicas behind a load balancer refuse a client over its limit alike, with
    the same ``retryAfter``); while that Redis is away requests are let through."""

    limit: int
    window: float
    by: Sequence[RateKey] | None = None
    tools: Mapping[str, tuple[int, float]] | None = None
    methods: Sequence[str] | None = None
    address_header: str | None = None
    trusted_proxies: Sequence[str] | None = None
    redis_url: str | None = None

    def config(self) -> dict[str, Any]:
        """The engine's configuration of this layer."""
        c: dict[str, Any] = {
            "name": "rateLimit",
            "limit": self.limit,
            "windowMs": _ms(self.window, "RateLimit window"),
        }
        if self.by is not None:
            c["by"] = list(self.by)
        if self.tools is not None:
            c["tools"] = {
                name: {"limit": limit, "windowMs": _ms(window, f"RateLimit tools[{name!r}]")}
                for name, (limit, window) in self.tools.items()
            }
        if self.methods is not None:
            c["methods"] = list(self.methods)
        if self.address_header is not None:
            c["addressHeader"] = self.address_header
        if self.trusted_proxies is not None:
            c["trustedProxies"] = list(self.trusted_proxies)
        if self.redis_url is not None:
            c["redisUrl"] = self.redis_url
        return c


@dataclass(frozen=True)
class RequestLog:
    """One structured ``tracing`` event per request (target ``ferromcp::request``: method,
    tool, id, duration, outcome, code, principal, session) at ``level`` (errors at warn)."""

    level: Literal["trace", "debug", "info", "warn"] | None = None

    def config(self) -> dict[str, Any]:
        """The engine's configuration of this layer."""
        c: dict[str, Any] = {"name": "requestLog"}
        if self.level is not None:
            c["level"] = self.level
        return c


@dataclass(frozen=True)
class MaskErrors:
    """Replaces the message of errors with one of ``codes`` (default: -32603, internal
    errors, which an exception in a handler or layer becomes) by ``message`` (default
    ``"Internal error"``) and drops their data; the original is logged server-side. Add it
    first to mask what every later layer answers."""

    message: str | None = None
    codes: Sequence[int] | None = None

    def config(self) -> dict[str, Any]:
        """The engine's configuration of this layer."""
        c: dict[str, Any] = {"name": "maskErrors"}
        if self.message is not None:
            c["message"] = self.message
        if self.codes is not None:
            c["codes"] = list(self.codes)
        return c


@dataclass(frozen=True)
class TimingEvent:
    """One timed request."""

    method: str
    tool: str | None
    duration_ms: float
    outcome: Literal["ok", "error", "cancelled"]
    code: int | None
    """The JSON-RPC error code when ``outcome`` is ``"error"``."""


@dataclass(frozen=True)
class Timing:
    """Calls ``callback(event)`` (a plain function: keep it short, it runs on a worker thread)
    with each request's :class:`TimingEvent`, measured in Rust from the request entering this
    layer to its answer leaving it; an exception in it is reported as unraisable."""

    callback: Callable[[TimingEvent], object]

    def hook(self) -> Callable[[dict[str, Any]], None]:
        """The function the engine calls with the event dict."""
        callback = self.callback

        def hook(e: dict[str, Any]) -> None:
            callback(TimingEvent(e["method"], e["tool"], e["durationMs"], e["outcome"], e["code"]))

        return hook


BuiltIn = Union[RateLimit, RequestLog, MaskErrors]
AnyMiddleware = Union[BuiltIn, Timing, Mapping[str, Any], _Layer]
"""What ``Server.add_middleware`` takes."""


def _is_async(layer: Any) -> bool:
    import inspect

    if inspect.iscoroutinefunction(layer):
        return True
    call = getattr(type(layer), "__call__", None)
    return call is not None and not inspect.isfunction(layer) and inspect.iscoroutinefunction(call)


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_plain_json(value: Any) -> bool:
    """Whether ``value`` is already JSON data: dicts with ``str`` keys, lists and scalars of
    exactly those types (what ``call_next`` returns). Checked by exact type, which costs far
    less than :func:`to_jsonable`'s look-ups for models, dataclasses and content objects on
    every node (most of a pass-through layer's own time per call)."""
    t = type(value)
    if t is dict:
        for k, v in value.items():
            if type(k) is not str or not _is_plain_json(v):
                return False
        return True
    if t is list:
        for v in value:
            if not _is_plain_json(v):
                return False
        return True
    return t in _JSON_SCALARS


def _result(value: Any, layer: Any) -> Result:
    """What a layer returned, as the result object the engine sends."""
    if type(value) is dict and _is_plain_json(value):
        return value
    r = to_jsonable(value)
    if not isinstance(r, dict):
        raise TypeError(
            f"middleware {getattr(layer, '__name__', layer)!r} returned "
            f"{type(value).__name__}, not a result dict: return what call_next(ctx) gave "
            "(changed or not) or a result of your own"
        )
    return r


def adapt(layer: Any, server: ServerFace | None) -> Callable[..., Awaitable[Result]]:
    """The coroutine function the engine calls for ``layer``: ``run(request, next, ctx)``."""
    if not callable(layer):
        raise TypeError(
            "middleware must be a callable (ctx, call_next), a Middleware instance, a built-in "
            f"(RateLimit, RequestLog, MaskErrors, Timing) or a config dict, not {type(layer).__name__}"
        )

    def native_call_next(native_next: Any) -> AsyncCallNext:
        async def call_next(ctx: MiddlewareContext) -> Result:
            r: Result = await native_next.run(ctx._request())
            return r

        return call_next

    if _is_async(layer):

        async def run_async(request: dict[str, Any], native_next: Any, native_ctx: Any) -> Result:
            ctx = MiddlewareContext.from_request(request, native_ctx, server)
            try:
                return _result(await layer(ctx, native_call_next(native_next)), layer)
            except Exception as e:
                _log_failure(layer, e)
                raise

        return run_async

    async def run_sync(request: dict[str, Any], native_next: Any, native_ctx: Any) -> Result:
        loop = asyncio.get_running_loop()
        ctx = MiddlewareContext.from_request(request, native_ctx, server)
        call_next_async = native_call_next(native_next)

        def call_next(c: MiddlewareContext) -> Result:
            return asyncio.run_coroutine_threadsafe(call_next_async(c), loop).result()

        import contextvars

        run = contextvars.copy_context().run
        try:
            value = await loop.run_in_executor(_sync_executor(), run, layer, ctx, call_next)
            return _result(value, layer)
        except Exception as e:
            _log_failure(layer, e)
            raise

    return run_sync


def _log_failure(layer: Any, e: BaseException) -> None:
    """Logs a layer's unexpected exception with its traceback (logger ``ferromcp``), as a
    handler's is; an ``McpError`` is an answer, not a failure."""
    from .errors import McpError

    if isinstance(e, McpError):
        return
    import logging

    name = getattr(layer, "__name__", type(layer).__name__)
    logging.getLogger("ferromcp").error(
        "middleware %r failed", name, exc_info=(type(e), e, e.__traceback__)
    )


_EXECUTOR: Any = None


def _sync_executor() -> Any:
    """The threads plain (sync) layers run on: threads are made as needed and reused, up to 256
    at once, since a layer's thread stays blocked in ``call_next`` while the layers after it run
    (nested sync layers each hold one; the loop's default executor, ~6 threads here, would
    deadlock under a few concurrent requests)."""
    global _EXECUTOR
    if _EXECUTOR is None:
        from concurrent.futures import ThreadPoolExecutor

        _EXECUTOR = ThreadPoolExecutor(max_workers=256, thread_name_prefix="ferromcp-middleware")
    return _EXECUTOR


def _notifier(layer: Middleware, server: ServerFace) -> Callable[[dict[str, Any]], None] | None:
    """The function the engine shows notifications to, when ``layer`` overrides
    :meth:`Middleware.on_notification`; it runs ``on_notification`` as a task on the loop."""
    if type(layer).on_notification is Middleware.on_notification:
        return None

    def notify(notification: dict[str, Any]) -> None:
        loop = server._native.event_loop
        if loop is None:
            return
        ctx = NotificationContext(notification)

        async def run() -> None:
            try:
                await layer.on_notification(ctx, _handed_on)
            except Exception as e:
                _log_failure(layer, e)

        asyncio.run_coroutine_threadsafe(run(), loop)

    return notify


_M = TypeVar("_M", bound=Callable[..., Any])


class MiddlewareList(list[Any]):
    """``server.middleware``: the layers added so far, outermost first. ``append`` (and
    ``extend``, ``+=``) adds a layer to the server's chain, as with the official SDK's
    ``MCPServer.middleware`` list; used as a decorator (``@server.middleware``) it adds the
    decorated function. The chain only grows at its end, so other changes raise ``TypeError``."""

    def __init__(self, server: ServerFace) -> None:
        super().__init__()
        self._server = server

    def append(self, layer: Any) -> None:
        add(self._server, layer)
        super().append(layer)

    def extend(self, layers: Iterable[Any]) -> None:
        for layer in layers:
            self.append(layer)

    def __iadd__(self, layers: Iterable[Any]) -> MiddlewareList:  # type: ignore[misc]
        self.extend(layers)
        return self

    def __call__(self, fn: _M) -> _M:
        self.append(fn)
        return fn

    def _fixed(self, *_: Any, **__: Any) -> Any:
        raise TypeError(
            "the middleware chain only grows at its end: use append/extend (or add_middleware)"
        )

    insert = remove = pop = clear = sort = reverse = __setitem__ = __delitem__ = _fixed  # type: ignore[assignment]


def add(server: ServerFace, layer: Any) -> None:
    """Adds ``layer`` to ``server``'s chain (see ``Server.add_middleware``)."""
    from .errors import InvalidRequest

    native = server._native
    try:
        if isinstance(layer, (RateLimit, RequestLog, MaskErrors)):
            native.add_middleware_config(layer.config())
        elif isinstance(layer, Timing):
            native.add_timing_hook(layer.hook())
        elif isinstance(layer, Mapping):
            native.add_middleware_config(dict(layer))
        elif callable(getattr(layer, "_install_in_engine", None)):
            layer._install_in_engine(server)  # e.g. AllowIf: a layer the engine runs
        else:
            notify = _notifier(layer, server) if isinstance(layer, Middleware) else None
            native.add_middleware(adapt(layer, server), notify)
            server._has_async = True  # Python layers run on the event loop
    except InvalidRequest as e:
        # The chain is fixed once the server handled a request (as Starlette refuses
        # middleware once the application started).
        raise RuntimeError(e.message) from None
