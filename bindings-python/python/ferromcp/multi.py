"""``MultiClient``: one client object over every server of an ``mcpServers`` configuration (the
JSON Claude Desktop, Cursor and VS Code read), their tools, resources and prompts namespaced by
server name as ``ferromcp proxy`` does (docs/gateway.md):

- with one server nothing is renamed;
- with several, a tool or prompt ``read_file`` of server ``files`` is ``files_read_file``, and a
  resource ``file:///a.txt`` is ``files+file:///a.txt`` (the URI scheme gains ``NAME+``).

The configuration is read by the engine (``ferromcp::client::mcp_servers``, the same reader as
the proxy's and the Node and Swift clients'): entries, errors and name prefixes come from there.
Entries: ``command`` (+ ``args``, ``env``, ``cwd``) for a server started over stdio; ``url`` (+
``headers``) for Streamable HTTP, with ``"type": "sse"`` for the legacy HTTP+SSE transport;
``"disabled": true`` leaves one out; VS Code's ``{"servers": {...}}`` is read the same way. A
wrong entry raises :class:`ConfigError` naming the key at fault, before anything starts.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import _native
from .client import Client
from .results import CallToolResult, GetPromptResult, ReadResourceResult, Tool

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ConfigError", "MultiClient", "ServerEntry", "parse_config"]


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
        cls, config: Mapping[str, Any] | str | os.PathLike[str], **client_options: Any
    ) -> MultiClient:
        """A client of every server in ``config``: an ``mcpServers`` document as a dict, its
        JSON text, or the path of a file holding it. ``client_options`` go to each server's
        :class:`Client` (``sampling_handler``, ``roots``, ``timeout``, ...)."""
        return cls(parse_config(config), **client_options)

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
