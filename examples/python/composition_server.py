"""A stdio MCP server built from others: a weather server mounted under ``weather`` (live), a
notes server imported under ``notes`` (copied once), a tool made from another by a transform,
and an authorization layer that hides the ``*admin_*`` tools from callers without the ``admin``
scope (over stdio there is no token, so they stay hidden).

The same scenario as examples/rust/src/composition_server.rs, bindings-node/examples/
composition_server.mts and examples/swift's CompositionServer; tests/examples/check.mjs runs all
four with the official TypeScript SDK client and checks each answer.

Run it under any MCP client (it speaks on stdin/stdout): ``python composition_server.py``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ferromcp import Server
from ferromcp.composition import ArgTransform, Authorization


def forecast(
    city: str, units: Literal["metric", "imperial"], days: Annotated[int, Field(ge=1)] = 1
) -> dict[str, Any]:
    """The forecast for a city."""
    return {
        "city": city,
        "days": [{"day": d, "high": 20 + d, "low": 10 + d, "units": units} for d in range(days)],
    }


def weather() -> Server:
    """``forecast`` and a resource ``weather://stations``."""
    server = Server("weather", version="1.0.0")
    server.tool()(forecast)

    @server.resource("weather://stations", name="stations")
    def stations() -> str:
        return "Oslo, Lima"

    return server


def notes() -> Server:
    """``add(text)`` and ``admin_purge()``."""
    server = Server("notes", version="1.0.0")

    @server.tool()
    def add(text: str) -> str:
        return f'noted: "{text}"'

    @server.tool()
    def admin_purge() -> str:
        return "purged"

    return server


# Added before the mount, so it sees the mounted and imported items too.
server = Server(
    "composed",
    version="1.0.0",
    middleware=[Authorization([("tool", "*admin_*", ["admin"])])],
)
server.mount("weather", weather())  # weather_forecast, weather://weather/stations
server.import_server("notes", notes())  # notes_add, notes_admin_purge (hidden)

# A tool made from `forecast`: metric only, three days at most, the highs alone. The original
# is registered here only to be transformed, then removed (the transform keeps its handler).
server.tool()(forecast)
server.transform_tool(
    "forecast",
    "highs",
    description="Daily highs in degrees Celsius for a city.",
    arguments={
        "city": ArgTransform(name="place"),
        "units": ArgTransform(hide=True, default="metric"),
        "days": ArgTransform(default=3, constraints={"maximum": 3}),
    },
    transform_output=lambda out: {"highs": [d["high"] for d in out["days"]]},
    output_schema={
        "type": "object",
        "properties": {"highs": {"type": "array", "items": {"type": "integer"}}},
        "required": ["highs"],
    },
)
server.remove_tool("forecast")

if __name__ == "__main__":
    server.run()
