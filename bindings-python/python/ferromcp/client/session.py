"""``ClientSession``: the official SDK's client session API (``mcp.ClientSession``) on
:class:`ferromcp.Client`, so that SDK client code ports by changing its imports::

    from ferromcp import ClientSession, StdioServerParameters   # was: from mcp import ...
    from ferromcp.client.stdio import stdio_client               # was: from mcp.client.stdio ...

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, sampling_callback=cb) as session:
            await session.initialize()
            tools = await session.list_tools()                   # a ListToolsResult model

The transports (:mod:`ferromcp.client.stdio`, :mod:`~ferromcp.client.streamable_http`,
:mod:`~ferromcp.client.sse`) do not open streams: what they yield says how to connect, and
``initialize()`` connects the engine's client that way (the handshake, or ``server/discover``
with 2026-07-28). Results are :mod:`ferromcp.types` models with the SDK's field names; a
JSON-RPC error raises :class:`ferromcp.errors.McpError` (``MCPError``: ``.code``, ``.error``).
Callbacks take the SDK's ``(context, params)`` and may return ``ErrorData``."""

from __future__ import annotations

import inspect
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..errors import McpError, from_code
from . import Client

if TYPE_CHECKING:
    from typing_extensions import Self

    from .. import types

__all__ = ["ClientRequestContext", "ClientSession", "Connector"]


class Connector:
    """What a transport context manager yields (as both its "read" and "write" stream): how
    :class:`ClientSession` connects. ``make(**options)`` builds the :class:`ferromcp.Client`."""

    def __init__(self, make: Any, description: str) -> None:
        self.make = make
        self.description = description

    def __repr__(self) -> str:
        return f"<ferromcp transport {self.description}>"


class ClientRequestContext:
    """The ``context`` a callback gets (``mcp.client.context.ClientRequestContext``):
    ``session``, and ``request_id``/``meta`` (``None``: the engine keeps them)."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.request_id: Any = None
        self.meta: Any = None


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _answer(value: Any) -> Any:
    """A callback's return value as the wire answer (``ErrorData``: that error)."""
    from ..types import ErrorData, to_wire

    if isinstance(value, ErrorData) or type(value).__name__ == "ErrorData":
        raise from_code(value.code, value.message, getattr(value, "data", None))
    return to_wire(value)


