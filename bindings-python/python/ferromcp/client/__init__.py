"""``Client``: connect to an MCP server (a child process over stdio, or an in-process
``Server``) and call it; ``MultiClient``: clients of every server of an ``mcpServers``
configuration as one (:mod:`ferromcp.multi` describes it and re-exports it).

The two are one module because each names the other in its public signatures
(``Client.from_config`` makes a ``MultiClient``; ``ServerEntry.client()`` and
``multi[name]`` give a ``Client``): in two modules that is an import circle (issue 35;
``tests/test_import_cycles.py``)."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .. import _native
from ..auth import OAuth
from ..errors import MethodNotFound
from ..listen import ListenFilter, Subscription
from ..results import CallToolResult, GetPromptResult, ReadResourceResult, Tool
from ..schema import to_jsonable
from ..server import Context, Server

if TYPE_CHECKING:
    from typing_extensions import Self

Handler = Callable[..., Any]


async def _maybe_await(v: Any) -> Any:
    return await v if inspect.isawaitable(v) else v


def _with_current_trace_context(params: Any) -> Any:
    """``params`` with the current OpenTelemetry context (of the ``opentelemetry`` package, when
    installed: the span the caller is in) written into ``_meta`` by the global propagator,
    unless the caller put a ``traceparent`` there itself. The engine's client span takes its
    parent from there."""
    if params is not None and not isinstance(params, dict):
        return params
    meta = (params or {}).get("_meta")
    if isinstance(meta, dict) and "traceparent" in meta:
        return params
    try:
        from opentelemetry import propagate
    except ImportError:
        return params
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    if "traceparent" not in carrier:
        return params
    out = dict(params or {})
    out["_meta"] = {**(meta if isinstance(meta, dict) else {}), **carrier}
    return out


class Client:
    """A connected MCP client. Create it with :meth:`stdio`, :meth:`http` or :meth:`memory` and use it as an
    async context manager.

    ``open_telemetry`` (the server layer's keys: ``serviceName``, ``otlpEndpoint``,
    ``otlpHeaders``, ``samplingRatio``, ``metricExportIntervalMs``; ``{}`` takes them from the
    ``OTEL_*`` variables) gives every request a ``CLIENT`` span exported by the engine, whose
    parent is the ``traceparent`` in ``params["_meta"]`` or else, with the ``opentelemetry``
    package installed, the caller's current span; closing the client flushes its exports.

    ``tasks=True`` runs a server's task-augmented ``sampling/createMessage`` and
    ``elicitation/create`` (``params["task"]``, 2025-11-25, handshake era) as tasks of this
    client: it declares ``tasks.requests`` for the handlers given, answers such a request at once
    with a ``CreateTaskResult`` while the handler runs (its params keep ``task``), and answers the
    server's ``tasks/get``, ``tasks/result``, ``tasks/list`` and ``tasks/cancel``."""

    def __init__(
        self,
        connect: Callable[[dict[str, Any], Any], Awaitable[_native.NativeClient]],
        *,
        name: str = "ferromcp-python",
        version: str = "0.1.0",
        protocol_version: str | None = None,
        protocol_mode: str | None = None,
        timeout: float | None = None,
        max_message_size: int | None = None,
        sampling_handler: Handler | None = None,
        elicitation_handler: Handler | None = None,
        roots: list[dict[str, Any]] | Handler | None = None,
        on_notification: Callable[[str, Any], Any] | None = None,
        tasks_extension: bool = True,
        tasks: bool = False,
        elicitation_url: bool = False,
        capabilities: dict[str, Any] | None = None,
        open_telemetry: dict[str, Any] | None = None,
    ) -> None:
        self._connect = connect
        self._config: dict[str, Any] = {
            "name": name,
            "version": version,
            "sampling": sampling_handler is not None,
            "elicitation": elicitation_handler is not None,
            "roots": roots is not None,
        }
        if protocol_version:
            self._config["protocolVersion"] = protocol_version
        if protocol_mode:
            self._config["protocolMode"] = protocol_mode
        if timeout is not None:
            self._config["requestTimeoutMs"] = int(timeout * 1000)
        if max_message_size is not None:
            self._config["maxMessageSize"] = max_message_size
        if not tasks_extension:
            self._config["tasksExtension"] = False
        if tasks:
            # A server's task-augmented sampling/createMessage and elicitation/create run as
            # tasks of this client (2025-11-25, handshake era; docs/protocol.md).
            self._config["tasks"] = True
        if capabilities is not None:
            # Merged over what the handlers imply: `experimental`, 2026-07-28's `extensions`
            # (e.g. ferromcp.apps.ui_client_capability() for a host rendering MCP Apps).
            self._config["capabilities"] = capabilities
        if open_telemetry is not None:
            # A CLIENT span per request, exported by the engine (docs/observability.md): the
            # server layer's keys (serviceName, otlpEndpoint, otlpHeaders, samplingRatio,
            # metricExportIntervalMs); its parent is the traceparent put in params["_meta"].
            self._config["openTelemetry"] = open_telemetry
        if elicitation_url and elicitation_handler is not None:
            # URL-mode elicitation too (``{"elicitation": {"form": {}, "url": {}}}``).
            self._config["elicitationUrl"] = True
        self._sampling = sampling_handler
        self._elicitation = elicitation_handler
        self._roots = roots
        self._on_notification = on_notification
        self._native: _native.NativeClient | None = None
        self._server: Server | None = None
        self._uses_server = True

    # ---- construction ------------------------------------------------------------------------
    @classmethod
    def stdio(
        cls,
        command: str,
        args: list[str] | None = None,
        *,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> Client:
        """A client for a server started as ``command args...`` (connects on ``__aenter__``)."""
        argv = list(args or [])
        cwd_s = None if cwd is None else os.fspath(cwd)

        def connect(config: dict[str, Any], handler: Any) -> Awaitable[_native.NativeClient]:
            return _native.NativeClient.connect_stdio(
                command, argv, dict(env or {}), cwd_s, config, handler
            )

        return cls(connect, **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        legacy_fallback: bool = True,
        auth: OAuth | None = None,
        root_certificates: list[str] | None = None,
        **options: Any,
    ) -> Client:
        """A client for a Streamable HTTP endpoint (connects on ``__aenter__``). ``headers`` go
        with every request (e.g. ``Authorization``); with ``legacy_fallback`` a server refusing
        the Streamable HTTP initialize with a 4xx is retried over the 2024-11-05 HTTP+SSE
        transport. ``auth``: OAuth 2.1 authorization with a protected server (see
        ``ferromcp.OAuth``); failures raise ``TransportError`` with ``data["authError"]``.
        ``https://`` URLs are verified against Mozilla's root certificates plus
        ``root_certificates`` (PEM text each, e.g. a private CA's); a certificate failure raises
        ``TransportError`` with the reason."""
        hdrs = list((headers or {}).items())
        auth_config = auth._native_config() if auth is not None else None
        roots = list(root_certificates or [])

        def connect(config: dict[str, Any], handler: Any) -> Awaitable[_native.NativeClient]:
            return _native.NativeClient.connect_http(
                url, hdrs, legacy_fallback, config, handler, auth_config, roots
            )

        return cls(connect, **options)

    @staticmethod
    def from_config(
        config: dict[str, Any] | str | os.PathLike[str] | None, **options: Any
    ) -> MultiClient:
        """One client over every server of an ``mcpServers`` configuration (a dict, its JSON
        text or a file path), tools, resources and prompts namespaced by server: see
        :class:`ferromcp.MultiClient` (``servers=`` adds servers of this program, in memory).
        ``options`` go to each server's client."""
        return MultiClient.from_config(config, **options)

    @classmethod
    def memory(cls, server: Server, **options: Any) -> Client:
        """A client for a ``Server`` in this process (in-memory transport)."""

        def connect(config: dict[str, Any], handler: Any) -> Awaitable[_native.NativeClient]:
            return _native.NativeClient.connect_memory(server._native, config, handler)

        client = cls(connect, **options)
        client._server = server
        return client

    async def connect(self) -> Self:
        """Connects and performs the handshake (for :meth:`memory`, within the server's
        lifespan)."""
        server = self._server if self._uses_server else None
        if server is not None:
            await server._start_use()
        try:
            self._native = await self._connect(self._config, (self._on_request, self._notification))
        except BaseException:
            if server is not None:
                await server._end_use()
            raise
        return self

    async def close(self) -> None:
        """Closes the session (a spawned server is shut down)."""
        if self._native is not None:
            native, self._native = self._native, None
            try:
                await native.close()
            finally:
                if self._server is not None and self._uses_server:
                    await self._server._end_use()

    async def __aenter__(self) -> Self:
        return await self.connect()

    async def __aexit__(
        self,
        et: type[BaseException] | None,
        e: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ---- server-to-client --------------------------------------------------------------------
    async def _on_request(self, method: str, params: Any, native_ctx: _native.NativeContext) -> Any:
        ctx = Context(native_ctx)
        if method == "sampling/createMessage" and self._sampling is not None:
            return await _maybe_await(self._sampling(params, ctx))
        if method == "elicitation/create" and self._elicitation is not None:
            return await _maybe_await(self._elicitation(params, ctx))
        if method == "roots/list" and self._roots is not None:
            roots = self._roots
            value = await _maybe_await(roots(ctx)) if callable(roots) else roots
            return {"roots": value} if isinstance(value, list) else value
        raise MethodNotFound(f"Method not found: {method}")

    def _notification(self, method: str, params: Any) -> None:
        if self._on_notification is not None:
            r = self._on_notification(method, params)
            if inspect.isawaitable(r):
                import asyncio

                asyncio.ensure_future(r)

    # ---- requests ----------------------------------------------------------------------------
    @property
    def native(self) -> _native.NativeClient:
        """The native client (raises if not connected)."""
        if self._native is None:
            raise RuntimeError("client is not connected")
        return self._native

    @property
    def initialize_result(self) -> dict[str, Any]:
        """The server's initialize result."""
        return self.native.initialize_result

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's ``serverInfo``."""
        info: dict[str, Any] = self.initialize_result.get("serverInfo", {})
        return info

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol revision."""
        return self.native.protocol_version

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | None = None,
        progress: Callable[[float, float | None, str | None], Any] | None = None,
        cancel: _native.CancelHandle | None = None,
    ) -> Any:
        """Sends a raw request and returns its result."""
        on_progress = None
        if progress is not None:
            cb = progress

            def on_progress(p: dict[str, Any]) -> None:
                cb(p.get("progress", 0), p.get("total"), p.get("message"))

        if "openTelemetry" in self._config:
            params = _with_current_trace_context(params)
        return await self.native.request(
            method,
            params,
            None if timeout is None else int(timeout * 1000),
            on_progress,
            cancel,
        )

    async def notify(self, method: str, params: Any = None) -> None:
        """Sends a raw notification."""
        await self.native.notify(method, params)

    async def ping(self) -> None:
        """``ping``."""
        await self.request("ping")

    async def list_tools(self, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``tools/list`` (``tools``, as :class:`Tool` dicts, ``nextCursor``)."""
        r: dict[str, Any] = await self.request("tools/list", _page(cursor))
        if isinstance(r.get("tools"), list):
            r["tools"] = [Tool(t) if isinstance(t, dict) else t for t in r["tools"]]
        return r

    async def list_all_tools(self) -> list[Tool]:
        """Every tool, following ``nextCursor``."""
        return [Tool(t) async for t in _paginate(self.list_tools, "tools")]

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress: Callable[[float, float | None, str | None], Any] | None = None,
        timeout: float | None = None,
        cancel: _native.CancelHandle | None = None,
    ) -> CallToolResult:
        """``tools/call``; returns the ``CallToolResult`` dict, with typed properties
        (``.content``, ``.structured_content``, ``.data``, ``.is_error``, ``.text``)."""
        r: dict[str, Any] = await self.request(
            "tools/call",
            {"name": name, "arguments": arguments or {}},
            progress=progress,
            timeout=timeout,
            cancel=cancel,
        )
        return CallToolResult(r)

    async def call_tool_as_task(
        self, name: str, arguments: dict[str, Any] | None = None, *, ttl: float | None = None
    ) -> dict[str, Any]:
        """Calls a tool as a task: returns the ``CreateTaskResult`` at once (``{"task": {...}}``,
        the task's ``ttl`` and ``pollInterval`` in milliseconds); poll with :meth:`get_task`,
        wait with :meth:`get_task_result`, stop with :meth:`cancel_task`. The same calls serve
        both eras, by the negotiated revision: 2025-11-25 tasks (``ttl``, in seconds, asks for a
        retention), or the tasks extension ``io.modelcontextprotocol/tasks`` of 2026-07-28
        (the server picks the TTL; a result it answers at once comes back as a completed task
        held by the client, its id starting ``ferromcp-local-``)."""
        ttl_ms = None if ttl is None else int(ttl * 1000)
        r: dict[str, Any] = await self.native.call_tool_as_task(name, arguments or {}, ttl_ms)
        return r

    async def get_task(self, task_id: str) -> dict[str, Any]:
        """The task's current state. With the tasks extension, input the task waits for is
        answered with this client's handlers first (as a 2025-11-25 server asks them itself),
        and the state carries what ``tasks/get`` inlines (``result``, ``error``)."""
        r: dict[str, Any] = await self.native.get_task(task_id)
        return r

    async def get_task_result(
        self,
        task_id: str,
        *,
        timeout: float | None = None,
        cancel: _native.CancelHandle | None = None,
    ) -> dict[str, Any]:
        """Waits for the task to finish and returns its result (for a tool call, the
        ``CallToolResult``); a failed task raises its error, a cancelled one ``InvalidParams``.
        2025-11-25: ``tasks/result``; the tasks extension: ``tasks/get`` polled, input answered
        with this client's handlers. ``timeout`` (seconds) and ``cancel`` stop the wait, not
        the task."""
        timeout_ms = None if timeout is None else int(timeout * 1000)
        r: dict[str, Any] = await self.native.get_task_result(task_id, timeout_ms, cancel)
        return r

    async def list_tasks(self, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``tasks/list`` (this session's tasks; 2025-11-25 only: the tasks
        extension has no ``tasks/list``)."""
        r: dict[str, Any] = await self.request("tasks/list", _page(cursor))
        return r

    async def cancel_task(self, task_id: str) -> dict[str, Any]:
        """Cancels the task; returns its state after the cancellation. 2025-11-25: a task that
        already ended raises ``InvalidParams``; the tasks extension acknowledges that too."""
        r: dict[str, Any] = await self.native.cancel_task(task_id)
        return r

    async def list_resources(self, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``resources/list``."""
        r: dict[str, Any] = await self.request("resources/list", _page(cursor))
        return r

    async def list_resource_templates(self, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``resources/templates/list``."""
        r: dict[str, Any] = await self.request("resources/templates/list", _page(cursor))
        return r

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """``resources/read`` (``.contents``, ``.text``, ``.blob``)."""
        r: dict[str, Any] = await self.request("resources/read", {"uri": uri})
        return ReadResourceResult(r)

    async def subscribe(self, uri: str) -> None:
        """``resources/subscribe``."""
        await self.request("resources/subscribe", {"uri": uri})

    async def unsubscribe(self, uri: str) -> None:
        """``resources/unsubscribe``."""
        await self.request("resources/unsubscribe", {"uri": uri})

    def listen(
        self,
        *,
        tools_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resources_list_changed: bool = False,
        resource_subscriptions: list[str] | tuple[str, ...] = (),
        task_ids: list[str] | tuple[str, ...] = (),
    ) -> Subscription:
        """``subscriptions/listen`` (protocol revision 2026-07-28): a :class:`Subscription` to the
        change notifications asked for (list changes of tools, prompts, resources; updates of the
        resources named; ``notifications/tasks`` of the tasks named in ``task_ids``, e.g. the
        ``taskId`` of :meth:`call_tool_as_task`, with the tasks extension), open once the server
        acknowledged it (``sub.filter`` says what it agreed to: a task id it does not know is
        left out)::

            async with client.listen(tools_list_changed=True) as sub:
                async for n in sub:
                    ...

        Its notifications go to the subscription only, not to ``on_notification``. A session
        that negotiated the initialize handshake (2025-11-25 and older) has no listen: opening
        raises ``InvalidRequest`` (-32600); there use :meth:`subscribe` and ``on_notification``."""
        f = ListenFilter(
            tools_list_changed,
            prompts_list_changed,
            resources_list_changed,
            tuple(resource_subscriptions),
            tuple(task_ids),
        )
        return Subscription(self.native.listen(f._wire()))

    async def list_prompts(self, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``prompts/list``."""
        r: dict[str, Any] = await self.request("prompts/list", _page(cursor))
        return r

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> GetPromptResult:
        """``prompts/get`` (``.messages``, ``.description``). Argument values that are not
        strings are sent as their JSON text (prompt arguments are strings on the wire)."""
        args = {
            k: v if isinstance(v, str) else json.dumps(to_jsonable(v))
            for k, v in (arguments or {}).items()
        }
        r: dict[str, Any] = await self.request("prompts/get", {"name": name, "arguments": args})
        return GetPromptResult(r)

    async def complete(
        self,
        ref: dict[str, Any],
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """``completion/complete``; returns the ``completion`` dict."""
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        r: dict[str, Any] = await self.request("completion/complete", params)
        c: dict[str, Any] = r.get("completion", {})
        return c

    async def set_logging_level(self, level: str) -> None:
        """``logging/setLevel``."""
        await self.request("logging/setLevel", {"level": level})

    async def notify_roots_changed(self) -> None:
        """``notifications/roots/list_changed``."""
        await self.notify("notifications/roots/list_changed")


def _page(cursor: str | None) -> dict[str, Any]:
    return {} if cursor is None else {"cursor": cursor}


async def _paginate(
    fetch: Callable[[str | None], Awaitable[dict[str, Any]]], key: str
) -> AsyncIterator[dict[str, Any]]:
    cursor: str | None = None
    while True:
        page = await fetch(cursor)
        for item in page.get(key, []):
            yield item
        nxt = page.get("nextCursor")
        if not nxt or nxt == cursor:
            return
        cursor = nxt


# ---- several servers as one (ferromcp.multi) -----------------------------------------------
class ConfigError(ValueError):
    """A wrong ``mcpServers`` configuration: ``path`` names the key at fault
    (``mcpServers.files.args[1]``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class ServerEntry:
    """One server of a configuration, as the engine read it: started (``command``) or reached
    (``url``; ``sse`` for the legacy HTTP+SSE transport). ``name_prefix`` and ``uri_prefix`` go
    in front of its tool/prompt names and resource URIs (empty with one server)."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.name: str = raw["name"]
        self.command: str | None = raw.get("command")
        self.args: list[str] = list(raw.get("args", []))
        self.env: dict[str, str] = dict(raw.get("env", {}))
        self.cwd: str | None = raw.get("cwd")
        self.url: str | None = raw.get("url")
        self.headers: dict[str, str] = dict(raw.get("headers", {}))
        self.sse: bool = raw["transport"] == "sse"
        self.name_prefix: str = raw["namePrefix"]
        self.uri_prefix: str = raw["uriPrefix"]

    def client(self, **options: Any) -> Client:
        """A :class:`Client` for this server (not connected yet)."""
        if self.command is not None:
            env = {**os.environ, **self.env} if self.env else None
            return Client.stdio(self.command, self.args, env=env, cwd=self.cwd, **options)
        assert self.url is not None
        # A legacy HTTP+SSE server: the Streamable HTTP attempt is refused and the client
        # falls back to the legacy transport.
        return Client.http(self.url, headers=self.headers, legacy_fallback=True, **options)

    def __repr__(self) -> str:
        target = self.url if self.command is None else " ".join([self.command, *self.args])
        return f"ServerEntry({self.name!r}, {target!r})"


class InProcessEntry(ServerEntry):
    """A :class:`Server` of this program among a :class:`MultiClient`'s servers, connected in
    memory (:meth:`Client.memory`): no process, no socket. Its name is a namespace as a key of
    ``mcpServers`` is."""

    def __init__(self, raw: Mapping[str, Any], server: Server) -> None:
        super().__init__(raw)
        self.command = None
        self.server = server

    def client(self, **options: Any) -> Client:
        """A :class:`Client` of the server in memory (not connected yet)."""
        return Client.memory(self.server, **options)

    def __repr__(self) -> str:
        return f"InProcessEntry({self.name!r})"


def _with_servers(entries: list[ServerEntry], servers: Mapping[str, Server]) -> list[ServerEntry]:
    """``entries`` and the in-process ``servers`` as one set of servers: names checked and
    prefixes given by the engine's reader, as if every server were a key of one
    ``mcpServers`` document (so a configuration's only server gains a prefix beside them)."""
    taken = {e.name for e in entries}
    for name in servers:
        if name in taken:
            raise ConfigError(
                f"servers.{name}", "another server of the configuration has that name"
            )
    names = [e.name for e in entries] + list(servers)
    resolved = {e.name: e for e in parse_config({"mcpServers": {n: {"command": n} for n in names}})}
    out: list[ServerEntry] = []
    for e in entries:
        e.name_prefix = resolved[e.name].name_prefix
        e.uri_prefix = resolved[e.name].uri_prefix
        out.append(e)
    out += [InProcessEntry({**_raw(resolved[n]), "name": n}, s) for n, s in servers.items()]
    return sorted(out, key=lambda e: e.name)


def _raw(e: ServerEntry) -> dict[str, Any]:
    return {
        "name": e.name,
        "transport": "stdio",
        "namePrefix": e.name_prefix,
        "uriPrefix": e.uri_prefix,
    }


def _source(config: Mapping[str, Any] | str | os.PathLike[str]) -> str:
    """What the engine reads: JSON text, or a file's path."""
    if isinstance(config, Mapping):
        try:
            return json.dumps(dict(config))
        except (TypeError, ValueError) as e:
            raise ConfigError("", f"the configuration is not JSON data: {e}") from None
    if isinstance(config, (str, os.PathLike)):
        return os.fspath(config)
    raise ConfigError(
        "", "the configuration must be a dict, its JSON text, or the path of a file holding it"
    )


def parse_config(config: Mapping[str, Any] | str | os.PathLike[str]) -> list[ServerEntry]:
    """The enabled servers of an ``mcpServers`` (or VS Code ``servers``) document, sorted by
    name: a dict, its JSON text, or the path of a file holding it. Raises :class:`ConfigError`."""
    answer = json.loads(_native.resolve_mcp_servers(_source(config)))
    if "error" in answer:
        raise ConfigError(answer["error"]["path"], answer["error"]["message"])
    return [ServerEntry(s) for s in answer["servers"]]


class MultiClient:
    """Clients of several MCP servers as one: ``list_tools``, ``call_tool``,
    ``list_resources``, ``read_resource``, ``list_prompts`` and ``get_prompt`` over all of them,
    names namespaced by server (see the module's documentation). Use it as an async context
    manager; ``multi["files"]`` is the :class:`Client` of server ``files``."""

    def __init__(self, entries: list[ServerEntry], **client_options: Any) -> None:
        if not entries:
            raise ConfigError("", "no servers")
        self._entries = entries
        self._options = client_options
        self._clients: dict[str, Client] = {}
        self._by_name = {e.name: e for e in entries}
        # Longest prefix first: a prefix match finds the most specific server.
        self._by_length = sorted(entries, key=lambda e: len(e.name), reverse=True)

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any] | str | os.PathLike[str] | None,
        *,
        servers: Mapping[str, Server] | None = None,
        **client_options: Any,
    ) -> MultiClient:
        """A client of every server in ``config``: an ``mcpServers`` document as a dict, its
        JSON text, or the path of a file holding it. ``servers`` adds servers of this program
        under their names, connected in memory (:class:`InProcessEntry`; ``config`` may then
        be ``None``); a name is a namespace as a key of ``mcpServers`` is and must differ from
        the configuration's. ``client_options`` go to each server's :class:`Client`
        (``sampling_handler``, ``roots``, ``timeout``, ...)."""
        entries = [] if config is None else parse_config(config)
        if servers:
            entries = _with_servers(entries, servers)
        return cls(entries, **client_options)

    @property
    def names(self) -> list[str]:
        """The servers' names, sorted."""
        return [e.name for e in self._entries]

    def __getitem__(self, name: str) -> Client:
        try:
            return self._clients[name]
        except KeyError:
            raise KeyError(f"no connected server {name!r}; servers: {self.names}") from None

    async def connect(self) -> Self:
        """Connects to every server at once; if one fails, the others are closed and the
        error is raised, naming the server."""
        clients = {e.name: e.client(**self._options) for e in self._entries}
        results = await asyncio.gather(
            *(c.connect() for c in clients.values()), return_exceptions=True
        )
        failed: list[tuple[str, BaseException]] = []
        for (name, client), r in zip(clients.items(), results):
            if isinstance(r, BaseException):
                failed.append((name, r))
            else:
                self._clients[name] = client
        if failed:
            await self.close()
            name, err = failed[0]
            raise ConnectionError(f"server {name!r} could not be connected: {err}") from err
        return self

    async def close(self) -> None:
        """Closes every connection."""
        clients, self._clients = list(self._clients.values()), {}
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)

    async def __aenter__(self) -> Self:
        return await self.connect()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # Names -------------------------------------------------------------------------------

    def _name(self, server: str, name: str) -> str:
        return self._by_name[server].name_prefix + name

    def _uri(self, server: str, uri: str) -> str:
        return self._by_name[server].uri_prefix + uri

    def _split(self, value: str, uri: bool) -> tuple[Client, str]:
        for e in self._by_length:
            prefix = e.uri_prefix if uri else e.name_prefix
            if value.startswith(prefix) and (not prefix or len(value) > len(prefix)):
                return self[e.name], value[len(prefix) :]
        what, sep = ("URIs", "+") if uri else ("names", "_")
        raise ValueError(
            f"{value!r} names no server: namespaced {what} start with one of {self.names} "
            f"and {sep!r}"
        )

    def _split_name(self, name: str) -> tuple[Client, str]:
        return self._split(name, uri=False)

    def _split_uri(self, uri: str) -> tuple[Client, str]:
        return self._split(uri, uri=True)

    async def _each(self, fetch: Callable[[str, Client], Any]) -> list[Any]:
        names = list(self._clients)
        results = await asyncio.gather(*(fetch(n, self._clients[n]) for n in names))
        return [item for part in results for item in part]

    # Calls -------------------------------------------------------------------------------

    async def list_tools(self) -> list[Tool]:
        """Every tool of every server, namespaced."""

        async def fetch(server: str, c: Client) -> list[Tool]:
            tools = await c.list_all_tools()
            return [Tool({**t, "name": self._name(server, t["name"])}) for t in tools]

        return await self._each(fetch)

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, **options: Any
    ) -> CallToolResult:
        """Calls the namespaced tool ``name`` on its server (``options``: ``progress``,
        ``timeout``, ``cancel``, as :meth:`Client.call_tool`)."""
        client, tool = self._split_name(name)
        return await client.call_tool(tool, arguments, **options)

    async def list_resources(self) -> list[dict[str, Any]]:
        """Every listed resource of every server, URIs namespaced."""

        async def fetch(server: str, c: Client) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            cursor: str | None = None
            while True:
                page = await c.list_resources(cursor)
                out += [
                    {**r, "uri": self._uri(server, r["uri"])} for r in page.get("resources", [])
                ]
                nxt = page.get("nextCursor")
                if not nxt or nxt == cursor:
                    return out
                cursor = nxt

        return await self._each(fetch)

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Reads the namespaced resource ``uri`` from its server; the contents' URIs are
        namespaced too."""
        client, original = self._split_uri(uri)
        r = await client.read_resource(original)
        prefix = uri[: len(uri) - len(original)]
        r["contents"] = [
            {**c, "uri": prefix + c["uri"]} if isinstance(c.get("uri"), str) else c
            for c in r.get("contents", [])
        ]
        return r

    async def list_prompts(self) -> list[dict[str, Any]]:
        """Every prompt of every server, namespaced."""

        async def fetch(server: str, c: Client) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            cursor: str | None = None
            while True:
                page = await c.list_prompts(cursor)
                out += [
                    {**p, "name": self._name(server, p["name"])} for p in page.get("prompts", [])
                ]
                nxt = page.get("nextCursor")
                if not nxt or nxt == cursor:
                    return out
                cursor = nxt

        return await self._each(fetch)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> GetPromptResult:
        """Gets the namespaced prompt ``name`` from its server."""
        client, prompt = self._split_name(name)
        return await client.get_prompt(prompt, arguments)
