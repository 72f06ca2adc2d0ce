"""A ferromcp server over stdio whose answers carry its name (the first argument): a second,
different server beside examples/python/echo_server.py for the multi-client tests. It shares
the tool name ``echo`` with the echo server but answers ``"<name>: <text>"``, and has a tool,
a resource and a prompt the echo server does not have."""

from __future__ import annotations

import sys

from ferromcp import Server

NAME = sys.argv[1] if len(sys.argv) > 1 else "named"
server = Server(NAME, version="1.0.0")


@server.tool()
def echo(text: str) -> str:
    """Returns the text after this server's name."""
    return f"{NAME}: {text}"


@server.tool()
def whoami() -> str:
    """This server's name."""
    return NAME


@server.resource("name://self", mime_type="text/plain")
def self_name() -> str:
    """This server's name, as a resource."""
    return f"I am {NAME}"


@server.prompt()
def introduce(topic: str) -> str:
    """Asks this server to introduce a topic."""
    return f"{NAME} introduces {topic}"


if __name__ == "__main__":
    server.run()