class ClientSession:
    """The SDK's ``ClientSession(read_stream, write_stream, ...)`` (see the module's doc)."""

    def __init__(
        self,
        read_stream: Any = None,
        write_stream: Any = None,
        read_timeout_seconds: float | None = None,
        sampling_callback: Any = None,
        elicitation_callback: Any = None,
        list_roots_callback: Any = None,
        logging_callback: Any = None,
        message_handler: Any = None,
        client_info: Any = None,
        *,
        log_level: str | None = None,
        **unsupported: Any,
    ) -> None:
        unknown = sorted(k for k, v in unsupported.items() if v is not None)
        if unknown:
            raise TypeError(f"ferromcp ClientSession: not supported: {', '.join(unknown)}")
        connector = read_stream if isinstance(read_stream, Connector) else write_stream
        if not isinstance(connector, Connector):
            raise TypeError(
                "ferromcp ClientSession takes what ferromcp.client.stdio.stdio_client, "
                "streamable_http.streamable_http_client or sse.sse_client yield"
            )
        self._connector = connector
        self._timeout = read_timeout_seconds
        self._sampling = sampling_callback
        self._elicitation = elicitation_callback
        self._roots = list_roots_callback
        self._logging = logging_callback
        self._message_handler = message_handler
        self._client_info = client_info
        self._log_level = log_level
        self._client: Client | None = None
        self._initialize_result: types.InitializeResult | None = None

    # ---- lifecycle ----------------------------------------------------------------------------
    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        et: type[BaseException] | None,
        e: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    async def initialize(self) -> types.InitializeResult:
        """Connects (the handshake, or ``server/discover`` with 2026-07-28) and returns the
        server's ``InitializeResult``."""
        from ..types import InitializeResult

        if self._client is not None:
            raise RuntimeError("ClientSession.initialize() was already called")
        options: dict[str, Any] = {"on_notification": self._on_notification}
        if self._client_info is not None:
            options["name"] = self._client_info.name
            options["version"] = self._client_info.version
        if self._timeout is not None:
            options["timeout"] = self._timeout
        if self._sampling is not None:
            options["sampling_handler"] = self._on_sampling
        if self._elicitation is not None:
            options["elicitation_handler"] = self._on_elicitation
            options["elicitation_url"] = True
        if self._roots is not None:
            options["roots"] = self._on_roots
        client: Client = self._connector.make(**options)
        await client.connect()
        self._client = client
        if self._log_level is not None:
            await client.set_logging_level(self._log_level)
        self._initialize_result = InitializeResult.model_validate(client.initialize_result)
        return self._initialize_result

    @property
    def client(self) -> Client:
        """The connected :class:`ferromcp.Client` (after :meth:`initialize`)."""
        if self._client is None:
            raise RuntimeError("call ClientSession.initialize() first")
        return self._client

    def get_server_capabilities(self) -> dict[str, Any] | None:
        r = self._initialize_result
        return None if r is None else r.capabilities

    # ---- server-to-client ---------------------------------------------------------------------
    async def _on_sampling(self, params: Any, ctx: Any) -> Any:
        from ..types import CreateMessageRequestParams

        p = CreateMessageRequestParams.model_validate(params)
        return _answer(await _maybe_await(self._sampling(ClientRequestContext(self), p)))

    async def _on_elicitation(self, params: Any, ctx: Any) -> Any:
        from ..types import ElicitRequestFormParams, ElicitRequestURLParams

        model = ElicitRequestURLParams if params.get("mode") == "url" else ElicitRequestFormParams
        p = model.model_validate(params)
        return _answer(await _maybe_await(self._elicitation(ClientRequestContext(self), p)))

    async def _on_roots(self, ctx: Any) -> Any:
        return _answer(await _maybe_await(self._roots(ClientRequestContext(self))))

    async def _on_notification(self, method: str, params: Any) -> None:
        from ..types import LoggingMessageNotificationParams, ServerNotification

        if method == "notifications/message" and self._logging is not None:
            await _maybe_await(
                self._logging(LoggingMessageNotificationParams.model_validate(params))
            )
        if self._message_handler is not None:
            note = ServerNotification(method=method, params=params)
            await _maybe_await(self._message_handler(note))

    # ---- requests -----------------------------------------------------------------------------
    async def _request(self, method: str, params: Any = None, **kw: Any) -> Any:
        return await self.client.request(method, params, **kw)

    async def send_ping(self) -> types.EmptyResult:
        from ..types import EmptyResult

        return EmptyResult.model_validate(await self._request("ping") or {})

    async def _list(self, method: str, model: Any, params: Any, cursor: str | None) -> Any:
        if params is not None and getattr(params, "cursor", None) is not None:
            cursor = params.cursor
        return model.model_validate(await self._request(method, _page(cursor)))

    async def list_tools(
        self, cursor: str | None = None, *, params: types.PaginatedRequestParams | None = None
    ) -> types.ListToolsResult:
        from ..types import ListToolsResult

        result: types.ListToolsResult = await self._list(
            "tools/list", ListToolsResult, params, cursor
        )
        return result

    async def list_resources(
        self, cursor: str | None = None, *, params: types.PaginatedRequestParams | None = None
    ) -> types.ListResourcesResult:
        from ..types import ListResourcesResult

        result: types.ListResourcesResult = await self._list(
            "resources/list", ListResourcesResult, params, cursor
        )
        return result

    async def list_resource_templates(
        self, cursor: str | None = None, *, params: types.PaginatedRequestParams | None = None
    ) -> types.ListResourceTemplatesResult:
        from ..types import ListResourceTemplatesResult

        result: types.ListResourceTemplatesResult = await self._list(
            "resources/templates/list", ListResourceTemplatesResult, params, cursor
        )
        return result

    async def list_prompts(
        self, cursor: str | None = None, *, params: types.PaginatedRequestParams | None = None
    ) -> types.ListPromptsResult:
        from ..types import ListPromptsResult

        result: types.ListPromptsResult = await self._list(
            "prompts/list", ListPromptsResult, params, cursor
        )
        return result

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
        *,
        meta: dict[str, Any] | None = None,
    ) -> types.CallToolResult:
        """``tools/call``: a ``CallToolResult`` model whose ``content`` holds content models
        (``TextContent``, ``ImageContent``, ``EmbeddedResource``, ...). A tool's failure is
        ``is_error``; a JSON-RPC error (e.g. -32042) raises ``McpError``."""
        from ..types import CallToolResult

        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if meta:
            params["_meta"] = meta
        raw = await self._request(
            "tools/call", params, timeout=read_timeout_seconds, progress=progress_callback
        )
        result = CallToolResult.model_validate(raw)
        result.content = [_content(c) for c in result.content]
        return result

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        """``resources/read``: contents as ``TextResourceContents`` / ``BlobResourceContents``."""
        from ..types import ReadResourceResult

        result = ReadResourceResult.model_validate(
            await self._request("resources/read", {"uri": str(uri)})
        )
        result.contents = [_resource_contents(c) for c in result.contents]
        return result

    async def subscribe_resource(self, uri: str) -> types.EmptyResult:
        from ..types import EmptyResult

        await self.client.subscribe(str(uri))
        return EmptyResult()

    async def unsubscribe_resource(self, uri: str) -> types.EmptyResult:
        from ..types import EmptyResult

        await self.client.unsubscribe(str(uri))
        return EmptyResult()

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None
    ) -> types.GetPromptResult:
        """``prompts/get``: each message's ``content`` a content model."""
        from ..types import GetPromptResult

        raw = await self._request("prompts/get", {"name": name, "arguments": arguments or {}})
        result = GetPromptResult.model_validate(raw)
        for message in result.messages:
            message.content = _content(message.content)
        return result

    async def complete(
        self,
        ref: types.ResourceTemplateReference | types.PromptReference | dict[str, Any],
        argument: dict[str, str],
        context_arguments: dict[str, str] | None = None,
    ) -> types.CompleteResult:
        from ..types import CompleteResult, to_wire

        params: dict[str, Any] = {"ref": to_wire(ref), "argument": argument}
        if context_arguments:
            params["context"] = {"arguments": context_arguments}
        return CompleteResult.model_validate(await self._request("completion/complete", params))

    async def set_logging_level(self, level: str) -> types.EmptyResult:
        from ..types import EmptyResult

        await self.client.set_logging_level(level)
        return EmptyResult()

    async def send_roots_list_changed(self) -> None:
        await self.client.notify_roots_changed()


def _resource_contents(value: Any) -> Any:
    """A contents dict as ``TextResourceContents`` or ``BlobResourceContents``."""
    from ..types import BlobResourceContents, TextResourceContents

    if not isinstance(value, dict):
        return value
    model = BlobResourceContents if "blob" in value else TextResourceContents
    return model.model_validate(value)


def _content(value: Any) -> Any:
    """A content dict as its model (an embedded resource's ``resource`` too)."""
    from ..types import EmbeddedResource, _content_block

    block = _content_block(value)
    if isinstance(block, EmbeddedResource):
        block.resource = _resource_contents(block.resource)
    return block


def _page(cursor: str | None) -> dict[str, Any]:
    return {} if cursor is None else {"cursor": cursor}


# Raised by requests: the SDK's MCPError is ferromcp's McpError.
MCPError = McpError
