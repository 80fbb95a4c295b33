"""Agent tools: each one JSON schema plus one handler, served unchanged as OpenAI-style function
definitions and as MCP tools."""

from ..lazy_exports import lazy_exports

# each imported on first use: memory_get alone (reverie get) needs none of the others' packages
__getattr__ = lazy_exports(__name__, {
    ".base": ("Tool", "ToolError", "openai_definitions"),
    ".intent": ("intent_list_tool", "intent_tool"),
    ".memory": ("memory_tools",),
    ".sessions": ("sessions_tools",),
    ".tables": ("table_tools",),
})

__all__ = ["Tool", "ToolError", "openai_definitions", "memory_tools", "intent_tool", "intent_list_tool",
           "sessions_tools", "table_tools"]
