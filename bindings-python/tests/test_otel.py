"""OpenTelemetry (issue 38 point 4) from Python: the engine's layer switched on by name
(``{"name": "openTelemetry", ...}`` in ``middleware``) exports its SERVER span over OTLP/HTTP to a
real receiver started here (decoding the protobuf bodies with ``opentelemetry-proto``); the
client's context travels in ``params._meta``; a Python handler extracts its parent from
``ctx.meta`` with the OpenTelemetry SDK, and its span is the engine span's child, in the same
trace as the client's span. A malformed ``traceparent`` is ignored: the call is answered and the
engine span starts a new trace. The layer's ``prometheus`` option (a path) serves the metrics as
Prometheus text on ``serve_http``'s server, the listener's sessions and connections gauges
included."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.propagate import extract, inject
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from ferromcp import Client, Context, InvalidParams, Server


class _Receiver(BaseHTTPRequestHandler):
    """``POST /v1/traces`` (protobuf), answered 200; spans kept on the server object."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        spans: list[tuple[str, Any]] = self.server.spans  # type: ignore[attr-defined]
        if self.path == "/v1/traces":
            req = ExportTraceServiceRequest()
            req.ParseFromString(body)
            for rs in req.resource_spans:
                service = next(
                    (
                        a.value.string_value
                        for a in rs.resource.attributes
                        if a.key == "service.name"
                    ),
                    "",
                )
                for ss in rs.scope_spans:
                    spans.extend((service, s) for s in ss.spans)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, Any]]]]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    httpd.spans = []  # type: ignore[attr-defined]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.spans  # type: ignore[attr-defined]
    finally:
        httpd.shutdown()


def _wait(spans: list[tuple[str, Any]], name: str, count: int) -> list[Any]:
    deadline = time.monotonic() + 20
    while True:
        found = [s for svc, s in spans if svc == "py-server" and s.name == name]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


