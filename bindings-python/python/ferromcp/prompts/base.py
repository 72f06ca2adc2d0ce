"""Prompt messages as the official SDK's ``mcp.server.mcpserver.prompts.base`` has them: a
prompt function may return ``[UserMessage("..."), AssistantMessage("...")]``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from ..types import MCPModel, TextContent, to_wire


class Message(MCPModel):
    """A prompt message. ``content``: a string (a text block), an ``Image``/``Audio``/``File``
    helper, or a content block (a model or dict)."""

    role: Literal["user", "assistant"]
    content: Any

    def __init__(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, str):
            content = TextContent(text=content)
        elif getattr(type(content), "__mcp_content__", False) is True:
            content = content.to_content()
        else:
            content = to_wire(content)
        BaseModel.__init__(self, content=content, **kwargs)


class UserMessage(Message):
    """A message from the user."""

    role: Literal["user", "assistant"] = "user"

    def __init__(self, content: Any, **kwargs: Any) -> None:
        super().__init__(content=content, **kwargs)


class AssistantMessage(Message):
    """A message from the assistant."""

    role: Literal["user", "assistant"] = "assistant"

    def __init__(self, content: Any, **kwargs: Any) -> None:
        super().__init__(content=content, **kwargs)


__all__ = ["AssistantMessage", "Message", "UserMessage"]
