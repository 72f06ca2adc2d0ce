"""The official SDK's ``mcp.shared.exceptions`` names: :class:`ferromcp.errors.McpError`
(``MCPError``) and :class:`~ferromcp.errors.UrlElicitationRequiredError`."""

from __future__ import annotations

from ..errors import MCPError, McpError, UrlElicitationRequiredError

__all__ = ["MCPError", "McpError", "UrlElicitationRequiredError"]
