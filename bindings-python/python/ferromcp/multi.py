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
``MultiClient.from_config(config, servers={"calc": server})`` adds ``Server`` objects of this
program beside the configured servers (or alone, ``config=None``), connected in memory: a file
cannot name them, a program can.

Defined in :mod:`ferromcp.client`, beside ``Client`` (``Client.from_config`` makes a
``MultiClient``, which is made of ``Client`` objects: one module, so no import circle).
"""

from __future__ import annotations

from .client import ConfigError, InProcessEntry, MultiClient, ServerEntry, parse_config

__all__ = ["ConfigError", "InProcessEntry", "MultiClient", "ServerEntry", "parse_config"]
