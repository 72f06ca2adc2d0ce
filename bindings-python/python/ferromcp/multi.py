"""``MultiClient``: one client object over every server of an ``mcpServers`` configuration (the
JSON Claude Desktop, Cursor and VS Code read), their tools, resources and prompts namespaced by
server name as ``ferromcp proxy`` does (docs/gateway.md):

- with one server nothing is renamed;
- with several, a tool or prompt ``read_file`` of server ``files`` is ``files_read_file``, and a
  resource ``file:///a.txt`` is ``files+file:///a.txt`` (the URI scheme gains ``NAME+``).

Entries: ``command`` (+ ``args``, ``env``, ``cwd``) for a server started over stdio; ``url`` (+
``headers``) for Streamable HTTP, with ``"type": "sse"`` for the legacy HTTP+SSE transport;
``"disabled": true`` leaves one out; VS Code's ``{"servers": {...}}`` is read the same way. A
wrong entry raises :class:`ConfigError` naming the key at fault, before anything starts.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .client import Client
from .results import CallToolResult, GetPromptResult, ReadResourceResult, Tool

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ConfigError", "MultiClient", "ServerEntry", "parse_config"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9.-]*\Z")
_STDIO_TYPES = {"stdio"}
_HTTP_TYPES = {"http", "streamable-http", "streamableHttp"}
_SSE_TYPES = {"sse"}


class ConfigError(ValueError):
    """A wrong ``mcpServers`` configuration: ``path`` names the key at fault
    (``mcpServers.files.args[1]``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class ServerEntry:
    """One server of a configuration: started (``command``) or reached (``url``)."""

    def __init__(
        self,
        name: str,
        *,
        command: str | None = None,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        url: str | None = None,
        headers: dict[str, str] | None = None,
        sse: bool = False,
    ) -> None:
        self.name = name
        self.command = command
        self.args = list(args or [])
        self.env = dict(env or {})
        self.cwd = cwd
        self.url = url
        self.headers = dict(headers or {})
        self.sse = sse

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


def _strings(path: str, value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        raise ConfigError(path, f"must be a list of {what}")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise ConfigError(f"{path}[{i}]", "must be a string")
    return list(value)


def _string_map(path: str, value: Any, numbers: bool) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigError(path, "must be an object of strings")
    out: dict[str, str] = {}
    for k, v in value.items():
        if isinstance(v, str):
            out[k] = v
        elif numbers and isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = json.dumps(v)
        else:
            raise ConfigError(f"{path}.{k}", "must be a string")
    return out


def _entry(path: str, name: str, raw: Any) -> ServerEntry | None:
    if not isinstance(raw, dict):
        raise ConfigError(path, "a server entry must be an object")
    disabled = raw.get("disabled")
    if disabled is not None and not isinstance(disabled, bool):
        raise ConfigError(f"{path}.disabled", "must be true or false")
    if disabled:
        return None
    if "type" in raw and "transport" in raw:
        raise ConfigError(path, 'has both "type" and "transport"; keep one')
    key = "type" if "type" in raw else "transport"
    kind = raw.get(key)
    if kind is not None and (
        not isinstance(kind, str) or kind not in _STDIO_TYPES | _HTTP_TYPES | _SSE_TYPES
    ):
        raise ConfigError(
            f"{path}.{key}", f'unknown transport {kind!r}: use "stdio", "http" or "sse"'
        )
    command, url = raw.get("command"), raw.get("url")
    if command is not None and url is not None:
        raise ConfigError(
            path,
            'has both "command" and "url": a server is either started (command) or reached (url)',
        )
    if command is None and url is None:
        raise ConfigError(path, 'needs "command" (a server to start) or "url" (one to reach)')
    if command is not None:
        if not isinstance(command, str) or not command:
            raise ConfigError(f"{path}.command", "must be a non-empty string")
        if kind is not None and kind not in _STDIO_TYPES:
            raise ConfigError(path, f'has "command" but transport {kind!r}; use "url"')
        if "headers" in raw:
            raise ConfigError(f"{path}.headers", "applies to URL servers, not to a command")
        cwd = raw.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ConfigError(f"{path}.cwd", "must be a string")
        return ServerEntry(
            name,
            command=command,
            args=_strings(f"{path}.args", raw.get("args", []), "strings"),
            env=_string_map(f"{path}.env", raw.get("env", {}), numbers=True),
            cwd=cwd,
        )
    if not isinstance(url, str) or not re.match(r"https?://", url):
        raise ConfigError(f"{path}.url", f"{url!r} is not an http:// or https:// URL")
    if kind is not None and kind in _STDIO_TYPES:
        raise ConfigError(path, 'has "url" but transport "stdio"; use "command"')
    for k in ("env", "cwd", "args"):
        if k in raw:
            raise ConfigError(f"{path}.{k}", 'applies to started servers ("command"), not to a URL')
    return ServerEntry(
        name,
        url=url,
        headers=_string_map(f"{path}.headers", raw.get("headers", {}), numbers=False),
        sse=kind in _SSE_TYPES,
    )


def parse_config(config: Mapping[str, Any]) -> list[ServerEntry]:
    """The servers of an ``mcpServers`` (or VS Code ``servers``) document, sorted by name;
    raises :class:`ConfigError`."""
    if not isinstance(config, Mapping):
        raise ConfigError("", "the configuration must be a JSON object")
    if "mcpServers" in config and "servers" in config:
        raise ConfigError("", 'both "mcpServers" and "servers" are present; keep one')
    key = "mcpServers" if "mcpServers" in config else "servers"
    servers = config.get(key)
    if not isinstance(servers, dict) or not servers:
        raise ConfigError(key, "must be an object with at least one server")
    entries = [
        e
        for name in sorted(servers)
        if (e := _entry(f"{key}.{name}", name, servers[name])) is not None
    ]
    if not entries:
        raise ConfigError(key, "every server is disabled")
    if len(entries) > 1:
        for e in entries:
            if not _NAME.match(e.name):
                raise ConfigError(
                    f"{key}.{e.name}",
                    "a server name must start with a letter and hold only letters, digits, "
                    "'-' and '.' to be a namespace",
                )
    return entries


def _load(config: Mapping[str, Any] | str | os.PathLike[str]) -> Mapping[str, Any]:
    if isinstance(config, Mapping):
        return config
    text = os.fspath(config)
    if isinstance(config, str) and text.lstrip().startswith("{"):
        source, raw = "the configuration", text
    else:
        source, raw = text, Path(text).read_text(encoding="utf-8")
    try:
        loaded = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ConfigError("", f"{source} is not JSON: {e}") from None
    if not isinstance(loaded, dict):
        raise ConfigError("", "the configuration must be a JSON object")
    return loaded


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
        self._namespaced = len(entries) > 1
        # Servers by name, longest first: a prefix match finds the most specific.
        self._by_length = sorted((e.name for e in entries), key=len, reverse=True)

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any] | str | os.PathLike[str], **client_options: Any
    ) -> MultiClient:
        """A client of every server in ``config``: an ``mcpServers`` document as a dict, its
        JSON text, or the path of a file holding it. ``client_options`` go to each server's
        :class:`Client` (``sampling_handler``, ``roots``, ``timeout``, ...)."""
        return cls(parse_config(_load(config)), **client_options)

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
        return f"{server}_{name}" if self._namespaced else name

    def _uri(self, server: str, uri: str) -> str:
        return f"{server}+{uri}" if self._namespaced else uri

    def _split_name(self, name: str) -> tuple[Client, str]:
        if not self._namespaced:
            return self[self._entries[0].name], name
        for server in self._by_length:
            if name.startswith(server + "_") and len(name) > len(server) + 1:
                return self[server], name[len(server) + 1 :]
        raise ValueError(
            f"{name!r} names no server: namespaced names start with one of {self.names} and '_'"
        )

    def _split_uri(self, uri: str) -> tuple[Client, str]:
        if not self._namespaced:
            return self[self._entries[0].name], uri
        for server in self._by_length:
            if uri.startswith(server + "+"):
                return self[server], uri[len(server) + 1 :]
        raise ValueError(
            f"{uri!r} names no server: namespaced URIs start with one of {self.names} and '+'"
        )

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
