"""Agent tools: each one JSON schema plus one handler, served unchanged as OpenAI-style function
definitions and as MCP tools."""

from .base import Tool, ToolError, openai_definitions
from .intent import intent_list_tool, intent_tool
from .memory import memory_tools
from .sessions import sessions_tools
from .tables import table_tools

__all__ = ["Tool", "ToolError", "openai_definitions", "memory_tools", "intent_tool", "intent_list_tool",
           "sessions_tools", "table_tools"]
