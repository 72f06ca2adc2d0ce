"""The official SDK's low-level server API (``mcp.server.Server`` / ``mcp.server.lowlevel.Server``)
as a thin layer on :class:`ferromcp.Server`, so that such code ports by changing its imports::

    from ferromcp.lowlevel import Server, ServerRequestContext   # was: from mcp.server import ...
    import ferromcp.types as types                               # was: import mcp.types as types
    import ferromcp.lowlevel.stdio                               # was: import mcp.server.stdio

Handlers are given as the SDK 2.x ``on_*`` constructor arguments, ``(ctx, params)`` each
(``on_list_tools``, ``on_call_tool``, ``on_list_resources``, ``on_list_resource_templates``,
``on_read_resource``, ``on_list_prompts``, ``on_get_prompt``), or with the SDK 1.x decorators
(``@server.list_tools()``, ``@server.call_tool()``, ...).

How it maps onto the engine: when the server starts serving (its lifespan is entered: stdio,
``serve_http``, the ASGI app, an in-memory client), the list handlers are called, following their
``next_cursor`` to the last page, and every tool, resource, template and prompt they list is
registered with the engine, its calls going to ``on_call_tool`` / ``on_read_resource`` /
``on_get_prompt``; the engine validates a call's arguments against the listed ``inputSchema``.
When a list handler pages (gives a ``next_cursor`` as the server starts; or always with
``Server(lists_per_request=True)``), a ``*/list`` request is answered by its list handler, as in
the SDK: the handler gets the request's ``cursor`` (``params.cursor``) and its ``ctx``, and what it
returns (its page, its ``next_cursor``) reaches the client as it is, without the engine's own
paging on top; a cursor the handler rejects with ``ValueError``, ``LookupError`` or ``TypeError``
answers -32602 (an ``McpError`` it raises answers as it is), and a list without a handler -32601. That answer is the
engine's list provider (``embed/src/list_provider.rs``), a layer the server adds, innermost, as it
first starts: the engine checks the cursor and the page and calls Python for the list requests
only (a ``tools/call`` still leaves the engine's typed lane, as with any layer), so when no
handler pages the engine answers the lists read at start itself (``page_size`` pages them). Either way
the registrations are the lists read at start: a tool, URI or prompt a later list gives that the
start's lists did not is unknown to calls."""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Generic

from typing_extensions import TypeVar

from ..context import Context

if typing.TYPE_CHECKING:
    from ..asgi import StreamableHTTPApp
from ..server import Server as _Server

__all__ = [
    "InitializationOptions",
    "NotificationOptions",
    "Server",
    "ServerRequestContext",
]

# Defaults to Any (PEP 696): `server = Server("x", ...)` needs no annotation under mypy --strict.
LifespanT = TypeVar("LifespanT", default=Any)
Handler = Callable[..., Awaitable[Any]]

_MAX_PAGES = 10_000
# The list methods a handler answers, and the key of the items in each one's result.
_LISTS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}
# What a handler raises on a cursor it cannot read (``int(cursor)``, a lookup, a decode).
_CURSOR_REJECTED = (ValueError, LookupError, TypeError)
_current: ContextVar[ServerRequestContext[Any]] = ContextVar("ferromcp_lowlevel_request")


class ServerRequestContext(Generic[LifespanT]):
    """The ``ctx`` a low-level handler gets: ``lifespan_context``, ``request_id``, ``meta``,
    ``session`` (``send_log_message``, ``send_resource_updated``, ...), ``headers``, and
    ``context``, the full :class:`ferromcp.Context` (progress, sampling, elicitation). While the
    server starts, the list handlers get one without a request (``request_id`` and ``meta``
    ``None``; ``session`` and ``context`` raise)."""

    def __init__(self, lifespan_context: Any, context: Context[Any, Any, Any] | None) -> None:
        self.lifespan_context: LifespanT = lifespan_context
        self._context = context

    def __class_getitem__(cls, params: Any) -> Any:
        return cls

    @property
    def context(self) -> Context[Any, Any, Any]:
        if self._context is None:
            raise RuntimeError("no request: the list handlers are called as the server starts")
        return self._context

    @property
    def request_id(self) -> int | str | None:
        return None if self._context is None else self._context.request_id

    @property
    def meta(self) -> dict[str, Any] | None:
        return None if self._context is None else self._context.meta

    @property
    def session(self) -> Any:
        return self.context.session

    @property
    def headers(self) -> dict[str, str]:
        return {} if self._context is None else self._context.headers


