"""``server.http_app()`` / ``streamable_http_app()``: the Streamable HTTP endpoint as an ASGI app
under uvicorn (in this process, on the test's loop), run directly or mounted in Starlette or
FastAPI, with the official ``mcp`` client (requirements-test.txt's interpreter, in a subprocess)
and raw HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import ferromcp
import pytest
from ferromcp import Context, MCPServer, ProtectedResource, Server

uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
from starlette.applications import Starlette  # noqa: E402
from starlette.routing import Mount  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = os.environ.get("FERROMCP_SDK_PYTHON", str(ROOT / ".tools" / "venv" / "bin" / "python"))
SDK_CLIENT = str(Path(__file__).with_name("sdk_http_client.py"))


def sdk_available() -> bool:
    return Path(SDK_PYTHON).exists()


needs_sdk = pytest.mark.skipif(
    not sdk_available(),
    reason="the official mcp client (scripts/setup-test-deps: .tools/venv) is not installed",
)


async def sdk_client(*args: str) -> Any:
    """Runs tests/sdk_http_client.py under the SDK's interpreter without blocking the loop
    (uvicorn serves on it)."""
    proc = await asyncio.create_subprocess_exec(
        SDK_PYTHON,
        SDK_CLIENT,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-3000:]
    return json.loads(out)


@contextlib.asynccontextmanager
async def uvicorn_serving(app: Any, lifespan: str = "on") -> AsyncIterator[str]:
    """uvicorn serving ``app`` on 127.0.0.1 (any free port) on this loop; yields the base URL."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan=lifespan)
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    try:
        for _ in range(500):
            if server.started or task.done():
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 20)


def demo_server(events: list[str] | None = None) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[str]:
        if events is not None:
            events.append("enter")
        yield "db"
        if events is not None:
            events.append("exit")

    server = Server("asgi-demo", lifespan=lifespan)
    added: list[int] = []
    pending: set[asyncio.Future[None]] = set()

    @server.tool()
    async def add(a: int, b: int, ctx: Context) -> int:
        await ctx.report_progress(1, 2, "half")
        await asyncio.sleep(0.05)
        await ctx.report_progress(2, 2, "done")
        return a + b

    @server.tool()
    def lifespan_value(ctx: Context) -> str:
        return str(ctx.lifespan_context)

    @server.tool()
    async def poke_later() -> str:
        """Adds a tool 0.2 s after answering: tools/list_changed reaches the client outside
        any request."""

        async def later() -> None:
            await asyncio.sleep(0.2)
            added.append(len(added))
            server.tool(name=f"added_{len(added)}")(lambda: "x")

        fut = asyncio.ensure_future(later())
        pending.add(fut)
        fut.add_done_callback(pending.discard)
        return "ok"

    @server.resource("config://app")
    def config() -> str:
        return "cfg"

    return server


# ---- the official client ---------------------------------------------------------------------
@needs_sdk
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_official_client_over_uvicorn_calls_with_progress_reads_and_gets_notified(
    mode: str,
) -> None:
    """initialize (legacy) or 2026-07-28 per-request (auto), tools/call with two progress
    notifications on the POST's SSE stream, resources/read, and tools/list_changed sent outside
    any request: on the GET stream (legacy) or a subscriptions/listen stream (2026-07-28)."""
    events: list[str] = []
    server = demo_server(events)
    async with uvicorn_serving(server.http_app()) as base:
        assert events == ["enter"]  # the app's ASGI lifespan entered the server's
        out = await sdk_client("full", f"{base}/mcp", mode)
    assert events == ["enter", "exit"]
    assert out["protocol"] == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert out["server"]["name"] == "asgi-demo"
    assert out["call"]["content"] == [{"type": "text", "text": "5"}]
    assert out["progress"] == [[1.0, 2.0, "half"], [2.0, 2.0, "done"]]
    assert out["read"]["contents"][0]["text"] == "cfg"
    if mode == "legacy":
        assert out["notified"] is True
        assert "notifications/tools/list_changed" in out["notes"]
    else:
        assert out["event"]


@needs_sdk
async def test_starlette_mounts_two_servers_run_by_session_manager() -> None:
    """The SDK's streamable_starlette_mount / streamable_http_multiple_servers: two MCPServers
    mounted under /echo and /math (one at its mount point with streamable_http_path="/"), their
    session managers run in the Starlette lifespan."""
    echo_mcp = MCPServer(name="EchoServer")
    math_mcp = MCPServer(name="MathServer")

    @echo_mcp.tool()
    def echo(message: str) -> str:
        return f"Echo: {message}"

    @math_mcp.tool()
    def add_two(n: int) -> int:
        return n + 2

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(echo_mcp.session_manager.run())
            await stack.enter_async_context(math_mcp.session_manager.run())
            yield

    app = Starlette(
        routes=[
            Mount("/echo", echo_mcp.streamable_http_app(stateless_http=True, json_response=True)),
            Mount("/math", math_mcp.streamable_http_app(streamable_http_path="/")),
        ],
        lifespan=lifespan,
    )
    async with uvicorn_serving(app) as base:
        echo, math = await asyncio.gather(
            sdk_client("echo", f"{base}/echo/mcp", "legacy", '{"message": "hi"}'),
            sdk_client("add_two", f"{base}/math/", "legacy", '{"n": 40}'),
        )
        math_auto = await sdk_client("add_two", f"{base}/math/", "auto", '{"n": 1}')
    assert echo["call"]["content"] == [{"type": "text", "text": "Echo: hi"}]
    assert math["call"]["structuredContent"] == {"result": 42}
    assert math_auto["protocol"] == "2026-07-28"
    assert math_auto["call"]["structuredContent"] == {"result": 3}


