"""A client declares capabilities beyond what its handlers imply (``capabilities=``, deep-merged
over them: ``experimental``, or 2026-07-28's ``extensions``), e.g. a host that renders MCP Apps.
Same scenarios as bindings-node/test/client_capabilities.test.mjs and
bindings-swift/Tests/FerroMCPTests/ClientCapabilitiesTests.swift."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ferromcp import Client, Context, InvalidParams, Server
from ferromcp.apps import client_supports_ui, ui_client_capability


def make_server() -> Server:
    server = Server("caps")

    @server.tool()
    def renders_ui(ctx: Context) -> str:
        return str(client_supports_ui(ctx)).lower()

    @server.tool()
    def declared(ctx: Context) -> str:
        return json.dumps(ctx.client_capabilities)

    return server


def text(result: Any) -> str:
    return str(result["content"][0]["text"])


@pytest.mark.parametrize("mode", ["handshake", "perRequest"])
async def test_an_mcp_apps_host_declares_the_ui_extension_and_the_server_sees_it(mode: str) -> None:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        async with (
            Client.http(http.url, protocol_mode=mode, capabilities=ui_client_capability()) as host,
            Client.http(http.url, protocol_mode=mode) as plain,
        ):
            assert text(await host.call_tool("renders_ui")) == "true"
            assert text(await plain.call_tool("renders_ui")) == "false"


async def test_declared_capabilities_are_merged_over_the_ones_the_handlers_imply() -> None:
    caps = {"experimental": {"acme/trace": {"level": 2}}, "roots": {"extra": True}}
    roots = [{"uri": "file:///w", "name": "w"}]
    async with Client.memory(make_server(), roots=roots, capabilities=caps) as client:
        declared = json.loads(text(await client.call_tool("declared")))
        assert declared["experimental"] == {"acme/trace": {"level": 2}}
        # Merged, not replaced: roots keeps listChanged from the handler and gains the extra key.
        assert declared["roots"] == {"listChanged": True, "extra": True}


async def test_capabilities_that_are_not_an_object_are_refused_when_connecting() -> None:
    with pytest.raises(InvalidParams, match="capabilities must be an object"):
        async with Client.memory(make_server(), capabilities=["ui"]):  # type: ignore[arg-type]
            pass
