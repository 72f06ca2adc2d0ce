"""The Streamable HTTP endpoint as an ASGI 3 application (``server.http_app()``, and
``streamable_http_app()`` under the official SDK's name), to mount in Starlette or FastAPI or run
with ``uvicorn module:app``.

Every request goes whole to the engine's request-level handler (``EmbeddedHttpHandler``, the one
the Node binding's ``handleNode`` uses): sessions, SSE streams and their resumption, the
2026-07-28 per-request mode, the ``Host``/``Origin`` checks and bearer tokens are decided there,
exactly as for :meth:`Server.serve_http`. This module only moves bytes: it reads the body, passes
the scope's headers, sends the status and headers, and streams an SSE body chunk by chunk until
the engine ends it or the client disconnects (which closes the engine's stream).

The server's handlers run on the event loop that serves the app. It is bound, and the server's
``lifespan`` entered, by the app's ASGI lifespan (``uvicorn module:app``), by
``server.session_manager.run()`` (in a Starlette/FastAPI lifespan, as with the official SDK), or
else by the first request (the lifespan is then left only when the process ends)."""

from __future__ import annotations

import asyncio
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any, Protocol

if typing.TYPE_CHECKING:
    from ._native import NativeHttpHandler, NativeHttpResponse, NativeServer

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class ServedServer(Protocol):
    """What this module uses of the server it serves (:class:`ferromcp.serving.Serving` is the
    one implementation): named here so that this module, below ``serving``, never imports it."""

    _native: NativeServer
    # Set by this module when an app is made or started.
    _asgi_runner: Any
    _asgi_app: Any

    async def _start_use(self) -> None: ...

    async def _end_use(self) -> None: ...

    def http_app(self) -> StreamableHTTPApp: ...


_DEFAULT_MAX_BODY = 4 * 1024 * 1024  # the engine's default max_body_size

# Every open SSE stream of every app, for the shutdown watcher.
_OPEN: set[NativeHttpResponse] = set()
_watcher: asyncio.Future[None] | None = None


def _asgi_server_exiting() -> bool:
    """Whether the ASGI server is shutting down, as far as can be told: uvicorn installs its
    ``handle_exit`` (a bound method of its ``Server``) as the SIGTERM/SIGINT handler and sets
    ``should_exit`` in it (sse-starlette reads it the same way)."""
    import signal

    try:
        handler = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):  # pragma: no cover - not the main interpreter
        return False
    server = getattr(handler, "__self__", None)
    return bool(getattr(server, "should_exit", False))


async def _watch_shutdown() -> None:
    """While SSE streams are open: once the ASGI server is shutting down, ends them, so that it
    does not wait for their clients to leave (uvicorn waits for open responses before the
    lifespan's shutdown). Polls every 0.5 s."""
    while _OPEN:
        if _asgi_server_exiting():
            for response in list(_OPEN):
                response.cancel()
            return
        await asyncio.sleep(0.5)


def _track(response: NativeHttpResponse) -> None:
    global _watcher
    _OPEN.add(response)
    w = _watcher
    if w is None or w.done() or w.get_loop() is not asyncio.get_running_loop():
        _watcher = asyncio.ensure_future(_watch_shutdown())


class _Runner:
    """One per server: whether its ASGI apps are started (loop bound, lifespan entered), and
    their open SSE streams (ended when the last run stops)."""

    def __init__(self, server: ServedServer) -> None:
        self.server = server
        self.runs = 0
        self.lazy = False
        self.starting: asyncio.Future[None] | None = None
        self.streams: set[NativeHttpResponse] = set()

    @property
    def active(self) -> bool:
        return (self.runs > 0 or self.lazy) and self.starting is None

    async def _enter(self) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.starting = fut
        try:
            self.server._native.bind_loop()
            await self.server._start_use()
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: a request waiting on it re-raises
            raise
        else:
            fut.set_result(None)
        finally:
            self.starting = None

    async def ensure(self) -> None:
        """Before a request: starts the server if no lifespan or ``run()`` did."""
        if self.starting is not None:
            await asyncio.shield(self.starting)
            return
        if self.runs == 0 and not self.lazy:
            self.lazy = True
            try:
                await self._enter()
            except BaseException:
                self.lazy = False
                raise

    async def start(self) -> None:
        self.runs += 1
        if self.runs == 1 and not self.lazy:
            try:
                await self._enter()
            except BaseException:
                self.runs -= 1
                raise

    async def stop(self) -> None:
        self.runs -= 1
        if self.runs > 0 or self.lazy:
            return
        for response in list(self.streams):
            response.cancel()
        await self.server._end_use()


def _runner(server: ServedServer) -> _Runner:
    runner: _Runner | None = getattr(server, "_asgi_runner", None)
    if runner is None:
        runner = _Runner(server)
        server._asgi_runner = runner
    return runner


