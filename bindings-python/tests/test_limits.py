"""Limits (issue 16): the HTTP server's connection limits and the client's message limit, as
``serve_http`` and ``Client`` options."""

from __future__ import annotations

import pytest

from ferromcp import Client, McpError, Server


def make_server() -> Server:
    server = Server("limits", version="1.0.0")

    @server.tool()
    def big(n: int) -> str:
        """Answers with n bytes."""
        return "x" * n

    return server


async def test_a_response_over_the_client_limit_fails_that_call() -> None:
    server = make_server()
    async with await server.serve_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, max_message_size=2048) as client:
            with pytest.raises(Exception, match="exceeds the limit"):
                await client.call_tool("big", {"n": 10_000})
            small = await client.call_tool("big", {"n": 3})
            assert small["content"][0]["text"] == "xxx"


async def test_connection_limits_are_options() -> None:
    server = make_server()
    async with await server.serve_http(
        "127.0.0.1",
        0,
        max_head_size=2048,
        max_connections=8,
        header_read_timeout=2.0,
        request_timeout=5.0,
        keep_alive_timeout=30.0,
        write_timeout=5.0,
        max_buffered_bytes=1 << 20,
    ) as http:
        async with Client.http(http.url) as client:
            ok = await client.call_tool("big", {"n": 2})
            assert ok["content"][0]["text"] == "xx"
        # A head over max_head_size is refused (431), so this client cannot even connect.
        with pytest.raises(Exception):
            async with Client.http(http.url, headers={"X-Big": "a" * 4096}, legacy_fallback=False):
                pass


async def test_a_request_over_the_server_limit_is_refused_and_the_session_goes_on() -> None:
    server = Server("limits", version="1.0.0", max_message_size=1024)

    @server.tool()
    def echo(text: str) -> str:
        """Echoes."""
        return text

    async with Client.memory(server) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool("echo", {"text": "t" * 4000})
        assert refused.value.code == -32600
        assert "exceeds the limit of 1024 bytes" in str(refused.value.data)
        small = await client.call_tool("echo", {"text": "ok"})
        assert small["content"][0]["text"] == "ok"
