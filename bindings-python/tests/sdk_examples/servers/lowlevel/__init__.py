"""Low-level server examples for MCP Python SDK."""
