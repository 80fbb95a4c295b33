"""The MCP server over reverie's tools."""
