"""Serving a :class:`~ferromcp.server.Server`: ``run`` (stdio or HTTP, blocking), the async
``run_stdio_async`` / ``serve_http`` / ``run_http_async``, the running :class:`HttpServer`, and
the lifespan that is entered while anything serves. Kept apart from the registration decorators
in :mod:`ferromcp.server`; ``Server`` inherits these methods from :class:`Serving`.

``asyncio`` and ``signal`` are imported only when needed, so that a stdio server answers
``initialize`` quickly."""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable
from typing import Any

from ._native import NativeHttpServer, NativeServer, NativeStdioRun
from .schema import to_jsonable

if typing.TYPE_CHECKING:
    from .asgi import StreamableHTTPApp, StreamableHTTPSessionManager
    from .auth import ProtectedResource
    from .oauth_proxy import OAuthProxyConfig
    from .tls import TLS


class Serving:
    """The serving half of :class:`~ferromcp.server.Server` (a base class; not used alone)."""

    # Set by Server.__init__.
    name: str
    _native: NativeServer
    _has_async: bool
    _loopless: bool
    _lifespan: Callable[[Any], Any] | None
    _lifespan_cm: Any
    _lifespan_state: Any
    _users: int
    # Set by ferromcp.asgi when an ASGI app is made or started.
    _asgi_runner: Any
    _asgi_app: Any

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
        cm, self._lifespan_cm = self._lifespan_cm, None
        if cm is not None:
            try:
                await cm.__aexit__(None, None, None)
            finally:
                self._lifespan_state = None

    # ---- running -----------------------------------------------------------------------------
    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Sends a log message to every connected session (each session's level applies)."""
        await self._native.log(level, to_jsonable(data), logger)

    async def run_stdio_async(self) -> None:
        """Serves one client over stdin/stdout until stdin closes or :meth:`stop` (within the
        lifespan). Either way it winds down gracefully (see :meth:`stop`). Cancelling it stops
        serving the same way: the cancellation takes effect once wound down."""
        import asyncio

        await self._start_use()
        try:
            serving = self._native.serve_stdio()
            try:
                await asyncio.shield(serving)
            except asyncio.CancelledError:
                self._native.stop_stdio()
                await serving
                raise
        finally:
            await self._end_use()

    def stop(self) -> None:
        """Stops serving stdio (:meth:`run`, :meth:`run_stdio_async`) gracefully: no further
        request is read; an open ``subscriptions/listen`` is answered with its completion result
        (``{"resultType": "complete", "_meta": {subscriptionId}}``, 2026-07-28's "Graceful
        Closure"); requests being served, the caller's own included, finish and are answered;
        then the serving call returns. Does not wait, so a handler (``def`` or ``async def``)
        may call it. Final: stdin is served once, so serving started later returns at once.
        HTTP serving stops with :meth:`HttpServer.close`."""
        self._native.stop_stdio()

    async def _finish_stdio(self, started: NativeStdioRun) -> None:
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
        sse_keep_alive: float | None = 15.0,
        max_connections: int | None = None,
        max_head_size: int | None = None,
        header_read_timeout: float | None = None,
        request_timeout: float | None = None,
        keep_alive_timeout: float | None = None,
        write_timeout: float | None = None,
        max_buffered_bytes: int | None = None,
        redis_url: str | None = None,
        auth: ProtectedResource | None = None,
        tls: TLS | None = None,
        compression: bool | dict[str, Any] | None = None,
        oauth_proxy: OAuthProxyConfig | None = None,
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
        - ``sse_keep_alive`` (seconds, default 15): an open SSE stream (GET or a POST's) that
          has carried nothing this long gets a ``: keep-alive`` comment, so proxies that cut
          idle connections leave it open; clients ignore comments. ``None``: no comments.
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
        - ``redis_url``: keep sessions, SSE events and the replicas' bus on this Redis/Valkey
          (``redis://[user:password@]host:port[/db]``), so that several servers (processes or
          machines) behind one load balancer serve the same sessions; the server connects
          before it listens. A URL that is not a Redis URL raises :class:`InvalidParams`; a Redis
          that cannot be reached raises :class:`InternalError`.
        - ``auth``: protect the endpoint with OAuth bearer tokens (:class:`ProtectedResource`):
          401/403 with a ``WWW-Authenticate`` challenge, the Protected Resource Metadata at
          ``/.well-known/oauth-protected-resource{path}``, the identity in ``ctx.auth``.
        - ``tls``: serve ``https://`` (:class:`TLS`: certificate and key as paths or PEM bytes,
          optionally a client CA for mutual TLS, the client certificate's identity then in
          ``ctx.auth``). Files that do not load, or a key that is not the certificate's, raise
          :class:`InternalError` naming the file before listening; bad combinations
          :class:`InvalidParams`.
        - ``compression``: ``Content-Encoding`` of answers and request bodies (on by default:
          zstd, br or gzip as the client's ``Accept-Encoding`` allows, from 1,024 bytes);
          ``False`` turns it off, a dict sets ``codings``, ``minSize``, ``level``, ``streams``
          (docs/compression.md); bad values raise :class:`InvalidParams`.
        - ``oauth_proxy``: be the OAuth authorization server of this endpoint, in front of an
          identity provider without dynamic client registration (GitHub, Google, Entra ID,
          Auth0, any OpenID provider; :class:`OAuthProxyConfig`, docs/oauth-proxy.md): the
          listener serves the proxy's metadata, ``/register``, ``/authorize``, consent,
          callback, ``/token`` and ``/revoke`` beside the endpoint, which accepts the proxy's
          tokens (unless ``auth`` is given). Its records go to its own ``redis_url``, else to
          the server's ``redis_url``, else to memory. Bad options raise :class:`InvalidParams`
          before anything listens.
        """
        from .asgi import http_options

        options = http_options(
            path=path,
            stateless=stateless,
            json_response=json_response,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            dns_rebinding_protection=dns_rebinding_protection,
            max_sessions=max_sessions,
            session_idle_timeout=session_idle_timeout,
            max_body_size=max_body_size,
            retry_interval=retry_interval,
            enable_get_stream=enable_get_stream,
            legacy_sse=legacy_sse,
            stream_queue_capacity=stream_queue_capacity,
            close_streams_after=close_streams_after,
            sse_keep_alive=sse_keep_alive,
        )
        if redis_url is not None:
            options["redisUrl"] = redis_url
        if tls is not None:
            options["tls"] = tls._native_config()
        if compression is not None:
            # False: off; True: the defaults; or {"codings", "minSize", "level", "streams"}
            # (docs/compression.md).
            options["compression"] = compression
        if oauth_proxy is not None:
            options["oauthProxy"] = oauth_proxy._native_config()
        # The connection limits only serve_http's own listener has: counts as they are,
        # durations (seconds) as milliseconds; None: the engine's default.
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

    def http_app(
        self,
        path: str = "/mcp",
        *,
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
        stream_queue_capacity: int | None = None,
        close_streams_after: float | None = None,
        sse_keep_alive: float | None = 15.0,
        auth: ProtectedResource | None = None,
    ) -> StreamableHTTPApp:
        """The Streamable HTTP endpoint as an ASGI 3 application: ``uvicorn module:app``, or
        mount it (``Mount("/", app=server.http_app())`` in Starlette, ``app.mount("/",
        server.http_app())`` in FastAPI); the endpoint is ``path`` within the mount point.

        The engine serves it as :meth:`serve_http` does (sessions, SSE streams, resumption, the
        2026-07-28 per-request mode, ``auth``, the ``Host``/``Origin`` checks: by default on,
        allowing the loopback names at any port, so list your public names in
        ``allowed_hosts``); the options are :meth:`serve_http`'s less those of the connections,
        which belong to the ASGI server, and less ``legacy_sse``. The app's ASGI lifespan, or
        ``async with server.session_manager.run()`` in the host app's lifespan, binds the event
        loop and enters the server's ``lifespan``; without either the first request does."""
        from .asgi import StreamableHTTPApp, default_max_body, http_options

        options = http_options(
            path=path,
            stateless=stateless,
            json_response=json_response,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            dns_rebinding_protection=dns_rebinding_protection,
            max_sessions=max_sessions,
            session_idle_timeout=session_idle_timeout,
            max_body_size=max_body_size,
            retry_interval=retry_interval,
            enable_get_stream=enable_get_stream,
            legacy_sse=False,
            stream_queue_capacity=stream_queue_capacity,
            close_streams_after=close_streams_after,
            sse_keep_alive=sse_keep_alive,
        )
        options["healthPath"] = None  # the host app has its own routes
        native = self._native.http_handler(
            options, auth._native_config() if auth is not None else None
        )
        app = StreamableHTTPApp(self, native, default_max_body(max_body_size))
        self._asgi_app = app
        return app

    def prometheus_text(self) -> str | None:
        """The metrics of the ``openTelemetry`` layer in the Prometheus text exposition format
        (0.0.4; serve it as ``text/plain; version=0.0.4``), for :meth:`http_app`'s host app,
        which serves the layer's ``prometheus`` path on no listener of its own: mount it on a
        route of yours. ``None`` without the layer or its ``prometheus`` option (or
        ``OTEL_METRICS_EXPORTER=prometheus``). The listener's gauges (sessions, connections,
        SSE streams) are :meth:`serve_http`'s only."""
        return self._native.prometheus_text()

    @property
    def session_manager(self) -> StreamableHTTPSessionManager:
        """The official SDK's ``session_manager``: ``async with server.session_manager.run():``
        in a Starlette/FastAPI lifespan starts this server's ASGI apps (:meth:`http_app`)."""
        from .asgi import StreamableHTTPSessionManager

        manager: StreamableHTTPSessionManager | None = self.__dict__.get("_session_manager")
        if manager is None:
            manager = StreamableHTTPSessionManager(self)
            self.__dict__["_session_manager"] = manager
        return manager

    async def run_http_async(
        self, host: str = "127.0.0.1", port: int = 8000, **options: Any
    ) -> None:
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
            if self._lifespan is not None:
                import asyncio

                # The lifespan is entered before the first request is read.
                asyncio.run(self.run_stdio_async())
                return
            # The engine starts serving before asyncio is imported (that import alone takes tens
            # of milliseconds): the handshake is answered meanwhile, and calls of async handlers
            # wait until the loop below is up.
            started = self._native.start_stdio()
            import asyncio

            asyncio.run(self._finish_stdio(started))
        elif transport in ("http", "streamable-http"):
            import asyncio

            asyncio.run(self.run_http_async(**options))
        else:
            raise ValueError(f"unknown transport {transport!r} (use 'stdio' or 'http')")


class HttpServer:
    """A running Streamable HTTP server (from :meth:`Server.serve_http`). Use ``await
    close()`` or ``async with`` to stop it."""

    def __init__(self, native: NativeHttpServer, server: Serving | None = None) -> None:
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