def _route_path(scope: Scope) -> str:
    """The request's path within the app: Starlette's ``Mount`` keeps the whole path in
    ``path`` and the mount point in ``root_path`` (older versions cut ``path`` instead)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and (len(path) == len(root) or path[len(root)] == "/"):
        path = path[len(root) :]
    return path or "/"


class StreamableHTTPApp:
    """The ASGI 3 application of :meth:`Server.http_app`. Serves ``http`` (the endpoint at its
    ``path`` within the mount point, and the Protected Resource Metadata when protected) and
    ``lifespan`` scopes."""

    def __init__(self, server: ServedServer, native: NativeHttpHandler, max_body_size: int) -> None:
        self._server = server
        self._native = native
        self._limit = max_body_size
        self._runner = _runner(server)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self._runner.start()
                except Exception as e:  # noqa: BLE001 - reported to the ASGI server
                    await send({"type": "lifespan.startup.failed", "message": repr(e)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._runner.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._runner.active:
            await self._runner.ensure()
        headers = scope["headers"]
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._limit:
                # The engine answers the 413 (with the JSON-RPC error it always gives) from the
                # length alone; the rest of the body is not read.
                headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
                headers.append((b"content-length", str(size).encode()))
                chunks = []
                break
            if chunk:
                chunks.append(chunk)
            more = message.get("more_body", False)
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        target = _route_path(scope)
        query: bytes = scope.get("query_string", b"")
        if query:
            target = f"{target}?{query.decode('latin-1')}"
        try:
            response = await self._native.handle(scope["method"], target, headers, body)
        except ValueError as e:  # a malformed method, target or header
            message_body = str(e).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"content-length", str(len(message_body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": message_body})
            return
        await send(
            {"type": "http.response.start", "status": response.status, "headers": response.headers}
        )
        if not response.streaming:
            await send({"type": "http.response.body", "body": response.body})
            return
        await self._stream(response, receive, send)

    async def _stream(self, response: NativeHttpResponse, receive: Receive, send: Send) -> None:
        """Sends an SSE body as the engine writes it; a client disconnect cancels the engine's
        stream (a pending ``next_chunk`` then ends it)."""

        async def watch() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    response.cancel()
                    return

        streams = self._runner.streams
        streams.add(response)
        _track(response)
        watcher = asyncio.ensure_future(watch())
        try:
            more = True
            while more:
                data, more = await response.next_chunk()
                if data or not more:
                    await send({"type": "http.response.body", "body": data, "more_body": more})
        except OSError:  # the client went away while sending (uvicorn's ClientDisconnected)
            pass
        finally:
            watcher.cancel()
            response.cancel()
            streams.discard(response)
            _OPEN.discard(response)
            if not _OPEN and _watcher is not None and not _watcher.done():
                _watcher.cancel()


class StreamableHTTPSessionManager:
    """``server.session_manager``, for the official SDK's mounting pattern: ``async with
    mcp.session_manager.run(): yield`` in the Starlette/FastAPI lifespan starts the server's
    ASGI apps (binds the event loop, enters the server's lifespan) and, on the way out, ends
    their open SSE streams and leaves the lifespan. Sessions live in the engine."""

    def __init__(self, server: ServedServer) -> None:
        self._server = server

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        runner = _runner(self._server)
        await runner.start()
        try:
            yield
        finally:
            await runner.stop()

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serves one ASGI ``http`` request with the server's most recently made app (the
        default ``http_app()`` if none was made)."""
        app: StreamableHTTPApp | None = getattr(self._server, "_asgi_app", None)
        if app is None:
            app = self._server.http_app()
        await app(scope, receive, send)


def http_options(
    *,
    path: str,
    stateless: bool,
    json_response: bool,
    allowed_hosts: list[str] | None,
    allowed_origins: list[str] | None,
    dns_rebinding_protection: bool | None,
    max_sessions: int | None,
    session_idle_timeout: float | None,
    max_body_size: int | None,
    retry_interval: float | None,
    enable_get_stream: bool,
    legacy_sse: bool,
    stream_queue_capacity: int | None,
    close_streams_after: float | None,
    sse_keep_alive: float | None,
) -> dict[str, Any]:
    """The engine's ``HttpConfig`` dict (camelCase keys, durations in ms) for these options."""
    options: dict[str, Any] = {
        "path": path,
        "stateless": stateless,
        "jsonResponse": json_response,
        "dnsRebindingProtection": dns_rebinding_protection,
        "enableGetStream": enable_get_stream,
        "legacySse": legacy_sse,
        "retryIntervalMs": None if retry_interval is None else int(retry_interval * 1000),
        # None: no keep-alive comments (the engine's null); seconds as milliseconds.
        "sseKeepAliveMs": None if sse_keep_alive is None else int(sse_keep_alive * 1000),
    }
    if allowed_hosts is not None:
        options["allowedHosts"] = list(allowed_hosts)
    if allowed_origins is not None:
        options["allowedOrigins"] = list(allowed_origins)
    for key, size in (
        ("maxSessions", max_sessions),
        ("maxBodySize", max_body_size),
        ("streamQueueCapacity", stream_queue_capacity),
    ):
        if size is not None:
            options[key] = size
    for key, seconds in (
        ("sessionIdleTimeoutMs", session_idle_timeout),
        ("closeStreamsAfterMs", close_streams_after),
    ):
        if seconds is not None:
            options[key] = int(seconds * 1000)
    return options


def default_max_body(max_body_size: int | None) -> int:
    return _DEFAULT_MAX_BODY if max_body_size is None else max(1, max_body_size)
