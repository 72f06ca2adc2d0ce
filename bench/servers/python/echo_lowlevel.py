"""Echo server on the official Python SDK's low-level Server (mcp 2.3.0).

Usage: echo_lowlevel.py stdio | http PORT [stateful|stateless|json]
"""

import sys

import anyio
from mcp import types
from mcp.server.lowlevel import Server

ECHO = types.Tool(
    name="echo",
    description="Echoes the text back",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
)


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[ECHO])


async def call_tool(ctx, params):
    if params.name != "echo":
        raise ValueError(f"unknown tool {params.name}")
    text = (params.arguments or {}).get("text", "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("bench-lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


async def stdio():
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http(port: int, mode: str):
    import uvicorn

    app = server.streamable_http_app(
        stateless_http=mode != "stateful", json_response=mode == "json"
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] == "stdio":
        anyio.run(stdio)
    else:
        http(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "stateful")
