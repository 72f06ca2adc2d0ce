"""``Server``: registering tools, resources, prompts and completions with FastMCP-style
decorators, and adapting the registered functions into the native engine's handlers. Serving
(``run``, ``serve_http``, the lifespan) is in :mod:`ferromcp.serving`, ``Context`` in
:mod:`ferromcp.context`; their names are re-exported here, where they have always been imported
from (``from ferromcp.server import Context``)."""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, TypeVar

from . import _native
from ._func import ArgumentError, Params, output_for
from ._signature import (
    _context_param,
    _doc,
    _hints,
    _is_async,
    _is_awaitable,
    _params as _params,
    _signature,
    _takes_context as _takes_context,
)
from ._wire import (
    _annotations_dict,
    _check_template_params,
    _icons_list,
    _resource_value,
    _tool_error,
    _unstructured,
)
from .context import Context as Context
from .context import ElicitResult as ElicitResult
from .context import RequestContext as RequestContext
from .errors import InternalError, InvalidParams, McpError
from .schema import EMPTY as _EMPTY
from .schema import to_jsonable
from .serving import HttpServer as HttpServer
from .serving import Serving

if typing.TYPE_CHECKING:
    from .composition import ArgTransform
    from .middleware import AnyMiddleware, MiddlewareList

# Imported lazily (cold start: `python server.py` should answer `initialize` quickly): asyncio
# (only when an async handler or HTTP needs the event loop), inspect (only for callables that
# are not plain functions), json, base64, signal, logging (on a handler's failure), pydantic
# (only for signatures beyond str/int/float/bool: see _func).

F = TypeVar("F", bound=Callable[..., Any])

