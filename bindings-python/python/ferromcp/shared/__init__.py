"""Helpers under the official SDK's ``mcp.shared`` module names (``metadata_utils``,
``exceptions``), so that SDK client code ports by changing its imports."""