async def test_a_python_handler_span_joins_the_trace_under_the_engine_span(
    receiver: tuple[str, list[tuple[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, received = receiver
    # The engine's batch span processor exports every 100 ms instead of 5 s.
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    handler_spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(handler_spans))
    tracer = provider.get_tracer("test")

    server = Server(
        "traced",
        version="1.0.0",
        middleware=[
            {
                "name": "openTelemetry",
                "serviceName": "py-server",
                "otlpEndpoint": url,
                "samplingRatio": 1.0,
            }
        ],
    )

    @server.tool()
    def lookup(key: str, ctx: Context) -> str:
        """Looks a key up."""
        with tracer.start_as_current_span("lookup work", context=extract(ctx.meta or {})):
            return key.upper()

    async with Client.memory(server) as c:
        with tracer.start_as_current_span("client call", kind=SpanKind.CLIENT) as client_span:
            meta: dict[str, str] = {}
            inject(meta)
            r = await c.request(
                "tools/call", {"name": "lookup", "arguments": {"key": "k"}, "_meta": meta}
            )
        assert r["content"][0]["text"] == "K"
        bad = await c.request(
            "tools/call",
            {"name": "lookup", "arguments": {"key": "x"}, "_meta": {"traceparent": "00-zz-bad"}},
        )
        assert bad["content"][0]["text"] == "X"

    engine = _wait(received, "tools/call lookup", 2)
    assert len(engine) == 2, [s.name for _, s in received]
    client_ctx = client_span.get_span_context()
    joined = [s for s in engine if s.parent_span_id == client_ctx.span_id.to_bytes(8, "big")]
    assert len(joined) == 1, "the engine span's parent is the Python client span"
    server_span = joined[0]
    assert server_span.trace_id == client_ctx.trace_id.to_bytes(16, "big")
    attrs = {a.key: a.value.string_value for a in server_span.attributes}
    assert attrs["mcp.method.name"] == "tools/call"
    assert attrs["gen_ai.tool.name"] == "lookup"

    work: list[ReadableSpan] = [
        s for s in handler_spans.get_finished_spans() if s.name == "lookup work"
    ]
    assert len(work) == 2
    first = next(s for s in work if s.context.trace_id == client_ctx.trace_id)
    assert first.parent is not None
    assert first.parent.span_id.to_bytes(8, "big") == server_span.span_id, (
        "the Python handler's span is the engine span's child"
    )
    # The malformed traceparent: answered, and a trace of its own started by the engine.
    other = next(s for s in engine if s is not server_span)
    assert other.parent_span_id == b""
    assert other.trace_id != server_span.trace_id
    second = next(s for s in work if s is not first)
    assert second.parent is not None
    assert second.parent.span_id.to_bytes(8, "big") == other.span_id


def _get(url: str, method: str = "GET") -> tuple[int, str, str]:
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, "", ""


async def test_the_prometheus_path_serves_durations_and_the_listeners_gauges() -> None:
    server = Server(
        "measured",
        version="1.0.0",
        middleware=[
            {"name": "openTelemetry", "serviceName": "py-metrics", "prometheus": "/metrics"}
        ],
    )

    @server.tool()
    def echo(x: str) -> str:
        """Echoes."""
        return x

    async with await server.serve_http("127.0.0.1", 0) as http:
        metrics = http.url.removesuffix("/mcp") + "/metrics"
        async with Client.http(http.url) as c:
            r = await c.request("tools/call", {"name": "echo", "arguments": {"x": "hi"}})
            assert r["content"][0]["text"] == "hi"
            status, content_type, text = await asyncio.to_thread(_get, metrics)
            post_status, _, _ = await asyncio.to_thread(_get, metrics, "POST")
    assert status == 200
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    lines = text.splitlines()
    assert any(
        line.startswith("mcp_server_operation_duration_seconds_count{")
        and 'gen_ai_tool_name="echo"' in line
        and line.endswith(" 1")
        for line in lines
    ), text
    assert any(line.startswith("mcp_server_operation_duration_seconds_bucket{") for line in lines)
    # The client's session is alive and its connection open while the text is read.
    assert any(re.fullmatch(r"ferromcp_server_sessions(\{[^}]*\})? 1", line) for line in lines), (
        text
    )
    assert any(
        re.fullmatch(r"ferromcp_server_connections(\{[^}]*\})? [1-9]\d*", line) for line in lines
    ), text
    assert "# TYPE ferromcp_server_sse_streams gauge" in text
    assert post_status == 405


@pytest.mark.parametrize("bad", ["metrics", True])
def test_the_prometheus_option_takes_a_path(bad: object) -> None:
    with pytest.raises(InvalidParams, match="prometheus must be a path starting with '/'"):
        Server("measured", middleware=[{"name": "openTelemetry", "prometheus": bad}])


def _spans_of(spans: list[tuple[str, Any]], service: str, name: str, count: int) -> list[Any]:
    deadline = time.monotonic() + 20
    while True:
        found = [s for svc, s in spans if svc == service and s.name == name]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


async def test_a_python_client_span_is_the_callers_child_and_the_engine_spans_parent(
    receiver: tuple[str, list[tuple[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Client(open_telemetry=...)``: each request's CLIENT span, exported by the engine, has
    the caller's span as parent, whether the caller wrote its ``traceparent`` into ``_meta`` or
    the client took it from the current OpenTelemetry context, and is the parent of the server's
    span. A malformed ``traceparent`` in ``_meta`` gives a client span of its own trace. The
    client's spans are flushed by closing it (nothing waits on garbage collection)."""
    url, received = receiver
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    tracer = provider.get_tracer("test")
    server = Server(
        "traced",
        version="1.0.0",
        middleware=[{"name": "openTelemetry", "serviceName": "py-server", "otlpEndpoint": url}],
    )

    @server.tool()
    def lookup(key: str) -> str:
        """Looks a key up."""
        return key.upper()

    telemetry = {"serviceName": "py-client", "otlpEndpoint": url, "samplingRatio": 1.0}
    async with Client.memory(server, open_telemetry=telemetry) as c:
        with tracer.start_as_current_span("caller") as caller:
            meta: dict[str, str] = {}
            inject(meta)
            r = await c.request(
                "tools/call", {"name": "lookup", "arguments": {"key": "a"}, "_meta": meta}
            )
            assert r["content"][0]["text"] == "A"
            # No _meta: the client writes the current span's context itself.
            assert (await c.call_tool("lookup", {"key": "b"})).text == "B"
        bad = await c.request(
            "tools/call",
            {"name": "lookup", "arguments": {"key": "c"}, "_meta": {"traceparent": "00-zz-bad"}},
        )
        assert bad["content"][0]["text"] == "C"

    clients = _spans_of(received, "py-client", "tools/call lookup", 3)
    servers = _spans_of(received, "py-server", "tools/call lookup", 3)
    assert len(clients) == 3 and len(servers) == 3, [(v, s.name) for v, s in received]
    ctx = caller.get_span_context()
    trace_id, span_id = ctx.trace_id.to_bytes(16, "big"), ctx.span_id.to_bytes(8, "big")
    under_caller = [s for s in clients if s.parent_span_id == span_id]
    assert len(under_caller) == 2, "both calls made inside the caller's span are its children"
    for s in under_caller:
        assert s.trace_id == trace_id
        assert s.kind == 3  # SPAN_KIND_CLIENT
        attrs = {a.key: a.value.string_value for a in s.attributes}
        assert attrs["mcp.method.name"] == "tools/call"
        assert attrs["gen_ai.tool.name"] == "lookup"
    own = next(s for s in clients if s not in under_caller)
    assert own.parent_span_id == b"" and own.trace_id != trace_id
    for client_span in clients:
        child = [s for s in servers if s.parent_span_id == client_span.span_id]
        assert len(child) == 1, "the engine's server span is the client span's child"
        assert child[0].trace_id == client_span.trace_id


async def test_the_client_refuses_unknown_open_telemetry_options() -> None:
    with pytest.raises(InvalidParams, match="unknown field `prometheus`"):
        async with Client.memory(Server("s"), open_telemetry={"prometheus": "/metrics"}):
            pass


async def test_prometheus_text_serves_a_host_apps_metrics_route() -> None:
    """``http_app()`` owns no listener, so the layer's ``prometheus`` path is not served by the
    engine: ``server.prometheus_text()`` gives the text for a route of the host app's own (here
    Starlette under uvicorn, beside the mounted MCP endpoint). After a call over that endpoint
    it has the call's duration histogram."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Mount, Route

    server = Server(
        "measured",
        version="1.0.0",
        middleware=[
            {"name": "openTelemetry", "serviceName": "py-host-app", "prometheus": "/metrics"}
        ],
    )

    @server.tool()
    def echo(x: str) -> str:
        """Echoes."""
        return x

    def metrics(_: Request) -> Response:
        return PlainTextResponse(
            server.prometheus_text() or "", media_type="text/plain; version=0.0.4"
        )

    app = Starlette(routes=[Route("/metrics", metrics), Mount("/", server.http_app())])
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    served = uvicorn.Server(config)
    task = asyncio.ensure_future(served.serve())
    try:
        for _ in range(500):
            if served.started or task.done():
                break
            await asyncio.sleep(0.01)
        assert served.started, "uvicorn did not start"
        base = f"http://127.0.0.1:{served.servers[0].sockets[0].getsockname()[1]}"
        async with Client.http(f"{base}/mcp") as c:
            r = await c.request("tools/call", {"name": "echo", "arguments": {"x": "hi"}})
            assert r["content"][0]["text"] == "hi"
            status, _, open_text = await asyncio.to_thread(_get, f"{base}/metrics")
            assert status == 200
        # The client's close ended its session (DELETE): its duration is recorded.
        for _ in range(200):
            status, _, text = await asyncio.to_thread(_get, f"{base}/metrics")
            if "mcp_server_session_duration_seconds_count{" in text:
                break
            await asyncio.sleep(0.05)
    finally:
        served.should_exit = True
        await asyncio.wait_for(task, 20)
    assert status == 200
    assert any(
        line.startswith("mcp_server_operation_duration_seconds_count{")
        and 'gen_ai_tool_name="echo"' in line
        and line.endswith(" 1")
        for line in text.splitlines()
    ), text
    # The handler's own gauges and session durations, as a listening server's (not its
    # connections: uvicorn owns them).
    assert "ferromcp_server_sessions 1" in open_text.splitlines(), open_text
    assert "ferromcp_server_sessions 0" in text.splitlines(), text
    assert 'ferromcp_server_sse_streams{ferromcp_stream_kind="get"}' in text, text
    assert "ferromcp_server_connections" not in text, text
    assert any(
        line.startswith("mcp_server_session_duration_seconds_count{")
        and 'network_transport="tcp"' in line
        and 'network_protocol_name="http"' in line
        and line.endswith(" 1")
        for line in text.splitlines()
    ), text
    # Without the layer, or without its prometheus option, there is no text.
    assert Server("plain").prometheus_text() is None
    otlp_only = Server("otlp", middleware=[{"name": "openTelemetry", "serviceName": "x"}])
    assert otlp_only.prometheus_text() is None


async def test_baggage_a_client_sends_reaches_a_python_handler(
    receiver: tuple[str, list[tuple[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """W3C Baggage the caller puts in ``params._meta`` beside its ``traceparent`` reaches a
    Python handler: the engine rewrites ``_meta`` to name its SERVER span and keeps the baggage
    there, so ``opentelemetry.baggage`` reads it from the context extracted from ``ctx.meta``
    (as the handler extracts its parent), through the engine client's own span too."""
    from opentelemetry import baggage
    from opentelemetry import context as otel_context

    url, _ = receiver
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    server = Server(
        "traced",
        version="1.0.0",
        middleware=[{"name": "openTelemetry", "serviceName": "py-server", "otlpEndpoint": url}],
    )
    seen: list[tuple[object, str]] = []

    @server.tool()
    def whoami(ctx: Context) -> str:
        """Names the caller's tenant."""
        meta = ctx.meta or {}
        tenant = baggage.get_baggage("tenant", extract(meta))
        seen.append((tenant, str(meta.get("traceparent", ""))))
        return str(tenant)

    provider = TracerProvider()
    tracer = provider.get_tracer("test")
    telemetry = {"serviceName": "py-client", "otlpEndpoint": url}
    callers: list[str] = []
    for client_options in ({}, {"open_telemetry": telemetry}):
        async with Client.memory(server, **client_options) as c:
            token = otel_context.attach(baggage.set_baggage("tenant", "acme"))
            try:
                with tracer.start_as_current_span("caller"):
                    meta: dict[str, str] = {}
                    inject(meta)
                    assert "tenant=acme" in meta["baggage"]
                    callers.append(meta["traceparent"])
                    r = await c.request(
                        "tools/call", {"name": "whoami", "arguments": {}, "_meta": meta}
                    )
            finally:
                otel_context.detach(token)
            assert r["content"][0]["text"] == "acme", client_options
    assert [t for t, _ in seen] == ["acme", "acme"]
    # The handler's _meta named the engine's span in the caller's trace, not the caller's span:
    # the layer rewrote it and kept the baggage.
    for (_, handler_parent), caller_parent in zip(seen, callers, strict=True):
        assert handler_parent != caller_parent
        assert handler_parent.split("-")[1] == caller_parent.split("-")[1]


_STDIO_SERVER = """
import sys
from ferromcp import Server

server = Server(
    "stdio-otel",
    middleware=[{"name": "openTelemetry", "serviceName": "stdio-otel", "prometheus": "/metrics"}],
)


@server.tool()
def hello() -> str:
    return "hi"


server.run("stdio")
with open(sys.argv[1], "w") as out:
    out.write(server.prometheus_text() or "")
"""


async def test_a_stdio_session_records_its_duration(tmp_path: Any) -> None:
    """``mcp.server.session.duration`` of a server on stdio: the session a client opens by
    starting the server process is recorded when the client closes its stdin, with
    ``network.transport`` ``pipe`` (the conventions' value for stdio) and the negotiated
    revision; the process writes its ``prometheus_text()`` once ``run("stdio")`` returns."""
    script = tmp_path / "server.py"
    script.write_text(_STDIO_SERVER)
    out = tmp_path / "metrics.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    async with Client.stdio(sys.executable, [str(script), str(out)], env=env) as c:
        assert (await c.call_tool("hello", {})).text == "hi"
        version = c.protocol_version
    deadline = time.monotonic() + 20
    while not (out.exists() and out.read_text()) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    text = out.read_text()
    sessions = [
        line
        for line in text.splitlines()
        if line.startswith("mcp_server_session_duration_seconds_count{")
    ]
    assert len(sessions) == 1, text
    assert 'network_transport="pipe"' in sessions[0], sessions
    assert f'mcp_protocol_version="{version}"' in sessions[0], sessions
    assert "network_protocol_name" not in sessions[0], sessions
    assert sessions[0].endswith(" 1"), sessions
