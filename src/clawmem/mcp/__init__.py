"""The MCP server over clawmem's tools."""
