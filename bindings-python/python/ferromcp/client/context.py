"""``ClientRequestContext`` under the official SDK's module name (``mcp.client.context``)."""

from __future__ import annotations

from .session import ClientRequestContext

__all__ = ["ClientRequestContext"]