class NotificationOptions:
    """Accepted for ``create_initialization_options(NotificationOptions(...))``; the engine
    announces and sends the list-changed notifications itself."""

    def __init__(
        self,
        prompts_changed: bool = False,
        resources_changed: bool = False,
        tools_changed: bool = False,
    ) -> None:
        self.prompts_changed = prompts_changed
        self.resources_changed = resources_changed
        self.tools_changed = tools_changed


class InitializationOptions:
    """What ``create_initialization_options()`` returns; ``run()`` ignores it (the engine
    answers ``initialize`` from the server's name, version and registrations)."""

    def __init__(self, server_name: str, server_version: str, **extra: Any) -> None:
        self.server_name = server_name
        self.server_version = server_version
        self.extra = extra


def _wire(value: Any) -> Any:
    from ..types import to_wire

    value = to_wire(value)
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    return value


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _arity(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


class _Request:
    """What an SDK 1.x list handler that takes an argument gets: ``request.params.cursor``."""

    def __init__(self, method: str, params: Any) -> None:
        self.method = method
        self.params = params


class Server(_Server, Generic[LifespanT]):
    """The official SDK's low-level ``Server`` (see the module's doc for how it maps);
    ``Server[AppContext]`` types what the lifespan yields, as in the SDK."""

    def __init__(
        self,
        name: str,
        version: str | None = None,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        lifespan: Callable[[Any], Any] | None = None,
        *,
        on_list_tools: Handler | None = None,
        on_call_tool: Handler | None = None,
        on_list_resources: Handler | None = None,
        on_list_resource_templates: Handler | None = None,
        on_read_resource: Handler | None = None,
        on_list_prompts: Handler | None = None,
        on_get_prompt: Handler | None = None,
        page_size: int | None = None,
        mask_error_details: bool = True,
        lists_per_request: bool | None = None,
        **unsupported: Any,
    ) -> None:
        """``lists_per_request`` (ferromcp's; see the module's doc): ``True`` answers every
        ``*/list`` request with its handler, as the SDK does; ``None`` (the default) does so
        when a list handler pages (gives a ``next_cursor`` as the server starts), otherwise the
        engine answers the lists read at start itself, which keeps ``tools/call`` on its fast
        path; ``False`` never (``page_size`` then pages every list).

        ``mask_error_details``: an unexpected exception in a handler is logged with its
        traceback (logger ``ferromcp``) and the client learns only ``"Error executing tool
        <name>"`` (an ``isError`` result) or an internal error naming the URI or prompt, as the
        SDK answers ``"Internal server error"``; ``McpError`` and ``ToolError`` messages are
        sent as they are. ``False`` sends ``"<Type>: <message>"``."""
        unknown = sorted(k for k in unsupported if unsupported[k] is not None)
        if unknown:
            raise TypeError(f"ferromcp.lowlevel.Server: not supported: {', '.join(unknown)}")
        self._user_lifespan = lifespan
        super().__init__(
            name,
            version or "0.1.0",
            title=title,
            instructions=instructions,
            website_url=website_url,
            icons=icons,
            lifespan=self._lowlevel_lifespan,
            page_size=page_size,
            mask_error_details=mask_error_details,
        )
        self.description = description
        self.version = version or "0.1.0"
        self._handlers: dict[str, Handler | None] = {
            "tools/list": on_list_tools,
            "tools/call": on_call_tool,
            "resources/list": on_list_resources,
            "resources/templates/list": on_list_resource_templates,
            "resources/read": on_read_resource,
            "prompts/list": on_list_prompts,
            "prompts/get": on_get_prompt,
        }
        self._registered: dict[str, set[str]] = {"tool": set(), "resource": set(), "prompt": set()}
        self._answers_lists = False
        self._lists_per_request = lists_per_request
        self._handler_pages = False  # a list handler gave a next_cursor at start

    # ---- SDK 1.x decorators ----------------------------------------------------------------
    def _list_decorator(self, method: str, key: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            takes_request = _arity(fn) > 0

            async def on_list(ctx: Any, params: Any) -> Any:
                if params is not None and params.cursor is None and params.meta is None:
                    params = None  # SDK 1.x: a request without params has none
                value = await (fn(_Request(method, params)) if takes_request else fn())
                return {key: value} if isinstance(value, list) else value

            self._handlers[method] = on_list
            return fn

        return deco

    def list_tools(self) -> Callable[[Handler], Handler]:
        """SDK 1.x: ``async def () -> list[Tool]`` (or ``(request) -> ListToolsResult``)."""
        return self._list_decorator("tools/list", "tools")

    def list_resources(self) -> Callable[[Handler], Handler]:
        return self._list_decorator("resources/list", "resources")

    def list_resource_templates(self) -> Callable[[Handler], Handler]:
        return self._list_decorator("resources/templates/list", "resourceTemplates")

    def list_prompts(self) -> Callable[[Handler], Handler]:
        return self._list_decorator("prompts/list", "prompts")

    def call_tool(self, *, validate_input: bool = True) -> Callable[[Handler], Handler]:
        """SDK 1.x: ``async def (name, arguments)`` returning content blocks, a dict (the
        structured content), a ``(content, structured)`` pair or a ``CallToolResult``. The
        engine always validates the arguments against the listed ``inputSchema``."""

        def deco(fn: Handler) -> Handler:
            async def on_call(ctx: Any, params: Any) -> Any:
                return await fn(params.name, params.arguments or {})

            self._handlers["tools/call"] = on_call
            return fn

        return deco

    def read_resource(self) -> Callable[[Handler], Handler]:
        """SDK 1.x: ``async def (uri)`` returning ``str``, ``bytes`` or contents."""

        def deco(fn: Handler) -> Handler:
            async def on_read(ctx: Any, params: Any) -> Any:
                return await fn(params.uri)

            self._handlers["resources/read"] = on_read
            return fn

        return deco

    def get_prompt(self) -> Callable[[Handler], Handler]:
        """SDK 1.x: ``async def (name, arguments) -> GetPromptResult``."""

        def deco(fn: Handler) -> Handler:
            async def on_get(ctx: Any, params: Any) -> Any:
                return await fn(params.name, params.arguments)

            self._handlers["prompts/get"] = on_get
            return fn

        return deco

    @property
    def request_context(self) -> ServerRequestContext[Any]:
        """SDK 1.x: the current request's context, inside a handler."""
        try:
            return _current.get()
        except LookupError:
            raise LookupError("request_context is only available inside a handler") from None

    # ---- running (the SDK's signatures) ----------------------------------------------------
    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, Any] | None = None,
    ) -> InitializationOptions:
        return InitializationOptions(self.name, self.version)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """``await server.run(read_stream, write_stream, options)`` with the streams of
        :func:`ferromcp.lowlevel.stdio.stdio_server` serves stdio (the SDK's form); otherwise
        :meth:`ferromcp.Server.run` (``run()``, ``run("http", ...)``)."""
        if (args and not isinstance(args[0], str)) or "read_stream" in kwargs:
            return self.run_stdio_async()
        return super().run(*args, **kwargs)

    def streamable_http_app(self, **kwargs: Any) -> StreamableHTTPApp:
        """The ASGI app, with the SDK's arguments (``streamable_http_path``, ``json_response``,
        ``stateless_http``, ``retry_interval`` in ms, ``max_request_body_size``,
        ``transport_security``, ``host``): see :meth:`ferromcp.MCPServer.streamable_http_app`."""
        from ..compat import sdk_streamable_http_app

        return sdk_streamable_http_app(self, {}, **kwargs)

    # ---- registering what the list handlers give -------------------------------------------
    @contextlib.asynccontextmanager
    async def _lowlevel_lifespan(self, server: Any) -> AsyncIterator[Any]:
        if self._user_lifespan is None:
            state: Any = {}
            await self._sync(state)
            self._answer_lists_with_the_handlers()
            yield state
            return
        async with self._user_lifespan(self) as state:
            await self._sync(state)
            self._answer_lists_with_the_handlers()
            yield state

    async def _list_all(self, method: str, key: str, state: Any) -> list[dict[str, Any]]:
        handler = self._handlers[method]
        if handler is None:
            return []
        from ..types import PaginatedRequestParams

        ctx: ServerRequestContext[Any] = ServerRequestContext(state, None)
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            # As in the SDK 2.x, never None (a request without params: the defaults).
            params = PaginatedRequestParams(cursor=cursor)
            page = _wire(await _maybe_await(handler(ctx, params)))
            items.extend(page.get(key) or [])
            cursor = page.get("nextCursor")
            if cursor is None or cursor in seen:
                break
            self._handler_pages = True
            seen.add(cursor)
        return items

    async def _sync(self, state: Any) -> None:
        """Registers what the list handlers list (again at each start: what they no longer
        list is removed)."""
        tools = await self._list_all("tools/list", "tools", state)
        resources = await self._list_all("resources/list", "resources", state)
        templates = await self._list_all("resources/templates/list", "resourceTemplates", state)
        prompts = await self._list_all("prompts/list", "prompts", state)
        for name in self._registered["tool"]:
            self.remove_tool(name)
        for uri in self._registered["resource"]:
            self.remove_resource(uri)
        for name in self._registered["prompt"]:
            self.remove_prompt(name)
        self._registered = {"tool": set(), "resource": set(), "prompt": set()}
        for tool in tools:
            self._native.add_tool(tool, self._tool_handler(tool["name"]))
            self._registered["tool"].add(tool["name"])
        for resource in resources:
            self._native.add_resource(resource, self._resource_handler(resource["uri"]))
            self._registered["resource"].add(resource["uri"])
        for template in templates:
            self._native.add_resource_template(
                template, self._resource_handler(template["uriTemplate"])
            )
            self._registered["resource"].add(template["uriTemplate"])
        for prompt in prompts:
            self._native.add_prompt(prompt, self._prompt_handler(prompt["name"]))
            self._registered["prompt"].add(prompt["name"])

    # ---- answering */list with the handlers --------------------------------------------------
    def _answer_lists_with_the_handlers(self) -> None:
        """Adds, once, the engine's list provider that answers each ``*/list`` request with its
        handler (the request's cursor in, the handler's page and ``next_cursor`` out; a list
        without a handler -32601), when
        ``lists_per_request`` asks for it or (``None``) a list handler pages. It is added as the
        server starts, after the lists were read and before it handles a request, so it is the
        innermost layer: middleware added before serving sees these requests and their answers.
        A server whose handlers first page on a later start keeps the engine's paging (the
        chain is fixed once a request was handled)."""
        wanted = self._lists_per_request
        if wanted is None:
            wanted = self._handler_pages
        if self._answers_lists or not wanted or not any(self._handlers[m] for m in _LISTS):
            return
        self._answers_lists = True
        handlers = self._handlers
        methods = [m for m in _LISTS if handlers[m] is not None]

        async def answer_page(method: str, params: dict[str, Any], native_ctx: Any) -> Any:
            handler = handlers[method]
            assert handler is not None  # the engine asks only for `methods`
            return await self._list_page(method, handler, params, native_ctx)

        from .. import _native
        from ..errors import McpError

        try:
            _native.add_list_provider(self._native, methods, answer_page)
        except McpError:  # the chain is fixed: an earlier start handled requests
            self._answers_lists = False
            return
        self._has_async = True  # the list handlers run on the event loop

    async def _list_page(self, method: str, handler: Handler, params: Any, native_ctx: Any) -> Any:
        """One page of ``method``'s list as the handler gives it. As in the SDK, the handler
        gets ``PaginatedRequestParams`` (its defaults when the request has no params)."""
        import json

        from ..errors import InternalError, InvalidParams, McpError
        from ..server import _foreign_mcp_error, _log_failure
        from ..types import PaginatedRequestParams

        try:
            typed = PaginatedRequestParams.model_validate(params or {})
        except ValueError as e:
            raise InvalidParams(f"Invalid params for {method}: {e}") from None
        ctx: ServerRequestContext[Any] = ServerRequestContext(
            self.lifespan_context, Context(native_ctx, self)
        )
        token = _current.set(ctx)
        try:
            page = _wire(await _maybe_await(handler(ctx, typed)))
        except McpError:
            raise
        except Exception as e:
            foreign = _foreign_mcp_error(e)
            if foreign is not None:
                raise foreign from e
            if typed.cursor is not None and isinstance(e, _CURSOR_REJECTED):
                # The spec's answer to an invalid cursor (the SDK's: -32603).
                import logging

                logging.getLogger("ferromcp").info(
                    "%s: cursor %r rejected: %r", method, typed.cursor, str(e)
                )
                message = f"invalid cursor {json.dumps(typed.cursor)}"
                if not self.mask_error_details:
                    message += f": {type(e).__name__}: {e}"
                raise InvalidParams(message) from None
            _log_failure("list", method, e)
            if not self.mask_error_details:
                raise InternalError(f"{type(e).__name__}: {e}") from None
            raise InternalError(f"Error listing {_LISTS[method]}") from None
        finally:
            _current.reset(token)
        return page  # the engine checks it is a page (embed/src/list_provider.rs)

    def _request_ctx(self, native_ctx: Any) -> ServerRequestContext[Any]:
        return ServerRequestContext(self.lifespan_context, Context(native_ctx, self))

    def _call(self, method: str, kind: str, name: str) -> Callable[..., Any]:
        """``(ctx, params)`` → the ``on_*`` handler of ``method``, with ``request_context``
        set (an async function for :meth:`_adapt`)."""
        handlers = self._handlers

        async def call(ctx: ServerRequestContext[Any], params: Any) -> Any:
            handler = handlers[method]
            if handler is None:
                from ..errors import MethodNotFound

                # The SDK's answer to a request without a handler.
                raise MethodNotFound("Method not found", data=method)
            token = _current.set(ctx)
            try:
                return await _maybe_await(handler(ctx, params))
            finally:
                _current.reset(token)

        return call

    def _tool_handler(self, name: str) -> Callable[..., Any]:
        from ..types import CallToolRequestParams

        def prepare(arguments: Any, native_ctx: Any) -> dict[str, Any]:
            params = CallToolRequestParams(name=name, arguments=arguments or {})
            return {"ctx": self._request_ctx(native_ctx), "params": params}

        return self._adapt(
            self._call("tools/call", "tool", name),
            prepare,
            lambda value, *_: _tool_result(value),
            kind="tool",
            name=name,
        )

    def _resource_handler(self, uri_or_template: str) -> Callable[..., Any]:
        from ..types import ReadResourceRequestParams

        def prepare(uri: str, variables: Any, native_ctx: Any) -> dict[str, Any]:
            params = ReadResourceRequestParams(uri=uri)
            return {"ctx": self._request_ctx(native_ctx), "params": params}

        def finish(value: Any, uri: str, *_: Any) -> Any:
            return _resource_contents(value, uri)

        return self._adapt(
            self._call("resources/read", "resource", uri_or_template),
            prepare,
            finish,
            kind="resource",
            name=uri_or_template,
        )

    def _prompt_handler(self, name: str) -> Callable[..., Any]:
        from ..types import GetPromptRequestParams

        def prepare(arguments: Any, native_ctx: Any) -> dict[str, Any]:
            params = GetPromptRequestParams(name=name, arguments=arguments)
            return {"ctx": self._request_ctx(native_ctx), "params": params}

        return self._adapt(
            self._call("prompts/get", "prompt", name),
            prepare,
            lambda value, *_: _wire(value),
            kind="prompt",
            name=name,
        )