@needs_sdk
async def test_fastapi_mount() -> None:
    fastapi = pytest.importorskip("fastapi")
    mcp = MCPServer("fastapi-mounted")

    @mcp.tool()
    def hello(name: str) -> str:
        return f"hello {name}"

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            yield

    app = fastapi.FastAPI(lifespan=lifespan)

    @app.get("/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    app.mount("/tools", mcp.streamable_http_app())
    async with uvicorn_serving(app) as base:
        out = await sdk_client("hello", f"{base}/tools/mcp", "legacy", '{"name": "api"}')
        status, _, body = await raw_request(base, "GET", "/health")
    assert out["call"]["content"] == [{"type": "text", "text": "hello api"}]
    assert status == 200 and json.loads(body) == {"ok": True}


# ---- raw HTTP -----------------------------------------------------------------------------------
async def raw_request(
    base: str, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 request on a fresh connection, read to its end (Connection: close)."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = {"host": f"{host}:{port}", "connection": "close", "content-length": str(len(body))}
    head.update({k.lower(): v for k, v in (headers or {}).items()})
    lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in head.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head_bytes, _, rest = data.partition(b"\r\n\r\n")
    status_line, *fields = head_bytes.decode().split("\r\n")
    got = {k.lower(): v.strip() for k, v in (f.split(":", 1) for f in fields)}
    if got.get("transfer-encoding") == "chunked":
        out = b""
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            out += rest[:size]
            rest = rest[size + 2 :]
        rest = out
    return int(status_line.split()[1]), got, rest


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def initialize(base: str, path: str = "/mcp", **headers: str) -> str:
    status, got, _ = await raw_request(
        base, "POST", path, {**MCP_HEADERS, **headers}, json.dumps(INIT).encode()
    )
    assert status == 200, status
    session = got["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    status, _, _ = await raw_request(
        base,
        "POST",
        path,
        {**MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
        json.dumps(note).encode(),
    )
    assert status == 202
    return session


async def send_get_stream_request(
    base: str, session: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connects to ``base`` and sends the request for the session's GET SSE stream at /mcp."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        (
            f"GET /mcp HTTP/1.1\r\nhost: {host}:{port}\r\naccept: text/event-stream\r\n"
            f"mcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    return reader, writer


async def open_get_stream(base: str, session: str) -> tuple[asyncio.StreamWriter, int]:
    """Opens the session's GET SSE stream and reads its status; the connection stays open."""
    reader, writer = await send_get_stream_request(base, session)
    status_line = await asyncio.wait_for(reader.readline(), 10)
    return writer, int(status_line.split()[1])


async def test_a_get_stream_closed_by_the_client_ends_its_engine_stream() -> None:
    """The engine allows one GET stream per session (409 for a second while it is open): once
    the client closes the first connection, the app cancels the engine's stream and a new GET
    is accepted."""
    server = demo_server()
    app = server.http_app()
    async with uvicorn_serving(app) as base:
        session = await initialize(base)
        first, status = await open_get_stream(base, session)
        assert status == 200
        second, status = await open_get_stream(base, session)
        assert status == 409
        second.close()
        first.close()
        for _ in range(200):
            if not app._runner.streams:
                break
            await asyncio.sleep(0.02)
        assert not app._runner.streams
        third, status = await open_get_stream(base, session)
        assert status == 200
        third.close()


async def test_an_sse_body_streams_before_the_call_ends() -> None:
    """The POST's SSE stream is sent as the engine writes it: the progress event arrives while
    the tool is still waiting."""
    server = Server("streaming")
    release = asyncio.Event()

    @server.tool()
    async def slow(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "started")
        await release.wait()
        return "done"

    async with uvicorn_serving(server.http_app()) as base:
        session = await initialize(base)
        host, port = base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}},
        }
        body = json.dumps(call).encode()
        writer.write(
            (
                f"POST /mcp HTTP/1.1\r\nhost: {host}:{port}\r\ncontent-type: application/json\r\n"
                "accept: application/json, text/event-stream\r\n"
                f"mcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n"
                f"content-length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
        await writer.drain()
        seen = b""
        while b"notifications/progress" not in seen:
            seen += await asyncio.wait_for(reader.read(4096), 10)
        assert b"text/event-stream" in seen and b'"result"' not in seen
        release.set()
        while b'"result"' not in seen:
            seen += await asyncio.wait_for(reader.read(4096), 10)
        assert b"done" in seen
        writer.close()


async def test_host_and_origin_checks_apply_as_with_serve_http() -> None:
    server = demo_server()
    async with uvicorn_serving(server.http_app()) as base:
        body = json.dumps(INIT).encode()
        status, _, _ = await raw_request(
            base, "POST", "/mcp", {**MCP_HEADERS, "host": "evil.example"}, body
        )
        assert status == 403
        status, _, _ = await raw_request(
            base, "POST", "/mcp", {**MCP_HEADERS, "origin": "http://evil.example"}, body
        )
        assert status == 403
    public = demo_server()
    app = public.http_app(allowed_hosts=["mcp.example.com"])
    async with uvicorn_serving(app) as base:
        status, _, _ = await raw_request(
            base, "POST", "/mcp", {**MCP_HEADERS, "host": "mcp.example.com"}, body
        )
        assert status == 200


async def test_bearer_tokens_reach_the_engine() -> None:
    server = Server("protected")

    @server.tool()
    def whoami(ctx: Context) -> str:
        return str(ctx.auth["subject"])

    async def verify(token: str) -> dict[str, Any] | None:
        claims = {"subject": "ada", "scopes": ["mcp"], "audience": "http://127.0.0.1/mcp"}
        return claims if token == "good" else None

    auth = ProtectedResource(
        resource="http://127.0.0.1/mcp",
        authorization_servers=["https://auth.example.com"],
        verify=verify,
    )
    async with uvicorn_serving(server.http_app(auth=auth)) as base:
        body = json.dumps(INIT).encode()
        status, got, _ = await raw_request(base, "POST", "/mcp", MCP_HEADERS, body)
        assert status == 401 and "resource_metadata" in got["www-authenticate"]
        status, _, meta = await raw_request(
            base, "GET", "/.well-known/oauth-protected-resource/mcp"
        )
        assert status == 200 and json.loads(meta)["resource"] == "http://127.0.0.1/mcp"
        async with ferromcp.Client.http(
            f"{base}/mcp", headers={"Authorization": "Bearer good"}
        ) as c:
            r = await c.call_tool("whoami", {})
        assert r.text == "ada"


async def test_mounted_without_lifespan_starts_on_the_first_request() -> None:
    """The SDK's streamable_http_path_config: no lifespan, no session_manager.run(); the first
    request binds the loop and enters the server's lifespan."""
    server = demo_server()
    app = Starlette(routes=[Mount("/process", app=server.http_app(path="/"))])
    async with uvicorn_serving(app) as base:
        async with ferromcp.Client.http(f"{base}/process/") as c:
            r = await c.call_tool("lifespan_value", {})
    assert r.text == "db"


async def test_request_body_over_max_body_size_is_413_from_the_engine() -> None:
    server = demo_server()
    async with uvicorn_serving(server.http_app(max_body_size=1000)) as base:
        status, _, body = await raw_request(base, "POST", "/mcp", MCP_HEADERS, b"x" * 5000)
    assert status == 413
    assert json.loads(body)["error"]["code"] == -32600


async def test_session_manager_run_exit_ends_open_streams_and_the_lifespan() -> None:
    events: list[str] = []
    server = demo_server(events)
    app = server.http_app()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    host_app = Starlette(routes=[Mount("/", app=app)], lifespan=lifespan)
    async with uvicorn_serving(host_app) as base:
        session = await initialize(base)
        writer, status = await open_get_stream(base, session)
        assert status == 200 and len(app._runner.streams) == 1
        # uvicorn waits for open responses before the lifespan's shutdown: the client leaves.
        writer.close()
    assert events == ["enter", "exit"]
    assert not app._runner.streams


async def test_uvicorn_shutdown_ends_open_get_streams() -> None:
    """uvicorn waits for open responses before shutting down: the app ends its SSE streams once
    uvicorn is exiting (as the official SDK's do), though their clients stay connected."""
    server = demo_server()
    app = server.http_app()
    loop = asyncio.get_running_loop()
    async with uvicorn_serving(app) as base:
        session = await initialize(base)
        writer, status = await open_get_stream(base, session)
        assert status == 200
        started = loop.time()
    assert loop.time() - started < 5  # uvicorn_serving waits for the shutdown
    assert not app._runner.streams
    writer.close()


def test_streamable_http_app_takes_the_sdk_arguments() -> None:
    mcp = MCPServer("x")
    app = mcp.streamable_http_app(
        streamable_http_path="/", json_response=True, stateless_http=True, retry_interval=500
    )
    assert callable(app)
    with pytest.raises(TypeError, match="event_store"):
        mcp.streamable_http_app(event_store=object())


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
