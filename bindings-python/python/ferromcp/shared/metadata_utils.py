"""``get_display_name`` (the official SDK's ``mcp.shared.metadata_utils``)."""

from __future__ import annotations

from typing import Any

__all__ = ["get_display_name"]


def get_display_name(obj: Any) -> str:
    """The name to show for a tool, resource, template, prompt or implementation: its
    ``title``, for a tool then its ``annotations.title``, else its ``name``."""
    title = getattr(obj, "title", None)
    if title is not None:
        return str(title)
    if type(obj).__name__ == "Tool":
        annotations = getattr(obj, "annotations", None)
        if isinstance(annotations, dict):
            title = annotations.get("title")
        else:
            title = getattr(annotations, "title", None)
        if title is not None:
            return str(title)
    return str(obj.name)