ProtocolRevision = Literal["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
"""A protocol revision ferromcp speaks: the handshake era up to ``"2025-11-25"``, and the
per-request era ``"2026-07-28"`` (``Server(supported_versions=...)``)."""


def _logger() -> Any:
    import logging

    return logging.getLogger("ferromcp")


def _log_failure(kind: str, name: str, e: BaseException) -> None:
    """Logs a handler's exception with its traceback (logger ``ferromcp``)."""
    _logger().error("%s %r failed", kind, name, exc_info=(type(e), e, e.__traceback__))


async def _await(aw: Awaitable[Any]) -> Any:
    return await aw


def _definition(
    definition: dict[str, Any],
    fn: Callable[..., Any],
    description: str | None,
    title: str | None,
    icons: list[Any] | None,
    meta: dict[str, Any] | None,
) -> dict[str, Any]:
    """``definition`` (a tool's, resource's or prompt's) with the fields the three share: the
    ``description`` (``fn``'s docstring by default), ``title``, ``icons`` and ``_meta``."""
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
    return definition


_MASKED = {
    "resource": "Error reading resource {}",
    "prompt": "Error getting prompt {}",
    "completion": "Error completing argument {}",
}


def _is_named(e: BaseException, name: str) -> bool:
    """Whether ``e`` is a ``ToolError``/``ResourceError``: ferromcp's or the official SDK's
    (``UnexpectedToolError``, the SDK's own wrapper of a crash, is not)."""
    return any(c.__name__ == name for c in type(e).__mro__) and not type(e).__name__.startswith(
        "Unexpected"
    )


def _foreign_mcp_error(e: BaseException) -> McpError | None:
    """The official SDK's ``MCPError`` (``UrlElicitationRequiredError`` among them: ``e.error``
    is its ``ErrorData``) as the :class:`McpError` it stands for; ``None`` for anything else."""
    err = getattr(e, "error", None)
    code = getattr(err, "code", None)
    if type(code) is not int or not isinstance(getattr(err, "message", None), str):
        return None
    from .errors import from_code

    data = getattr(err, "data", None)
    return from_code(code, err.message, to_jsonable(data) if data is not None else None)  # type: ignore[union-attr]


class Server(Serving):
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
        max_message_size: int | None = None,
        cache_ttl_ms: int | None = None,
        cache_scope: Literal["private", "public"] | None = None,
        cache_hints: dict[str, dict[str, Any]] | None = None,
        max_listen_streams: int | None = None,
        request_state_keys: list[dict[str, str]] | None = None,
        request_state_replay_capacity: int | None = None,
        tasks_extension: bool | None = None,
        supported_versions: Sequence[ProtocolRevision] | None = None,
        mask_error_details: bool = False,
        middleware: Sequence[AnyMiddleware] | None = None,
    ) -> None:
        """``middleware``: layers around every request, outermost first, as
        :meth:`add_middleware` adds them.

        ``mask_error_details``: what the client learns of an unexpected exception in a
        handler (one that is not an :class:`McpError`, ``ToolError`` or ``ResourceError``); it
        is logged with its traceback on logger ``ferromcp`` either way. ``False`` (the default
        of ``Server``, the same policy as ferromcp's other bindings): a tool answers ``isError``
        with ``"<ExceptionType>: <message>"``, other handlers the internal error with the
        exception's message. ``True`` (the default of :class:`ferromcp.MCPServer` /
        ``FastMCP``, as in the official SDK): only ``"Error executing tool <name>"``, and for
        resources, prompts and completions an internal error naming only the URI or name.
        A ``ToolError`` always answers ``"Error executing tool <name>: <message>"``.

        ``max_message_size``: the largest message accepted in bytes (default 4 MiB); a request
        over it is answered with an error carrying its id.

        ``cache_ttl_ms`` / ``cache_scope``: the ``ttlMs`` (default 0, immediately stale) and
        ``cacheScope`` (``"private"`` or ``"public"``; default ``"private"``) of cacheable
        2026-07-28 results (``server/discover``, the list methods, ``resources/read``);
        ``cache_hints`` overrides them per method, with the spec's key names:
        ``{"tools/list": {"ttlMs": 60000, "cacheScope": "public"}}``.

        ``max_listen_streams``: most ``subscriptions/listen`` streams open at once (default 1024).

        ``request_state_keys``: the key ring sealing 2026-07-28 ``requestState``, shared by
        replicas: ``[{"id": "k2", "secret": "<64 hex digits>"}, ...]``, the first seals, every
        one opens (default: one random key of this process). ``request_state_replay_capacity``:
        opened tokens remembered for single use (default 131072).

        ``tasks_extension``: declare and serve the tasks extension ``io.modelcontextprotocol/tasks``
        to 2026-07-28 clients (default off): calls of tools registered with
        ``task_support="optional"`` or ``"required"`` from requests that declare it are answered
        with task handles, polled with ``tasks/get``; ``ctx.input`` in such a tool parks the task
        until ``tasks/update`` answers.

        ``supported_versions``: the protocol revisions this server speaks (default: all of them).
        ``["2026-07-28"]`` serves only per-request clients (``initialize`` is answered -32022,
        HTTP 400, naming the supported revisions); leaving ``"2026-07-28"`` out serves only
        handshake clients (a 2026-07-28 request is answered -32022). An empty list or an unknown
        revision raises ``InvalidParams`` here.

        ``lifespan(server)``: an async context manager (``@asynccontextmanager`` function)
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
        if max_message_size is not None:
            config["maxMessageSize"] = max_message_size
        for key, value in (
            ("cacheTtlMs", cache_ttl_ms),
            ("cacheScope", cache_scope),
            ("cacheHints", cache_hints),
            ("maxListenStreams", max_listen_streams),
            ("requestStateKeys", request_state_keys),
            ("requestStateReplayCapacity", request_state_replay_capacity),
            ("tasksExtension", tasks_extension),
            ("supportedVersions", None if supported_versions is None else list(supported_versions)),
        ):
            if value is not None:
                config[key] = value
        self.name = name
        self.mask_error_details = mask_error_details
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
        if lifespan is not None:
            self._has_async = True  # entering it needs an event loop
        self._middleware: MiddlewareList | None = None
        if middleware:
            self.middleware.extend(middleware)

    # ---- middleware --------------------------------------------------------------------------
    def add_middleware(self, middleware: AnyMiddleware) -> None:
        """Adds a middleware layer after those already added (the first added is outermost):
        a callable ``(ctx, call_next)``, async or not, a :class:`ferromcp.middleware.Middleware`
        (or any instance with that ``__call__``), a built-in (:class:`~ferromcp.middleware.RateLimit`,
        :class:`~ferromcp.middleware.RequestLog`, :class:`~ferromcp.middleware.MaskErrors`,
        :class:`~ferromcp.middleware.Timing`) or a built-in's config dict
        (``{"name": "rateLimit", "limit": 10, "windowMs": 1000}``). See
        :mod:`ferromcp.middleware`. Raises ``RuntimeError`` once the server has handled a
        request, and ``InvalidParams`` for an unknown built-in name or option."""
        self.middleware.append(middleware)

    @property
    def middleware(self) -> MiddlewareList:
        """The layers added, outermost first (:class:`ferromcp.middleware.MiddlewareList`):
        ``server.middleware.append(layer)`` adds one (the official SDK's ``MCPServer`` has this
        list), and ``@server.middleware`` adds the decorated ``(ctx, call_next)`` function
        (async or not). See :meth:`add_middleware`."""
        if self._middleware is None:
            from .middleware import MiddlewareList

            self._middleware = MiddlewareList(self)
        return self._middleware

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
        definition = _definition(
            {"name": tool_name, "inputSchema": input_schema}, fn, description, title, icons, meta
        )
        if out.schema is not None:
            definition["outputSchema"] = out.schema
        ann = _annotations_dict(annotations)
        if ann:
            definition["annotations"] = ann
        if task_support is not None:
            if task_support not in ("forbidden", "optional", "required"):
                raise ValueError(
                    f"task_support must be 'forbidden', 'optional' or 'required', not {task_support!r}"
                )
            definition["execution"] = {"taskSupport": task_support}

        prepare = self._prepare(params.convert, ctx_name)
        # The engine shapes the answer (embed::shape::tool_result): strings, content blocks,
        # structured values (the tool has an outputSchema) and full results.
        if ctx_name is None:
            # Called as handler(arguments): no context object is made for it (see _adapt_plain).
            passthrough = str if out.finish is _unstructured else out.passthrough
            handler = self._adapt_plain(
                fn, params, out.finish, passthrough, kind="tool", name=tool_name
            )
            self._native.add_tool(definition, handler, out.wrapped, False)
        else:
            handler = self._adapt(fn, prepare, out.finish, kind="tool", name=tool_name)
            self._native.add_tool(definition, handler, out.wrapped)
        self._tools.add(tool_name)

    def _prepare(
        self,
        convert: Callable[..., dict[str, Any]],
        ctx_name: str | None,
        *,
        argument: int = 0,
    ) -> Callable[..., dict[str, Any]]:
        """The ``prepare`` of :meth:`_adapt` for a function whose arguments ``convert`` gives
        from native argument number ``argument`` (the native arguments end with the request's
        context): with ``ctx_name``, it also passes a :class:`Context` under that name."""
        if ctx_name is None:
            if argument == 0:
                return convert  # takes the first argument and ignores the rest
            return lambda *native_args: convert(native_args[argument])
        context_name = ctx_name

        def prepare(*native_args: Any) -> dict[str, Any]:
            kwargs = convert(native_args[argument])
            kwargs[context_name] = Context(native_args[-1], self)
            return kwargs

        return prepare

    def _adapt_plain(
        self,
        fn: Callable[..., Any],
        params: Params,
        finish: Callable[..., Any],
        passthrough: type | None,
        *,
        kind: str,
        name: str,
    ) -> Callable[..., Any]:
        """:meth:`_adapt` for a function that takes no context, called with the arguments
        alone: the same answers, with the per-call steps that change nothing skipped (arguments
        that ``params`` would pass as they are go straight to ``fn``; a value of type
        ``passthrough`` is returned without calling ``finish``, which would return it as it is).
        """
        known = params.known_only
        convert = params.convert
        failed = self._failure(kind, name)
        if _is_async(fn):
            self._check_async_allowed()

            async def run_plain_async(arguments: dict[str, Any]) -> Any:
                try:
                    if known is not None and arguments.keys() <= known:
                        value = await fn(**arguments)
                    else:
                        value = await fn(**convert(arguments))
                    if type(value) is passthrough:
                        return value
                    return finish(value)
                except Exception as e:
                    return failed(e)

            return run_plain_async

        def run_plain(arguments: dict[str, Any]) -> Any:
            try:
                if known is not None and arguments.keys() <= known:
                    value = fn(**arguments)
                else:
                    value = fn(**convert(arguments))
                if type(value) is passthrough:
                    return value
                if _is_awaitable(value):
                    value = self._await_on_loop(value)
                return finish(value)
            except Exception as e:
                return failed(e)

        return run_plain

    def _check_async_allowed(self) -> None:
        """Records that an async handler is added (raises if this server cannot run one)."""
        if self._loopless:
            raise RuntimeError(
                "this server is serving stdio without an event loop (all handlers were sync "
                "when run() started): async handlers cannot be added now"
            )
        self._has_async = True

    def _failure(self, kind: str, name: str) -> Callable[[Exception], Any]:
        """The answer to an exception of a handler (see :meth:`_adapt`)."""
        is_tool = kind == "tool"
        server = self

        def failed(e: Exception) -> Any:
            """The answer to ``e`` raised by ``prepare``, ``fn`` or ``finish`` (or ``e`` itself,
            raised again)."""
            if isinstance(e, McpError):
                raise e
            foreign = _foreign_mcp_error(e)
            if foreign is not None:
                raise foreign from e
            if isinstance(e, ArgumentError):
                if is_tool:
                    return _tool_error(f"Invalid arguments for tool {name!r}: {e}")
                raise InvalidParams(f"Invalid arguments for {kind} {name!r}: {e}") from None
            if _is_named(e, "ToolError") and is_tool:
                _logger().info("Tool %r failed: %r", name, str(e))
                return _tool_error(f"Error executing tool {name}: {e}")
            if _is_named(e, "ResourceError") and not is_tool:
                _logger().info("%s %r failed: %r", kind, name, str(e))
                raise InternalError(str(e)) from e
            _log_failure(kind, name, e)
            if not server.mask_error_details:
                if is_tool:
                    return _tool_error(f"{type(e).__name__}: {e}")
                raise e
            if is_tool:
                return _tool_error(f"Error executing tool {name}")
            raise InternalError(_MASKED.get(kind, "Error in {}").format(name)) from e

        return failed

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

        Failures: ``McpError`` goes to the engine as it is. From a tool the engine answers it
        ``isError`` with its message (as the official SDKs do), except the errors the client
        must act on (``UrlElicitationRequired``, a 2026-07-28 input round or missing client
        capability), which stay JSON-RPC errors: one policy for every language
        (``embed::is_tool_signal``). From other handlers it is the JSON-RPC error it names.
        For a tool, arguments that do not convert answer ``isError`` with the reason, and any
        other exception answers ``isError`` with ``"<Type>: <message>"`` and is logged with its
        traceback (logger ``ferromcp``).
        For other handlers, unconvertible arguments are ``InvalidParams`` and other exceptions
        are logged and answered as internal errors."""
        failed = self._failure(kind, name)
        if _is_async(fn):
            self._check_async_allowed()

            async def run_async(*native_args: Any) -> Any:
                try:
                    value = await fn(**prepare(*native_args))
                    return finish(value, *native_args)
                except Exception as e:
                    return failed(e)

            return run_async

        def run_sync(*native_args: Any) -> Any:
            try:
                value = fn(**prepare(*native_args))
                if _is_awaitable(value):
                    value = self._await_on_loop(value)
                return finish(value, *native_args)
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

    # ---- composition and tool transforms (ferromcp.composition) ------------------------------
    def mount(self, prefix: str, server: Server) -> None:
        """Mounts ``server`` under ``prefix``, live: its tools and prompts are offered as
        ``prefix_name``, its resources and templates as ``scheme://prefix/path`` (an empty prefix
        keeps the names), requests for them run through its own middleware and handlers, what
        is added to it later shows, and its ``list_changed`` notifications reach this server's
        clients. Completions are routed to it. Mount before serving; middleware added before the
        first mount sees the mounted items too. Raises ``InvalidParams`` for a prefix with
        ``/ : { }`` or white space, a prefix already mounted, or a cycle."""
        from .composition import mount

        mount(self, prefix, server)

    def import_server(self, prefix: str, server: Server) -> None:
        """Copies ``server``'s tools, resources, templates, prompts and completions into this
        server once, namespaced as :meth:`mount` does (later changes to ``server`` do not show;
        its middleware does not run for them)."""
        from .composition import import_server

        import_server(self, prefix, server)

    def transform_tool(
        self,
        original: str,
        name: str,
        *,
        title: str | None = None,
        description: str | None = None,
        arguments: typing.Mapping[str, ArgTransform] | None = None,
        transform_output: Callable[[Any], Any] | None = None,
        output_schema: typing.Mapping[str, Any] | None = None,
    ) -> None:
        """Adds the tool ``name`` made from this server's tool ``original`` (which stays until
        :meth:`remove_tool`): another ``title``/``description``, ``arguments`` changed by
        :class:`ferromcp.composition.ArgTransform` (renamed, described, given a default,
        hidden with a fixed value, constrained; keyed by the original's argument names), and
        ``transform_output(structured)`` reshaping the original's structured output (its
        ``structuredContent``, else its text read as JSON), checked against ``output_schema``.
        ``transform_output`` is a plain function called synchronously: keep it short. Raises
        ``InvalidParams`` for an argument the original lacks or a name clash."""
        from .composition import transform_tool

        transform_tool(
            self,
            original,
            name,
            title=title,
            description=description,
            arguments=arguments,
            transform_output=transform_output,
            output_schema=output_schema,
        )

    def add_transformed_tool(self, original: str, transform: typing.Mapping[str, Any]) -> None:
        """Adds the tool that ``transform``, a transform in its JSON form (as a configuration
        file holds it), makes from this server's tool ``original``: ``{"name": "find",
        "title": ..., "description": ..., "arguments": {"q": {"name": "query", "description":
        ...}, "index": {"hide": True, "default": "docs"}, "limit": {"default": 5,
        "constraints": {"maximum": 20}}}}``, what :meth:`transform_tool` takes as arguments
        (an output reshape is a function, which has no JSON form: use :meth:`transform_tool`
        for one). Raises ``InvalidParams`` naming the reason for a member the form does not
        have, a hidden argument without a default, and whatever :meth:`transform_tool`
        refuses."""
        from .composition import add_transformed_tool

        add_transformed_tool(self, original, transform)

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
            definition = _definition(
                {"name": name or fn_name, "uriTemplate" if is_template else "uri": uri},
                fn,
                description,
                title,
                icons,
                meta,
            )
            if mime_type:
                definition["mimeType"] = mime_type
            if annotations is not None:
                definition["annotations"] = annotations
            _check_template_params(uri, fn_name, params)
            # The native arguments are (uri, variables, context).
            prepare = self._prepare(params.convert, ctx_name, argument=1)

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
            definition = _definition(
                {"name": prompt_name, "arguments": args}, fn, description, title, icons, meta
            )
            prepare = self._prepare(params.convert, ctx_name)

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
        (without ``prompt``/``resource``: the fallback for all). Two forms:

        - ferromcp's: the function has a ``value`` parameter and receives
          ``(value: str, context: dict)`` (``context``, the other arguments already given, is
          optional) and returns a list of strings or a ``Completion`` dict;
        - the official SDK's (``@mcp.completion()``): ``(ref, argument, context)``, where ``ref``
          is a :class:`ferromcp.types.PromptReference` or
          :class:`~ferromcp.types.ResourceTemplateReference`, ``argument`` a
          :class:`~ferromcp.types.CompletionArgument` (``.name``, ``.value``) and ``context`` a
          :class:`~ferromcp.types.CompletionContext` (``.arguments``) or ``None``; it returns a
          :class:`~ferromcp.types.Completion`, ``None`` (no values), a list or a dict."""

        def deco(fn: F) -> F:
            reference: dict[str, Any] | None = None
            if prompt is not None:
                reference = {"type": "ref/prompt", "name": prompt}
            elif resource is not None:
                reference = {"type": "ref/resource", "uri": resource}

            names = list(_signature(fn).parameters)
            sdk_form = "value" not in names
            takes_context = "context" in names

            def prepare(
                params: dict[str, Any], native_ctx: _native.NativeContext
            ) -> dict[str, Any]:
                if sdk_form:
                    return _sdk_completion_args(params, names)
                value = params.get("argument", {}).get("value", "")
                if not takes_context:
                    return {"value": value}
                context = (params.get("context") or {}).get("arguments") or {}
                return {"value": value, "context": context}

            def finish(result: Any, *_: Any) -> Any:
                if result is None:
                    return {"values": []}
                if isinstance(result, dict):
                    return result
                if hasattr(result, "model_dump"):
                    from .types import to_wire

                    return to_wire(result)
                return list(result)

            handler = self._adapt(
                fn, prepare, finish, kind="completion", name=argument or fn.__name__
            )
            self._native.add_completion(reference, argument, handler)
            return fn

        return deco


def _sdk_completion_args(params: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The official SDK's completion handler arguments ``(ref, argument, context)`` from
    ``completion/complete`` params, by position (the SDK calls the handler positionally)."""
    from .types import (
        CompletionArgument,
        CompletionContext,
        PromptReference,
        ResourceTemplateReference,
    )

    raw_ref = params.get("ref") or {}
    ref: Any
    if raw_ref.get("type") == "ref/prompt":
        ref = PromptReference.model_validate(raw_ref)
    else:
        ref = ResourceTemplateReference.model_validate(raw_ref)
    arg = CompletionArgument.model_validate(params.get("argument") or {"name": "", "value": ""})
    raw_context = params.get("context")
    context = None if raw_context is None else CompletionContext.model_validate(raw_context)
    return dict(zip(names, (ref, arg, context)))


Handler = Callable[..., Awaitable[Any]]

# Defined or imported here before this module was split (context, serving, _signature, _wire):
# still importable from here.
import sys  # noqa: E402, F401
import types  # noqa: E402, F401

from ._signature import (  # noqa: E402, F401
    _CO_COROUTINE,
    _CO_VARARGS,
    _CO_VARKEYWORDS,
    _is_context_type,
    _Param,
    _Sig,
)
from ._wire import (  # noqa: E402, F401
    _CONTENTS_KEYS,
    _bytes_content,
    _is_contents,
    _resource_item,
    _template_variables,
)
from .errors import ClientCapabilityError  # noqa: E402, F401
from .schema import inline_refs, schema_for  # noqa: E402, F401
