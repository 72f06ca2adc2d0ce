"""The server of ``test_listen.py``: one ``subscriptions/listen`` stream at a time
(``max_listen_streams=1``, so a second listen is refused until the first is let go) and a
``change`` tool that makes changes a listener asked for and changes it did not ask for. Run as
a script it serves stdio."""

from __future__ import annotations

from ferromcp import Server


def make_server() -> Server:
    server = Server("listen-test", version="1.0", max_listen_streams=1)
    changes = [0]

    @server.resource("mem://a")
    def a() -> str:
        return "a"

    @server.tool()
    def change() -> str:
        """Adds a prompt and updates mem://other (not asked for), then adds a tool and updates
        mem://a (asked for)."""
        changes[0] += 1
        n = changes[0]

        @server.prompt(name=f"late_prompt_{n}")
        def late_prompt() -> str:
            return "p"

        server.notify_resource_updated("mem://other")

        @server.tool(name=f"late_tool_{n}")
        def late_tool() -> str:
            return "t"

        server.notify_resource_updated("mem://a")
        return "changed"

    return server


if __name__ == "__main__":
    make_server().run()
