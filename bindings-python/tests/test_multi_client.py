"""``MultiClient`` / ``Client.from_config``: every server of an ``mcpServers`` configuration
through one object, names namespaced by server as ``ferromcp proxy`` does; configuration
errors name the key at fault."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import ferromcp
from ferromcp.multi import ConfigError, MultiClient, parse_config

from conftest import ECHO_SERVER


def echo(**extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [ECHO_SERVER], **extra}


def named(name: str) -> dict[str, Any]:
    """tests/named_server.py: answers with `name`, shares only the tool name `echo` with the
    echo server."""
    return {
        "command": sys.executable,
        "args": [str(Path(__file__).with_name("named_server.py")), name],
    }


async def test_tools_resources_and_prompts_of_two_servers_are_namespaced() -> None:
    # Two different servers: the echo server and a server answering with its name ("beta"),
    # which also has an `echo` tool; each namespaced call must reach its own server.
    config = {"mcpServers": {"a": echo(), "b": named("beta"), "off": echo(disabled=True)}}
    async with ferromcp.Client.from_config(config) as multi:
        assert isinstance(multi, MultiClient)
        assert multi.names == ["a", "b"]
        names = sorted(t.name for t in await multi.list_tools())
        assert names == ["a_add", "a_countdown", "a_echo", "b_echo", "b_whoami"]
        assert (await multi.call_tool("a_echo", {"text": "hi"})).text == "hi"
        assert (await multi.call_tool("b_echo", {"text": "hi"})).text == "beta: hi"
        assert (await multi.call_tool("b_whoami", {})).text == "beta"
        r = await multi.call_tool("a_add", {"a": 2, "b": 3})
        assert r["structuredContent"] == {"result": 5}
        # A name of one server under the other's namespace reaches that other server, which
        # does not know it.
        with pytest.raises(ferromcp.McpError, match="whoami"):
            await multi.call_tool("a_whoami", {})
        with pytest.raises(ferromcp.McpError, match="add"):
            await multi.call_tool("b_add", {"a": 1, "b": 1})
        uris = sorted(r["uri"] for r in await multi.list_resources())
        assert uris == ["a+greeting://hello", "b+name://self"]
        read = await multi.read_resource("a+greeting://hello")
        assert read["contents"][0]["uri"] == "a+greeting://hello"
        assert read["contents"][0]["text"] == "Hello, world!"
        read = await multi.read_resource("b+name://self")
        assert read["contents"][0]["uri"] == "b+name://self"
        assert read["contents"][0]["text"] == "I am beta"
        with pytest.raises(ferromcp.McpError):
            await multi.read_resource("b+greeting://hello")
        prompts = sorted(p["name"] for p in await multi.list_prompts())
        assert prompts == ["a_review", "b_introduce"]
        got = await multi.get_prompt("a_review", {"code": "x = 1"})
        assert "x = 1" in got["messages"][0]["content"]["text"]
        got = await multi.get_prompt("b_introduce", {"topic": "routing"})
        assert got["messages"][0]["content"]["text"] == "beta introduces routing"
        # Each server's own client, under its name.
        assert multi["a"].server_info["name"] == "echo-server"
        assert multi["b"].server_info["name"] == "beta"
        with pytest.raises(ValueError, match="names no server"):
            await multi.call_tool("c_add", {"a": 1, "b": 1})
        with pytest.raises(ValueError, match="names no server"):
            await multi.read_resource("greeting://hello")


def calculator(name: str = "calc") -> ferromcp.Server:
    server = ferromcp.Server(name, version="1.0.0")

    @server.tool()
    def add(a: int, b: int) -> str:
        """Adds two integers, saying who did."""
        return f"{name}: {a + b}"

    @server.resource("calc://about", mime_type="text/plain")
    def about() -> str:
        """What this server is."""
        return f"{name} in process"

    return server


async def test_servers_of_this_program_sit_beside_the_configured_ones() -> None:
    # A configuration's only server gains its prefix beside an in-process server; each call
    # reaches its own server (the in-process one answers with its name).
    config = {"mcpServers": {"a": echo()}}
    async with MultiClient.from_config(config, servers={"calc": calculator()}) as multi:
        assert multi.names == ["a", "calc"]
        names = sorted(t.name for t in await multi.list_tools())
        assert names == ["a_add", "a_countdown", "a_echo", "calc_add"]
        assert (await multi.call_tool("calc_add", {"a": 2, "b": 3})).text == "calc: 5"
        r = await multi.call_tool("a_add", {"a": 2, "b": 3})
        assert r["structuredContent"] == {"result": 5}
        assert (await multi.call_tool("a_echo", {"text": "hi"})).text == "hi"
        uris = sorted(r["uri"] for r in await multi.list_resources())
        assert uris == ["a+greeting://hello", "calc+calc://about"]
        read = await multi.read_resource("calc+calc://about")
        assert read["contents"][0]["text"] == "calc in process"
        assert multi["calc"].server_info["name"] == "calc"
    # In-process servers alone (no configuration): one keeps its names, two are namespaced.
    async with ferromcp.Client.from_config(None, servers={"only": calculator("only")}) as multi:
        assert [t.name for t in await multi.list_tools()] == ["add"]
        assert (await multi.call_tool("add", {"a": 1, "b": 1})).text == "only: 2"
    two = {"x": calculator("x"), "y": calculator("y")}
    async with MultiClient.from_config(None, servers=two) as multi:
        assert (await multi.call_tool("y_add", {"a": 1, "b": 2})).text == "y: 3"
        assert (await multi.call_tool("x_add", {"a": 1, "b": 2})).text == "x: 3"


def test_in_process_server_names_are_checked() -> None:
    with pytest.raises(ConfigError, match="servers.a: another server of the configuration"):
        MultiClient.from_config({"mcpServers": {"a": echo()}}, servers={"a": calculator()})
    with pytest.raises(ConfigError, match='the server name "c_d" is used as a namespace'):
        MultiClient.from_config({"mcpServers": {"a": echo()}}, servers={"c_d": calculator()})
    with pytest.raises(ConfigError, match="no servers"):
        MultiClient.from_config(None)


async def test_one_server_keeps_its_names(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"only_one": echo(type="stdio")}}))
    async with MultiClient.from_config(path) as multi:
        assert "echo" in [t.name for t in await multi.list_tools()]
        assert (await multi.call_tool("echo", {"text": "same"})).text == "same"
        read = await multi.read_resource("greeting://hello")
        assert read["contents"][0]["uri"] == "greeting://hello"


async def test_json_text_is_read_and_a_server_that_cannot_start_is_named() -> None:
    text = json.dumps({"mcpServers": {"good": echo(), "bad": {"command": "/nonexistent/x"}}})
    with pytest.raises(ConnectionError, match="server 'bad' could not be connected"):
        async with MultiClient.from_config(text):
            pass


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}},
            'mcpServers.a: has both "command" and "url"',
        ),
        (
            {"mcpServers": {"a": {"command": "x", "args": ["-v", 2]}}},
            "mcpServers.a.args[1]: must be a string",
        ),
        (
            {"mcpServers": {"a": {"url": "ftp://h/mcp"}}},
            'mcpServers.a.url: "ftp://h/mcp" is not an http:// or https:// URL',
        ),
        (
            {"mcpServers": {"a": {"url": "http://h/mcp", "type": "websocket"}}},
            'mcpServers.a.type: unknown transport "websocket"',
        ),
        (
            {"mcpServers": {"a": {"url": "http://h/mcp", "env": {}}}},
            'mcpServers.a.env: applies to started servers ("command"), not to a URL',
        ),
        (
            {"mcpServers": {"a": {"command": "x", "headers": {}}}},
            "mcpServers.a.headers: applies to URL servers, not to a command",
        ),
        (
            {"mcpServers": {"a": {"command": "x"}, "b_c": {"command": "y"}}},
            'mcpServers.b_c: the server name "b_c" is used as a namespace',
        ),
        ({"mcpServers": {}}, "mcpServers: no enabled server"),
        (
            {"mcpServers": {"a": {"command": "x", "disabled": True}}},
            "mcpServers: no enabled server",
        ),
        (
            {"mcpServers": {"a": {"command": "x", "env": {"K": ["v"]}}}},
            "mcpServers.a.env.K: must be a string",
        ),
        (
            {"mcpServers": {"a": {"command": "x", "env": "K=v"}}},
            "mcpServers.a.env: must be an object of string values",
        ),
        ({"mcpServers": {"a": {"command": "x", "cwd": 1}}}, "mcpServers.a.cwd: must be a string"),
        ({"mcpServers": {"a": {"url": "http://h/mcp", "type": 3}}}, "mcpServers.a.type: must be"),
        ({"mcpServers": {"a": {}}}, 'mcpServers.a: needs "command"'),
        (
            {"mcpServers": {"a": {"command": "x"}}, "servers": {}},
            'both "mcpServers" and "servers" are present',
        ),
        ({"mcpServers": {"a": 1}}, "mcpServers.a: a server entry must be an object"),
    ],
)
def test_configuration_errors_name_the_key(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(config)
    assert str(info.value).startswith(message), str(info.value)


def test_a_missing_file_or_text_that_is_not_json_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read .*missing.json"):
        parse_config(tmp_path / "missing.json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        parse_config('{"mcpServers": ')
    with pytest.raises(ConfigError, match="not JSON data"):
        parse_config({"mcpServers": {"a": {"command": object()}}})


def test_entries_keep_env_cwd_and_headers() -> None:
    entries = parse_config(
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "srv"],
                    "env": {"PORT": 8080},
                    "cwd": "/srv",
                    "autoApprove": [],
                },
                "web": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer t"}},
                "old": {"type": "sse", "url": "http://h/sse"},
            }
        }
    )
    files, old, web = entries
    assert (files.name_prefix, old.uri_prefix) == ("files_", "old+")
    assert (files.command, files.args, files.env, files.cwd) == (
        "npx",
        ["-y", "srv"],
        {"PORT": "8080"},
        "/srv",
    )
    assert (web.url, web.headers, web.sse) == (
        "https://h/mcp",
        {"Authorization": "Bearer t"},
        False,
    )
    assert old.sse