def _tool_result(value: Any) -> Any:
    """A low-level ``call_tool`` answer as a ``CallToolResult`` dict: a result passes through;
    SDK 1.x answers: content blocks, a dict (structured content, with its JSON as text), or a
    ``(content, structured)`` pair."""
    import json

    value = _wire(value)
    if isinstance(value, dict) and "content" in value:
        return value
    if isinstance(value, dict):
        text = json.dumps(value, indent=2)
        return {"content": [{"type": "text", "text": text}], "structuredContent": value}
    if isinstance(value, list) and len(value) == 2 and isinstance(value[1], dict):
        if isinstance(value[0], list):
            return {"content": value[0], "structuredContent": value[1]}
    if isinstance(value, list):
        return {"content": value}
    return {"content": [{"type": "text", "text": str(value)}]}


def _resource_contents(value: Any, uri: str) -> Any:
    """A low-level ``read_resource`` answer as contents: a ``ReadResourceResult`` passes
    through; SDK 1.x answers: ``str``, ``bytes``, or items with ``content`` and ``mime_type``."""
    import base64

    if isinstance(value, (str, bytes, bytearray)):
        value = [value]
    elif not isinstance(value, dict) and not hasattr(value, "model_dump"):
        if isinstance(value, (list, tuple)) or hasattr(value, "__iter__"):
            value = list(value)
    if isinstance(value, list):
        contents: list[dict[str, Any]] = []
        for item in value:
            content = getattr(item, "content", item)
            mime = getattr(item, "mime_type", None)
            entry: dict[str, Any] = {"uri": uri}
            if isinstance(content, (bytes, bytearray)):
                entry["blob"] = base64.b64encode(bytes(content)).decode()
            elif isinstance(content, str):
                entry["text"] = content
            else:
                entry = _wire(content)
            if mime is not None:
                entry["mimeType"] = mime
            contents.append(entry)
        return {"contents": contents}
    return _wire(value)
