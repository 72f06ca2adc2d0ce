"""Echo server on the official Python SDK's high-level API (MCPServer, mcp 2.3.0).

Usage: echo_mcpserver.py stdio | http PORT [stateful|stateless|json]
"""
import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("bench-mcpserver", log_level="WARNING")


@mcp.tool()
def echo(text: str) -> str:
    """Echoes the text back."""
    return text


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        port = int(sys.argv[2])
        mode = sys.argv[3] if len(sys.argv) > 3 else "stateful"
        mcp.run(
            "streamable-http",
            host="127.0.0.1",
            port=port,
            stateless_http=mode != "stateful",
            json_response=mode == "json",
        )
