"""The official SDK's ``mcp.server.mcpserver.prompts`` names: ``from ferromcp.prompts import
base`` gives ``base.Message``, ``base.UserMessage`` and ``base.AssistantMessage`` for prompts
that return a list of messages."""

from . import base

__all__ = ["base"]
