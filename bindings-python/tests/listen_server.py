"""The server of ``test_listen.py``: one ``subscriptions/listen`` stream at a time
(``max_listen_streams=1``, so a second listen is refused until the first is let go) and a
``change`` tool that makes changes a listener asked for and changes it did not ask for. Run as
a script it serves stdio; with ``--stop-tool`` (under ``run()``) or ``--async-stop-tool`` (under
``run_stdio_async()``), also a ``stop`` tool that stops serving (``Server.stop()``) while it
answers; with ``--cancel-tool``, a ``stop`` tool that cancels the task running
``run_stdio_async()``."""

from __future__ import annotations

import sys

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


async def _serve_cancellable(server: Server) -> None:
    """``run_stdio_async()`` in a task that the ``stop`` tool cancels."""
    import asyncio

    serving = asyncio.ensure_future(server.run_stdio_async())

    @server.tool()
    async def stop() -> str:
        """Stops serving stdio by cancelling the serving task."""
        serving.cancel()
        return "stopping"

    try:
        await serving
    except asyncio.CancelledError:
        pass


if __name__ == "__main__":
    server = make_server()
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "--cancel-tool":
        import asyncio

        asyncio.run(_serve_cancellable(server))
    else:
        if mode in ("--stop-tool", "--async-stop-tool"):

            @server.tool()
            def stop() -> str:
                """Stops serving stdio."""
                server.stop()
                return "stopping"

        if mode == "--async-stop-tool":
            import asyncio

            asyncio.run(server.run_stdio_async())
        else:
            server.run()
