"""A small ferromcp server over stdio: echo/add/slow tools, a resource, a template and a prompt.

Run it directly (``python echo_server.py``) or let ``client.py`` spawn it.
"""

from __future__ import annotations

import asyncio

from ferromcp import Context, Server

server = Server("echo-server", version="1.0.0", instructions="Echoes things back.")


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
async def countdown(steps: int, ctx: Context, delay: float = 0.01) -> str:
    """Counts down, reporting progress and logging each step."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await ctx.info(f"step {i + 1} of {steps}")
        await asyncio.sleep(delay)
    return f"counted {steps} steps"


@server.resource("greeting://hello", mime_type="text/plain")
def hello() -> str:
    """A fixed greeting."""
    return "Hello, world!"


@server.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A personal greeting."""
    return f"Hello, {name}!"


@server.prompt()
def review(code: str, language: str = "python") -> str:
    """Asks for a code review."""
    return f"Please review this {language} code:\n\n{code}"


@server.completion(prompt="review", argument="language")
def languages(value: str) -> list[str]:
    """Completes language names."""
    return [x for x in ["python", "rust", "swift", "typescript"] if x.startswith(value)]


if __name__ == "__main__":
    server.run()
