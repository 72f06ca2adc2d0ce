"""The engine's log events reach Python's ``logging`` (issue 37 point 2): ``RequestLog``'s record
per request under ``ferromcp.request`` and the detail ``MaskErrors`` hid under
``ferromcp.masked``; only the levels a ``ferromcp`` logger would handle leave the engine. The
scenario names are those of the Node (test/engine_logging.test.mjs) and Swift
(EngineLoggingTests) tests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest

from ferromcp import Client, McpError, Server, _native
from ferromcp.middleware import MaskErrors, RequestLog


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def collected() -> Iterator[Collect]:
    """A handler on the ``ferromcp`` logger at INFO, removed (and the level restored) after."""
    logger = logging.getLogger("ferromcp")
    handler = Collect()
    before = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before)


async def wait_for(handler: Collect, name: str, method: str) -> logging.LogRecord:
    """The first record of logger ``name`` for ``method``: records are made on the binding's
    Python thread shortly after the event."""
    for _ in range(500):
        for r in handler.records:
            if r.name == name and getattr(r, "method", None) == method:
                return r
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {name} record; got {[r.getMessage() for r in handler.records]}")


def make_server(*layers: object) -> Server:
    server = Server("logged", version="1.0.0", middleware=list(layers))

    @server.tool()
    def echo(text: str) -> str:
        """Echoes."""
        return text

    @server.resource("db://orders")
    def orders() -> str:
        """Fails with a detail the client must not see (a resource's exception is an internal
        error; a tool's would be an ``isError`` result)."""
        raise RuntimeError('password authentication failed for user "app"')

    return server


async def test_request_log_reaches_the_host_logger(collected: Collect) -> None:
    async with Client.memory(make_server(RequestLog())) as client:
        await client.call_tool("echo", {"text": "hi"})
        record = await wait_for(collected, "ferromcp.request", "tools/call")
    assert record.levelno == logging.INFO and record.target == "ferromcp::request"
    assert record.tool == "echo" and record.outcome == "ok"  # type: ignore[attr-defined]
    assert isinstance(record.duration_us, int) and record.duration_us >= 0  # type: ignore[attr-defined]
    assert record.fields["method"] == "tools/call"  # type: ignore[attr-defined]
    message = record.getMessage()
    assert message.startswith("request method=tools/call tool=echo ")
    assert "outcome=ok" in message and "duration_us=" in message


async def test_masked_error_detail_is_logged_server_side(collected: Collect) -> None:
    async with Client.memory(make_server(MaskErrors())) as client:
        with pytest.raises(McpError) as caught:
            await client.read_resource("db://orders")
        record = await wait_for(collected, "ferromcp.masked", "resources/read")
    assert caught.value.message == "Internal error" and "password" not in str(caught.value)
    assert record.levelno == logging.ERROR and record.code == -32603  # type: ignore[attr-defined]
    assert "password authentication failed" in record.detail  # type: ignore[attr-defined]
    assert "password authentication failed" in record.getMessage()


async def test_levels_python_would_drop_stay_in_the_engine() -> None:
    logger = logging.getLogger("ferromcp")
    child = logging.getLogger("ferromcp.request")
    before = (logger.level, child.level)
    try:
        logger.setLevel(logging.ERROR)
        child.setLevel(logging.NOTSET)
        assert _native.log_threshold() == logging.ERROR
        # A child logger asking for more widens what the engine forwards.
        child.setLevel(logging.DEBUG)
        assert _native.log_threshold() == logging.DEBUG
        child.setLevel(logging.NOTSET)
        logger.setLevel(logging.CRITICAL)
        assert _native.log_threshold() == 100
        logging.disable(logging.CRITICAL)
        logger.setLevel(logging.DEBUG)
        assert _native.log_threshold() == 100
    finally:
        logging.disable(logging.NOTSET)
        logger.setLevel(before[0])
        child.setLevel(before[1])
